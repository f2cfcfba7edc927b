//! Starting a built controller: its watches set up, kube's controller configured on them, the
//! caches' readiness reported, the context made, and the whole run until the manager stops
//! it, with the events flushed at the end. Each step is a function, in the order `start`
//! takes them.

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt as _;
use futures::future::BoxFuture;
use kube::runtime::controller::{self, Action};
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher;
use kube::{Client, Resource};
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use super::reconcile::{Kind, Reconciler, error_policy, reconciler};
use super::watches::{Setup, WatchBackoff};
use super::{Context, Controller, Error};
use crate::manager::{Runtime, Synced};

/// How long a stopping controller waits for its queued events to go out.
const EVENT_FLUSH: Duration = Duration::from_secs(5);

/// The run of `controller`: `reconcile` (and, with a finalizer, `cleanup`) called for each
/// object that changed, until the manager stops it.
pub(super) fn start<K, R, C, E, T>(
    controller: Controller<K>,
    finalizer_name: Option<String>,
    reconcile: Arc<R>,
    cleanup: Option<Arc<C>>,
    data: T,
) -> impl Future<Output = ()> + Send
where
    K: Kind,
    R: Reconciler<K, T, E>,
    C: Reconciler<K, T, E>,
    E: std::error::Error + Send + Sync + 'static,
    T: Send + Sync + 'static,
{
    let Controller {
        client,
        runtime,
        synced,
        name,
        field_manager,
        event_reporter,
        namespace,
        config,
        ignore_status_changes,
        concurrency,
        backoff,
        watch_backoff,
        guard,
        pacing,
        registrations,
    } = controller;
    let (controller, mut caches, waits) =
        Setup::<K>::new(client.clone(), namespace, config, ignore_status_changes)
            .register(registrations);
    caches.set_primary(controller.store());
    let controller = configure(controller, &runtime, concurrency, watch_backoff);
    let caches_synced = report_synced(waits, synced);
    runtime.metrics().controller_started(&name, concurrency);
    let mut ctx = context(client, name, data, field_manager, event_reporter, &runtime);
    ctx.caches = caches;
    ctx.synced = caches_synced;
    ctx.pacing = pacing;
    let ctx = Arc::new(ctx);
    let unsynced_stop = stop_unsynced(
        runtime.stop_token(),
        ctx.synced.clone(),
        ctx.name().to_string(),
    );
    let events = ctx.clone();
    let flush = ctx.clone();
    let run = controller
        .run(
            reconciler(reconcile, cleanup, finalizer_name, guard),
            error_policy(backoff),
            ctx,
        )
        .for_each(move |result| {
            log_result(&events, result);
            std::future::ready(())
        });
    async move {
        tokio::select! {
            () = run => {}
            () = unsynced_stop => {}
        }
        flush.flush_events(EVENT_FLUSH).await;
    }
}

/// kube's controller as the manager's flags and the builder say: `concurrency` reconciles at
/// once, the watches retried after `watch_backoff`, stopped with the manager.
fn configure<K>(
    controller: controller::Controller<K>,
    runtime: &Runtime,
    concurrency: u16,
    watch_backoff: WatchBackoff,
) -> controller::Controller<K>
where
    K: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
{
    controller
        .with_config(
            runtime
                .reconcile()
                .controller_config()
                .concurrency(concurrency),
        )
        // One backoff for all trigger streams together: the controller pauses them all on
        // an error from any.
        .trigger_backoff(watch_backoff)
        .graceful_shutdown_on(runtime.stopped())
}

/// Once every cache has seen a full list (`waits`): the token returned, which reconciles wait
/// for, is cancelled, and `/readyz` is told through `synced`.
fn report_synced(waits: Vec<BoxFuture<'static, ()>>, synced: Synced) -> CancellationToken {
    let caches_synced = CancellationToken::new();
    let all_synced = caches_synced.clone();
    tokio::spawn(async move {
        futures::future::join_all(waits).await;
        all_synced.cancel();
        synced.done();
    });
    caches_synced
}

/// The context the reconciles share, its caches not yet set: the field manager (the
/// controller's name unless set), the event reporter, the manager's metrics, settings and
/// stop signal.
fn context<T>(
    client: Client,
    name: String,
    data: T,
    field_manager: Option<String>,
    event_reporter: Option<String>,
    runtime: &Runtime,
) -> Context<T> {
    let field_manager = field_manager.unwrap_or_else(|| name.clone());
    let mut ctx = Context::new(client, name, data)
        .with_field_manager(field_manager)
        .with_metrics(runtime.metrics().clone())
        .with_settings(runtime.reconcile());
    if let Some(reporter) = event_reporter {
        ctx = ctx.with_event_reporter(reporter);
    }
    ctx.stopping = runtime.stop_token();
    ctx.elected = runtime.elected_token();
    ctx
}

/// Ends when the manager stops (`stop`) before every cache synced (`synced`); never once they
/// have. kube's controller holds its reconciles until the primary cache is ready and, on a
/// graceful shutdown, waits for them: if a cache never syncs (a watch refused for want of a
/// grant, say), it would wait forever. Stopping before every cache synced ends it at once:
/// nothing was reconciled.
async fn stop_unsynced(stop: CancellationToken, synced: CancellationToken, name: String) {
    stop.cancelled().await;
    if synced.is_cancelled() {
        std::future::pending::<()>().await;
    }
    warn!(controller = %name, "stopping before every cache synced (see the watch errors above)");
}

/// What kube's controller reports of each object beside reconcile errors (which the error
/// policy logs with their backoff): a deleted object is forgotten, other errors are logged.
fn log_result<K, T, E>(
    ctx: &Context<T>,
    result: Result<(ObjectRef<K>, Action), controller::Error<Error<E>, watcher::Error>>,
) where
    K: Resource<DynamicType = ()>,
    E: std::error::Error + 'static,
{
    match result {
        // Reconcile errors are logged (with their backoff) by the error policy.
        Ok(_) | Err(controller::Error::ReconcilerFailed(..)) => {}
        // Deleted: what was remembered of it goes too.
        Err(controller::Error::ObjectNotFound(obj)) => {
            debug!(%obj, "gone");
            ctx.forget_key(&(obj.namespace.clone(), obj.name.clone()));
        }
        Err(other) => warn!(controller = ctx.name(), error = %other, "controller"),
    }
}
