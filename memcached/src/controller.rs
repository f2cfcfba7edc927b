//! The Memcached reconciler and the controller that drives it. Its `#[rbac]` markers are the
//! permissions the operator's ServiceAccount gets (`config/rbac/role.yaml`): exactly the calls
//! made here and in the manager, nothing more.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Pod, Service};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams};
use kube::core::PartialObjectMeta;
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::finalizer::{self, finalizer};
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, Resource, ResourceExt};
use operator_derive::rbac;
use operator_runtime::manager::Runtime;
use operator_runtime::{Metrics, ReconcileSettings};
use tracing::{Instrument, info, info_span, warn};

use crate::api::v1alpha1::{Memcached, MemcachedStatus};
use crate::pods::PodIndex;
use crate::resources::{self, INSTANCE_LABEL, MANAGED_BY, MANAGED_BY_LABEL, NAME_LABEL};
use crate::status::{self, AVAILABLE, Observed};

/// Name of the controller in metrics, logs and events.
pub const CONTROLLER_NAME: &str = "memcached";
/// Field manager of our server-side applies and status patches.
pub const FIELD_MANAGER: &str = "memcached-operator";
/// Finalizer that lets the operator record the deletion before the object goes.
pub const FINALIZER: &str = "cache.example.com/finalizer";

/// Shared state of the controller.
pub struct Context {
    pub client: Client,
    pub recorder: Recorder,
    /// Pods managed by this operator (a reflector of the pod watch), for `status.nodes`.
    pub pods: Store<PartialObjectMeta<Pod>>,
    /// The memcached image for new and updated Deployments.
    pub image: String,
    pub metrics: Arc<Metrics>,
    /// The owned Deployments (whole, without managed fields) and Services (metadata), as the
    /// watches last saw them: what lets a reconcile skip an apply that would change nothing.
    deployments: Store<Deployment>,
    services: Store<PartialObjectMeta<Service>>,
    /// What this process last applied to each owned object, and the object's generation
    /// (Deployment) or resourceVersion (Service) that came back.
    applied: Mutex<HashMap<Owned, Applied>>,
    /// The pods by Memcached, kept from the pod watch (`None`: scan `pods`).
    pod_index: Option<PodIndex>,
    /// `--sync-period`: how long an object waits for its next reconcile when nothing happens,
    /// and how long an apply is trusted before it is sent again.
    sync_period: Option<Duration>,
    /// Consecutive failures per object, for exponential backoff.
    failures: Mutex<HashMap<ObjectRef<Memcached>, u32>>,
}

/// An owned object: kind, namespace, name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Owned(&'static str, String, String);

/// The hash of the applied object, the version the API server answered with, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Applied {
    hash: u64,
    version: Option<String>,
    at: Instant,
}

/// A hash of what would be applied (its JSON); equal objects hash equal within the process.
fn hash_of<T: serde::Serialize>(object: &T) -> u64 {
    use std::hash::{BuildHasher as _, BuildHasherDefault, DefaultHasher};
    let bytes = serde_json::to_vec(object).expect("owned objects serialise");
    BuildHasherDefault::<DefaultHasher>::default().hash_one(bytes)
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("image", &self.image)
            .finish_non_exhaustive()
    }
}

impl Context {
    /// Drops the failure count of `key` (reconciled, or gone).
    pub fn forget(&self, key: &ObjectRef<Memcached>) {
        self.failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key);
    }

    /// Objects with failures counted, for tests.
    pub fn failing(&self) -> usize {
        self.failures
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }

    /// Whether `owned` is as this process last applied it: the same object would be applied
    /// (`hash`), and the watch's copy has the version that apply returned. A hand edit of the
    /// spec (a new generation or resourceVersion), a deletion (absent from the cache) or a new
    /// desired object all mean "apply".
    fn unchanged(&self, owned: &Owned, hash: u64, live_version: Option<&str>) -> bool {
        let applied = self.applied.lock().unwrap_or_else(|e| e.into_inner());
        applied.get(owned).is_some_and(|a| {
            a.hash == hash
                && a.version.is_some()
                && a.version.as_deref() == live_version
                && self
                    .sync_period
                    .is_none_or(|period| a.at.elapsed() < period)
        })
    }

    fn remember(&self, owned: Owned, hash: u64, version: Option<String>) {
        self.applied
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                owned,
                Applied {
                    hash,
                    version,
                    at: Instant::now(),
                },
            );
    }

    /// Forgets what was applied for a Memcached that is going away.
    fn forget_applied(&self, ns: &str, name: &str) {
        let mut applied = self.applied.lock().unwrap_or_else(|e| e.into_inner());
        applied.retain(|Owned(_, n, m), _| !(n == ns && m == name));
    }

    /// Reads `status.nodes` from `index` (fed by the pod watch) instead of scanning the pods.
    pub fn with_pod_index(mut self, index: PodIndex) -> Self {
        self.pod_index = Some(index);
        self
    }

    /// Names of the Memcached's pods that are not being deleted.
    fn pods_of(&self, ns: &str, name: &str) -> Vec<String> {
        match &self.pod_index {
            Some(index) => index.pods_of(ns, name),
            None => pod_names(&self.pods, ns, name),
        }
    }

    /// Reconciles every object again `period` (plus up to 10%, spread by object) after its
    /// last reconcile, and then applies its owned objects even if nothing seems changed:
    /// that repairs what no watch event or generation reveals (a label edited by hand).
    pub fn with_sync_period(mut self, period: Option<Duration>) -> Self {
        self.sync_period = period;
        self
    }

    /// When a reconciled object is due again: after the sync period, or on the next change.
    fn next_sync(&self, mc: &Memcached) -> Action {
        ReconcileSettings {
            sync_period: self.sync_period,
            debounce: Duration::ZERO,
        }
        .requeue(mc.metadata.uid.as_deref())
    }

    /// Uses the watch caches of the owned Deployments and Services to skip applies that would
    /// change nothing (without them every reconcile applies both).
    pub fn with_owned_caches(
        mut self,
        deployments: Store<Deployment>,
        services: Store<PartialObjectMeta<Service>>,
    ) -> Self {
        self.deployments = deployments;
        self.services = services;
        self
    }

    pub fn new(
        client: Client,
        pods: Store<PartialObjectMeta<Pod>>,
        image: String,
        metrics: Arc<Metrics>,
    ) -> Self {
        let reporter = Reporter {
            controller: FIELD_MANAGER.to_string(),
            instance: std::env::var("POD_NAME").ok(),
        };
        Self {
            recorder: Recorder::new(client.clone(), reporter),
            client,
            pods,
            image,
            metrics,
            // Empty stores (their writers dropped) until with_owned_caches: every reconcile
            // applies.
            deployments: reflector::store().0,
            services: reflector::store().0,
            applied: Mutex::default(),
            sync_period: None,
            pod_index: None,
            failures: Mutex::default(),
        }
    }
}

/// Why a reconcile failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("Kubernetes API error: {0}")]
    Kube(#[from] kube::Error),
    #[error("Memcached {0} has no namespace; the kind is namespaced")]
    NoNamespace(String),
    #[error("finalizer: {0}")]
    Finalizer(#[source] Box<finalizer::Error<Error>>),
}

/// Brings the cluster in line with one Memcached: its Deployment, Service and status; on
/// deletion, records it (Degraded condition, Warning event) before the finalizer is removed.
///
/// The markers grant exactly the calls the operator makes (the cluster tests run it as a
/// service account bound to the generated roles, so a missing verb fails them): watches and
/// lists for the caches, server-side apply for owned objects (`patch`, and `create` for the
/// apply that creates one: without it the test fails), `get` for the
/// Deployment during finalization, merge patches for finalizers and status.
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
    verbs = "get;list;watch;create;patch"
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
pub async fn reconcile(obj: Arc<Memcached>, ctx: Arc<Context>) -> Result<Action, Error> {
    let started = Instant::now();
    let _worker = ctx.metrics.worker(CONTROLLER_NAME);
    let key = ObjectRef::from_obj(obj.as_ref());
    let span = info_span!("reconcile", memcached = %key);
    let result = match reconcile_object(obj, &ctx).instrument(span).await {
        Err(e) if already_gone(&e) => {
            tracing::debug!(memcached = %key, "already gone");
            Ok(Action::await_change())
        }
        other => other,
    };
    let outcome = match &result {
        Ok(_) => {
            ctx.forget(&key);
            "success"
        }
        Err(_) => "error",
    };
    ctx.metrics
        .reconciled(CONTROLLER_NAME, outcome, started.elapsed());
    result
}

async fn reconcile_object(obj: Arc<Memcached>, ctx: &Context) -> Result<Action, Error> {
    let ns = obj
        .namespace()
        .ok_or_else(|| Error::NoNamespace(obj.name_any()))?;
    let api: Api<Memcached> = Api::namespaced(ctx.client.clone(), &ns);
    finalizer(&api, FINALIZER, obj, |event| async {
        match event {
            finalizer::Event::Apply(mc) => apply(&mc, &ns, ctx).await,
            finalizer::Event::Cleanup(mc) => cleanup(&mc, &ns, ctx).await,
        }
    })
    .await
    .map_err(|e| Error::Finalizer(Box::new(e)))
}

async fn apply(mc: &Memcached, ns: &str, ctx: &Context) -> Result<Action, Error> {
    let name = mc.name_any();
    let params = PatchParams::apply(FIELD_MANAGER).force();
    // Server-side apply is idempotent: a Deployment that matches changes nothing (no new
    // resourceVersion); one edited by hand gets our fields back; a deleted one is recreated.
    // But an apply that changes nothing is still a request the API server must process, and a
    // Memcached is reconciled on every event of its pods: so apply only when the object is not
    // as this process last applied it (its spec edited: a new generation; deleted; or a new
    // desired state). Labels and annotations edited by hand (no new generation) are put back
    // with the next apply.
    let owned = |kind| Owned(kind, ns.to_string(), name.clone());
    let desired = resources::deployment(mc, &ctx.image);
    let hash = hash_of(&desired);
    let cached = ctx
        .deployments
        .get(&ObjectRef::<Deployment>::new(&name).within(ns));
    let mut just_applied = false;
    let deployment = match cached {
        Some(live)
            if ctx.unchanged(
                &owned("Deployment"),
                hash,
                live.metadata.generation.map(|g| g.to_string()).as_deref(),
            ) =>
        {
            live
        }
        _ => {
            let deployments: Api<Deployment> = Api::namespaced(ctx.client.clone(), ns);
            let applied = deployments
                .patch(&name, &params, &Patch::Apply(&desired))
                .await?;
            ctx.remember(
                owned("Deployment"),
                hash,
                applied.metadata.generation.map(|g| g.to_string()),
            );
            just_applied = true;
            Arc::new(applied)
        }
    };
    let desired = resources::service(mc);
    let hash = hash_of(&desired);
    let live = ctx
        .services
        .get(&ObjectRef::<PartialObjectMeta<Service>>::new(&name).within(ns));
    let unchanged = live.is_some_and(|live| {
        ctx.unchanged(
            &owned("Service"),
            hash,
            live.metadata.resource_version.as_deref(),
        )
    });
    if !unchanged {
        let services: Api<Service> = Api::namespaced(ctx.client.clone(), ns);
        let applied = services
            .patch(&name, &params, &Patch::Apply(&desired))
            .await?;
        ctx.remember(owned("Service"), hash, applied.metadata.resource_version);
    }

    // A Deployment this reconcile has just created or changed has not been seen by its
    // controller yet: a status computed from it now would be replaced within moments, when the
    // Deployment controller reports (that event reconciles again). Skip that write, one request
    // per create and per edit, and come back after a grace period in case no report comes.
    if just_applied && !observed_current(&deployment) {
        return Ok(Action::requeue(STATUS_GRACE));
    }
    let observed = Observed {
        deployment: Some(&deployment),
        pods: ctx.pods_of(ns, &name),
        finalizing: false,
    };
    let status = status::desired(mc, &observed, Timestamp::now());
    write_status(mc, ns, status, ctx).await?;
    Ok(ctx.next_sync(mc))
}

/// How long a reconcile that changed the Deployment waits for the Deployment controller's report
/// before it writes the Memcached's status from what it has.
const STATUS_GRACE: Duration = Duration::from_secs(5);

/// Whether the Deployment controller has seen the Deployment's current spec.
fn observed_current(deployment: &Deployment) -> bool {
    let seen = deployment
        .status
        .as_ref()
        .and_then(|s| s.observed_generation);
    matches!((seen, deployment.metadata.generation), (Some(seen), Some(current)) if seen >= current)
}

/// Whether a finalizer error only says that the object is already gone: the finalizer was
/// removed, the object deleted, and a copy queued before that (from the cache) was reconciled
/// again. Nothing is left to do, so it is not a failure to retry with backoff.
fn already_gone(error: &Error) -> bool {
    let Error::Finalizer(e) = error else {
        return false;
    };
    let not_found = |e: &kube::Error| matches!(e, kube::Error::Api(s) if s.code == 404);
    match e.as_ref() {
        finalizer::Error::RemoveFinalizer(e) => not_found(e),
        finalizer::Error::CleanupFailed(Error::Kube(e)) => not_found(e),
        _ => false,
    }
}

async fn cleanup(mc: &Memcached, ns: &str, ctx: &Context) -> Result<Action, Error> {
    let name = mc.name_any();
    let deployments: Api<Deployment> = Api::namespaced(ctx.client.clone(), ns);
    let deployment = deployments.get_opt(&name).await?;
    let observed = Observed {
        deployment: deployment.as_ref(),
        pods: ctx.pods_of(ns, &name),
        finalizing: true,
    };
    let status = status::desired(mc, &observed, Timestamp::now());
    // A second cleanup of the same deletion (a stale copy from the cache, queued before the
    // finalizer went) finds the status already written and records nothing again.
    if write_status(mc, ns, status, ctx).await? {
        publish(
            ctx,
            mc,
            EventType::Warning,
            "Deleting",
            format!("Memcached {name} is being deleted from namespace {ns}; its Deployment and Service follow by garbage collection"),
        )
        .await;
        info!("finalized");
    }
    ctx.forget_applied(ns, &name);
    Ok(Action::await_change())
}

/// Writes `status` through the status subresource, only if it differs from the object's;
/// returns whether it wrote.
async fn write_status(
    mc: &Memcached,
    ns: &str,
    status: MemcachedStatus,
    ctx: &Context,
) -> Result<bool, Error> {
    let previous = mc.status.clone().unwrap_or_default();
    if previous == status {
        return Ok(false);
    }
    let api: Api<Memcached> = Api::namespaced(ctx.client.clone(), ns);
    let patch = serde_json::json!({ "status": status_patch(&status) });
    api.patch_status(
        &mc.name_any(),
        &PatchParams::default(),
        &Patch::Merge(&patch),
    )
    .await?;
    if let Some((warning, reason)) = status::availability_event(&previous, &status) {
        let message = status::find(&status, AVAILABLE)
            .map(|c| c.message.clone())
            .unwrap_or_default();
        let type_ = if warning {
            EventType::Warning
        } else {
            EventType::Normal
        };
        publish(ctx, mc, type_, reason, message).await;
    }
    Ok(true)
}

/// A JSON merge patch body for `status`. Empty lists are not serialised, and a merge patch keeps
/// what it does not mention, so they are sent as `null` (removing them) to take effect.
fn status_patch(status: &MemcachedStatus) -> serde_json::Value {
    let mut value = serde_json::to_value(status).expect("status serialises");
    if let Some(fields) = value.as_object_mut() {
        for key in ["nodes", "conditions"] {
            fields.entry(key).or_insert(serde_json::Value::Null);
        }
    }
    value
}

/// Events are best effort: failing to record one must not fail the reconcile.
async fn publish(ctx: &Context, mc: &Memcached, type_: EventType, reason: &str, note: String) {
    let event = Event {
        type_,
        reason: reason.to_string(),
        note: Some(note),
        action: "Reconcile".to_string(),
        secondary: None,
    };
    if let Err(e) = ctx.recorder.publish(&event, &mc.object_ref(&())).await {
        warn!(error = %e, reason, "could not publish event");
    }
}

/// Names of the Memcached's pods that are not being deleted, by a scan of every pod (without
/// a [`PodIndex`]).
fn pod_names(pods: &Store<PartialObjectMeta<Pod>>, ns: &str, name: &str) -> Vec<String> {
    pods.state()
        .iter()
        .filter(|p| {
            p.metadata.namespace.as_deref() == Some(ns)
                && p.metadata.deletion_timestamp.is_none()
                && p.labels().get(INSTANCE_LABEL).map(String::as_str) == Some(name)
                && p.labels().get(NAME_LABEL).map(String::as_str) == Some(resources::APP_NAME)
        })
        .map(|p| p.name_any())
        .collect()
}

/// Per-object exponential backoff after errors: 5 ms doubling up to 1000 s, as
/// controller-runtime's default rate limiter.
pub fn error_policy(obj: Arc<Memcached>, error: &Error, ctx: Arc<Context>) -> Action {
    let key = ObjectRef::from_obj(obj.as_ref());
    let failures = {
        let mut map = ctx.failures.lock().unwrap_or_else(|e| e.into_inner());
        let n = map.entry(key.clone()).or_insert(0);
        *n = n.saturating_add(1);
        *n
    };
    let delay = backoff(failures);
    warn!(memcached = %key, %error, failures, retry_in = ?delay, "reconcile failed");
    Action::requeue(delay)
}

/// The delay before retry number `failures` (1-based).
pub fn backoff(failures: u32) -> Duration {
    let base = Duration::from_millis(5);
    let max = Duration::from_secs(1000);
    base.checked_mul(1u32 << failures.saturating_sub(1).min(31))
        .map_or(max, |d| d.min(max))
}

/// Waits until `store` has seen a full list. `Store::wait_until_ready` wakes only the most recent
/// of several concurrent waiters (the controller itself waits on its store too), so poll it with
/// a short timeout instead of awaiting it once.
async fn ready<K>(store: &Store<K>)
where
    K: kube::runtime::reflector::Lookup + Clone + 'static,
    K::DynamicType: Eq + std::hash::Hash + Clone,
{
    loop {
        match tokio::time::timeout(Duration::from_millis(100), store.wait_until_ready()).await {
            Ok(_) => return,
            Err(_elapsed) => continue,
        }
    }
}

/// Retry delays of the watches: 250 ms doubling up to 5 s, back to the start after a success.
///
/// kube's default (client-go's) climbs to 30 s. After an API server restart the watches fail
/// while it is down, then get "too old resource version" while its watch cache warms up, so the
/// delays grow before the server is usable and recovery took a minute or more (measured with
/// `the_operator_recovers_from_an_api_server_restart`). One list every 5 s at worst is cheap.
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

/// How the controller runs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Watch only this namespace (all when `None`).
    pub namespace: Option<String>,
    /// Reconciles running at once.
    pub concurrency: u16,
    pub image: String,
    /// `--sync-period` and `--reconcile-debounce`.
    pub reconcile: ReconcileSettings,
}

fn api<K>(client: &Client, namespace: Option<&str>) -> Api<K>
where
    K: Resource<Scope = k8s_openapi::NamespaceResourceScope>,
    K::DynamicType: Default,
{
    match namespace {
        Some(ns) => Api::namespaced(client.clone(), ns),
        None => Api::all(client.clone()),
    }
}

/// The controller as the manager starts it ([`operator_runtime::manager::run`]): stops with
/// the runtime, reports its caches synced to `/readyz`.
pub fn start(client: Client, settings: Settings, runtime: Runtime) -> impl Future<Output = ()> {
    let synced = runtime.synced();
    run(
        client,
        runtime.metrics().clone(),
        settings,
        runtime.stopped(),
        move || synced.done(),
    )
}

/// Runs the controller until `shutdown` completes: watches Memcacheds, the Deployments and
/// Services they own, and their Pods (mapped back to the Memcached by label). `synced` fires once
/// the watch caches hold a full list.
pub async fn run(
    client: Client,
    metrics: Arc<Metrics>,
    settings: Settings,
    shutdown: impl Future<Output = ()> + Send + Sync + 'static,
    synced: impl FnOnce() + Send + 'static,
) {
    let ns = settings.namespace.as_deref();
    let managed = watcher::Config::default().labels(&format!("{MANAGED_BY_LABEL}={MANAGED_BY}"));
    // Caches hold only what the reconciler reads, without managed fields. Pods: metadata
    // (name, labels, deletion). Memcacheds: the whole object (it is the reconcile input).
    // Deployments: whole (the status comes from theirs); Services: metadata.
    // Measured with `cargo xtask bench-operator`: 61 MiB peak for 1,000 Memcacheds with whole
    // objects and managed fields everywhere.
    let (pod_store, pod_writer) = reflector::store();
    let pod_index = PodIndex::default();
    let pods = reflector::reflector(
        pod_writer,
        watcher(
            api::<PartialObjectMeta<Pod>>(&client, ns),
            watcher::Config::default().labels(&resources::managed_pods_selector()),
        )
        .modify(|pod| pod.metadata.managed_fields = None),
    )
    .inspect({
        let index = pod_index.clone();
        move |event| {
            if let Ok(event) = event {
                index.observe(event);
            }
        }
    })
    .touched_objects();
    let (memcached_store, memcached_writer) = reflector::store();
    let memcacheds = reflector::reflector(
        memcached_writer,
        watcher(api::<Memcached>(&client, ns), watcher::Config::default())
            .modify(|mc| mc.metadata.managed_fields = None),
    )
    .applied_objects();
    // Deployments whole (their status is the Memcached's), Services as metadata: what the
    // reconciler compares with what it last applied, to skip applies that change nothing.
    let (deployment_store, deployment_writer) = reflector::store();
    let deployments = reflector::reflector(
        deployment_writer,
        watcher(api::<Deployment>(&client, ns), managed.clone())
            .modify(|d| d.metadata.managed_fields = None),
    )
    .touched_objects();
    let (service_store, service_writer) = reflector::store();
    let services = reflector::reflector(
        service_writer,
        watcher(api::<PartialObjectMeta<Service>>(&client, ns), managed)
            .modify(|s| s.metadata.managed_fields = None),
    )
    .touched_objects();
    let controller = Controller::for_stream(memcacheds, memcached_store)
        .owns_stream(deployments)
        .owns_stream(services)
        .watches_stream(pods, |pod: PartialObjectMeta<Pod>| {
            let name = pod.labels().get(INSTANCE_LABEL)?.clone();
            Some(ObjectRef::new(&name).within(pod.namespace().as_deref()?))
        })
        .with_config(
            settings
                .reconcile
                .controller_config()
                .concurrency(settings.concurrency),
        )
        // One backoff for all trigger streams together: the controller pauses them all on an
        // error from any.
        .trigger_backoff(WatchBackoff::default())
        .graceful_shutdown_on(shutdown);

    let memcached_store = controller.store();
    let pods_ready = pod_store.clone();
    tokio::spawn(async move {
        ready(&memcached_store).await;
        ready(&pods_ready).await;
        synced();
    });

    let ctx = Arc::new(
        Context::new(client, pod_store, settings.image, metrics)
            .with_owned_caches(deployment_store, service_store)
            .with_sync_period(settings.reconcile.sync_period)
            .with_pod_index(pod_index),
    );
    let failures = ctx.clone();
    controller
        .run(reconcile, error_policy, ctx)
        .for_each(|result| {
            let ctx = failures.clone();
            async move {
                if let Err(e) = result {
                    // Reconcile errors are logged (with backoff) by error_policy; these are the
                    // controller's own: watch failures, objects that vanished, ...
                    match e {
                        controller::Error::ReconcilerFailed(..) => {}
                        // Deleted between the trigger and the reconcile: nothing to do.
                        controller::Error::ObjectNotFound(obj) => {
                            tracing::debug!(%obj, "gone before it was reconciled");
                            // A failed object that is gone (say, its finalizer removed by hand)
                            // would keep its failure count for the life of the process.
                            let mut key = ObjectRef::<Memcached>::new(&obj.name);
                            if let Some(ns) = obj.namespace.as_deref() {
                                key = key.within(ns);
                            }
                            ctx.forget(&key);
                        }
                        other => warn!(error = %other, "controller"),
                    }
                }
            }
        })
        .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emptied_lists_are_removed_by_the_status_patch() {
        let patch = status_patch(&MemcachedStatus::default());
        assert_eq!(
            patch,
            serde_json::json!({ "nodes": null, "conditions": null })
        );
        let patch = status_patch(&MemcachedStatus {
            nodes: vec!["a".into()],
            ..Default::default()
        });
        assert_eq!(patch["nodes"], serde_json::json!(["a"]));
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

    #[test]
    fn backoff_doubles_from_5ms_and_caps_at_1000s() {
        assert_eq!(backoff(1), Duration::from_millis(5));
        assert_eq!(backoff(2), Duration::from_millis(10));
        assert_eq!(backoff(11), Duration::from_millis(5 * 1024));
        assert_eq!(backoff(40), Duration::from_secs(1000));
        assert_eq!(backoff(u32::MAX), Duration::from_secs(1000));
    }
}
