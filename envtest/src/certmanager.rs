//! cert-manager's CustomResourceDefinitions, for a control plane that must accept the
//! `Certificate` and `Issuer` objects of a project's `config/certmanager` (as `cargo xtask
//! deploy` requires of any cluster it deploys webhooks to). Only the CRDs: the local plane has
//! no cert-manager controller, so a test that needs the certificate's Secret writes it itself.
//!
//! There is no download site here, only the Go module proxy, and cert-manager's module carries
//! its CRDs as plain YAML (`deploy/crds/`), so `go mod download` of the pinned release is the
//! source: cached in Go's module cache, verified against the checksum database like any module.

use std::path::PathBuf;
use std::process::Command;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::Error;
use crate::components::{check_go, tools_root};

/// The cert-manager release whose CRDs are installed (kubebuilder v4 documents installing a
/// current cert-manager; the CRDs' `cert-manager.io/v1` API has been stable since v1.0).
pub const CERT_MANAGER_VERSION: &str = "1.21.2";

const MODULE: &str = "github.com/cert-manager/cert-manager";

/// The directory of cert-manager v[`CERT_MANAGER_VERSION`]'s CRD files in Go's module cache,
/// downloaded on first use.
pub fn crds_dir() -> Result<PathBuf, Error> {
    check_go()?;
    // Outside any module, so no go.mod of the caller's is read or changed.
    let dir = tools_root()?;
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let out = Command::new("go")
        .current_dir(&dir)
        .env("GOTOOLCHAIN", "local")
        .env("GOWORK", "off")
        .env("GO111MODULE", "on")
        .args([
            "mod",
            "download",
            "-json",
            &format!("{MODULE}@v{CERT_MANAGER_VERSION}"),
        ])
        .output()
        .map_err(|e| Error::Build(format!("running go mod download: {e}")))?;
    let described: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| {
        Error::Build(format!(
            "go mod download {MODULE}@v{CERT_MANAGER_VERSION} ({}) printed no module description ({e}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    })?;
    if let Some(err) = described.get("Error").and_then(|e| e.as_str()) {
        return Err(Error::Build(format!(
            "go mod download {MODULE}@v{CERT_MANAGER_VERSION}: {err}"
        )));
    }
    let module_dir = described
        .get("Dir")
        .and_then(|d| d.as_str())
        .ok_or_else(|| {
            Error::Build(format!(
                "go mod download {MODULE}@v{CERT_MANAGER_VERSION} did not say where the module is"
            ))
        })?;
    let crds = PathBuf::from(module_dir).join("deploy").join("crds");
    if !crds.is_dir() {
        return Err(Error::Build(format!(
            "{} is missing: cert-manager v{CERT_MANAGER_VERSION}'s module has no deploy/crds",
            crds.display()
        )));
    }
    Ok(crds)
}

/// cert-manager's CRDs (`certificates.cert-manager.io`, `issuers.cert-manager.io`, ...), ready
/// for [`crate::crds::install`].
pub fn crds() -> Result<Vec<CustomResourceDefinition>, Error> {
    let crds = crate::crds::read_crds(&crds_dir()?)?;
    if !crds
        .iter()
        .any(|c| c.metadata.name.as_deref() == Some("certificates.cert-manager.io"))
    {
        return Err(Error::Manifest(format!(
            "cert-manager v{CERT_MANAGER_VERSION}'s deploy/crds has no certificates.cert-manager.io"
        )));
    }
    Ok(crds)
}
