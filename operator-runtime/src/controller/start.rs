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
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::watcher;
use kube::{Client, Resource};
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;
use tracing::{debug, warn};

use super::queue::{Priority, WorkQueue};
use super::reconcile::{Kind, Reconciler, error_policy, reconciler};
use super::watches::{Setup, WorkStream};
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
        filter,
        concurrency,
        backoff,
        watch_backoff,
        guard,
        pacing,
        registrations,
    } = controller;
    let watches = Setup::<K>::new(
        client.clone(),
        namespace,
        config,
        ignore_status_changes,
        filter,
        watch_backoff,
    )
    .register(registrations);
    let mut caches = watches.caches;
    caches.set_primary(watches.store.clone());
    let queue = Arc::new(
        WorkQueue::new(concurrency, runtime.reconcile().debounce)
            .with_depth_gauge(runtime.metrics().workqueue_depth(&name)),
    );
    let controller = configure(watches.store, queue.clone(), &runtime, concurrency);
    let caches_synced = report_synced(watches.ready, synced);
    runtime.metrics().controller_started(&name, concurrency);
    let mut ctx = context(client, name, data, field_manager, event_reporter, &runtime);
    ctx.caches = caches;
    ctx.synced = caches_synced;
    ctx.pacing = pacing;
    ctx.queue = Some(queue.clone());
    let ctx = Arc::new(ctx);
    let unsynced_stop = stop_unsynced(
        runtime.stop_token(),
        ctx.synced.clone(),
        ctx.name().to_string(),
    );
    let feeding = feed(watches.work, queue, ctx.name().to_string());
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
            () = feeding => {}
        }
        flush.flush_events(EVENT_FLUSH).await;
    }
}

/// kube's controller on the primary kind's cache (`store`), running what `queue` releases:
/// `concurrency` reconciles at once, stopped with the manager. The queue debounces; kube's
/// controller does not again.
fn configure<K>(
    store: Store<K>,
    queue: Arc<WorkQueue>,
    runtime: &Runtime,
    concurrency: u16,
) -> controller::Controller<K>
where
    K: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
{
    let released = futures::stream::unfold(queue, |queue| async move {
        let (namespace, name) = queue.next().await;
        let object = ObjectRef::new(&name);
        let object = match namespace.as_deref() {
            Some(namespace) => object.within(namespace),
            None => object,
        };
        Some((object, queue))
    });
    controller::Controller::for_stream(futures::stream::empty(), store)
        .reconcile_on(released)
        .with_config(controller::Config::default().concurrency(concurrency))
        .graceful_shutdown_on(runtime.stopped())
}

/// Feeds `queue` with the work the watches find, until they end (they do not: a watch
/// retries, logging each error, after its backoff).
async fn feed(work: Vec<WorkStream>, queue: Arc<WorkQueue>, name: String) {
    futures::stream::select_all(work)
        .for_each(|found| {
            match found {
                Ok(work) => {
                    for (key, priority) in work {
                        match priority {
                            Priority::Change => queue.changed(key),
                            Priority::Later => queue.later(key, Duration::ZERO),
                        }
                    }
                }
                Err(error) => warn!(controller = %name, %error, "watch failed; retrying"),
            }
            std::future::ready(())
        })
        .await;
    std::future::pending::<()>().await;
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
            let key = (obj.namespace.clone(), obj.name.clone());
            if let Some(queue) = &ctx.queue {
                queue.dropped(&key);
            }
            ctx.forget_key(&key);
        }
        Err(other) => warn!(controller = ctx.name(), error = %other, "controller"),
    }
}
