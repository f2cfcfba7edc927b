//! The Backup reconciler and its controller. The `#[rbac]` markers are the permissions the
//! operator's ServiceAccount gets (`config/rbac/role.yaml`, from `cargo xtask manifests`):
//! add one for every call the reconciler makes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use futures::{FutureExt as _, StreamExt as _};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::finalizer::{self, finalizer};
use kube::runtime::watcher;
use kube::{Client, ResourceExt as _};
use operator_derive::rbac;
use operator_runtime::{Metrics, ReconcileSettings, Runtime};
use tracing::{Instrument as _, info, info_span, warn};

use crate::api::infra::v1alpha1::{Backup, BackupStatus};

/// Name of the controller in metrics and logs.
pub const CONTROLLER_NAME: &str = "backup";
/// Field manager of the status patches.
pub const FIELD_MANAGER: &str = "guestbook-operator";
/// Lets the reconciler clean up before a Backup goes.
pub const FINALIZER: &str = "infra.example.com/finalizer";

/// What every reconcile shares.
pub struct Context {
    pub client: Client,
    pub metrics: Arc<Metrics>,
    /// `--sync-period` and `--reconcile-debounce`, from the manager.
    pub reconcile: ReconcileSettings,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").finish_non_exhaustive()
    }
}

/// Why a reconcile failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Kubernetes API error: {0}")]
    Kube(#[from] kube::Error),
    #[error("Backup {0} has no namespace; the kind is namespaced")]
    NoNamespace(String),
    #[error("finalizer: {0}")]
    Finalizer(#[source] Box<finalizer::Error<Error>>),
}

/// Brings the cluster in line with one Backup. The finalizer runs [`cleanup`] before a
/// deleted Backup goes.
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
    let started = Instant::now();
    let _worker = ctx.metrics.worker(CONTROLLER_NAME);
    let span = info_span!("reconcile", backup = %obj.name_any());
    let result = async {
        let api = Api::<Backup>::all(ctx.client.clone());
        finalizer(&api, FINALIZER, obj, |event| async {
            match event {
                finalizer::Event::Apply(obj) => apply(&obj, &api, &ctx).await,
                finalizer::Event::Cleanup(obj) => cleanup(&obj).await,
            }
        })
        .await
        .map_err(|e| Error::Finalizer(Box::new(e)))
    }
    .instrument(span)
    .await;
    let outcome = if result.is_ok() { "success" } else { "error" };
    ctx.metrics
        .reconciled(CONTROLLER_NAME, outcome, started.elapsed());
    result
}

/// The Backup exists (and carries the finalizer): make the world match its spec, then
/// report what was done in its status.
async fn apply(obj: &Backup, api: &Api<Backup>, ctx: &Context) -> Result<Action, Error> {
    // Your logic here: create or update what this Backup owns (server-side apply is
    // idempotent), each call with its #[rbac] marker above.
    let status = BackupStatus {
        observed_generation: obj.metadata.generation,
        conditions: vec![Condition {
            type_: "Ready".into(),
            status: "True".into(),
            reason: "Reconciled".into(),
            message: "The spec is reconciled".into(),
            observed_generation: obj.metadata.generation,
            last_transition_time: ready_since(obj),
        }],
    };
    if obj.status.as_ref() != Some(&status) {
        api.patch_status(
            &obj.name_any(),
            &PatchParams::apply(FIELD_MANAGER).force(),
            &Patch::Apply(serde_json::json!({
                "apiVersion": "infra.example.com/v1alpha1",
                "kind": "Backup",
                "status": status,
            })),
        )
        .await?;
        info!("reconciled");
    }
    // Back on the next change, and after --sync-period in any case.
    Ok(ctx.reconcile.requeue(obj.metadata.uid.as_deref()))
}

/// When the Ready condition last changed: kept while it stays True.
fn ready_since(obj: &Backup) -> Time {
    obj.status
        .iter()
        .flat_map(|s| &s.conditions)
        .find(|c| c.type_ == "Ready" && c.status == "True")
        .map(|c| c.last_transition_time.clone())
        .unwrap_or_else(|| Time(Timestamp::now()))
}

/// The Backup is being deleted: release what it holds outside the cluster, if anything.
/// Objects it owns (with owner references) are deleted by the garbage collector.
async fn cleanup(obj: &Backup) -> Result<Action, Error> {
    info!(name = %obj.name_any(), "cleaned up");
    Ok(Action::await_change())
}

/// Failed reconciles are retried after a pause.
fn error_policy(_obj: Arc<Backup>, error: &Error, _ctx: Arc<Context>) -> Action {
    warn!(%error, "reconcile failed");
    Action::requeue(Duration::from_secs(5))
}

/// The controller as the manager starts it (listed in `controllers::ALL`): it reports its
/// cache synced to `/readyz` and stops with the runtime.
pub fn start(client: Client, runtime: Runtime) -> BoxFuture<'static, ()> {
    let synced = runtime.synced();
    let controller = Controller::new(
        Api::<Backup>::all(client.clone()),
        watcher::Config::default(),
    )
    .with_config(runtime.reconcile().controller_config())
    .graceful_shutdown_on(runtime.stopped());
    let store = controller.store();
    tokio::spawn(async move {
        if store.wait_until_ready().await.is_ok() {
            synced.done();
        }
    });
    let ctx = Arc::new(Context {
        client,
        metrics: runtime.metrics().clone(),
        reconcile: runtime.reconcile(),
    });
    controller
        .run(reconcile, error_policy, ctx)
        .for_each(|result| async move {
            match result {
                Ok(_) | Err(controller::Error::ReconcilerFailed(..)) => {}
                Err(controller::Error::ObjectNotFound(obj)) => {
                    tracing::debug!(%obj, "gone before it was reconciled");
                }
                Err(other) => warn!(error = %other, "controller"),
            }
        })
        .boxed()
}
