//! Files of a Go module at a pinned version, from the Go module proxy: the one source of
//! third-party files here (cert-manager's CRDs for the plane, the CRD corpus of the
//! round-trip test). Downloaded once into Go's module cache and verified against the
//! checksum database like any module.

use std::path::PathBuf;
use std::process::Command;

use crate::Error;
use crate::components::{check_go, tools_root};

/// The directory of `module` at `version` (`v1.2.3`, or a pseudo-version) in Go's module
/// cache, downloaded on first use. The module's files are read-only there.
pub fn download(module: &str, version: &str) -> Result<PathBuf, Error> {
    check_go()?;
    let what = format!("{module}@{version}");
    // Outside any module, so no go.mod of the caller's is read or changed.
    let dir = tools_root()?;
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let out = Command::new("go")
        .current_dir(&dir)
        .env("GOTOOLCHAIN", "local")
        .env("GOWORK", "off")
        .env("GO111MODULE", "on")
        .args(["mod", "download", "-json", &what])
        .output()
        .map_err(|e| Error::Build(format!("running go mod download: {e}")))?;
    let described: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        Error::Build(format!(
            "go mod download {what} ({}) printed no module description ({e}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    })?;
    if let Some(err) = described.get("Error").and_then(|e| e.as_str()) {
        return Err(Error::Build(format!("go mod download {what}: {err}")));
    }
    let module_dir = described
        .get("Dir")
        .and_then(|d| d.as_str())
        .ok_or_else(|| {
            Error::Build(format!(
                "go mod download {what} did not say where the module is"
            ))
        })?;
    Ok(PathBuf::from(module_dir))
}
