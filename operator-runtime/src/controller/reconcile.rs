//! One reconcile as the controller runs it: after the caches synced, with or without the
//! finalizer, under its guard (a panic recovered, a time limit), in a span, counted and
//! timed; and what is done after a failure.

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt as _;
use futures::future::BoxFuture;
use kube::Resource;
use kube::api::Api;
use kube::runtime::controller::Action;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tracing::{Instrument as _, debug, info_span, warn};

use super::caches::{Key, key_of};
use super::scope::{ScopeApi, api};
use super::{Backoff, Context, Error, finalizer};
use crate::Metrics;

/// What a reconcile is run under: whether a panic is recovered, and how long it may take.
#[derive(Debug, Clone, Copy)]
pub(super) struct Guard {
    pub(super) recover_panics: bool,
    pub(super) timeout: Option<Duration>,
}

impl Default for Guard {
    fn default() -> Self {
        Self {
            recover_panics: true,
            timeout: None,
        }
    }
}

/// A kind a controller runs on: a resource of a static type whose `Api` its scope builds,
/// cloned into the caches, logged, and read and written as JSON. What `Controller`'s own
/// bounds spell out, in one name for the steps behind it.
pub(super) trait Kind:
    Resource<DynamicType = (), Scope: ScopeApi>
    + Clone
    + Debug
    + Serialize
    + DeserializeOwned
    + Send
    + Sync
    + 'static
{
}

impl<K> Kind for K
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
    K: Send + Sync + 'static,
    K::Scope: ScopeApi,
{
}

/// An operator's reconcile (or cleanup) of `K`: called with the object and the context, its
/// future resolving to the next [`Action`] or the operator's error `E`. Every
/// `Fn(Arc<K>, Arc<Context<T>>) -> impl Future<Output = Result<Action, E>>` that can be
/// shared between tasks is one.
pub(super) trait Reconciler<K, T, E>: Send + Sync + 'static {
    /// The future of one call.
    type Future: Future<Output = Result<Action, E>> + Send + 'static;
    /// One call.
    fn call(&self, obj: Arc<K>, ctx: Arc<Context<T>>) -> Self::Future;
}

impl<K, T, E, F, Fut> Reconciler<K, T, E> for F
where
    F: Fn(Arc<K>, Arc<Context<T>>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Action, E>> + Send + 'static,
{
    type Future = Fut;

    fn call(&self, obj: Arc<K>, ctx: Arc<Context<T>>) -> Fut {
        self(obj, ctx)
    }
}

/// The type of the cleanup a controller without a finalizer never calls.
pub(super) type NoCleanup<K, T, E> =
    fn(Arc<K>, Arc<Context<T>>) -> std::future::Ready<Result<Action, E>>;

/// One reconcile of `obj`, once the caches synced: the operator's (or, with a finalizer,
/// [`finalizer::finalized`]'s) under `guard`, in a span, counted and timed; an object
/// already gone is no failure.
async fn reconcile_one<K, T, R, C, E>(
    obj: Arc<K>,
    ctx: Arc<Context<T>>,
    reconcile: Arc<R>,
    cleanup: Option<Arc<C>>,
    finalizer_name: Option<String>,
    guard: Guard,
) -> Result<Action, Error<E>>
where
    K: Kind,
    R: Reconciler<K, T, E>,
    C: Reconciler<K, T, E>,
    E: std::error::Error + Send + Sync + 'static,
    T: Send + Sync + 'static,
{
    let queue = ctx.queue.clone();
    let _running = queue
        .as_ref()
        .map(|queue| queue.start(key_of(obj.as_ref())));
    tokio::select! {
        () = ctx.synced.cancelled() => {}
        // Stopping before the caches ever synced: nothing was reconciled, nothing to undo.
        () = ctx.stopping.cancelled() => return Ok(Action::await_change()),
    }
    let obj = if ctx.elected.is_cancelled() {
        obj
    } else {
        // A standby: the reconcile waits for the lease, then takes the object as the cache
        // holds it by then (it may have changed, or gone, while the other instance led).
        tokio::select! {
            () = ctx.elected.cancelled() => {}
            () = ctx.stopping.cancelled() => return Ok(Action::await_change()),
        }
        match ctx.caches.primary::<K>(&key_of(obj.as_ref())) {
            Some(now) => now,
            None => return Ok(Action::await_change()),
        }
    };
    let started = Instant::now();
    let _worker = ctx.metrics().worker(ctx.name());
    let key = key_of(obj.as_ref());
    let span = info_span!("reconcile", controller = ctx.name(), object = %show(&key));
    let result = async {
        match (finalizer_name, cleanup) {
            (Some(name), Some(cleanup)) => {
                let api: Api<K> = api(ctx.client(), key.0.as_deref());
                finalizer::finalized(
                    &api,
                    &name,
                    obj,
                    |obj| reconcile.call(obj, ctx.clone()),
                    |obj| cleanup.call(obj, ctx.clone()),
                )
                .await
            }
            _ => reconcile
                .call(obj, ctx.clone())
                .await
                .map_err(Error::Reconcile),
        }
    }
    .instrument(span);
    let result = guarded(result, guard, ctx.metrics(), ctx.name()).await;
    let result = match result {
        Err(e) if e.already_gone() => {
            debug!(object = %show(&key), "already gone");
            Ok(Action::await_change())
        }
        other => other,
    };
    let outcome = if result.is_ok() {
        ctx.succeeded(&key);
        "success"
    } else {
        "error"
    };
    ctx.metrics()
        .reconciled(ctx.name(), outcome, started.elapsed());
    result
}

/// Runs one reconcile under `guard`: a panic becomes [`Error::Panicked`] (or, not recovered,
/// goes on unwinding once counted), a reconcile over the time limit [`Error::TimedOut`].
async fn guarded<E, F>(
    reconcile: F,
    guard: Guard,
    metrics: &Metrics,
    controller: &str,
) -> Result<Action, Error<E>>
where
    E: std::error::Error + 'static,
    F: Future<Output = Result<Action, Error<E>>>,
{
    let caught = std::panic::AssertUnwindSafe(reconcile).catch_unwind();
    let outcome = match guard.timeout {
        Some(limit) => match tokio::time::timeout(limit, caught).await {
            Ok(outcome) => outcome,
            Err(_) => {
                metrics.reconcile_timed_out(controller);
                return Err(Error::TimedOut(limit));
            }
        },
        None => caught.await,
    };
    match outcome {
        Ok(result) => result,
        Err(panic) => {
            metrics.reconcile_panicked(controller);
            if !guard.recover_panics {
                std::panic::resume_unwind(panic);
            }
            Err(Error::Panicked(crate::panic_message(&*panic).to_string()))
        }
    }
}

/// What [`reconciler`]'s function returns for each object.
type Reconciled<E> = BoxFuture<'static, Result<Action, Error<E>>>;

/// The reconciler kube's controller calls: [`reconcile_one`] with what the builder set.
pub(super) fn reconciler<K, T, R, C, E>(
    reconcile: Arc<R>,
    cleanup: Option<Arc<C>>,
    finalizer_name: Option<String>,
    guard: Guard,
) -> impl Fn(Arc<K>, Arc<Context<T>>) -> Reconciled<E> + Send + Sync + 'static
where
    K: Kind,
    R: Reconciler<K, T, E>,
    C: Reconciler<K, T, E>,
    E: std::error::Error + Send + Sync + 'static,
    T: Send + Sync + 'static,
{
    move |obj: Arc<K>, ctx: Arc<Context<T>>| {
        reconcile_one(
            obj,
            ctx,
            reconcile.clone(),
            cleanup.clone(),
            finalizer_name.clone(),
            guard,
        )
        .boxed()
    }
}

/// What kube's controller does after a failed reconcile: log it, and retry the object after
/// its next delay of `backoff` (behind every change, in the controller's queue).
pub(super) fn error_policy<K, T, E>(
    backoff: Backoff,
) -> impl Fn(Arc<K>, &Error<E>, Arc<Context<T>>) -> Action + Send + Sync + 'static
where
    K: Resource,
    E: std::error::Error + 'static,
{
    move |obj: Arc<K>, error: &Error<E>, ctx: Arc<Context<T>>| {
        let key = key_of(obj.as_ref());
        let (failures, delay) = ctx.failed(&key, &backoff);
        warn!(controller = ctx.name(), object = %show(&key), %error, failures, retry_in = ?delay, "reconcile failed");
        match &ctx.queue {
            Some(queue) => {
                queue.later(key, delay);
                Action::await_change()
            }
            None => Action::requeue(delay),
        }
    }
}

/// `namespace/name`, or `name`.
fn show((namespace, name): &Key) -> String {
    match namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::Client;

    fn offline_context() -> Arc<Context<()>> {
        let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
        Arc::new(Context::new(
            Client::try_from(config).unwrap(),
            "widget",
            (),
        ))
    }

    async fn reconcile_with<F, Fut>(
        ctx: &Arc<Context<()>>,
        guard: Guard,
        reconcile: F,
    ) -> Result<Action, Error<kube::Error>>
    where
        F: Fn(Arc<ConfigMap>, Arc<Context<()>>) -> Fut,
        F: Send + Sync + 'static,
        Fut: Future<Output = Result<Action, kube::Error>> + Send + 'static,
    {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some("settings".into());
        cm.metadata.namespace = Some("ns".into());
        reconcile_one(
            Arc::new(cm),
            ctx.clone(),
            Arc::new(reconcile),
            None::<Arc<NoCleanup<_, (), kube::Error>>>,
            None,
            guard,
        )
        .await
    }

    #[tokio::test]
    async fn a_panicking_reconcile_is_an_error_counted_and_the_next_one_runs() {
        let ctx = offline_context();
        let panics = |cm: Arc<ConfigMap>, _| async move {
            if let Some(name) = cm.metadata.name.as_deref() {
                panic!("index out of range in {name}");
            }
            Ok(Action::await_change())
        };
        let err = reconcile_with(&ctx, Guard::default(), panics)
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::Panicked(m) if m == "index out of range in settings"),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "the reconcile panicked: index out of range in settings"
        );
        let ok = reconcile_with(&ctx, Guard::default(), |_, _| async {
            Ok(Action::await_change())
        })
        .await;
        assert!(ok.is_ok());
        let text = ctx.metrics().encode();
        for line in [
            "controller_runtime_reconcile_panics_total{controller=\"widget\"} 1",
            "controller_runtime_reconcile_total{controller=\"widget\",result=\"error\"} 1",
            "controller_runtime_reconcile_total{controller=\"widget\",result=\"success\"} 1",
        ] {
            assert!(text.contains(line), "{line} missing from\n{text}");
        }
    }

    #[tokio::test]
    async fn a_panic_not_to_be_recovered_goes_on_unwinding_once_counted() {
        let ctx = offline_context();
        let guard = Guard {
            recover_panics: false,
            timeout: None,
        };
        let run = reconcile_with(&ctx, guard, |cm: Arc<ConfigMap>, _| async move {
            if cm.metadata.name.is_some() {
                panic!("not recovered");
            }
            Ok(Action::await_change())
        });
        let unwound = std::panic::AssertUnwindSafe(run).catch_unwind().await;
        let panic = unwound.expect_err("the panic was swallowed");
        assert_eq!(crate::panic_message(&*panic), "not recovered");
        assert!(
            ctx.metrics()
                .encode()
                .contains("controller_runtime_reconcile_panics_total{controller=\"widget\"} 1")
        );
    }

    #[tokio::test]
    async fn a_reconcile_over_its_time_limit_is_stopped_and_one_within_it_is_not() {
        let ctx = offline_context();
        let guard = |limit| Guard {
            recover_panics: true,
            timeout: Some(limit),
        };
        let limit = Duration::from_millis(50);
        let stuck = reconcile_with(&ctx, guard(limit), |_, _| async {
            std::future::pending::<()>().await;
            Ok(Action::await_change())
        })
        .await
        .unwrap_err();
        assert!(
            matches!(stuck, Error::TimedOut(d) if d == limit),
            "{stuck:?}"
        );
        let quick = reconcile_with(&ctx, guard(Duration::from_secs(60)), |_, _| async {
            tokio::task::yield_now().await;
            Ok(Action::await_change())
        })
        .await;
        assert!(quick.is_ok(), "{quick:?}");
        assert!(
            ctx.metrics()
                .encode()
                .contains("controller_runtime_reconcile_timeouts_total{controller=\"widget\"} 1")
        );
    }
}
