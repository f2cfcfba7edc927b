//! `cargo xtask` for operator projects, the lean half: the project file, `manifests`, the
//! front end ([`Xtask`]) and the helpers for running cargo from the project root. The front
//! end runs `manifests` itself and hands every other command to the project's cluster binary
//! (built on `operator-xtask-cluster`), which carries kube, tokio and the control plane's
//! code, so the main job builds in about a quarter of the crates.
//!
//! A project's `xtask/src/main.rs` (what `cargo operator init` writes):
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     operator_xtask::Xtask {
//!         cluster_package: "xtask-cluster",
//!         cluster_bin: "xtask-cluster",
//!         extra: &[],
//!     }
//!     .main()
//! }
//! ```

pub mod baseline;
pub mod cli;
pub mod manifests;
pub mod project;

pub use cli::{CLUSTER_COMMANDS, Xtask};

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result, bail};

/// The project root: the nearest directory holding `PROJECT.toml`, from the current directory
/// up (cargo runs `cargo xtask` where it was typed, which may be a sub-directory).
pub fn root() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    find_root(&cwd).unwrap_or_else(|| {
        eprintln!(
            "error: no {} in {} or any directory above it: run `cargo xtask` inside an \
             operator project (`cargo operator init` makes one)",
            project::FILE,
            cwd.display()
        );
        std::process::exit(1)
    })
}

/// The nearest ancestor of `dir` (itself included) holding `PROJECT.toml`.
pub fn find_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(project::FILE).is_file())
        .map(Path::to_path_buf)
}

/// `cargo metadata --no-deps` of the workspace: its members and where it builds.
pub fn workspace_metadata() -> Result<serde_json::Value> {
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
    serde_json::from_slice(&out.stdout).context("reading cargo metadata's output")
}

/// The workspace's target directory as cargo resolves it (`CARGO_TARGET_DIR`,
/// `build.target-dir`, else `target/`), where the release binaries the benchmarks run are.
pub fn target_dir() -> Result<PathBuf> {
    workspace_metadata()?["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .context("cargo metadata names no target_directory")
}

/// `cargo` (the one running us, when there is one) in the workspace root, without the
/// variables `cargo run` set for us (see [`as_if_typed`]).
pub fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(root());
    as_if_typed(&mut cmd);
    cmd
}

/// Removes from `cmd`'s environment what `cargo run` sets for the program it runs
/// (`CARGO_MANIFEST_DIR`, `CARGO_PKG_*`, ...), so that a cargo started by `cargo xtask` sees
/// what a cargo typed in the shell sees. Some build scripts (ring's) are run again when
/// `CARGO_MANIFEST_DIR` differs, and everything above them is rebuilt: with it inherited,
/// each step of `cargo xtask test` rebuilt the kube stack that the step before had built.
pub fn as_if_typed(cmd: &mut Command) -> &mut Command {
    for (key, _) in std::env::vars_os() {
        let Some(name) = key.to_str() else { continue };
        if matches!(
            name,
            "CARGO_MANIFEST_DIR"
                | "CARGO_MANIFEST_PATH"
                | "CARGO_CRATE_NAME"
                | "CARGO_BIN_NAME"
                | "CARGO_PRIMARY_PACKAGE"
        ) || name.starts_with("CARGO_PKG_")
        {
            cmd.env_remove(&key);
        }
    }
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

#[cfg(test)]
mod tests {
    /// The test binary runs with the variables cargo sets for it; a cargo started from here
    /// does not inherit them.
    #[test]
    fn a_cargo_started_by_xtask_does_not_inherit_what_cargo_run_set() {
        assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
        let cmd = super::cargo();
        let removed: Vec<_> = cmd
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(key, _)| key.to_string_lossy().into_owned())
            .collect();
        for name in ["CARGO_MANIFEST_DIR", "CARGO_PKG_NAME", "CARGO_PKG_VERSION"] {
            assert!(removed.iter().any(|r| r == name), "{name}: {removed:?}");
        }
        assert!(!removed.iter().any(|r| r == "CARGO_HOME" || r == "CARGO"));
    }
}
