//! controller-runtime's controller builder for kube-rs: the primary kind, the kinds it owns
//! and the kinds it watches, registered in one expression; the runtime does the rest
//! (caches without managed fields, readiness, shutdown, metrics, a tracing span per
//! reconcile, per-object exponential backoff, debouncing), and the operator writes the
//! reconcile.
//!
//! ```no_run
//! use std::sync::Arc;
//! use k8s_openapi::api::apps::v1::Deployment;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::runtime::controller::Action;
//! use kube::runtime::watcher;
//! use operator_runtime::controller::{Context, Controller};
//!
//! # type Widget = ConfigMap;
//! struct Data { image: String }
//!
//! async fn reconcile(obj: Arc<Widget>, ctx: Arc<Context<Data>>) -> Result<Action, kube::Error> {
//!     // ... build the desired Deployment from obj and ctx.image, then:
//!     // ctx.apply(obj.as_ref(), &deployment).await?;   (skipped when nothing changed)
//!     // ctx.write_status(obj.as_ref(), &status).await?; (written only when it changed)
//!     Ok(ctx.next_sync(obj.as_ref()))
//! }
//!
//! async fn start(client: kube::Client, runtime: operator_runtime::Runtime) {
//!     Controller::<Widget>::new(client, &runtime)
//!         .owns::<Deployment>(watcher::Config::default().labels("app.kubernetes.io/managed-by=widgets"))
//!         .run(reconcile, Data { image: "widget:1".into() })
//!         .await
//! }
//! ```
//!
//! What a reconcile shares is a [`Context`]: the client, [`Context::apply`] (server-side
//! apply, skipped when the owned object is as this process last applied it),
//! [`Context::write_status`] (only changes), [`Context::publish`] (events: news, not
//! repeats), [`Context::related`] (a watched kind's objects by the primary object they map
//! to, from an index) and the operator's own data.

mod caches;
mod context;
mod finalizer;
mod scope;
mod throttle;

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use futures::{FutureExt as _, StreamExt as _};
use kube::api::Api;
use kube::core::PartialObjectMeta;
use kube::runtime::controller::{self, Action};
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt as _, watcher};
use kube::{Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;
use tracing::{Instrument as _, debug, info_span, warn};

pub use self::context::{Apply, Backoff, Context, Progress, merge_patch};
pub use self::scope::{ScopeApi, api};

use self::caches::{Cache, Caches, Key, RelatedIndex, key_of};
use crate::Metrics;
use crate::manager::{Runtime, Synced};

/// Why a reconcile failed: the operator's error `E`, or the finalizer's bookkeeping.
#[derive(Debug, thiserror::Error)]
pub enum Error<E: std::error::Error + 'static> {
    /// The reconcile failed.
    #[error(transparent)]
    Reconcile(E),
    /// The cleanup of an object being deleted failed; its finalizer stays.
    #[error("cleanup before deletion: {0}")]
    Cleanup(#[source] E),
    /// The finalizer could not be added before the first reconcile.
    #[error("adding the finalizer: {0}")]
    AddFinalizer(#[source] kube::Error),
    /// The finalizer could not be removed after a successful cleanup.
    #[error("removing the finalizer: {0}")]
    RemoveFinalizer(#[source] kube::Error),
    /// The object has no name, so no finalizer can be patched onto it.
    #[error("the object has no name")]
    UnnamedObject,
    /// The finalizer name is empty.
    #[error("invalid finalizer name {0:?}")]
    InvalidFinalizer(String),
    /// The reconcile (or cleanup) panicked; the message of the panic. Retried with the
    /// backoff of any failure, and counted in `controller_runtime_reconcile_panics_total`.
    #[error("the reconcile panicked: {0}")]
    Panicked(String),
    /// The reconcile (or cleanup) ran longer than
    /// [`Controller::reconcile_timeout`] and was stopped at its next `.await`.
    #[error("the reconcile took longer than {0:?} and was stopped")]
    TimedOut(Duration),
}

impl<E: std::error::Error + 'static> Error<E> {
    /// Whether the error only says that the object is already gone: its finalizer removed
    /// and the object deleted while a copy queued before (from the cache) was reconciled
    /// again, or deleted before its finalizer could be added. Nothing is left to do, so it is
    /// not a failure to retry.
    fn already_gone(&self) -> bool {
        match self {
            Self::AddFinalizer(e) | Self::RemoveFinalizer(e) => not_found(e),
            Self::Cleanup(e) => {
                let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
                while let Some(e) = source {
                    if let Some(e) = e.downcast_ref::<kube::Error>() {
                        return not_found(e);
                    }
                    source = e.source();
                }
                false
            }
            _ => false,
        }
    }
}

fn not_found(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 404)
}

/// The setup a registration adds its watch to when the controller starts.
struct Setup<K: Resource<DynamicType = ()> + Clone + Debug + 'static> {
    client: Client,
    namespace: Option<String>,
    ignore_status_changes: bool,
    caches: Caches,
    ready: Vec<BoxFuture<'static, ()>>,
    controller: Option<controller::Controller<K>>,
}

/// The primary object a watched object maps to.
type OwnerOf<S> = Arc<dyn Fn(&S) -> Option<Key> + Send + Sync>;

/// What a cache does to each object before it keeps it.
type Transform<S> = Arc<dyn Fn(&mut S) + Send + Sync>;

type Registration<K> = Box<dyn FnOnce(&mut Setup<K>) + Send>;

/// A controller of the kind `K`, built in one expression and run until the manager stops it:
/// see the [module documentation](self).
pub struct Controller<K: Resource<DynamicType = ()> + Clone + Debug + 'static> {
    client: Client,
    runtime: Runtime,
    synced: Synced,
    name: String,
    field_manager: Option<String>,
    event_reporter: Option<String>,
    namespace: Option<String>,
    config: watcher::Config,
    ignore_status_changes: bool,
    concurrency: u16,
    backoff: Backoff,
    watch_backoff: WatchBackoff,
    guard: Guard,
    registrations: Vec<Registration<K>>,
}

/// What a reconcile is run under: whether a panic is recovered, and how long it may take.
#[derive(Debug, Clone, Copy)]
struct Guard {
    recover_panics: bool,
    timeout: Option<Duration>,
}

impl Default for Guard {
    fn default() -> Self {
        Self {
            recover_panics: true,
            timeout: None,
        }
    }
}

impl<K: Resource<DynamicType = ()> + Clone + Debug + 'static> Debug for Controller<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("name", &self.name)
            .field("namespace", &self.namespace)
            .field("concurrency", &self.concurrency)
            .finish_non_exhaustive()
    }
}

impl<K> Controller<K>
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
    K: Send + Sync + 'static,
    K::Scope: ScopeApi,
{
    /// A controller of `K` under the manager's `runtime`: named after the kind in lower case
    /// (metrics, logs; the field manager too unless [`field_manager`](Self::field_manager)
    /// says otherwise), watching every namespace, one reconcile at a time (as
    /// controller-runtime), debounced and resynced as the manager's flags say. `/readyz`
    /// waits for its caches from now on.
    pub fn new(client: Client, runtime: &Runtime) -> Self {
        Self {
            client,
            synced: runtime.synced(),
            runtime: runtime.clone(),
            name: K::kind(&()).to_lowercase(),
            field_manager: None,
            event_reporter: None,
            namespace: None,
            config: watcher::Config::default(),
            ignore_status_changes: false,
            concurrency: 1,
            backoff: Backoff::default(),
            watch_backoff: WatchBackoff::default(),
            guard: Guard::default(),
            registrations: Vec::new(),
        }
    }

    /// The controller's name in metrics, logs and the reconcile span.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The field manager of its applies and status patches, and the reporter of its events
    /// unless [`event_reporter`](Self::event_reporter) names another. An operator moved from
    /// elsewhere keeps its old field manager, so that its applies own the fields they owned.
    #[must_use]
    pub fn field_manager(mut self, field_manager: impl Into<String>) -> Self {
        self.field_manager = Some(field_manager.into());
        self
    }

    /// The reporting controller of its events (`reportingController`), when it is not the
    /// field manager: a name dashboards and alerts may already select on.
    #[must_use]
    pub fn event_reporter(mut self, reporter: impl Into<String>) -> Self {
        self.event_reporter = Some(reporter.into());
        self
    }

    /// Watches (and applies in) only `namespace`; every namespace when `None`.
    #[must_use]
    pub fn namespace(mut self, namespace: Option<String>) -> Self {
        self.namespace = namespace;
        self
    }

    /// Watches the primary kind with `config` (a label or field selector).
    #[must_use]
    pub fn watch_config(mut self, config: watcher::Config) -> Self {
        self.config = config;
        self
    }

    /// Does not reconcile for a change of status alone (generation, labels, annotations,
    /// finalizers and deletion unchanged) of an object of the primary kind, such as the status
    /// this controller has just written, or of a watched kind (`watches*`: a pod becoming
    /// ready changes nothing a mapping reads); owned kinds still wake it, since their status
    /// is usually what the reconciler reports. controller-runtime's
    /// `GenerationChangedPredicate`, with deletion and metadata kept. The caches still see
    /// every change, so the next reconcile reads them. Kinds without a generation reconcile
    /// on every change as before.
    #[must_use]
    pub fn ignore_status_changes(mut self) -> Self {
        self.ignore_status_changes = true;
        self
    }

    /// Reconciles at most `concurrency` objects at once (never one object twice at once).
    #[must_use]
    pub fn concurrency(mut self, concurrency: u16) -> Self {
        self.concurrency = concurrency;
        self
    }

    /// The retry delays after failed reconciles of one object.
    #[must_use]
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// Whether a panic in the reconcile (or cleanup) is recovered, as controller-runtime's
    /// `RecoverPanic` (on by default): the panic is logged (the panic hook prints where it
    /// happened), counted in `controller_runtime_reconcile_panics_total`, and becomes an
    /// [`Error::Panicked`] retried with the backoff, while the controller goes on with the
    /// other objects. Off, the panic is counted and then goes on unwinding: the controller,
    /// and with it the manager, stops.
    #[must_use]
    pub fn recover_panics(mut self, recover: bool) -> Self {
        self.guard.recover_panics = recover;
        self
    }

    /// Stops a reconcile (or cleanup) that runs longer than `timeout` at its next `.await`
    /// (its future is dropped), as controller-runtime's `ReconciliationTimeout`: it fails with
    /// [`Error::TimedOut`], counted in `controller_runtime_reconcile_timeouts_total`, and is
    /// retried with the backoff. No limit by default. A reconcile that waits on something that
    /// never answers otherwise holds its object, and one of the
    /// [`concurrency`](Self::concurrency) workers, for ever.
    #[must_use]
    pub fn reconcile_timeout(mut self, timeout: Duration) -> Self {
        self.guard.timeout = Some(timeout);
        self
    }

    /// Owns `C`, cached whole: an event of a `C` whose controller owner reference names an
    /// object of `K` reconciles that object, and [`Context::apply`] of a `C` compares with
    /// this cache. `config` narrows the watch (a label the controller puts on what it
    /// creates keeps the cache to its own objects).
    #[must_use]
    pub fn owns<C>(self, config: watcher::Config) -> Self
    where
        C: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
        C::Scope: ScopeApi,
    {
        self.register(move |setup| {
            let stream = setup.cache::<C>(config, None, None);
            setup.add(|c| c.owns_stream(stream));
        })
    }

    /// [`owns`](Self::owns), with each object passed through `transform` before it is
    /// cached (controller-runtime's cache transform): clear what the reconciler never reads,
    /// such as a Deployment's pod template, and the cache keeps only the rest. The reconciler
    /// then sees transformed objects, from [`Context::cached`] and from a skipped
    /// [`Context::apply`] alike; what an apply sends is not affected. Managed fields are
    /// dropped in any case.
    #[must_use]
    pub fn owns_transformed<C, T>(self, config: watcher::Config, transform: T) -> Self
    where
        C: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
        C::Scope: ScopeApi,
        T: Fn(&mut C) + Send + Sync + 'static,
    {
        self.register(move |setup| {
            let stream = setup.cache::<C>(config, None, Some(Arc::new(transform)));
            setup.add(|c| c.owns_stream(stream));
        })
    }

    /// [`owns`](Self::owns), cached as metadata only (`PartialObjectMeta<C>`): for kinds whose
    /// content the reconciler does not read, at a fraction of the memory.
    #[must_use]
    pub fn owns_metadata<C>(self, config: watcher::Config) -> Self
    where
        C: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
        C::Scope: ScopeApi,
    {
        self.register(move |setup| {
            let stream = setup.cache::<PartialObjectMeta<C>>(config, None, None);
            setup.add(|c| c.owns_stream(stream));
        })
    }

    /// Watches `O`: an event of an `O` reconciles the object `map` names; the `O`s are
    /// indexed by it, so [`Context::related`] finds an object's `O`s without a scan.
    #[must_use]
    pub fn watches<O, F>(self, config: watcher::Config, map: F) -> Self
    where
        O: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
        O::Scope: ScopeApi,
        F: Fn(&O) -> Option<ObjectRef<K>> + Send + Sync + 'static,
    {
        self.register(move |setup| setup.watch::<O, F>(config, map))
    }

    /// [`watches`](Self::watches), cached as metadata only (`PartialObjectMeta<O>`, which
    /// [`Context::related`] then returns).
    #[must_use]
    pub fn watches_metadata<O, F>(self, config: watcher::Config, map: F) -> Self
    where
        O: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
        O::Scope: ScopeApi,
        F: Fn(&PartialObjectMeta<O>) -> Option<ObjectRef<K>> + Send + Sync + 'static,
    {
        self.register(move |setup| setup.watch::<PartialObjectMeta<O>, F>(config, map))
    }

    fn register(mut self, registration: impl FnOnce(&mut Setup<K>) + Send + 'static) -> Self {
        self.registrations.push(Box::new(registration));
        self
    }

    /// Runs the controller until the manager stops it, calling `reconcile` for every object
    /// of `K` that changed (or whose owned or watched objects did) with a [`Context`]
    /// holding `data`.
    pub fn run<R, Fut, E, T>(self, reconcile: R, data: T) -> impl Future<Output = ()> + Send
    where
        R: Fn(Arc<K>, Arc<Context<T>>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        E: std::error::Error + Send + Sync + 'static,
        T: Send + Sync + 'static,
    {
        self.start(
            None,
            Arc::new(reconcile),
            None::<Arc<NoCleanup<K, T, E>>>,
            data,
        )
    }

    /// [`run`](Self::run), with the finalizer `name` on every object: `reconcile` runs while
    /// the object lives (once it carries the finalizer), `cleanup` once it is being deleted,
    /// and the finalizer is removed when `cleanup` succeeds (then the object goes).
    ///
    /// A new object is reconciled in the pass that adds the finalizer, with the object the
    /// API server returned (as a controller-runtime reconcile adds it, updates and goes on),
    /// not in a later pass behind everything queued meanwhile. The finalizer is added on the
    /// condition that the object is still as cached; if it is not (the watch is behind), the
    /// add is tried again after half a second, without counting a failure. The API server
    /// judges the name: one it refuses (not a qualified name, say) fails the reconcile with
    /// its reason.
    pub fn run_with_finalizer<R, C, Fut, CFut, E, T>(
        self,
        name: &str,
        reconcile: R,
        cleanup: C,
        data: T,
    ) -> impl Future<Output = ()> + Send
    where
        R: Fn(Arc<K>, Arc<Context<T>>) -> Fut + Send + Sync + 'static,
        C: Fn(Arc<K>, Arc<Context<T>>) -> CFut + Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        CFut: Future<Output = Result<Action, E>> + Send + 'static,
        E: std::error::Error + Send + Sync + 'static,
        T: Send + Sync + 'static,
    {
        self.start(
            Some(name.to_string()),
            Arc::new(reconcile),
            Some(Arc::new(cleanup)),
            data,
        )
    }

    fn start<R, C, Fut, CFut, E, T>(
        self,
        finalizer_name: Option<String>,
        reconcile: Arc<R>,
        cleanup: Option<Arc<C>>,
        data: T,
    ) -> impl Future<Output = ()> + Send
    where
        R: Fn(Arc<K>, Arc<Context<T>>) -> Fut + Send + Sync + 'static,
        C: Fn(Arc<K>, Arc<Context<T>>) -> CFut + Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        CFut: Future<Output = Result<Action, E>> + Send + 'static,
        E: std::error::Error + Send + Sync + 'static,
        T: Send + Sync + 'static,
    {
        let Self {
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
            registrations,
        } = self;
        let (store, writer) = reflector::store();
        let events = reflector::reflector(
            writer,
            watcher(api::<K>(&client, namespace.as_deref()), config).modify(strip),
        );
        let primary = if ignore_status_changes {
            without_status_changes(events).boxed()
        } else {
            events.boxed()
        }
        .touched_objects();
        let mut setup = Setup {
            client: client.clone(),
            namespace,
            ignore_status_changes,
            caches: Caches::default(),
            ready: vec![ready(store.clone())],
            controller: Some(controller::Controller::for_stream(primary, store)),
        };
        for registration in registrations {
            registration(&mut setup);
        }
        let Setup {
            caches,
            ready: waits,
            controller,
            ..
        } = setup;
        let settings = runtime.reconcile();
        let controller = controller
            .expect("registrations put the controller back")
            .with_config(settings.controller_config().concurrency(concurrency))
            // One backoff for all trigger streams together: the controller pauses them all on
            // an error from any.
            .trigger_backoff(watch_backoff)
            .graceful_shutdown_on(runtime.stopped());
        let caches_synced = CancellationToken::new();
        let all_synced = caches_synced.clone();
        tokio::spawn(async move {
            futures::future::join_all(waits).await;
            all_synced.cancel();
            synced.done();
        });

        runtime.metrics().controller_started(&name, concurrency);
        let field_manager = field_manager.unwrap_or_else(|| name.clone());
        let mut ctx = Context::new(client, name, data)
            .with_field_manager(field_manager)
            .with_metrics(runtime.metrics().clone())
            .with_settings(settings);
        if let Some(reporter) = event_reporter {
            ctx = ctx.with_event_reporter(reporter);
        }
        ctx.caches = caches;
        ctx.synced = caches_synced;
        ctx.stopping = runtime.stop_token();
        let ctx = Arc::new(ctx);
        let reconciler = move |obj: Arc<K>, ctx: Arc<Context<T>>| {
            reconcile_one(
                obj,
                ctx,
                reconcile.clone(),
                cleanup.clone(),
                finalizer_name.clone(),
                guard,
            )
            .boxed()
        };
        let error_policy = move |obj: Arc<K>, error: &Error<E>, ctx: Arc<Context<T>>| {
            let key = key_of(obj.as_ref());
            let (failures, delay) = ctx.failed(&key, &backoff);
            warn!(controller = ctx.name(), object = %show(&key), %error, failures, retry_in = ?delay, "reconcile failed");
            Action::requeue(delay)
        };
        let events = ctx.clone();
        let flush = ctx.clone();
        // kube's controller holds its reconciles until the primary cache is ready and, on a
        // graceful shutdown, waits for them: if a cache never syncs (a watch refused for want
        // of a grant, say), it would wait forever. Stopping before every cache synced ends it
        // at once: nothing was reconciled.
        let unsynced_stop = {
            let (stop, synced, name) = (
                runtime.stop_token(),
                ctx.synced.clone(),
                ctx.name().to_string(),
            );
            async move {
                stop.cancelled().await;
                if synced.is_cancelled() {
                    std::future::pending::<()>().await;
                }
                warn!(controller = %name, "stopping before every cache synced (see the watch errors above)");
            }
        };
        let run = controller
            .run(reconciler, error_policy, ctx)
            .for_each(move |result| {
                let ctx = events.clone();
                async move {
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
            });
        async move {
            tokio::select! {
                () = run => {}
                () = unsynced_stop => {}
            }
            flush.flush_events(EVENT_FLUSH).await;
        }
    }
}

/// How long a stopping controller waits for its queued events to go out.
const EVENT_FLUSH: Duration = Duration::from_secs(5);

/// The type of the cleanup a controller without a finalizer never calls.
type NoCleanup<K, T, E> = fn(Arc<K>, Arc<Context<T>>) -> std::future::Ready<Result<Action, E>>;

async fn reconcile_one<K, T, R, C, Fut, CFut, E>(
    obj: Arc<K>,
    ctx: Arc<Context<T>>,
    reconcile: Arc<R>,
    cleanup: Option<Arc<C>>,
    finalizer_name: Option<String>,
    guard: Guard,
) -> Result<Action, Error<E>>
where
    K: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
    K: Send + Sync + 'static,
    K::Scope: ScopeApi,
    R: Fn(Arc<K>, Arc<Context<T>>) -> Fut + Send + Sync + 'static,
    C: Fn(Arc<K>, Arc<Context<T>>) -> CFut + Send + Sync + 'static,
    Fut: Future<Output = Result<Action, E>> + Send + 'static,
    CFut: Future<Output = Result<Action, E>> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
    T: Send + Sync + 'static,
{
    tokio::select! {
        () = ctx.synced.cancelled() => {}
        // Stopping before the caches ever synced: nothing was reconciled, nothing to undo.
        () = ctx.stopping.cancelled() => return Ok(Action::await_change()),
    }
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
                    |obj| reconcile(obj, ctx.clone()),
                    |obj| cleanup(obj, ctx.clone()),
                )
                .await
            }
            _ => reconcile(obj, ctx.clone()).await.map_err(Error::Reconcile),
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

/// The events of `events` less the updates that changed nothing but the status (see
/// [`Controller::ignore_status_changes`]); deletions and relists pass.
fn without_status_changes<K, S>(events: S) -> impl futures::Stream<Item = S::Item> + Send
where
    K: Resource + Send + 'static,
    S: futures::Stream<Item = Result<watcher::Event<K>, watcher::Error>> + Send,
{
    let mut seen: std::collections::HashMap<Key, u64> = std::collections::HashMap::new();
    events.filter(move |event| {
        let pass = match event {
            Ok(watcher::Event::Apply(obj)) => {
                let trigger = trigger_hash(obj);
                seen.insert(key_of(obj), trigger) != Some(trigger)
            }
            Ok(watcher::Event::InitApply(obj)) => {
                seen.insert(key_of(obj), trigger_hash(obj));
                true
            }
            Ok(watcher::Event::Delete(obj)) => {
                seen.remove(&key_of(obj));
                true
            }
            _ => true,
        };
        std::future::ready(pass)
    })
}

/// What a change must touch to reconcile when status changes are ignored: the generation
/// (the resourceVersion for kinds without one), labels, annotations, finalizers, deletion.
fn trigger_hash<K: Resource>(obj: &K) -> u64 {
    use std::hash::{BuildHasher as _, BuildHasherDefault, DefaultHasher};
    let meta = obj.meta();
    let version = match meta.generation {
        Some(generation) => generation.to_string(),
        None => meta.resource_version.clone().unwrap_or_default(),
    };
    BuildHasherDefault::<DefaultHasher>::default().hash_one((
        version,
        &meta.labels,
        &meta.annotations,
        &meta.finalizers,
        meta.deletion_timestamp.is_some(),
    ))
}

/// `namespace/name`, or `name`.
fn show((namespace, name): &Key) -> String {
    match namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.clone(),
    }
}

/// Managed fields are never read by a reconciler; dropping them halves a cache's memory.
fn strip<S: Resource>(obj: &mut S) {
    obj.meta_mut().managed_fields = None;
}

impl<K> Setup<K>
where
    K: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
{
    /// Adds a stream to the kube controller.
    fn add(&mut self, f: impl FnOnce(controller::Controller<K>) -> controller::Controller<K>) {
        let controller = self.controller.take().expect("one registration at a time");
        self.controller = Some(f(controller));
    }

    /// A cache of `S` (indexed by `owner` when given) and the stream of its changes.
    fn cache<S>(
        &mut self,
        config: watcher::Config,
        owner: Option<OwnerOf<S>>,
        transform: Option<Transform<S>>,
    ) -> impl futures::Stream<Item = Result<S, watcher::Error>> + Send + 'static
    where
        S: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
        S::Scope: ScopeApi,
    {
        assert!(
            !self.caches.contains::<S>(),
            "{} is registered twice with one controller",
            std::any::type_name::<S>()
        );
        let (store, writer) = reflector::store();
        let index = owner.as_ref().map(|_| Arc::new(RelatedIndex::default()));
        let indexing = index.clone();
        let stream = reflector::reflector(
            writer,
            watcher(api::<S>(&self.client, self.namespace.as_deref()), config).modify(move |obj| {
                strip(obj);
                if let Some(transform) = &transform {
                    transform(obj);
                }
            }),
        )
        .inspect(move |event| {
            if let (Ok(event), Some(index), Some(owner)) = (event, &indexing, &owner) {
                index.observe(event, |obj| owner(obj));
            }
        });
        // A watched kind's status-only changes too (an owned kind's status is usually what
        // the reconciler reads, so those always wake it).
        let stream = if self.ignore_status_changes && index.is_some() {
            without_status_changes(stream).boxed()
        } else {
            stream.boxed()
        }
        .touched_objects();
        self.ready.push(ready(store.clone()));
        self.caches.insert(Cache { store, index });
        stream
    }

    fn watch<S, F>(&mut self, config: watcher::Config, map: F)
    where
        S: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
        S::Scope: ScopeApi,
        F: Fn(&S) -> Option<ObjectRef<K>> + Send + Sync + 'static,
    {
        let map = Arc::new(map);
        let index = map.clone();
        let stream = self.cache::<S>(
            config,
            Some(Arc::new(move |obj: &S| {
                index(obj).map(|r| (r.namespace.clone(), r.name.clone()))
            })),
            None,
        );
        self.add(|c| c.watches_stream(stream, move |obj: S| map(&obj)));
    }
}

/// Waits until `store` has seen a full list. `Store::wait_until_ready` wakes only the most
/// recent of several concurrent waiters (the controller waits on its store too), so it is
/// polled with a short timeout instead of awaited once.
fn ready<S>(store: Store<S>) -> BoxFuture<'static, ()>
where
    S: reflector::Lookup + Clone + Send + Sync + 'static,
    S::DynamicType: Eq + std::hash::Hash + Clone + Send + Sync,
{
    async move {
        while tokio::time::timeout(Duration::from_millis(100), store.wait_until_ready())
            .await
            .is_err()
        {}
    }
    .boxed()
}

/// Retry delays of the watches: 250 ms doubling up to 5 s, back to the start after a success.
///
/// kube's default (client-go's) climbs to 30 s. After an API server restart the watches fail
/// while it is down, then get "too old resource version" while its watch cache warms up, so
/// the delays grow before the server is usable and recovery took a minute or more (measured
/// with memcached's `the_operator_recovers_from_an_api_server_restart`). One list every 5 s at
/// worst is cheap.
#[derive(Debug, Clone, Default)]
pub struct WatchBackoff {
    attempt: u32,
}

impl Iterator for WatchBackoff {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        let delay = Duration::from_millis(250) * (1u32 << self.attempt.min(5));
        self.attempt = self.attempt.saturating_add(1);
        Some(delay.min(Duration::from_secs(5)))
    }
}

impl kube::runtime::utils::Backoff for WatchBackoff {
    fn reset(&mut self) {
        self.attempt = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use k8s_openapi::api::core::v1::ConfigMap;

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

    #[test]
    fn watch_backoff_is_capped_at_five_seconds_and_resets() {
        use kube::runtime::utils::Backoff;
        let mut b = WatchBackoff::default();
        let delays: Vec<u64> = b.by_ref().take(7).map(|d| d.as_millis() as u64).collect();
        assert_eq!(delays, [250, 500, 1000, 2000, 4000, 5000, 5000]);
        b.reset();
        assert_eq!(b.next(), Some(Duration::from_millis(250)));
    }

    #[tokio::test]
    async fn status_only_changes_are_dropped_and_the_rest_pass() {
        use k8s_openapi::api::core::v1::Namespace;
        let ns = |generation, phase: &str, label: Option<&str>| Namespace {
            metadata: kube::api::ObjectMeta {
                name: Some("a".into()),
                generation: Some(generation),
                labels: label.map(|l| [(l.to_string(), String::new())].into()),
                ..Default::default()
            },
            status: Some(k8s_openapi::api::core::v1::NamespaceStatus {
                phase: Some(phase.into()),
                ..Default::default()
            }),
            ..Default::default()
        };
        let events = vec![
            watcher::Event::InitApply(ns(1, "Active", None)),
            watcher::Event::Apply(ns(1, "Other", None)),
            watcher::Event::Apply(ns(2, "Other", None)),
            watcher::Event::Apply(ns(2, "Other", Some("x"))),
            watcher::Event::Apply(ns(2, "Again", Some("x"))),
            watcher::Event::Delete(ns(2, "Again", Some("x"))),
        ];
        let passed: Vec<String> = without_status_changes(futures::stream::iter(
            events.into_iter().map(Ok::<_, watcher::Error>),
        ))
        .map(|e| match e.unwrap() {
            watcher::Event::InitApply(n) => format!("init {}", n.status.unwrap().phase.unwrap()),
            watcher::Event::Apply(n) => format!("apply {}", n.status.unwrap().phase.unwrap()),
            watcher::Event::Delete(_) => "delete".into(),
            _ => "other".into(),
        })
        .collect()
        .await;
        assert_eq!(
            passed,
            ["init Active", "apply Other", "apply Other", "delete"]
        );
    }

    #[derive(Debug, thiserror::Error)]
    #[error("wrapped: {0}")]
    struct Wrapped(#[source] kube::Error);

    fn api_error(code: u16) -> kube::Error {
        kube::Error::Api(Box::new(kube::core::Status {
            code,
            ..Default::default()
        }))
    }

    #[test]
    fn only_a_missing_object_at_cleanup_or_finalizer_removal_is_already_gone() {
        assert!(Error::<Wrapped>::RemoveFinalizer(api_error(404)).already_gone());
        assert!(!Error::<Wrapped>::RemoveFinalizer(api_error(409)).already_gone());
        assert!(Error::<Wrapped>::AddFinalizer(api_error(404)).already_gone());
        assert!(!Error::<Wrapped>::AddFinalizer(api_error(422)).already_gone());
        assert!(Error::Cleanup(Wrapped(api_error(404))).already_gone());
        assert!(!Error::Cleanup(Wrapped(api_error(500))).already_gone());
        // A missing object while reconciling is the operator's to judge.
        assert!(!Error::Reconcile(Wrapped(api_error(404))).already_gone());
    }
}
