//! The Backup reconciler and its controller. The `#[rbac]` markers are the permissions the
//! operator's ServiceAccount gets (`config/rbac/role.yaml`, from `cargo xtask manifests`):
//! add one for every call the reconciler makes.
//!
//! The wiring (caches, per-object backoff, metrics, a tracing span per reconcile, readiness,
//! shutdown) is `operator_runtime::controller`'s; what is left is the logic.

use std::sync::Arc;

use futures::FutureExt as _;
use futures::future::BoxFuture;
use k8s_openapi::jiff::Timestamp;
use kube::runtime::controller::Action;
use kube::{Client, ResourceExt as _};
use operator_derive::rbac;
use operator_runtime::controller::{Context, Controller};
use operator_runtime::{Runtime, conditions};
use tracing::info;

use crate::api::infra::v1alpha1::{Backup, BackupStatus};

/// Name of the controller in metrics and logs.
pub const CONTROLLER_NAME: &str = "backup";
/// Field manager of the applies and status patches.
pub const FIELD_MANAGER: &str = "guestbook-operator";
/// Reporting controller of the events.
pub const EVENT_REPORTER: &str = "guestbook-operator";
/// Lets the reconciler clean up before a Backup goes.
pub const FINALIZER: &str = "infra.example.com/finalizer";

/// Why a reconcile failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Kubernetes API error: {0}")]
    Kube(#[from] kube::Error),
}

/// Brings the cluster in line with one Backup; [`cleanup`] runs before a deleted one goes.
#[rbac(
    groups = "infra.example.com",
    resources = "backups",
    verbs = "get;list;watch;patch"
)]
#[rbac(
    groups = "infra.example.com",
    resources = "backups/status",
    verbs = "get;patch"
)]
#[rbac(
    groups = "infra.example.com",
    resources = "backups/finalizers",
    verbs = "update"
)]
pub async fn reconcile(obj: Arc<Backup>, ctx: Arc<Context>) -> Result<Action, Error> {
    // Your logic here: build what this Backup owns and `ctx.apply(obj.as_ref(), &desired)`
    // it (server-side apply, skipped while the object is as last applied); give each owned
    // kind an #[rbac] marker above and an `.owns::<Kind>(..)` in `start`.
    let previous = obj.status.as_ref().map(|s| s.conditions.as_slice());
    let ready = conditions::new("Ready", true, "Reconciled", "The spec is reconciled");
    let status = BackupStatus {
        observed_generation: obj.metadata.generation,
        conditions: conditions::stamp(
            previous.unwrap_or_default(),
            [ready.generation(obj.metadata.generation)],
            Timestamp::now(),
        ),
    };
    // Written only when it changed.
    if ctx.write_status(obj.as_ref(), &status).await? {
        info!("reconciled");
    }
    // Back on the next change, and after --sync-period in any case.
    Ok(ctx.next_sync(obj.as_ref()))
}

/// The Backup is being deleted: release what it holds outside the cluster, if anything.
/// Objects it owns (with owner references) are deleted by the garbage collector.
pub async fn cleanup(obj: Arc<Backup>, _ctx: Arc<Context>) -> Result<Action, Error> {
    info!(name = %obj.name_any(), "cleaned up");
    Ok(Action::await_change())
}

/// The controller as the manager starts it (listed in `controllers::ALL`), watching
/// `namespace` (every namespace when `None`).
pub fn start(
    client: Client,
    runtime: Runtime,
    namespace: Option<String>,
) -> BoxFuture<'static, ()> {
    Controller::<Backup>::new(client, &runtime)
        .namespace(namespace)
        .named(CONTROLLER_NAME)
        .field_manager(FIELD_MANAGER)
        .event_reporter(EVENT_REPORTER)
        // A status write (this controller's own) does not reconcile again.
        .ignore_status_changes()
        .run_with_finalizer(FINALIZER, reconcile, cleanup, ())
        .boxed()
}
