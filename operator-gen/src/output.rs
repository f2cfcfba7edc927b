//! Stage five: typed objects become YAML artifacts, and artifacts go to a sink: a directory
//! (all files or none), a check against what is on disk, or memory. What is generated is
//! separate from where it goes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use k8s_openapi::Resource as _;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use serde_json::Value;

use crate::yaml::Node;
use crate::{Generated, RbacRole, docs, yaml};

/// Which generator made an artifact; the sink maps kinds to directories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ArtifactKind {
    Crd,
    Rbac,
}

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    pub kind: ArtifactKind,
    pub file_name: String,
    pub contents: String,
}

/// Where each kind of artifact goes (kubebuilder: `config/crd/bases`, `config/rbac`).
#[derive(Debug, Clone)]
pub struct Layout {
    pub crd_dir: PathBuf,
    pub rbac_dir: PathBuf,
}

impl Layout {
    /// kubebuilder's layout under a `config/` directory.
    pub fn kubebuilder(config: &Path) -> Self {
        Self {
            crd_dir: config.join("crd").join("bases"),
            rbac_dir: config.join("rbac"),
        }
    }

    pub fn path_of(&self, artifact: &Artifact) -> PathBuf {
        match artifact.kind {
            ArtifactKind::Crd => self.crd_dir.join(&artifact.file_name),
            ArtifactKind::Rbac => self.rbac_dir.join(&artifact.file_name),
        }
    }
}

/// The RBAC file name controller-gen uses.
pub const ROLE_FILE: &str = "role.yaml";

/// Serialises a k8s-openapi object to JSON the way Go's encoding/json would write it:
/// integral floats (minimum: 0) print as integers.
pub fn to_json<T: serde::Serialize>(obj: &T) -> Value {
    let mut v = serde_json::to_value(obj).expect("k8s-openapi objects always serialise");
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

/// `obj` as a YAML document with its `apiVersion` and `kind`.
fn document<T: serde::Serialize>(obj: &T, api_version: &'static str, kind: &'static str) -> Node {
    // Straight to the writer's tree, without a JSON value in between: for a large API
    // this is most of the work of rendering.
    let mut node = yaml::to_node(obj);
    node.insert("apiVersion", Node::String(api_version.into()));
    node.insert("kind", Node::String(kind.into()));
    node
}

/// The file name of a CRD: `<group>_<plural>.yaml`.
pub fn crd_file_name(crd: &CustomResourceDefinition) -> String {
    format!("{}_{}.yaml", crd.spec.group, crd.spec.names.plural)
}

/// The YAML of one CRD, exactly as it is written to disk.
pub fn crd_yaml(crd: &CustomResourceDefinition) -> String {
    yaml::to_yaml_stream(&[document(
        crd,
        CustomResourceDefinition::API_VERSION,
        CustomResourceDefinition::KIND,
    )])
}

/// The file of one CRD.
pub fn crd_artifact(crd: &CustomResourceDefinition) -> Artifact {
    Artifact {
        kind: ArtifactKind::Crd,
        file_name: crd_file_name(crd),
        contents: crd_yaml(crd),
    }
}

/// All files in their fixed order: the CRD files by name, then the role file (when there
/// are roles).
pub(crate) fn with_roles(mut crds: Vec<Artifact>, roles: &[RbacRole]) -> Vec<Artifact> {
    crds.sort_by(|a, b| a.file_name.cmp(&b.file_name));
    if !roles.is_empty() {
        let docs: Vec<Node> = roles
            .iter()
            .map(|r| match r {
                RbacRole::Cluster(c) => document(c, "rbac.authorization.k8s.io/v1", "ClusterRole"),
                RbacRole::Namespaced(r) => document(r, "rbac.authorization.k8s.io/v1", "Role"),
            })
            .collect();
        crds.push(Artifact {
            kind: ArtifactKind::Rbac,
            file_name: ROLE_FILE.into(),
            contents: yaml::to_yaml_stream(&docs),
        });
    }
    crds
}

impl Generated {
    /// All files, in a fixed order: CRDs by file name, then the role file.
    pub fn artifacts(&self) -> Vec<Artifact> {
        // Rendering is independent per CRD: large APIs use every core.
        with_roles(parallel_map(&self.crds, crd_artifact), &self.roles)
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
            .map(|part| scope.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
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
    for v in &mut crd.spec.versions {
        if let Some(schema) = v
            .schema
            .as_mut()
            .and_then(|s| s.open_api_v3_schema.as_mut())
        {
            walk(schema, max);
        }
    }
}

/// A difference between generated and committed files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    /// The file on disk differs; `diff` is a unified diff (committed → generated).
    Changed {
        path: PathBuf,
        diff: String,
    },
    Missing {
        path: PathBuf,
    },
    /// A file in a generated directory that the generator no longer produces.
    Stale {
        path: PathBuf,
    },
}

impl std::fmt::Display for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Drift::Changed { path, diff } => write!(f, "{} is stale:\n{diff}", path.display()),
            Drift::Missing { path } => write!(f, "{} is missing", path.display()),
            Drift::Stale { path } => {
                write!(f, "{} is no longer generated (remove it)", path.display())
            }
        }
    }
}

/// YAML files in the CRD directory that `artifacts` does not produce. The CRD directory is
/// wholly generated, so these are leftovers of renamed or removed kinds.
fn stale_crd_files(artifacts: &[Artifact], layout: &Layout) -> Vec<PathBuf> {
    let produced: BTreeSet<PathBuf> = artifacts.iter().map(|a| layout.path_of(a)).collect();
    let Ok(entries) = std::fs::read_dir(&layout.crd_dir) else {
        return Vec::new();
    };
    let mut stale: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml") && !produced.contains(p))
        .collect();
    stale.sort();
    stale
}

/// Compares `artifacts` with the files on disk without writing anything.
pub fn check(artifacts: &[Artifact], layout: &Layout) -> Vec<Drift> {
    let mut drift = Vec::new();
    for a in artifacts {
        let path = layout.path_of(a);
        match std::fs::read_to_string(&path) {
            Err(_) => drift.push(Drift::Missing { path }),
            Ok(current) if current != a.contents => {
                let diff = similar::TextDiff::from_lines(&current, &a.contents)
                    .unified_diff()
                    .context_radius(3)
                    .header(
                        &format!("{} (committed)", path.display()),
                        &format!("{} (generated)", path.display()),
                    )
                    .to_string();
                drift.push(Drift::Changed { path, diff });
            }
            Ok(_) => {}
        }
    }
    drift.extend(
        stale_crd_files(artifacts, layout)
            .into_iter()
            .map(|path| Drift::Stale { path }),
    );
    drift
}

/// Writes every artifact, or none: each file is first written next to its target under a
/// temporary name, and only when all are written are they renamed into place. Stale CRD
/// files are removed afterwards. Files whose contents are unchanged are not touched.
/// Returns the paths that changed.
pub fn write_all(artifacts: &[Artifact], layout: &Layout) -> std::io::Result<Vec<PathBuf>> {
    let dirs: BTreeSet<PathBuf> = artifacts
        .iter()
        .map(|a| {
            layout
                .path_of(a)
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
        })
        .collect();
    for dir in &dirs {
        std::fs::create_dir_all(dir)?;
    }
    // Staging is independent per file (a read to compare, a write under a temporary name),
    // so large APIs stage on every core.
    let staged: Vec<std::io::Result<Option<(PathBuf, PathBuf)>>> = parallel_map(artifacts, |a| {
        let path = layout.path_of(a);
        if std::fs::read(&path).is_ok_and(|c| c == a.contents.as_bytes()) {
            return Ok(None);
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let tmp = dir.join(format!(".{}.operator-gen.tmp", a.file_name));
        std::fs::write(&tmp, &a.contents)?;
        Ok(Some((tmp, path)))
    });
    if let Some(pos) = staged.iter().position(Result::is_err) {
        for (tmp, _) in staged.iter().flatten().flatten() {
            let _ = std::fs::remove_file(tmp);
        }
        let mut staged = staged;
        return Err(staged.swap_remove(pos).expect_err("position of an error"));
    }
    let mut changed = Vec::new();
    for (tmp, path) in staged.into_iter().flatten().flatten() {
        std::fs::rename(&tmp, &path)?;
        changed.push(path);
    }
    for stale in stale_crd_files(artifacts, layout) {
        std::fs::remove_file(&stale)?;
        changed.push(stale);
    }
    Ok(changed)
}
