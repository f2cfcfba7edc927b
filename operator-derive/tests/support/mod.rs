//! What the tests that build crates outside the workspace share.

use std::path::{Path, PathBuf};

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The `[workspace.dependencies]` line of `name`, for a manifest outside the workspace.
pub fn dependency_line(workspace_manifest: &str, name: &str) -> String {
    workspace_manifest
        .lines()
        .find(|l| l.starts_with(&format!("{name} = ")))
        .unwrap_or_else(|| panic!("{name} is a workspace dependency"))
        .to_string()
}
