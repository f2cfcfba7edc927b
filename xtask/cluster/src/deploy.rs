//! `cargo xtask deploy` and `undeploy` (kubebuilder's `make deploy` / `make undeploy`): render
//! `config/default` with the real kustomize, with the operator's image set as `kustomize edit
//! set image controller=...` would (in a throw-away overlay, so no file of the project
//! changes), server-side apply every object in dependency order, wait for the rollout, and
//! remove exactly what was applied again.
//!
//! Every applied object carries the label [`DEPLOYED_BY`] with the project's name. `undeploy`
//! deletes the rendered objects that carry it (an object of the same name that someone else
//! made is left alone and reported), then sweeps every resource type of the cluster for objects
//! with the label that an older render still left (a renamed Role, a removed ConfigMap).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use clap::Args;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams};
use kube::core::GroupVersionKind;
use kube::discovery::{ApiCapabilities, ApiResource, Scope, verbs};
use kube::{Client, ResourceExt as _};
use serde::Deserialize as _;

use crate::cluster::{Target, connect, runtime};

/// The label every object applied by `cargo xtask deploy` carries; its value is the project's
/// name (PROJECT.toml's `project-name`).
pub const DEPLOYED_BY: &str = "operator-rs.dev/deployed-by";
/// Field manager of deploy's server-side applies.
pub const FIELD_MANAGER: &str = "operator-xtask-deploy";
/// The image name config/manager's Deployment uses, which `--image` replaces (kubebuilder's).
pub const IMAGE_PLACEHOLDER: &str = "controller";

/// `cargo xtask deploy` arguments.
#[derive(Args, Debug, Clone)]
pub struct DeployArgs {
    #[command(flatten)]
    pub target: Target,
    /// The operator's image, `NAME[:TAG][@sha256:DIGEST]` (default: the one `cargo xtask image`
    /// tags, `<project-name>:<version of the operator package>`).
    #[arg(long, value_name = "REF")]
    pub image: Option<String>,
    /// The kustomize directory to render, relative to the project root.
    #[arg(long, value_name = "DIR", default_value = "config/default")]
    pub config: PathBuf,
    /// How long to wait for CRDs to be Established and Deployments to roll out.
    #[arg(long, value_name = "SECONDS", default_value_t = 180)]
    pub timeout: u64,
}

/// `cargo xtask undeploy` arguments.
#[derive(Args, Debug, Clone)]
pub struct UndeployArgs {
    #[command(flatten)]
    pub target: Target,
    /// The kustomize directory that was deployed, relative to the project root.
    #[arg(long, value_name = "DIR", default_value = "config/default")]
    pub config: PathBuf,
    /// How long to wait for the deleted objects to be gone.
    #[arg(long, value_name = "SECONDS", default_value_t = 180)]
    pub timeout: u64,
}

/// One object of the render.
#[derive(Debug, Clone)]
pub struct Rendered {
    pub object: DynamicObject,
    pub gvk: GroupVersionKind,
}

impl Rendered {
    /// `kind/namespace/name` or `kind/name`, for messages.
    pub fn describe(&self) -> String {
        describe(
            &self.gvk,
            self.object.metadata.namespace.as_deref(),
            &self.object.name_any(),
        )
    }
}

fn describe(gvk: &GroupVersionKind, namespace: Option<&str>, name: &str) -> String {
    let kind = if gvk.group.is_empty() {
        gvk.kind.to_lowercase()
    } else {
        format!("{}.{}", gvk.kind.to_lowercase(), gvk.group)
    };
    match namespace {
        Some(ns) => format!("{kind} {ns}/{name}"),
        None => format!("{kind} {name}"),
    }
}

/// What happened to one object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Created,
    Configured,
    Unchanged,
    Deleted,
    Absent,
    /// It exists but was not applied by `cargo xtask deploy` (no [`DEPLOYED_BY`] label of this
    /// project), so undeploy left it alone.
    NotOurs,
}

impl std::fmt::Display for Change {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Change::Created => "created",
            Change::Configured => "configured",
            Change::Unchanged => "unchanged",
            Change::Deleted => "deleted",
            Change::Absent => "already absent",
            Change::NotOurs => "left alone: not applied by `cargo xtask deploy` of this project",
        })
    }
}

/// What deploy or undeploy did, object by object, in the order it did it.
#[derive(Debug, Default)]
pub struct Report {
    pub objects: Vec<(String, Change)>,
    /// Deployments that rolled out, with the time it took.
    pub rolled_out: Vec<(String, Duration)>,
}

/// Splits `name[:tag][@digest]` for kustomize's `images:` entry.
fn split_image(reference: &str) -> Result<(String, Option<String>, Option<String>)> {
    let (rest, digest) = match reference.split_once('@') {
        Some((rest, digest)) => {
            if !digest.starts_with("sha256:") || digest.len() != 7 + 64 {
                bail!("image {reference:?}: the digest must be sha256:<64 hex digits>");
            }
            (rest, Some(digest.to_string()))
        }
        None => (reference, None),
    };
    // A colon after the last slash starts the tag; one before it is a registry's port.
    let last_slash = rest.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match rest[last_slash..].find(':') {
        Some(i) => (
            rest[..last_slash + i].to_string(),
            Some(rest[last_slash + i + 1..].to_string()),
        ),
        None => (rest.to_string(), None),
    };
    let valid_name = !name.is_empty()
        && !name.starts_with('/')
        && !name.ends_with('/')
        && !name.contains("//")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/:".contains(c))
        && name
            .rsplit('/')
            .next()
            .is_some_and(|repo| repo.chars().all(|c| !c.is_ascii_uppercase()));
    if !valid_name {
        bail!(
            "image {reference:?}: {name:?} is not an image name (lowercase letters, digits, \
             `.`, `_`, `-` and `/`, optionally after a registry host[:port])"
        );
    }
    if let Some(tag) = &tag {
        let valid_tag = !tag.is_empty()
            && tag.len() <= 128
            && !tag.starts_with(['.', '-'])
            && tag
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
        if !valid_tag {
            bail!("image {reference:?}: {tag:?} is not a tag (up to 128 of A-Z a-z 0-9 _ . -)");
        }
    }
    Ok((name, tag, digest))
}

/// Renders `config` (a kustomize directory of the project at `root`) with the Deployment's
/// `controller` image set to `image`, and labels every object with [`DEPLOYED_BY`].
pub fn render(root: &Path, config: &Path, image: &str) -> Result<Vec<Rendered>> {
    let project = operator_xtask::project::Project::load(root)?;
    let dir = root.join(config);
    if !dir.join("kustomization.yaml").is_file() && !dir.join("kustomization.yml").is_file() {
        bail!(
            "{} has no kustomization.yaml: --config must name a kustomize directory of the \
             project (config/default deploys everything)",
            dir.display()
        );
    }
    let dir = dir
        .canonicalize()
        .with_context(|| format!("resolving {}", dir.display()))?;
    let (name, tag, digest) = split_image(image)?;
    let overlay = tempfile::tempdir().context("making a directory for the overlay")?;
    // kustomize takes no absolute path as a resource: go up from the overlay to `/`.
    let overlay_dir = overlay
        .path()
        .canonicalize()
        .with_context(|| format!("resolving {}", overlay.path().display()))?;
    let up = "../".repeat(overlay_dir.components().count().saturating_sub(1));
    let base = format!("{up}{}", dir.strip_prefix("/").unwrap_or(&dir).display());
    let mut entry = format!("- name: {IMAGE_PLACEHOLDER}\n  newName: {name}\n");
    if let Some(tag) = &tag {
        entry.push_str(&format!("  newTag: \"{tag}\"\n"));
    }
    if let Some(digest) = &digest {
        entry.push_str(&format!("  digest: {digest}\n"));
    }
    std::fs::write(
        overlay.path().join("kustomization.yaml"),
        format!(
            "# Written by cargo xtask deploy: {config} with the operator's image.\n\
             apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n\
             resources:\n- {base}\nimages:\n{entry}",
            config = config.display(),
        ),
    )
    .context("writing the overlay")?;
    let yaml = envtest::kustomize::build(overlay.path())?;
    let objects = parse(&yaml, &project.project_name)
        .with_context(|| format!("reading what kustomize rendered from {}", dir.display()))?;
    let images: Vec<&str> = objects
        .iter()
        .filter(|o| o.gvk.kind == "Deployment")
        .flat_map(|o| {
            o.object.data["spec"]["template"]["spec"]["containers"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c["image"].as_str())
        })
        .collect();
    if !images.contains(&image) {
        bail!(
            "{} renders no Deployment container with the image `{IMAGE_PLACEHOLDER}` to set to \
             {image} (the images found: {images:?}); config/manager's Deployment names its \
             image `{IMAGE_PLACEHOLDER}:latest` for this",
            dir.display()
        );
    }
    Ok(objects)
}

/// Parses a rendered YAML stream and labels each object.
fn parse(yaml: &str, project: &str) -> Result<Vec<Rendered>> {
    let mut out = Vec::new();
    for (index, doc) in serde_yaml::Deserializer::from_str(yaml).enumerate() {
        let value = serde_json::Value::deserialize(doc)
            .with_context(|| format!("document {}", index + 1))?;
        if value.is_null() {
            continue;
        }
        let mut object: DynamicObject = serde_json::from_value(value)
            .with_context(|| format!("document {}: not a Kubernetes object", index + 1))?;
        let types = object
            .types
            .clone()
            .with_context(|| format!("document {}: no apiVersion and kind", index + 1))?;
        let gvk = GroupVersionKind::try_from(&types)
            .map_err(|e| anyhow::anyhow!("document {}: {e}", index + 1))?;
        if object.metadata.name.as_deref().unwrap_or("").is_empty() {
            bail!("document {} ({}) has no metadata.name", index + 1, gvk.kind);
        }
        object
            .labels_mut()
            .insert(DEPLOYED_BY.to_string(), project.to_string());
        out.push(Rendered { object, gvk });
    }
    if out.is_empty() {
        bail!("kustomize rendered no objects");
    }
    Ok(out)
}

/// The order objects are applied in: what others refer to first, webhook configurations last
/// (their server must exist before the API server calls it). Deletion runs in reverse.
fn rank(gvk: &GroupVersionKind) -> u8 {
    match (gvk.group.as_str(), gvk.kind.as_str()) {
        ("", "Namespace") => 0,
        ("apiextensions.k8s.io", "CustomResourceDefinition") => 1,
        ("", "ServiceAccount") => 2,
        ("rbac.authorization.k8s.io", "ClusterRole" | "Role") => 3,
        ("rbac.authorization.k8s.io", "ClusterRoleBinding" | "RoleBinding") => 4,
        ("", "ConfigMap" | "Secret") => 5,
        ("", "Service") => 6,
        ("apps", "Deployment" | "StatefulSet" | "DaemonSet") => 8,
        (
            "admissionregistration.k8s.io",
            "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration",
        ) => 9,
        _ => 7,
    }
}

/// Sorts for applying (stable: kustomize's order within a rank).
fn apply_order(objects: &mut [Rendered]) {
    objects.sort_by_key(|o| rank(&o.gvk));
}

/// Resolves each object's resource, failing before anything is applied when the cluster does
/// not serve a kind (one that none of the render's own CRDs defines).
async fn resolve(
    client: &Client,
    objects: &[Rendered],
) -> Result<BTreeMap<String, (ApiResource, ApiCapabilities)>> {
    let defined_here: Vec<(String, String)> = objects
        .iter()
        .filter(|o| o.gvk.kind == "CustomResourceDefinition")
        .map(|o| {
            (
                o.object.data["spec"]["group"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
                o.object.data["spec"]["names"]["kind"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect();
    let mut found = BTreeMap::new();
    let mut missing: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for object in objects {
        let key = gvk_key(&object.gvk);
        if found.contains_key(&key) {
            continue;
        }
        match kube::discovery::pinned_kind(client, &object.gvk).await {
            Ok(resolved) => {
                found.insert(key, resolved);
            }
            Err(_)
                if defined_here
                    .iter()
                    .any(|(g, k)| *g == object.gvk.group && *k == object.gvk.kind) => {}
            Err(e) => {
                let not_served = matches!(&e, kube::Error::Api(s) if s.code == 404)
                    || matches!(&e, kube::Error::Discovery(_));
                if !not_served {
                    return Err(anyhow::anyhow!(
                        "asking the cluster about {}: {}",
                        key,
                        envtest::crds::describe(&e)
                    ));
                }
                missing.entry(key).or_default().push(object.describe());
            }
        }
    }
    if !missing.is_empty() {
        let mut message =
            String::from("the cluster does not serve these kinds, so nothing was applied:\n");
        for (kind, objects) in &missing {
            message.push_str(&format!("  {kind}: {}\n", objects.join(", ")));
        }
        if missing.keys().any(|k| k.contains("cert-manager.io")) {
            message.push_str(
                "config/default includes ../certmanager (the webhook server's certificate): \
                 install cert-manager in the cluster first (https://cert-manager.io/docs/installation/), \
                 or take ../certmanager and the webhook wiring out of config/default",
            );
        } else if missing.keys().any(|k| k.contains("monitoring.coreos.com")) {
            message.push_str(
                "config/default includes ../prometheus: install the Prometheus operator's CRDs \
                 first, or take ../prometheus out of config/default",
            );
        } else {
            message.push_str("install what provides them, or remove them from the render");
        }
        bail!(message.trim_end().to_string());
    }
    Ok(found)
}

fn gvk_key(gvk: &GroupVersionKind) -> String {
    if gvk.group.is_empty() {
        format!("{} ({})", gvk.kind, gvk.version)
    } else {
        format!("{} ({}/{})", gvk.kind, gvk.group, gvk.version)
    }
}

fn api_for(
    client: &Client,
    resolved: &(ApiResource, ApiCapabilities),
    ns: Option<&str>,
) -> Api<DynamicObject> {
    let (resource, caps) = resolved;
    match (caps.scope.clone(), ns) {
        (Scope::Namespaced, Some(ns)) => Api::namespaced_with(client.clone(), ns, resource),
        (Scope::Namespaced, None) => Api::default_namespaced_with(client.clone(), resource),
        (Scope::Cluster, _) => Api::all_with(client.clone(), resource),
    }
}

/// Applies the render to the cluster and waits for CRDs and Deployments; prints each step.
pub async fn deploy(
    client: &Client,
    mut objects: Vec<Rendered>,
    timeout: Duration,
) -> Result<Report> {
    apply_order(&mut objects);
    let mut resolved = resolve(client, &objects).await?;
    let params = PatchParams::apply(FIELD_MANAGER).force();
    let mut report = Report::default();
    let mut crds_pending = Vec::new();
    for object in &objects {
        let key = gvk_key(&object.gvk);
        if !resolved.contains_key(&key) {
            // A kind defined by a CRD of this render: its CRD is applied (rank 1) and must be
            // Established before we can ask about it.
            wait_crds_established(client, &crds_pending, timeout).await?;
            crds_pending.clear();
            let found = kube::discovery::pinned_kind(client, &object.gvk)
                .await
                .with_context(|| format!("the cluster does not serve {key} after its CRD"))?;
            resolved.insert(key.clone(), found);
        }
        let api = api_for(
            client,
            &resolved[&key],
            object.object.metadata.namespace.as_deref(),
        );
        let name = object.object.name_any();
        let before = api
            .get_opt(&name)
            .await
            .with_context(|| format!("reading {}", object.describe()))?
            .and_then(|o| o.metadata.resource_version);
        let mut body = object.object.clone();
        body.metadata.resource_version = None;
        let after = api
            .patch(&name, &params, &Patch::Apply(&body))
            .await
            .map_err(|e| {
                anyhow::anyhow!(
                    "applying {}: {}",
                    object.describe(),
                    envtest::crds::describe(&e)
                )
            })?;
        let change = match before {
            None => Change::Created,
            Some(rv) if Some(&rv) == after.metadata.resource_version.as_ref() => Change::Unchanged,
            Some(_) => Change::Configured,
        };
        eprintln!("{} {change}", object.describe());
        report.objects.push((object.describe(), change));
        if object.gvk.kind == "CustomResourceDefinition" {
            crds_pending.push(name);
        }
    }
    wait_crds_established(client, &crds_pending, timeout).await?;
    for object in objects
        .iter()
        .filter(|o| o.gvk.group == "apps" && o.gvk.kind == "Deployment")
    {
        let ns = object
            .object
            .metadata
            .namespace
            .clone()
            .unwrap_or_else(|| client.default_namespace().to_string());
        let took = wait_rollout(client, &ns, &object.object.name_any(), timeout).await?;
        report.rolled_out.push((object.describe(), took));
    }
    Ok(report)
}

async fn wait_crds_established(client: &Client, names: &[String], timeout: Duration) -> Result<()> {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::runtime::wait::{await_condition, conditions};
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    for name in names {
        match tokio::time::timeout(
            timeout,
            await_condition(api.clone(), name, conditions::is_crd_established()),
        )
        .await
        {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => bail!("watching customresourcedefinition {name}: {e}"),
            Err(_) => bail!(
                "customresourcedefinition {name} was not Established within {}s",
                timeout.as_secs()
            ),
        }
    }
    Ok(())
}

/// Waits until the Deployment's newest ReplicaSet has all replicas updated and available and no
/// old ones are left, printing progress as it changes. On timeout the error carries the
/// Deployment's conditions (a pod refused by Pod Security admission shows there as
/// ReplicaFailure with the API server's reason).
pub async fn wait_rollout(
    client: &Client,
    ns: &str,
    name: &str,
    timeout: Duration,
) -> Result<Duration> {
    let api: Api<Deployment> = Api::namespaced(client.clone(), ns);
    let started = Instant::now();
    let mut last = String::new();
    loop {
        let deployment = api
            .get(name)
            .await
            .with_context(|| format!("reading deployment {ns}/{name}"))?;
        let want = deployment
            .spec
            .as_ref()
            .and_then(|s| s.replicas)
            .unwrap_or(1);
        let status = deployment.status.clone().unwrap_or_default();
        let generation = deployment.metadata.generation.unwrap_or(0);
        let observed = status.observed_generation.unwrap_or(0) >= generation;
        let updated = status.updated_replicas.unwrap_or(0);
        let available = status.available_replicas.unwrap_or(0);
        let total = status.replicas.unwrap_or(0);
        if observed && updated == want && available == want && total == want {
            let took = started.elapsed();
            eprintln!(
                "deployment.apps {ns}/{name} rolled out: {available}/{want} available ({:.1}s)",
                took.as_secs_f64()
            );
            return Ok(took);
        }
        let progress = format!(
            "waiting for deployment.apps {ns}/{name}: {updated}/{want} updated, {available}/{want} available{}",
            if total > updated {
                format!(", {} old", total - updated)
            } else {
                String::new()
            }
        );
        if progress != last {
            eprintln!("{progress}");
            last = progress;
        }
        // Failures that waiting does not mend: pods refused (by Pod Security admission, a
        // quota, a missing ServiceAccount) or the progress deadline passed.
        let failed = status.conditions.iter().flatten().find(|c| {
            (c.type_ == "ReplicaFailure" && c.status == "True")
                || (c.type_ == "Progressing"
                    && c.status == "False"
                    && c.reason.as_deref() == Some("ProgressDeadlineExceeded"))
        });
        if let Some(c) = failed {
            bail!(
                "deployment.apps {ns}/{name} cannot roll out: {} ({}): {}",
                c.type_,
                c.reason.as_deref().unwrap_or(""),
                c.message.as_deref().unwrap_or("")
            );
        }
        if started.elapsed() > timeout {
            let conditions: Vec<String> = status
                .conditions
                .unwrap_or_default()
                .into_iter()
                .map(|c| {
                    format!(
                        "{}={} ({}: {})",
                        c.type_,
                        c.status,
                        c.reason.unwrap_or_default(),
                        c.message.unwrap_or_default()
                    )
                })
                .collect();
            bail!(
                "deployment.apps {ns}/{name} did not roll out within {}s ({updated}/{want} updated, \
                 {available}/{want} available); its conditions: {}",
                timeout.as_secs(),
                if conditions.is_empty() {
                    "none".to_string()
                } else {
                    conditions.join("; ")
                }
            );
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Deletes what `deploy` applied: the render's objects that carry this project's
/// [`DEPLOYED_BY`] label (in reverse order), then any other object of any type with that label,
/// and waits until they are gone.
pub async fn undeploy(
    client: &Client,
    mut objects: Vec<Rendered>,
    project: &str,
    timeout: Duration,
) -> Result<Report> {
    apply_order(&mut objects);
    objects.reverse();
    let mut report = Report::default();
    let mut gone_pending: Vec<(Api<DynamicObject>, String, String)> = Vec::new();
    let params = DeleteParams::background();
    for object in &objects {
        let resolved = match kube::discovery::pinned_kind(client, &object.gvk).await {
            Ok(resolved) => resolved,
            // The kind is not served (its CRD went first, or never was): nothing of it is left.
            Err(_) => {
                eprintln!("{} {}", object.describe(), Change::Absent);
                report.objects.push((object.describe(), Change::Absent));
                continue;
            }
        };
        let api = api_for(
            client,
            &resolved,
            object.object.metadata.namespace.as_deref(),
        );
        let name = object.object.name_any();
        let change = match api
            .get_opt(&name)
            .await
            .with_context(|| format!("reading {}", object.describe()))?
        {
            None => Change::Absent,
            Some(live) if live.labels().get(DEPLOYED_BY).map(String::as_str) != Some(project) => {
                Change::NotOurs
            }
            Some(_) => {
                match api.delete(&name, &params).await {
                    Ok(_) => {}
                    Err(kube::Error::Api(s)) if s.code == 404 => {}
                    Err(e) => bail!(
                        "deleting {}: {}",
                        object.describe(),
                        envtest::crds::describe(&e)
                    ),
                }
                gone_pending.push((api.clone(), name.clone(), object.describe()));
                Change::Deleted
            }
        };
        eprintln!("{} {change}", object.describe());
        report.objects.push((object.describe(), change));
    }
    // Whatever an older render applied and this one no longer has.
    for (api, name, what) in leftovers(client, project).await? {
        match api.delete(&name, &params).await {
            Ok(_) => {}
            Err(kube::Error::Api(s)) if s.code == 404 => continue,
            Err(e) => bail!("deleting {what}: {}", envtest::crds::describe(&e)),
        }
        eprintln!("{what} {} (applied by an earlier deploy)", Change::Deleted);
        report.objects.push((what.clone(), Change::Deleted));
        gone_pending.push((api, name, what));
    }
    let started = Instant::now();
    for (api, name, what) in gone_pending {
        loop {
            match api.get_opt(&name).await {
                Ok(None) => break,
                Ok(Some(live)) => {
                    if started.elapsed() > timeout {
                        bail!(
                            "{what} is still there {}s after its deletion (finalizers: {:?}); \
                             a custom resource whose operator is gone keeps its finalizer: \
                             remove it by hand",
                            timeout.as_secs(),
                            live.finalizers()
                        );
                    }
                }
                // Its kind went with its CRD.
                Err(kube::Error::Api(s)) if s.code == 404 => break,
                Err(e) => bail!("reading {what}: {}", envtest::crds::describe(&e)),
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }
    Ok(report)
}

/// Every object in the cluster, of every listable and deletable type, that carries this
/// project's [`DEPLOYED_BY`] label.
pub async fn leftovers(
    client: &Client,
    project: &str,
) -> Result<Vec<(Api<DynamicObject>, String, String)>> {
    let selector = ListParams::default().labels(&format!("{DEPLOYED_BY}={project}"));
    let mut found = Vec::new();
    for (resource, namespaced) in deletable_types(client).await? {
        let all: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
        let list = match all.list_metadata(&selector).await {
            Ok(list) => list,
            // A type that went away while we looked (a CRD being deleted).
            Err(kube::Error::Api(s)) if s.code == 404 || s.code == 405 => continue,
            Err(e) => bail!(
                "listing {} with {DEPLOYED_BY}={project}: {}",
                resource.plural,
                envtest::crds::describe(&e)
            ),
        };
        let gvk = GroupVersionKind::gvk(&resource.group, &resource.version, &resource.kind);
        for item in list.items {
            let name = item.metadata.name.clone().unwrap_or_default();
            let ns = item.metadata.namespace.clone();
            let api = match (namespaced, &ns) {
                (true, Some(ns)) => Api::namespaced_with(client.clone(), ns, &resource),
                _ => Api::all_with(client.clone(), &resource),
            };
            found.push((api, name.clone(), describe(&gvk, ns.as_deref(), &name)));
        }
    }
    Ok(found)
}

/// Every resource type the cluster serves that can be listed and deleted (preferred versions,
/// no subresources), and whether it is namespaced. Groups that vanish or are unavailable while
/// we ask (a CRD being deleted, an aggregated API that is down) are skipped, not errors.
async fn deletable_types(client: &Client) -> Result<Vec<(ApiResource, bool)>> {
    let mut versions: Vec<String> = client
        .list_core_api_versions()
        .await
        .context("listing the cluster's core API versions")?
        .versions;
    for group in client
        .list_api_groups()
        .await
        .context("listing the cluster's API groups")?
        .groups
    {
        if let Some(version) = group
            .preferred_version
            .or_else(|| group.versions.into_iter().next())
        {
            versions.push(version.group_version);
        }
    }
    let mut types = Vec::new();
    for group_version in versions {
        let listed = if group_version.contains('/') {
            client.list_api_group_resources(&group_version).await
        } else {
            client.list_core_api_resources(&group_version).await
        };
        let resources = match listed {
            Ok(list) => list.resources,
            Err(kube::Error::Api(s)) if s.code == 404 || s.code == 503 => continue,
            Err(e) => bail!(
                "listing the resource types of {group_version}: {}",
                envtest::crds::describe(&e)
            ),
        };
        let (group, version) = group_version
            .split_once('/')
            .unwrap_or(("", group_version.as_str()));
        for r in resources {
            let can = |verb: &str| r.verbs.iter().any(|v| v == verb);
            if r.name.contains('/') || !can(verbs::LIST) || !can(verbs::DELETE) {
                continue;
            }
            types.push((
                ApiResource {
                    group: group.to_string(),
                    version: version.to_string(),
                    api_version: group_version.clone(),
                    kind: r.kind,
                    plural: r.name,
                },
                r.namespaced,
            ));
        }
    }
    Ok(types)
}

pub fn deploy_command(args: &DeployArgs) -> Result<std::process::ExitCode> {
    let root = operator_xtask::root();
    let image = match &args.image {
        Some(image) => image.clone(),
        None => crate::image::default_reference(&root)?,
    };
    let objects = render(&root, &args.config, &image)?;
    let timeout = Duration::from_secs(args.timeout);
    runtime()?.block_on(async {
        let cluster = connect(&args.target).await?;
        eprintln!(
            "deploying {} ({} objects, image {image}) to {}",
            args.config.display(),
            objects.len(),
            cluster.source
        );
        let report = deploy(&cluster.client, objects, timeout).await?;
        let count = |c: Change| report.objects.iter().filter(|(_, x)| *x == c).count();
        eprintln!(
            "deployed: {} created, {} configured, {} unchanged; {} rolled out",
            count(Change::Created),
            count(Change::Configured),
            count(Change::Unchanged),
            report
                .rolled_out
                .iter()
                .map(|(d, _)| d.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        Ok(std::process::ExitCode::SUCCESS)
    })
}

pub fn undeploy_command(args: &UndeployArgs) -> Result<std::process::ExitCode> {
    let root = operator_xtask::root();
    let project = operator_xtask::project::Project::load(&root)?;
    // The image does not matter for deleting; any valid one renders the same objects.
    let objects = render(
        &root,
        &args.config,
        &crate::image::default_reference(&root)?,
    )?;
    runtime()?.block_on(async {
        let cluster = connect(&args.target).await?;
        eprintln!(
            "undeploying {} from {}",
            args.config.display(),
            cluster.source
        );
        let report = undeploy(
            &cluster.client,
            objects,
            &project.project_name,
            Duration::from_secs(args.timeout),
        )
        .await?;
        let count = |c: Change| report.objects.iter().filter(|(_, x)| *x == c).count();
        eprintln!(
            "undeployed: {} deleted, {} already absent, {} left alone",
            count(Change::Deleted),
            count(Change::Absent),
            count(Change::NotOurs)
        );
        Ok(std::process::ExitCode::SUCCESS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_references_split_as_kustomize_wants_them() {
        let split = |r: &str| split_image(r).unwrap();
        assert_eq!(
            split("memcached-operator:0.1.0"),
            ("memcached-operator".into(), Some("0.1.0".into()), None)
        );
        assert_eq!(split("controller"), ("controller".into(), None, None));
        assert_eq!(
            split("localhost:5000/team/op:v1"),
            ("localhost:5000/team/op".into(), Some("v1".into()), None)
        );
        let digest = format!("sha256:{}", "a".repeat(64));
        assert_eq!(
            split(&format!("localhost:5000/op@{digest}")),
            ("localhost:5000/op".into(), None, Some(digest.clone()))
        );
        assert_eq!(
            split(&format!("op:v2@{digest}")),
            ("op".into(), Some("v2".into()), Some(digest))
        );
        for bad in [
            "",
            "Op:1",
            "op:",
            "op:-x",
            "op@sha256:12",
            "op/:1",
            "op:a b",
            "/op",
        ] {
            assert!(split_image(bad).is_err(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn objects_are_labelled_and_ordered_by_what_depends_on_what() {
        let yaml = "\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: v}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d, namespace: ns, labels: {a: b}}
---
apiVersion: v1
kind: Namespace
metadata: {name: ns}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: rb}
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata: {name: i, namespace: ns}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: c}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: sa, namespace: ns}
";
        let mut objects = parse(yaml, "proj").unwrap();
        apply_order(&mut objects);
        let order: Vec<&str> = objects.iter().map(|o| o.gvk.kind.as_str()).collect();
        assert_eq!(
            order,
            [
                "Namespace",
                "CustomResourceDefinition",
                "ServiceAccount",
                "ClusterRole",
                "ClusterRoleBinding",
                "Issuer",
                "Deployment",
                "ValidatingWebhookConfiguration"
            ]
        );
        for o in &objects {
            assert_eq!(
                o.object.labels().get(DEPLOYED_BY).map(String::as_str),
                Some("proj")
            );
        }
        let deployment = objects.iter().find(|o| o.gvk.kind == "Deployment").unwrap();
        assert_eq!(
            deployment.object.labels().get("a").map(String::as_str),
            Some("b")
        );
        assert_eq!(deployment.describe(), "deployment.apps ns/d");
    }

    #[test]
    fn a_render_without_names_or_kinds_is_refused() {
        let err = parse("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n", "p").unwrap_err();
        assert!(
            format!("{err:#}").contains("has no metadata.name"),
            "{err:#}"
        );
        let err = parse("metadata: {name: x}\n", "p").unwrap_err();
        assert!(format!("{err:#}").contains("document 1"), "{err:#}");
        let err = parse("---\n", "p").unwrap_err();
        assert!(format!("{err:#}").contains("no objects"), "{err:#}");
    }

    /// The repository's own config/default renders (with the real kustomize, built on first
    /// use) with the image set and every object labelled.
    #[test]
    #[ignore = "builds kustomize from Go modules on first use; run by cargo xtask test"]
    fn config_default_renders_with_the_image() {
        let root = operator_xtask::root();
        let objects = render(
            &root,
            Path::new("config/default"),
            "example.com/memcached-operator:v9",
        )
        .unwrap();
        let deployment = objects.iter().find(|o| o.gvk.kind == "Deployment").unwrap();
        assert_eq!(
            deployment.object.data["spec"]["template"]["spec"]["containers"][0]["image"],
            "example.com/memcached-operator:v9"
        );
        assert!(objects.iter().any(|o| o.gvk.kind == "Namespace"));
        let err = render(&root, Path::new("config/nope"), "x:1").unwrap_err();
        assert!(
            format!("{err:#}").contains("no kustomization.yaml"),
            "{err:#}"
        );
    }
}
