//! What every reconcile of a controller shares: the client, the caches of owned and watched
//! kinds, and the pieces that keep a controller quiet (an applier that skips applies that
//! would change nothing, a status writer that writes only changes, an event recorder that
//! publishes news and not repeats), with the operator's own data beside them.

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ObjectReference;
use kube::api::{Api, Patch, PatchParams};
use kube::core::PartialObjectMeta;
use kube::core::object::HasStatus;
use kube::runtime::controller::Action;
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::{Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tracing::warn;

use super::caches::{Caches, Key, key_of};
use super::pacing::{self, Report, Reported, StatusPacing};
use super::scope::{ScopeApi, api};
use super::throttle::Throttle;
use crate::{Metrics, ReconcileSettings};

/// What a reconcile gets besides its object: the client, the controller's caches and quiet
/// writers, the manager's settings, and the operator's own `data` ([`data`](Self::data):
/// `ctx.data().image` for a `Context<Data>` whose `Data` has an `image`; a context is no
/// smart pointer, so it does not deref to it).
///
/// Built by [`Controller`](super::Controller); [`Context::new`] builds one without caches for
/// tests that call a reconciler directly (every apply is then sent).
pub struct Context<T = ()> {
    client: Client,
    name: String,
    field_manager: String,
    metrics: Arc<Metrics>,
    settings: ReconcileSettings,
    pub(crate) caches: Caches,
    events: Events,
    objects: Objects,
    /// The budget of [`write_progress`](Context::write_progress).
    progress: Throttle,
    /// How [`report`](Context::report) paces progress reports.
    pub(crate) pacing: StatusPacing,
    /// Cancelled once every cache of the controller holds a full list: reconciles wait for
    /// it, so that none computes a status from a cache still filling (controller-runtime's
    /// `WaitForCacheSync`).
    pub(crate) synced: CancellationToken,
    /// Cancelled when the manager stops: a reconcile still waiting for the caches gives up
    /// (a cache that cannot sync, say for want of a grant, must not hold shutdown).
    pub(crate) stopping: CancellationToken,
    /// Cancelled once this instance leads (at once without leader election): reconciles wait
    /// for it, so a standby's caches fill while it writes nothing.
    pub(crate) elected: CancellationToken,
    /// The controller's queue, where resyncs and retries wait (`None` outside a controller:
    /// they are returned as `Action::requeue`).
    pub(super) queue: Option<Arc<super::queue::WorkQueue>>,
    data: T,
}

type Objects = Arc<Mutex<HashMap<Key, ObjectState>>>;

/// An event's identity for telling news from repeats: (type, reason, note).
type EventId = (String, String, String);

/// Events go out from a task of their own, in the order published, as controller-runtime's
/// recorder does: a reconcile does not hold one of the controller's workers while an event
/// is written. Up to this many wait; a reconcile publishing beyond that waits for room.
const EVENT_QUEUE: usize = 1024;

/// The recorder and the queue to the task that publishes through it (started by the first
/// event).
struct Events {
    recorder: Recorder,
    queue: OnceLock<mpsc::Sender<Queued>>,
}

enum Queued {
    Event {
        event: Box<Event>,
        reference: Box<ObjectReference>,
        key: Key,
        id: EventId,
    },
    /// Everything queued before this went out.
    Flush(oneshot::Sender<()>),
}

impl Events {
    fn new(recorder: Recorder) -> Self {
        Self {
            recorder,
            queue: OnceLock::new(),
        }
    }

    fn queue(&self, objects: &Objects) -> &mpsc::Sender<Queued> {
        self.queue
            .get_or_init(|| publisher(self.recorder.clone(), Arc::downgrade(objects)))
    }
}

/// Starts the task that publishes the queued events; it ends when the queue's sender (the
/// context) is gone and the queue is empty. A failed publish is logged and forgotten as the
/// object's last event, so the same event again is news.
fn publisher(
    recorder: Recorder,
    objects: Weak<Mutex<HashMap<Key, ObjectState>>>,
) -> mpsc::Sender<Queued> {
    let (queue, mut queued) = mpsc::channel(EVENT_QUEUE);
    tokio::spawn(async move {
        while let Some(next) = queued.recv().await {
            match next {
                Queued::Flush(done) => {
                    let _ = done.send(());
                }
                Queued::Event {
                    event,
                    reference,
                    key,
                    id,
                } => {
                    if let Err(e) = recorder.publish(&event, &reference).await {
                        warn!(error = %e, reason = %event.reason, "could not publish event");
                        forget_event(&objects, &key, &id);
                    }
                }
            }
        }
    });
    queue
}

/// Forgets `id` as the last event of the object at `key`, if it still is.
fn forget_event(objects: &Weak<Mutex<HashMap<Key, ObjectState>>>, key: &Key, id: &EventId) {
    let Some(objects) = objects.upgrade() else {
        return;
    };
    let mut objects = objects.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(state) = objects.get_mut(key)
        && state.last_event.as_ref() == Some(id)
    {
        state.last_event = None;
    }
}

/// What the controller remembers of one primary object while it exists.
#[derive(Debug, Default)]
struct ObjectState {
    /// Consecutive failed reconciles.
    failures: u32,
    /// Owned objects as this process last applied them, by (kind, namespace, name).
    applied: HashMap<(String, Key), Applied>,
    /// The last event published about the object.
    last_event: Option<EventId>,
    /// When this process last wrote the object's status.
    status_written: Option<Instant>,
}

/// The hash of an applied object, the version the API server answered with, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Applied {
    hash: u64,
    version: String,
    at: Instant,
}

/// The outcome of [`Context::write_progress`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// The report was written.
    Written,
    /// The status already says it: nothing to write.
    Unchanged,
    /// Not written: the controller has sent its progress reports for now.
    Deferred,
}

/// The outcome of [`Context::apply`].
#[derive(Debug)]
pub struct Apply<C> {
    object: Option<Arc<C>>,
    sent: bool,
    ago: Duration,
}

impl<C> Apply<C> {
    /// The object as the API server answered the apply, or as the watch cache holds it when
    /// the apply was skipped (`None` then, when the kind is cached as metadata only).
    pub fn object(&self) -> Option<&Arc<C>> {
        self.object.as_ref()
    }

    /// Takes the object out.
    pub fn into_object(self) -> Option<Arc<C>> {
        self.object
    }

    /// Whether the apply was sent (the object was not as this process last applied it).
    pub fn sent(&self) -> bool {
        self.sent
    }

    /// How long ago this desired state was sent: zero when it was sent now. A reconciler
    /// that waits for what it applied to settle (a rollout) before reporting it uses this.
    pub fn applied_ago(&self) -> Duration {
        self.ago
    }
}

impl<T> Debug for Context<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("name", &self.name)
            .field("field_manager", &self.field_manager)
            .finish_non_exhaustive()
    }
}

/// The version an apply is compared by: the generation where the kind has one (a status
/// update does not make the spec differ from what was applied), else the resourceVersion.
fn version_of(meta: &kube::api::ObjectMeta) -> Option<String> {
    meta.generation
        .map(|g| format!("g{g}"))
        .or_else(|| meta.resource_version.as_ref().map(|v| format!("r{v}")))
}

/// A hash of what would be applied (its JSON); equal objects hash equal within the process.
fn hash_of<C: Serialize>(object: &C) -> Result<u64, kube::Error> {
    use std::hash::{BuildHasher as _, BuildHasherDefault, DefaultHasher};
    let bytes = serde_json::to_vec(object).map_err(kube::Error::SerdeError)?;
    Ok(BuildHasherDefault::<DefaultHasher>::default().hash_one(bytes))
}

impl<T> Context<T> {
    /// A context for the controller `name`, whose applies, status patches and events carry
    /// `name` as field manager and reporter until [`Context::with_field_manager`]. Without
    /// the caches a [`Controller`](super::Controller) adds, every [`apply`](Self::apply) is
    /// sent and [`related`](Self::related) finds nothing.
    pub fn new(client: Client, name: impl Into<String>, data: T) -> Self {
        let name = name.into();
        Self {
            events: Events::new(recorder(&client, &name)),
            client,
            field_manager: name.clone(),
            name,
            metrics: Arc::new(Metrics::new()),
            settings: ReconcileSettings::immediate(),
            progress: Throttle::per_second(ReconcileSettings::immediate().progress_reports),
            pacing: StatusPacing::default(),
            caches: Caches::default(),
            objects: Objects::default(),
            synced: {
                let synced = CancellationToken::new();
                synced.cancel();
                synced
            },
            stopping: CancellationToken::new(),
            elected: {
                let elected = CancellationToken::new();
                elected.cancel();
                elected
            },
            queue: None,
            data,
        }
    }

    /// Applies and patches status as `field_manager`, and reports events as it too (call
    /// [`with_event_reporter`](Self::with_event_reporter) after this for another reporter).
    #[must_use]
    pub fn with_field_manager(mut self, field_manager: impl Into<String>) -> Self {
        self.field_manager = field_manager.into();
        self.events = Events::new(recorder(&self.client, &self.field_manager));
        self
    }

    /// Reports events as `reporter` (their `reportingController`).
    #[must_use]
    pub fn with_event_reporter(mut self, reporter: impl Into<String>) -> Self {
        self.events = Events::new(recorder(&self.client, &reporter.into()));
        self
    }

    /// Counts reconciles in `metrics`.
    #[must_use]
    pub fn with_metrics(mut self, metrics: Arc<Metrics>) -> Self {
        self.metrics = metrics;
        self
    }

    /// Reconciles with `settings` (sync period, debounce, progress reports).
    #[must_use]
    pub fn with_settings(mut self, settings: ReconcileSettings) -> Self {
        self.settings = settings;
        self.progress = Throttle::per_second(settings.progress_reports);
        self
    }

    /// The client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The controller's name (in metrics and logs).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The field manager of the controller's writes and the reporter of its events.
    pub fn field_manager(&self) -> &str {
        &self.field_manager
    }

    /// The operator's metrics.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// How the controller reconciles (`--sync-period`, `--reconcile-debounce`).
    pub fn settings(&self) -> ReconcileSettings {
        self.settings
    }

    /// The operator's own data.
    pub fn data(&self) -> &T {
        &self.data
    }

    /// What a successful reconcile of `obj` returns: come back after the sync period (spread
    /// by uid), or on the next change when there is none.
    ///
    /// In a controller the resync waits in the controller's queue behind every change (what
    /// is returned is `Action::await_change()`); elsewhere (a context of one's own) it is
    /// returned as `Action::requeue`. An `Action::requeue` the reconcile returns itself runs
    /// at its time, not behind the changes: for "look again soon" (a rollout under way, a
    /// status to report).
    pub fn next_sync<K: Resource>(&self, obj: &K) -> Action {
        let uid = obj.meta().uid.as_deref();
        match (&self.queue, self.settings.sync_delay(uid)) {
            (Some(queue), Some(delay)) => {
                queue.later(super::caches::key_of(obj), delay);
                Action::await_change()
            }
            _ => self.settings.requeue(uid),
        }
    }

    /// The cached object `S` (a kind the controller owns or watches, or
    /// `PartialObjectMeta<_>` of one watched as metadata) named `name` in `namespace`.
    pub fn cached<S>(&self, namespace: Option<&str>, name: &str) -> Option<Arc<S>>
    where
        S: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
    {
        self.caches
            .get::<S>()?
            .lookup(&(namespace.map(str::to_string), name.to_string()))
    }

    /// The objects of an owned or watched kind `S` that belong to `owner`, from an index the
    /// watch keeps (no scan of the cache): for an owned kind, those whose controller owner
    /// reference names `owner` (controller-runtime's `Owns`); for a watched kind, those its
    /// mapping function maps to `owner` (say, a kind's pods by their label).
    ///
    /// # Panics
    ///
    /// When the controller neither owns nor watches `S` (a mistake in the operator's code,
    /// which the first reconcile finds; a recovered panic becomes that reconcile's error).
    pub fn related<S, K>(&self, owner: &K) -> Vec<Arc<S>>
    where
        S: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
        K: Resource,
    {
        let Some(cache) = self.caches.get::<S>() else {
            panic!(
                "Context::related::<{}>: the controller neither owns nor watches that type, so \
                 nothing indexes it; register it on the controller with owns::<...>() or \
                 watches::<...>(...) (owns_metadata/watches_metadata for PartialObjectMeta)",
                std::any::type_name::<S>()
            );
        };
        cache
            .index
            .related(&key_of(owner))
            .iter()
            .filter_map(|key| cache.lookup(key))
            .collect()
    }

    /// Server-side applies `desired` (forced, as the field manager), an object `owner` owns,
    /// unless it is as this process last applied it: the same object would be sent, and the
    /// watch cache holds the generation (or, for kinds without one, the resourceVersion) that
    /// apply answered with, and the sync period has not passed since. An edit of its spec, its
    /// deletion or a new desired object all send the apply; so does a kind the controller
    /// does not own (no cache). Labels or annotations edited by hand (no new generation) are
    /// put back by the next apply sent, at the latest after the sync period.
    pub async fn apply<K, C>(&self, owner: &K, desired: &C) -> Result<Apply<C>, kube::Error>
    where
        K: Resource,
        C: Resource<DynamicType = ()> + Clone + Debug + Serialize + DeserializeOwned,
        C: Send + Sync + 'static,
        C::Scope: ScopeApi,
    {
        let meta = desired.meta();
        let name = meta.name.clone().unwrap_or_default();
        let at = (meta.namespace.clone(), name.clone());
        let hash = hash_of(desired)?;
        let slot = (C::kind(&()).into_owned(), at.clone());
        let owner_key = key_of(owner);
        let live: Option<(Option<String>, Option<Arc<C>>)> =
            if let Some(cache) = self.caches.get::<C>() {
                cache
                    .lookup(&at)
                    .map(|obj| (version_of(obj.meta()), Some(obj)))
            } else if let Some(cache) = self.caches.get::<PartialObjectMeta<C>>() {
                cache
                    .lookup(&at)
                    .map(|obj| (version_of(&obj.metadata), None))
            } else {
                None
            };
        if let Some((Some(version), object)) = live {
            let unchanged = self.with_state(&owner_key, |state| {
                let a = state.applied.get(&slot)?;
                let current = a.hash == hash
                    && a.version == version
                    && self
                        .settings
                        .sync_period
                        .is_none_or(|period| a.at.elapsed() < period);
                current.then(|| a.at.elapsed())
            });
            if let Some(ago) = unchanged {
                return Ok(Apply {
                    object,
                    sent: false,
                    ago,
                });
            }
        }
        let api: Api<C> = api(&self.client, meta.namespace.as_deref());
        let params = PatchParams::apply(&self.field_manager).force();
        let applied = api.patch(&name, &params, &Patch::Apply(desired)).await?;
        if let Some(version) = version_of(applied.meta()) {
            self.with_state(&owner_key, |state| {
                state.applied.insert(
                    slot,
                    Applied {
                        hash,
                        version,
                        at: Instant::now(),
                    },
                )
            });
        }
        Ok(Apply {
            object: Some(Arc::new(applied)),
            sent: true,
            ago: Duration::ZERO,
        })
    }

    /// Writes `status` to `obj` through the status subresource when it differs from the
    /// object's (a JSON merge patch of the fields that changed, with `null` for those gone);
    /// whether it wrote.
    pub async fn write_status<K>(&self, obj: &K, status: &K::Status) -> Result<bool, kube::Error>
    where
        K: Resource<DynamicType = ()> + HasStatus + Clone + Debug + DeserializeOwned,
        K::Status: Serialize + PartialEq,
        K::Scope: ScopeApi,
    {
        if obj.status() == Some(status) {
            return Ok(false);
        }
        self.patch_status(obj, status).await?;
        Ok(true)
    }

    /// Sends `status` to `obj` as a merge patch of what differs, and notes when.
    async fn patch_status<K>(&self, obj: &K, status: &K::Status) -> Result<(), kube::Error>
    where
        K: Resource<DynamicType = ()> + HasStatus + Clone + Debug + DeserializeOwned,
        K::Status: Serialize,
        K::Scope: ScopeApi,
    {
        let before = match obj.status() {
            Some(previous) => serde_json::to_value(previous).map_err(kube::Error::SerdeError)?,
            None => serde_json::Value::Null,
        };
        let after = serde_json::to_value(status).map_err(kube::Error::SerdeError)?;
        let patch = serde_json::json!({ "status": merge_patch(&before, &after) });
        let meta = obj.meta();
        let api: Api<K> = api(&self.client, meta.namespace.as_deref());
        let params = PatchParams {
            field_manager: Some(self.field_manager.clone()),
            ..PatchParams::default()
        };
        api.patch_status(
            meta.name.as_deref().unwrap_or_default(),
            &params,
            &Patch::Merge(&patch),
        )
        .await?;
        self.with_state(&key_of(obj), |state| {
            state.status_written = Some(Instant::now())
        });
        Ok(())
    }

    /// Writes `status` as [`write_status`](Self::write_status) does, for a report of work
    /// under way that the next write supersedes (a rollout's "2 of 3 pods ready"): only when
    /// the controller's budget of progress reports allows (`--progress-reports` a second,
    /// all objects together). When many objects change at once, most of their interim
    /// reports are then not written, and the API server's time goes to the changes; the
    /// reconciler writes a change of state (done, failed, lost) with `write_status`, at
    /// once, and tries a [`Progress::Deferred`] report again later (a requeue).
    pub async fn write_progress<K>(
        &self,
        obj: &K,
        status: &K::Status,
    ) -> Result<Progress, kube::Error>
    where
        K: Resource<DynamicType = ()> + HasStatus + Clone + Debug + DeserializeOwned,
        K::Status: Serialize + PartialEq,
        K::Scope: ScopeApi,
    {
        if obj.status() == Some(status) {
            return Ok(Progress::Unchanged);
        }
        if !self.progress.try_take() {
            self.metrics.progress_deferred(&self.name);
            return Ok(Progress::Deferred);
        }
        self.patch_status(obj, status).await?;
        Ok(Progress::Written)
    }

    /// Writes `status` to `obj` when it differs from the object's, paced as `report` says:
    /// a [`Report::Change`] at once; a [`Report::Progress`] (work under way, which the next
    /// write supersedes) as the controller's [`StatusPacing`] allows: not while the work this
    /// process last sent for the object (an [`apply`](Self::apply) of an owned object) is
    /// younger than the grace, then at most every so often while the status already has the
    /// report's state (its conditions, details aside), and within the budget of progress
    /// reports (`--progress-reports` a second for the controller). A report held back is
    /// [`Reported::Later`]: return `Action::requeue` with it, and the reconcile then reports
    /// whatever is true by then. This is the policy that gave memcached's benchmark its
    /// numbers; the reconciler only says which of its statuses are progress.
    pub async fn report<K>(
        &self,
        obj: &K,
        status: &K::Status,
        report: Report,
    ) -> Result<Reported, kube::Error>
    where
        K: Resource<DynamicType = ()> + HasStatus + Clone + Debug + DeserializeOwned,
        K::Status: Serialize + PartialEq,
        K::Scope: ScopeApi,
    {
        if obj.status() == Some(status) {
            return Ok(Reported::Unchanged);
        }
        if report == Report::Progress {
            let current = serde_json::to_value(obj.status()).map_err(kube::Error::SerdeError)?;
            let desired = serde_json::to_value(status).map_err(kube::Error::SerdeError)?;
            let reported = pacing::same_state(&current, &desired);
            let (applied_ago, written_ago) = self.with_state(&key_of(obj), |state| {
                let applied = state.applied.values().map(|a| a.at).max();
                (
                    applied.map(|at| at.elapsed()),
                    state.status_written.map(|at| at.elapsed()),
                )
            });
            if let Some(left) = self.pacing.delay(reported, applied_ago, written_ago) {
                return Ok(Reported::Later(left));
            }
            if !self.progress.try_take() {
                self.metrics.progress_deferred(&self.name);
                return Ok(Reported::Later(
                    self.pacing.every.max(Duration::from_secs(1)),
                ));
            }
        }
        self.patch_status(obj, status).await?;
        Ok(Reported::Written)
    }

    /// How long ago this process last wrote `obj`'s status through
    /// [`write_status`](Self::write_status); `None` when it has not (since it started, or
    /// since the object was last gone). A reconciler that reports the details of a long
    /// change (a rollout's counts) less often than its state uses this.
    pub fn status_written_ago<K: Resource>(&self, obj: &K) -> Option<Duration> {
        let key = key_of(obj);
        let objects = self.objects.lock().unwrap_or_else(|e| e.into_inner());
        objects.get(&key)?.status_written.map(|at| at.elapsed())
    }

    /// Publishes an event about `obj`, unless the last event published about it was this one
    /// (same type, reason and note): news, not repeats. The same event after another one
    /// (lost, recovered, lost again) is news. Whether it was news.
    ///
    /// The event is queued and written by a task of the controller's, in order, so the
    /// reconcile does not wait for the API server (it waits only when a thousand events are
    /// queued). Best effort: a failure is logged, never a reconcile error, and the same event
    /// again is then news. When the controller stops, what is queued goes out first (for at
    /// most five seconds).
    pub async fn publish<K>(
        &self,
        obj: &K,
        type_: EventType,
        reason: &str,
        note: impl Into<String>,
    ) -> bool
    where
        K: Resource<DynamicType = ()>,
    {
        let note = note.into();
        let id: EventId = (format!("{type_:?}"), reason.to_string(), note.clone());
        let key = key_of(obj);
        let news = self.with_state(&key, |state| {
            let news = state.last_event.as_ref() != Some(&id);
            if news {
                state.last_event = Some(id.clone());
            }
            news
        });
        if !news {
            return false;
        }
        let event = Event {
            type_,
            reason: reason.to_string(),
            note: Some(note),
            action: "Reconcile".to_string(),
            secondary: None,
        };
        let queued = Queued::Event {
            event: Box::new(event),
            reference: Box::new(obj.object_ref(&())),
            key,
            id,
        };
        if self.events.queue(&self.objects).send(queued).await.is_err() {
            warn!(reason, "could not publish event: the publisher stopped");
        }
        true
    }

    /// Waits until every event published so far went out, for at most `limit`.
    pub(crate) async fn flush_events(&self, limit: Duration) {
        let Some(queue) = self.events.queue.get() else {
            return;
        };
        let (done, flushed) = oneshot::channel();
        let flush = async {
            if queue.send(Queued::Flush(done)).await.is_ok() {
                let _ = flushed.await;
            }
        };
        if tokio::time::timeout(limit, flush).await.is_err() {
            warn!(controller = %self.name, "stopping with events not yet published");
        }
    }

    /// Counts a failed reconcile of the object at `key`; the delay before its retry.
    pub(crate) fn failed(&self, key: &Key, backoff: &Backoff) -> (u32, Duration) {
        let failures = self.with_state(key, |state| {
            state.failures = state.failures.saturating_add(1);
            state.failures
        });
        (failures, backoff.delay(failures))
    }

    /// A successful reconcile: the failure count starts again.
    pub(crate) fn succeeded(&self, key: &Key) {
        let mut objects = self.objects.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(state) = objects.get_mut(key) {
            state.failures = 0;
        }
    }

    /// Forgets everything about the object at `key` (it is gone): failures, applies, events.
    pub(crate) fn forget_key(&self, key: &Key) {
        self.objects
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key);
    }

    fn with_state<R>(&self, key: &Key, f: impl FnOnce(&mut ObjectState) -> R) -> R {
        let mut objects = self.objects.lock().unwrap_or_else(|e| e.into_inner());
        f(objects.entry(key.clone()).or_default())
    }
}

fn recorder(client: &Client, reporter: &str) -> Recorder {
    Recorder::new(
        client.clone(),
        Reporter {
            controller: reporter.to_string(),
            instance: std::env::var("POD_NAME").ok(),
        },
    )
}

/// A JSON merge patch (RFC 7386) that turns `before` into `after`: changed fields, `null`
/// for fields gone, objects patched field by field, everything else replaced.
pub fn merge_patch(before: &serde_json::Value, after: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match (before, after) {
        (Value::Object(before), Value::Object(after)) => {
            let mut patch = serde_json::Map::new();
            for (key, value) in after {
                match before.get(key) {
                    Some(old) if old == value => {}
                    Some(old) => {
                        patch.insert(key.clone(), merge_patch(old, value));
                    }
                    None => {
                        patch.insert(key.clone(), value.clone());
                    }
                }
            }
            for key in before.keys() {
                if !after.contains_key(key) {
                    patch.insert(key.clone(), Value::Null);
                }
            }
            Value::Object(patch)
        }
        _ => after.clone(),
    }
}

/// Per-object exponential backoff after failed reconciles: `base` doubling up to `max`
/// (controller-runtime's default rate limiter: 5 ms to 1000 s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// The delay after the first failure.
    pub base: Duration,
    /// The longest delay, however many failures.
    pub max: Duration,
}

impl Default for Backoff {
    fn default() -> Self {
        Self {
            base: Duration::from_millis(5),
            max: Duration::from_secs(1000),
        }
    }
}

impl Backoff {
    /// The delay before retry number `failures` (1-based).
    pub fn delay(&self, failures: u32) -> Duration {
        self.base
            .checked_mul(1u32 << failures.saturating_sub(1).min(31))
            .map_or(self.max, |d| d.min(self.max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn backoff_doubles_from_5ms_and_caps_at_1000s() {
        let b = Backoff::default();
        assert_eq!(b.delay(1), Duration::from_millis(5));
        assert_eq!(b.delay(2), Duration::from_millis(10));
        assert_eq!(b.delay(11), Duration::from_millis(5 * 1024));
        assert_eq!(b.delay(40), Duration::from_secs(1000));
        assert_eq!(b.delay(u32::MAX), Duration::from_secs(1000));
    }

    #[test]
    fn merge_patches_send_changes_and_null_what_went() {
        let before = json!({"nodes": ["a"], "phase": "Up", "inner": {"x": 1, "y": 2}, "same": 1});
        let after = json!({"phase": "Down", "inner": {"x": 1}, "same": 1, "new": true});
        assert_eq!(
            merge_patch(&before, &after),
            json!({"nodes": null, "phase": "Down", "inner": {"y": null}, "new": true})
        );
        assert_eq!(merge_patch(&json!(null), &after), after);
        assert_eq!(merge_patch(&after, &after), json!({}));
    }

    /// A namespaced kind with a status, for writers that need one.
    #[derive(Clone, Debug, Default, serde::Deserialize, Serialize)]
    struct Gauge {
        metadata: kube::api::ObjectMeta,
        status: Option<String>,
    }

    impl k8s_openapi::Resource for Gauge {
        const API_VERSION: &'static str = "test.example.com/v1";
        const GROUP: &'static str = "test.example.com";
        const KIND: &'static str = "Gauge";
        const VERSION: &'static str = "v1";
        const URL_PATH_SEGMENT: &'static str = "gauges";
        type Scope = k8s_openapi::NamespaceResourceScope;
    }

    impl k8s_openapi::Metadata for Gauge {
        type Ty = kube::api::ObjectMeta;

        fn metadata(&self) -> &Self::Ty {
            &self.metadata
        }

        fn metadata_mut(&mut self) -> &mut Self::Ty {
            &mut self.metadata
        }
    }

    impl HasStatus for Gauge {
        type Status = String;

        fn status(&self) -> Option<&String> {
            self.status.as_ref()
        }

        fn status_mut(&mut self) -> &mut Option<String> {
            &mut self.status
        }
    }

    #[tokio::test]
    async fn progress_reports_beyond_the_budget_wait_and_send_nothing() {
        // An API server that answers every request with an error, counting them.
        let requests = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = requests.clone();
        let service = tower::service_fn(move |_: http::Request<kube::client::Body>| {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async {
                Ok::<_, std::convert::Infallible>(
                    http::Response::builder()
                        .status(500)
                        .body(kube::client::Body::empty())
                        .unwrap(),
                )
            }
        });
        let ctx = Context::new(Client::new(service, "default"), "gauges", ()).with_settings(
            ReconcileSettings {
                progress_reports: 1,
                ..ReconcileSettings::immediate()
            },
        );
        let gauge = Gauge {
            metadata: kube::api::ObjectMeta {
                name: Some("g".into()),
                namespace: Some("default".into()),
                ..Default::default()
            },
            status: Some("1/3".into()),
        };
        let sent = || requests.load(std::sync::atomic::Ordering::SeqCst);

        let same = ctx.write_progress(&gauge, &"1/3".to_string()).await;
        assert_eq!(same.unwrap(), Progress::Unchanged);
        assert_eq!(sent(), 0, "nothing to write, no budget spent");
        // The one report of the second is sent (and fails here, as a write does).
        assert!(
            ctx.write_progress(&gauge, &"2/3".to_string())
                .await
                .is_err()
        );
        assert_eq!(sent(), 1);
        let next = ctx.write_progress(&gauge, &"2/3".to_string()).await;
        assert_eq!(next.unwrap(), Progress::Deferred);
        assert_eq!(sent(), 1, "a deferred report sends nothing");
        let deferred = "operator_progress_reports_deferred_total{controller=\"gauges\"} 1";
        assert!(ctx.metrics().encode().contains(deferred));
        // A change of state does not wait for the budget.
        assert!(ctx.write_status(&gauge, &"3/3".to_string()).await.is_err());
        assert_eq!(sent(), 2);
    }

    #[test]
    fn versions_prefer_the_generation() {
        let mut meta = kube::api::ObjectMeta {
            resource_version: Some("7".into()),
            ..Default::default()
        };
        assert_eq!(version_of(&meta).as_deref(), Some("r7"));
        meta.generation = Some(2);
        assert_eq!(version_of(&meta).as_deref(), Some("g2"));
    }
}
