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
