//! What both halves of `cargo xtask` share: the project file, `manifests`, and the helpers
//! for running cargo from the workspace root. The lean `xtask` binary (this package) runs
//! `manifests` itself and hands every other command to `xtask-cluster` (in `cluster/`),
//! which carries kube, tokio and the control plane's code, so the main job builds in about a
//! quarter of the crates.

pub mod manifests;
pub mod project;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail};

/// The commands `xtask-cluster` runs; the lean binary hands them over with their arguments
/// as written (clap would take a `--` of theirs away), so only the name is looked at.
pub const CLUSTER_COMMANDS: &[&str] = &[
    "envtest",
    "install",
    "uninstall",
    "run",
    "test",
    "bench-operator",
    "bench-gen",
    "known-types",
];

/// The workspace root (xtask lives one level below it).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is inside the workspace")
        .to_path_buf()
}

/// The workspace's target directory as cargo resolves it (`CARGO_TARGET_DIR`,
/// `build.target-dir`, else `target/`), where the release binaries the benchmarks run are.
pub fn target_dir() -> Result<PathBuf> {
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .context("running cargo metadata")?;
    if !out.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("reading cargo metadata's output")?;
    meta["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .context("cargo metadata names no target_directory")
}

/// `cargo` (the one running us, when there is one) in the workspace root.
pub fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

/// Runs one step of a command, announced, failing with its name.
pub fn run_step(name: &str, cmd: &mut Command) -> Result<()> {
    eprintln!("==> {name}");
    let status = cmd.status().with_context(|| format!("starting {name}"))?;
    if !status.success() {
        bail!("{name} failed ({status})");
    }
    Ok(())
}
