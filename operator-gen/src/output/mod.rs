//! Stage five: typed objects become YAML artifacts. Where the artifacts go (a directory,
//! a check against what is on disk, or memory) is the [`sink`]'s business.

mod sink;

pub use sink::{Drift, Layout, check, recover, write_all};

use crate::api::Resource;
use crate::api::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use serde_json::Value;

use crate::yaml::Node;
use crate::{Generated, docs, yaml};

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    pub kind: ArtifactKind,
    pub file_name: String,
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
    /// All files, in a fixed order: CRDs by file name, then the other generators' files
    /// in registration order.
    pub fn artifacts(&self) -> Vec<Artifact> {
        // Rendering is independent per CRD: large APIs use every core.
        let mut files = parallel_map(&self.crds, crd_artifact);
        files.sort_by(|a, b| a.file_name.cmp(&b.file_name));
        files.extend(self.files.iter().cloned());
        files
    }
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

/// Applies `max_desc_len` to every description of a CRD's schemas.
pub fn truncate_descriptions(crd: &mut CustomResourceDefinition, max: usize) {
    for v in &mut crd.spec.versions {
        if let Some(schema) = v
            .schema
            .as_mut()
            .and_then(|s| s.open_api_v3_schema.as_mut())
        {
            truncate_schema_descriptions(schema, max);
        }
    }
}

/// Applies `max_desc_len` to every description of one schema and the schemas inside it.
pub fn truncate_schema_descriptions(schema: &mut JSONSchemaProps, max: usize) {
    fn walk(s: &mut JSONSchemaProps, max: usize) {
        s.description = s.description.take().and_then(|d| docs::truncate(&d, max));
        for p in s.properties.iter_mut().flat_map(|m| m.values_mut()) {
            walk(p, max);
        }
        match &mut s.items {
            Some(JSONSchemaPropsOrArray::Schema(i)) => walk(i, max),
            Some(JSONSchemaPropsOrArray::Schemas(list)) => {
                list.iter_mut().for_each(|i| walk(i, max))
            }
            None => {}
        }
        if let Some(JSONSchemaPropsOrBool::Schema(a)) = &mut s.additional_properties {
            walk(a, max);
        }
        for list in [&mut s.all_of, &mut s.any_of, &mut s.one_of]
            .into_iter()
            .flatten()
        {
            list.iter_mut().for_each(|i| walk(i, max));
        }
    }
    walk(schema, max);
}
