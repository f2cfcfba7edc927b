//! The Memcached reconciler and its controller. The `#[rbac]` markers are the permissions the
//! operator's ServiceAccount gets (`config/rbac/role.yaml`): exactly the calls made here and in
//! the manager, nothing more.
//!
//! The controller's wiring (caches, backoff, metrics, readiness, shutdown) and what keeps it
//! quiet (applies skipped when nothing changed, status written only on change, events only
//! for news) come from `operator_runtime::controller`; this file is what is Memcached's own.

use std::sync::Arc;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, Service};
use k8s_openapi::jiff::Timestamp;
use kube::core::PartialObjectMeta;
use kube::runtime::controller::Action;
use kube::runtime::events::EventType;
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher;
use kube::{Client, ResourceExt};
use operator_derive::rbac;
use operator_runtime::Runtime;
use operator_runtime::controller::{self, Controller, Report, Reported};
use tracing::info;

use crate::api::v1alpha1::{Memcached, MemcachedStatus};
use crate::resources::{self, INSTANCE_LABEL, MANAGED_BY, MANAGED_BY_LABEL};
use crate::status::{self, AVAILABLE, Observed};

/// Name of the controller in metrics, logs and events.
pub const CONTROLLER_NAME: &str = "memcached";
/// Field manager of our server-side applies and status patches.
pub const FIELD_MANAGER: &str = "memcached-operator";
/// Finalizer that lets the operator record the deletion before the object goes.
pub const FINALIZER: &str = "cache.example.com/finalizer";

/// What the reconciles share besides the runtime's parts.
#[derive(Debug, Clone)]
pub struct Data {
    /// The memcached image for new and updated Deployments.
    pub image: String,
}

/// The reconciles' context: the runtime's (client, caches, applier, status writer, events)
/// around [`Data`].
pub type Context = controller::Context<Data>;

/// Why a reconcile failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Kubernetes API error: {0}")]
    Kube(#[from] kube::Error),
    #[error("Memcached {0} has no namespace; the kind is namespaced")]
    NoNamespace(String),
}

/// Brings the cluster in line with one Memcached: its Deployment, Service and status; on
/// deletion, records it (Degraded condition, Warning event) before the finalizer is removed.
///
/// The markers grant exactly the calls the operator makes (the cluster tests run it as a
/// service account bound to the generated roles, so a missing verb fails them): watches and
/// lists for the caches, server-side apply for owned objects (`patch`, and `create` for the
/// apply that creates one: without it the test fails), merge patches for finalizers and
/// status. Everything read comes from the watch caches.
#[rbac(
    groups = "cache.example.com",
    resources = "memcacheds",
    verbs = "list;watch;patch"
)]
#[rbac(
    groups = "cache.example.com",
    resources = "memcacheds/status",
    verbs = "patch"
)]
// Setting `blockOwnerDeletion` on owner references needs `update` on the owner's finalizers
// where the OwnerReferencesPermissionEnforcement admission plugin is on (OpenShift, hardened
// clusters).
#[rbac(
    groups = "cache.example.com",
    resources = "memcacheds/finalizers",
    verbs = "update"
)]
#[rbac(
    groups = "apps",
    resources = "deployments",
    verbs = "list;watch;create;patch"
)]
#[rbac(
    groups = "core",
    resources = "services",
    verbs = "list;watch;create;patch"
)]
#[rbac(groups = "core", resources = "pods", verbs = "list;watch")]
#[rbac(groups = "events.k8s.io", resources = "events", verbs = "create;patch")]
// Leader election only touches one Lease in the operator's own namespace (kustomize rewrites
// `system` to the deployment namespace), so it gets a namespaced Role, not cluster-wide rights.
#[rbac(
    groups = "coordination.k8s.io",
    resources = "leases",
    verbs = "get;create;patch",
    namespace = "system",
    role_name = "leader-election-role"
)]
pub async fn reconcile(mc: Arc<Memcached>, ctx: Arc<Context>) -> Result<Action, Error> {
    mc.namespace()
        .ok_or_else(|| Error::NoNamespace(mc.name_any()))?;
    // Server-side apply is idempotent, but an apply that changes nothing is still a request
    // the API server must process, and a Memcached is reconciled on every event of its pods:
    // the runtime's applier sends one only when the object is not as this process last
    // applied it (its spec edited, deleted, or a new desired state), and after the sync
    // period in any case.
    // The two are independent, so they go out together: a reconcile holds one of the
    // controller's few workers for the time of its requests.
    let (deployment, service) = (
        resources::deployment(&mc, &ctx.data().image),
        resources::service(&mc),
    );
    let (deployment, _) = tokio::try_join!(
        ctx.apply(mc.as_ref(), &deployment),
        ctx.apply(mc.as_ref(), &service)
    )?;
    let Some(deployment) = deployment.into_object() else {
        unreachable!("Deployments are cached as objects, not metadata");
    };
    let observed = Observed {
        deployment: Some(&deployment),
        pods: pods_of(&mc, &ctx),
        finalizing: false,
    };
    let status = status::desired(&mc, &observed, Timestamp::now());
    // A rollout's steps are reported sparingly: the runtime holds them back (Report::Progress).
    if let Reported::Later(left) = write_status(&mc, status, &ctx).await? {
        return Ok(Action::requeue(left));
    }
    Ok(ctx.next_sync(mc.as_ref()))
}

/// The Memcached is being deleted: record it (Degraded condition, Warning event) before the
/// finalizer goes; its Deployment and Service follow by garbage collection.
pub async fn cleanup(mc: Arc<Memcached>, ctx: Arc<Context>) -> Result<Action, Error> {
    let ns = mc.namespace().unwrap_or_default();
    let name = mc.name_any();
    let deployment = ctx.cached::<Deployment>(Some(&ns), &name);
    let observed = Observed {
        deployment: deployment.as_deref(),
        pods: pods_of(&mc, &ctx),
        finalizing: true,
    };
    // A second cleanup of the same deletion (a stale copy from the cache, queued before the
    // finalizer went) finds the status already written and records nothing again.
    let status = status::desired(&mc, &observed, Timestamp::now());
    if write_status(&mc, status, &ctx).await? == Reported::Written {
        let note = format!(
            "Memcached {name} is being deleted from namespace {ns}; its Deployment and Service follow by garbage collection"
        );
        ctx.publish(mc.as_ref(), EventType::Warning, "Deleting", note)
            .await;
        info!("finalized");
    }
    Ok(Action::await_change())
}

/// Writes `status` if it differs from the Memcached's, with an event when availability
/// changed in a way worth one. A rollout's progress is paced by the runtime and may be held
/// back ([`Reported::Later`]); any other change is written at once.
async fn write_status(
    mc: &Memcached,
    status: MemcachedStatus,
    ctx: &Context,
) -> Result<Reported, Error> {
    let report = if status::is_progress(&status) {
        Report::Progress
    } else {
        Report::Change
    };
    let written = ctx.report(mc, &status, report).await?;
    if written != Reported::Written {
        return Ok(written);
    }
    let previous = mc.status.clone().unwrap_or_default();
    if let Some((warning, reason)) = status::availability_event(&previous, &status) {
        let message = status::find(&status, AVAILABLE)
            .map(|c| c.message.clone())
            .unwrap_or_default();
        let type_ = if warning {
            EventType::Warning
        } else {
            EventType::Normal
        };
        ctx.publish(mc, type_, reason, message).await;
    }
    Ok(Reported::Written)
}

/// Names of the Memcached's pods that are not being deleted, from the pod watch's index.
fn pods_of(mc: &Memcached, ctx: &Context) -> Vec<String> {
    ctx.related::<PartialObjectMeta<Pod>, _>(mc)
        .iter()
        .filter(|p| p.metadata.deletion_timestamp.is_none())
        .map(|p| p.name_any())
        .collect()
}

/// The Memcached a pod of ours belongs to, by its instance label.
fn memcached_of(pod: &PartialObjectMeta<Pod>) -> Option<ObjectRef<Memcached>> {
    let name = pod.labels().get(INSTANCE_LABEL)?;
    Some(ObjectRef::new(name).within(pod.namespace().as_deref()?))
}

/// A cached Deployment without its pod template, which is most of it and which nothing here
/// reads: the status is computed from the replica counts and conditions, and an apply is
/// skipped by generation, not by comparing templates.
fn without_pod_template(deployment: &mut Deployment) {
    if let Some(spec) = deployment.spec.as_mut() {
        spec.template = Default::default();
    }
}

/// How the controller runs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Watch only this namespace (all when `None`).
    pub namespace: Option<String>,
    /// Reconciles running at once.
    pub concurrency: u16,
    pub image: String,
}

/// The controller as the manager starts it: watches Memcacheds, the Deployments (their status
/// is the Memcached's) and Services (metadata) they own, and their Pods (metadata, mapped back
/// to the Memcached by label); runs until the manager stops.
///
/// Caches hold only what the reconciler reads, without managed fields (measured with `cargo
/// xtask bench-operator`: 61 MiB peak for 1,000 Memcacheds with whole objects and managed
/// fields everywhere).
pub async fn start(client: Client, settings: Settings, runtime: Runtime) {
    let managed = watcher::Config::default().labels(&format!("{MANAGED_BY_LABEL}={MANAGED_BY}"));
    let pods = watcher::Config::default().labels(&resources::managed_pods_selector());
    Controller::<Memcached>::new(client, &runtime)
        .named(CONTROLLER_NAME)
        .field_manager(FIELD_MANAGER)
        .namespace(settings.namespace)
        .concurrency(settings.concurrency)
        // The status it writes wakes nothing: the cache sees it, the next reconcile compares.
        .ignore_status_changes()
        .owns_transformed::<Deployment, _>(managed.clone(), without_pod_template)
        .owns_metadata::<Service>(managed)
        .watches_metadata::<Pod, _>(pods, memcached_of)
        .run_with_finalizer(
            FINALIZER,
            reconcile,
            cleanup,
            Data {
                image: settings.image,
            },
        )
        .await
}
