//! Stage five: typed objects become YAML artifacts (and the CRD generator, whose files are
//! its CRDs rendered). Where the artifacts go (a directory, a check against what is on
//! disk, or memory) is the [`sink`](crate::sink)'s business; its functions are re-exported
//! here.

pub use crate::sink::{Drift, Layout, check, recover, write_all};

use crate::api::Resource;
use crate::api::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

use crate::generator::{Generator, Reads};
use crate::yaml::Node;
use crate::{Generated, Options, yaml};

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// Which generator made it.
    pub kind: ArtifactKind,
    /// The file's name, relative to the generator's directory.
    pub file_name: String,
    /// What the file holds.
    pub contents: String,
}

pub use crate::generator::ArtifactKind;
pub use crate::rbac::ROLE_FILE;

/// Serialises an object ([`crate::api`]'s or k8s-openapi's) to JSON the way Go's
/// encoding/json would write it: integral floats (minimum: 0) print as integers.
pub fn to_json<T: serde::Serialize>(obj: &T) -> Value {
    let mut v = serde_json::to_value(obj).expect("the objects it writes always serialise");
    integral_floats_to_ints(&mut v);
    v
}

fn integral_floats_to_ints(v: &mut Value) {
    match v {
        Value::Number(n) => *n = yaml::integral(n.clone()),
        Value::Array(items) => items.iter_mut().for_each(integral_floats_to_ints),
        Value::Object(map) => map.values_mut().for_each(integral_floats_to_ints),
        _ => {}
    }
}

/// A top-level object as a YAML document (its serialisation carries its `apiVersion` and
/// `kind`).
pub(crate) fn document<T: serde::Serialize + Resource>(obj: &T) -> Node {
    // Straight to the writer's tree, without a JSON value in between: for a large API
    // this is most of the work of rendering.
    yaml::to_node(obj)
}

/// The CRD generator: root kinds to `crd/bases/<group>_<plural>.yaml`, each CRD rendered on
/// the thread that built it.
#[derive(Debug)]
pub struct CrdGenerator;

impl Generator for CrdGenerator {
    fn name(&self) -> &'static str {
        "crd"
    }

    fn help(&self) -> &'static str {
        "CustomResourceDefinitions from #[resource] kinds, into crd/bases/<group>_<plural>.yaml"
    }

    fn dir(&self) -> &'static str {
        "crd/bases"
    }

    /// `crd/bases` holds only generated files (kubebuilder's `kustomization.yaml` is one
    /// level up), so every YAML file directly in it is this generator's.
    fn owns(&self, path: &str) -> bool {
        path.ends_with(".yaml") && !path.contains('/')
    }

    fn reads(&self) -> Reads {
        Reads {
            each_crd: true,
            ..Default::default()
        }
    }

    fn crd_files(&self, crd: &CustomResourceDefinition, _options: &Options) -> Vec<Artifact> {
        vec![crd_artifact(crd)]
    }
}

/// The file name of a CRD: `<group>_<plural>.yaml`.
pub fn crd_file_name(crd: &CustomResourceDefinition) -> String {
    format!("{}_{}.yaml", crd.spec.group, crd.spec.names.plural)
}

/// The YAML of one CRD, exactly as it is written to disk.
pub fn crd_yaml(crd: &CustomResourceDefinition) -> String {
    yaml::to_yaml_stream(&[document(crd)])
}

/// The file of one CRD.
pub fn crd_artifact(crd: &CustomResourceDefinition) -> Artifact {
    Artifact {
        kind: ArtifactKind::CRD,
        file_name: crd_file_name(crd),
        contents: crd_yaml(crd),
    }
}

impl Generated {
    /// All files, in a fixed order: generators in registration order, CRDs by file name.
    pub fn artifacts(&self) -> Vec<Artifact> {
        self.files.clone()
    }
}

/// Why `path` cannot be a generator's file name, if it cannot: it must be a relative path
/// of plain names (`crd/x.yaml` under a generator's directory), none of them hidden (the
/// sink's staging and backup files are hidden) or `.`/`..`.
pub fn path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("is empty");
    }
    if path.starts_with('/') || path.contains('\\') {
        return Some("is not a relative path with `/` between its parts");
    }
    for part in path.split('/') {
        if part.is_empty() {
            return Some("has an empty part (`//` or a trailing `/`)");
        }
        if part.starts_with('.') {
            return Some("has a part that starts with `.` (hidden, `.` or `..`)");
        }
    }
    None
}

/// `f` over `items` on up to `available_parallelism` threads, results in the order of `items`.
/// Small inputs stay on the calling thread.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    const MIN_PER_THREAD: usize = 16;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len() / MIN_PER_THREAD)
        .max(1);
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                // Rendering recurses once per level of nesting, as parsing does.
                std::thread::Builder::new()
                    .stack_size(crate::pipeline::WORKER_STACK)
                    .spawn_scoped(scope, move || part.iter().map(f).collect::<Vec<R>>())
                    .expect("a worker thread starts")
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}
