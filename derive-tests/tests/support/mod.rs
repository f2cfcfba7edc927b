//! What the tests that build crates outside the workspace share.

use std::path::{Path, PathBuf};

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The profiles of the crates these tests build (as the workspace's: dependencies
/// optimised a little and without debug info, line tables for the crate itself).
pub const PROFILES: &str = "[profile.dev]\ndebug = \"line-tables-only\"\n\n\
                            [profile.dev.package.\"*\"]\nopt-level = 1\ndebug = false\n";

/// The `[workspace.dependencies]` line of `name`, for a manifest outside the workspace.
pub fn dependency_line(workspace_manifest: &str, name: &str) -> String {
    workspace_manifest
        .lines()
        .find(|l| l.starts_with(&format!("{name} = ")))
        .unwrap_or_else(|| panic!("{name} is a workspace dependency"))
        .to_string()
}

/// The dependency lines of every crate these tests build beside the UI cases (but the
/// derive's own, and schemars where a crate wants it): k8s-openapi, serde and serde_json
/// with the feature `alloc`, and kube's core. schemars turns `alloc` on; with the same
/// features asked by every crate, with schemars or without, serde and all that is built on
/// it (serde_json, k8s-openapi, kube-core) are built once in the shared target directory,
/// not once for each feature set.
pub fn case_dependencies(workspace_manifest: &str) -> Vec<String> {
    let with_alloc = |name: &str| {
        let line = dependency_line(workspace_manifest, name);
        let (key, value) = line.split_once(" = ").unwrap();
        if let Some(version) = value.strip_prefix('"') {
            format!("{key} = {{ version = \"{version}, features = [\"alloc\"] }}")
        } else if value.contains("features = [") {
            line.replacen("features = [", "features = [\"alloc\", ", 1)
        } else {
            let inner = value.trim_end().strip_suffix('}').expect("an inline table");
            format!("{key} = {}, features = [\"alloc\"] }}", inner.trim_end())
        }
    };
    vec![
        dependency_line(workspace_manifest, "k8s-openapi"),
        with_alloc("serde"),
        with_alloc("serde_json"),
        kube_core_only(workspace_manifest),
    ]
}

/// The value of `key = "..."` in a one-line dependency.
fn string_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(&format!("{key} = \""))? + key.len() + 4;
    line[at..].split('"').next()
}

/// A dependency line for kube without its client and runtime (the derives' code uses
/// `kube::core` only), at the workspace's version of kube. Panics when this crate's own
/// kube dev-dependency (which trybuild's cases use) is at another version.
pub fn kube_core_only(workspace_manifest: &str) -> String {
    let workspace = dependency_line(workspace_manifest, "kube");
    let version = string_value(&workspace, "version").expect("kube's version");
    let own =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let own_line = own
        .lines()
        .find(|l| l.starts_with("kube = "))
        .expect("kube is a dev-dependency of operator-derive-tests");
    assert_eq!(
        string_value(own_line, "version"),
        Some(version),
        "derive-tests/Cargo.toml pins kube at another version than the workspace"
    );
    format!("kube = {{ version = \"{version}\", default-features = false }}")
}
