//! The {{kind}} controller. {{kind}} is {{api_group}}'s kind, not this project's: its types
//! (`crate::api::external`) are generated from its CRD by `cargo operator create api
//! --external`, the operator that owns it installs the CRD in real clusters, and this
//! project's manifests never include it. The controller reconciles the {{kind}}s it sees;
//! the `#[rbac]` markers are the permissions the operator's ServiceAccount gets
//! (`config/rbac/role.yaml`, from `cargo xtask manifests`), as for any kind.
//!
//! The wiring (caches, per-object backoff, metrics, a tracing span per reconcile, readiness,
//! shutdown) is `operator_runtime::controller`'s; what is left is the logic.

use std::sync::Arc;

use futures::FutureExt as _;
use futures::future::BoxFuture;
use kube::Client;
use kube::runtime::controller::Action;
use kube::runtime::events::EventType;
use operator_derive::rbac;
use operator_runtime::Runtime;
use operator_runtime::controller::{Context, Controller};
use tracing::info;

use {{types_path}}::{{kind}};

/// Name of the controller in metrics and logs.
pub const CONTROLLER_NAME: &str = "{{kind_lower}}";
/// Field manager of the applies and patches.
pub const FIELD_MANAGER: &str = "{{field_manager}}";
/// Reporting controller of the events.
pub const EVENT_REPORTER: &str = "{{event_reporter}}";
/// The reason of the event each {{kind}} gets when first reconciled.
pub const OBSERVED: &str = "Observed";

/// Why a reconcile failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Kubernetes API error: {0}")]
    Kube(#[from] kube::Error),
}

/// Acts on one {{kind}}. Its status belongs to the operator that owns the kind: read it,
/// never write it.
#[rbac(
    groups = "{{api_group}}",
    resources = "{{plural}}",
    verbs = "get;list;watch"
)]
#[rbac(groups = "events.k8s.io", resources = "events", verbs = "create;patch")]
pub async fn reconcile(obj: Arc<{{kind}}>, ctx: Arc<Context>) -> Result<Action, Error> {
    // Your logic here: what this operator does about a {{kind}} (create objects that go with
    // it and `ctx.apply(obj.as_ref(), &desired)` them, with an #[rbac] marker above and an
    // `.owns::<Kind>(..)` in `start` for each kind; or make objects of your own kinds own
    // {{kind}}s, in their controllers). Objects written here need more verbs above.
    if ctx
        .publish(
            obj.as_ref(),
            EventType::Normal,
            OBSERVED,
            "Seen by {{project_name}}",
        )
        .await
    {
        info!("observed");
    }
    // Back on the next change, and after --sync-period in any case.
    Ok(ctx.next_sync(obj.as_ref()))
}

/// The controller as the manager starts it (listed in `controllers::ALL`), watching
/// `namespace` (every namespace when `None`).
pub fn start(client: Client, runtime: Runtime, namespace: Option<String>) -> BoxFuture<'static, ()> {
    Controller::<{{kind}}>::new(client, &runtime)
        .namespace(namespace)
        .named(CONTROLLER_NAME)
        .field_manager(FIELD_MANAGER)
        .event_reporter(EVENT_REPORTER)
        // The owner's status updates do not reconcile again.
        .ignore_status_changes()
        .run(reconcile, ())
        .boxed()
}
