//! The real kustomize, for rendering a project's `config/` tree (`cargo xtask deploy` and the
//! checks of `cargo xtask test`). There is no download site here, only the Go module proxy, so
//! it is built like controller-gen: `go install sigs.k8s.io/kustomize/kustomize/v5@v…` with the
//! machine's Go on first use, cached in `~/.cache/operator-rs/kustomize-v<version>/bin/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::Error;
use crate::components::{GoTool, go_install, tools_root};

/// The kustomize release: the newest the module proxy serves that builds with Go 1.26 (v5.8.3
/// asks for Go 1.27). kubebuilder v4.10 pins v5.7.1; nothing in our tree needs more than v5.0.
pub const KUSTOMIZE_VERSION: &str = "5.8.2";

/// The path of kustomize v[`KUSTOMIZE_VERSION`], built on first use (progress on stderr; a
/// second process waits for the first one's build instead of starting its own).
pub fn kustomize() -> Result<PathBuf, Error> {
    go_install(&GoTool {
        name: "kustomize",
        package: "sigs.k8s.io/kustomize/kustomize/v5",
        version: KUSTOMIZE_VERSION,
        version_args: &["version"],
        dir: tools_root()?.join(format!("kustomize-v{KUSTOMIZE_VERSION}")),
        via_module: None,
    })
}

/// `kustomize build <dir>`: the rendered objects as one YAML stream. Fails, with kustomize's
/// own message, when kustomize exits non-zero or prints nothing.
pub fn build(dir: &Path) -> Result<String, Error> {
    let exe = kustomize()?;
    build_with(&exe, dir)
}

/// [`build`] with a given kustomize binary.
pub fn build_with(exe: &Path, dir: &Path) -> Result<String, Error> {
    let out = Command::new(exe)
        .arg("build")
        .arg(dir)
        .output()
        .map_err(|e| Error::io(exe, e))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(Error::Kustomize(format!(
            "kustomize build {} failed ({}): {}",
            dir.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    if stdout.trim().is_empty() {
        return Err(Error::Kustomize(format!(
            "kustomize build {} rendered nothing",
            dir.display()
        )));
    }
    Ok(stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in kustomize; each one its own file (`name`), none rewritten while it may run.
    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        crate::test_script(dir, name, body)
    }

    /// A failing kustomize is an error with its message, even when it printed something.
    #[test]
    fn a_failed_or_empty_render_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let failing = script(
            dir.path(),
            "failing",
            "echo 'kind: Partial'; echo 'Error: missing file manifests.yaml' >&2; exit 1",
        );
        let err = build_with(&failing, dir.path()).unwrap_err().to_string();
        assert!(err.contains("missing file manifests.yaml"), "{err}");
        assert!(err.contains("failed"), "{err}");

        let empty = script(dir.path(), "empty", "exit 0");
        let err = build_with(&empty, dir.path()).unwrap_err().to_string();
        assert!(err.contains("rendered nothing"), "{err}");

        let fine = script(dir.path(), "fine", "echo \"rendered $1 $2\"");
        let out = build_with(&fine, Path::new("config/default")).unwrap();
        assert_eq!(out, "rendered build config/default\n");
    }
}
