//! Installing CRDs the way `make install` does, but with server-side apply: read the generated
//! YAML, apply each CRD, and wait until the API server has Established it (its API is served).

use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube::runtime::wait::{await_condition, conditions};
use kube::{Client, ResourceExt};
use serde::Deserialize;

use crate::Error;

/// Field manager of our server-side applies.
pub const FIELD_MANAGER: &str = "operator-rs";

/// Reads every CRD from the `.yaml`/`.yml` files directly in `dir` (sorted by file name; a file
/// may hold several documents). Anything that is not a CustomResourceDefinition is an error.
pub fn read_dir(dir: &Path) -> Result<Vec<(PathBuf, CustomResourceDefinition)>, Error> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .is_some_and(|ext| ext == "yaml" || ext == "yml")
        })
        .collect();
    files.sort();
    let mut crds = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).map_err(|e| Error::io(&file, e))?;
        for (index, doc) in serde_yaml::Deserializer::from_str(&text).enumerate() {
            let value = serde_yaml::Value::deserialize(doc).map_err(|e| {
                Error::Manifest(format!("{} (document {}): {e}", file.display(), index + 1))
            })?;
            if value.is_null() {
                continue;
            }
            let kind = value.get("kind").and_then(|k| k.as_str()).unwrap_or("");
            if kind != "CustomResourceDefinition" {
                return Err(Error::Manifest(format!(
                    "{} (document {}): expected a CustomResourceDefinition, found kind {kind:?}",
                    file.display(),
                    index + 1
                )));
            }
            let crd: CustomResourceDefinition = serde_yaml::from_value(value).map_err(|e| {
                Error::Manifest(format!("{} (document {}): {e}", file.display(), index + 1))
            })?;
            crds.push((file.clone(), crd));
        }
    }
    Ok(crds)
}

/// The CRDs of [`read_dir`] without their file names.
pub fn read_crds(dir: &Path) -> Result<Vec<CustomResourceDefinition>, Error> {
    Ok(read_dir(dir)?.into_iter().map(|(_, crd)| crd).collect())
}

/// [`install`]s every CRD in `dir` (`make install`); returns their names.
pub async fn install_dir(
    client: &Client,
    dir: &Path,
    timeout: Duration,
) -> Result<Vec<String>, Error> {
    let crds = read_crds(dir)?;
    install(client, &crds, timeout).await?;
    Ok(crds.iter().map(ResourceExt::name_any).collect())
}

/// Server-side applies each CRD (taking ownership of conflicting fields, as `kubectl apply
/// --server-side --force-conflicts`), then waits until every one is Established.
pub async fn install(
    client: &Client,
    crds: &[CustomResourceDefinition],
    timeout: Duration,
) -> Result<(), Error> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let params = PatchParams::apply(FIELD_MANAGER).force();
    for crd in crds {
        let name = crd.name_any();
        let mut crd = crd.clone();
        // Server-side apply wants the object as the user means it, without server-owned fields.
        crd.status = None;
        crd.metadata.resource_version = None;
        api.patch(&name, &params, &Patch::Apply(&crd))
            .await
            .map_err(|e| Error::Manifest(format!("applying CRD {name}: {}", describe(&e))))?;
    }
    for crd in crds {
        let name = crd.name_any();
        let established = await_condition(api.clone(), &name, conditions::is_crd_established());
        match tokio::time::timeout(timeout, established).await {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Err(Error::Manifest(format!("watching CRD {name}: {e}"))),
            Err(_) => {
                return Err(Error::Timeout(format!(
                    "CRD {name} was not Established within {}s",
                    timeout.as_secs()
                )));
            }
        }
    }
    Ok(())
}

/// Deletes each CRD (and so every object of its kind) and waits until it is gone. CRDs that do not
/// exist are skipped; returns the names that were deleted.
pub async fn uninstall(
    client: &Client,
    crds: &[CustomResourceDefinition],
    timeout: Duration,
) -> Result<Vec<String>, Error> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut deleted = Vec::new();
    for crd in crds {
        let name = crd.name_any();
        match api.delete(&name, &DeleteParams::default()).await {
            Ok(either) => {
                let uid = either.left().and_then(|o| o.metadata.uid);
                if let Some(uid) = uid {
                    let gone = await_condition(api.clone(), &name, conditions::is_deleted(&uid));
                    match tokio::time::timeout(timeout, gone).await {
                        Ok(Ok(_)) => {}
                        Ok(Err(e)) => {
                            return Err(Error::Manifest(format!("watching CRD {name}: {e}")));
                        }
                        Err(_) => {
                            return Err(Error::Timeout(format!(
                                "CRD {name} was not deleted within {}s",
                                timeout.as_secs()
                            )));
                        }
                    }
                }
                deleted.push(name);
            }
            Err(kube::Error::Api(e)) if e.code == 404 => {}
            Err(e) => {
                return Err(Error::Manifest(format!(
                    "deleting CRD {name}: {}",
                    describe(&e)
                )));
            }
        }
    }
    Ok(deleted)
}

/// The API server's own message for API errors (it names the field and the rule), else the error.
pub fn describe(e: &kube::Error) -> String {
    match e {
        kube::Error::Api(status) => format!("{} ({})", status.message, status.reason),
        other => other.to_string(),
    }
}
