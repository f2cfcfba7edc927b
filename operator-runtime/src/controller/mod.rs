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
//!
//! This file is the builder; running it is in private siblings, each a step of it: the
//! watches and their caches (`watches`), which of their events reconcile (`predicates`), the
//! queue that puts changes ahead of resyncs and retries (`queue`), starting kube's
//! controller on it (`start`), one reconcile under its guard (`reconcile`, with
//! `finalizer`), and what a reconcile shares (`context`, `caches`, `throttle`, `pacing`).

mod caches;
mod context;
mod error;
mod finalizer;
mod pacing;
mod predicates;
mod queue;
mod reconcile;
mod scope;
mod start;
mod throttle;
mod watches;

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use kube::core::PartialObjectMeta;
use kube::runtime::controller::Action;
use kube::runtime::reflector::ObjectRef;
use kube::runtime::watcher;
use kube::{Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use self::context::{Apply, Backoff, Context, Progress, merge_patch};
pub use self::error::Error;
pub use self::pacing::{Report, Reported, StatusPacing};
pub use self::scope::{ScopeApi, api};
pub use self::watches::WatchBackoff;

use self::reconcile::{Guard, NoCleanup};
use self::watches::{Registration, Setup};
use crate::manager::{Runtime, Synced};

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
    filter: Option<predicates::EventFilter<K>>,
    concurrency: u16,
    backoff: Backoff,
    watch_backoff: WatchBackoff,
    guard: Guard,
    pacing: StatusPacing,
    registrations: Vec<Registration<K>>,
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
            filter: None,
            concurrency: 1,
            backoff: Backoff::default(),
            watch_backoff: WatchBackoff::default(),
            guard: Guard::default(),
            pacing: StatusPacing::default(),
            registrations: Vec::new(),
        }
    }

    /// How [`Context::report`] paces the reports of work under way (default: five seconds
    /// of grace after an apply, then one every fifteen; [`StatusPacing::NONE`] holds none
    /// back, the budget of progress reports aside).
    #[must_use]
    pub fn status_pacing(mut self, pacing: StatusPacing) -> Self {
        self.pacing = pacing;
        self
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

    /// Reconciles an object of the primary kind for its events (created, changed, deleted,
    /// listed) only when `filter` keeps it: controller-runtime's `WithEventFilter` for the
    /// primary kind, say to leave objects annotated as paused alone. The cache still holds
    /// every object; changes of owned and watched kinds, resyncs and retries are not
    /// filtered (the reconcile decides what to do with an object it would rather not touch).
    /// Combines with [`ignore_status_changes`](Self::ignore_status_changes).
    #[must_use]
    pub fn event_filter(mut self, filter: impl Fn(&K) -> bool + Send + Sync + 'static) -> Self {
        self.filter = Some(Arc::new(filter));
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
            setup.own::<C>(config, None);
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
            setup.own::<C>(config, Some(Arc::new(transform)));
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
            setup.own::<PartialObjectMeta<C>>(config, None);
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
        start::start(
            self,
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
        start::start(
            self,
            Some(name.to_string()),
            Arc::new(reconcile),
            Some(Arc::new(cleanup)),
            data,
        )
    }
}
