//! cert-manager's CustomResourceDefinitions, for a control plane that must accept the
//! `Certificate` and `Issuer` objects of a project's `config/certmanager` (as `cargo xtask
//! deploy` requires of any cluster it deploys webhooks to). Only the CRDs: the local plane has
//! no cert-manager controller, so a test that needs the certificate's Secret writes it itself.
//!
//! There is no download site here, only the Go module proxy, and cert-manager's module carries
//! its CRDs as plain YAML (`deploy/crds/`), so `go mod download` of the pinned release is the
//! source: cached in Go's module cache, verified against the checksum database like any module.

use std::path::PathBuf;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::Error;

/// The cert-manager release whose CRDs are installed (kubebuilder v4 documents installing a
/// current cert-manager; the CRDs' `cert-manager.io/v1` API has been stable since v1.0).
pub const CERT_MANAGER_VERSION: &str = "1.21.2";

const MODULE: &str = "github.com/cert-manager/cert-manager";

/// The directory of cert-manager v[`CERT_MANAGER_VERSION`]'s CRD files in Go's module cache,
/// downloaded on first use.
pub fn crds_dir() -> Result<PathBuf, Error> {
    let module_dir = crate::gomod::download(MODULE, &format!("v{CERT_MANAGER_VERSION}"))?;
    let crds = module_dir.join("deploy").join("crds");
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
