//! What the tests that build crates outside the workspace share: the manifests' common part
//! comes from `operator_gen_conformance::outside`, which the conformance tests' crates
//! start from too, so the dependency tree under the derive is built once in the shared
//! target directory.

use std::path::Path;

pub use operator_gen_conformance::outside::{target_dir, workspace_root};

/// The dependency lines every crate these tests build starts from
/// (`outside::shared_dependencies`: operator-derive, k8s-openapi, serde, serde_json and
/// kube's core). Panics when this crate's own kube dev-dependency, which trybuild's cases
/// use, is at another version than the workspace's.
pub fn case_dependencies(workspace_manifest: &str) -> Vec<String> {
    let version = operator_gen_conformance::outside::kube_version(workspace_manifest);
    let own =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let own_line = own
        .lines()
        .find(|l| l.starts_with("kube = "))
        .expect("kube is a dev-dependency of operator-derive-tests");
    assert!(
        own_line.contains(&format!("version = \"{version}\"")),
        "derive-tests/Cargo.toml pins kube at another version than the workspace ({version}): {own_line}"
    );
    operator_gen_conformance::outside::shared_dependencies(workspace_manifest)
}
