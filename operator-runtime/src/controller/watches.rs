//! The watches of a controller: its primary kind's and one per owned or watched kind, each
//! with its cache (managed fields dropped), the index of a watched kind by the object it maps
//! to, what `/readyz` waits for, and the work its events ask of the controller (changes, and
//! relisted objects that did not change); the filter that drops status-only changes; the
//! watches' retry delays.

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use std::collections::HashMap;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{FutureExt as _, StreamExt as _};
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::utils::StreamBackoff;
use kube::runtime::{WatchStreamExt as _, watcher};
use kube::{Client, Resource};
use serde::de::DeserializeOwned;

use super::caches::{Cache, Caches, Key, RelatedIndex, key_of};
use super::predicates::{EventFilter, filtered, without_status_changes};
use super::queue::Priority;
use super::scope::{ScopeApi, api};

/// The setup a registration adds its watch to when the controller starts.
pub(super) struct Setup<K: Resource<DynamicType = ()> + Clone + Debug + 'static> {
    pub(super) client: Client,
    pub(super) namespace: Option<String>,
    pub(super) ignore_status_changes: bool,
    pub(super) caches: Caches,
    pub(super) ready: Vec<BoxFuture<'static, ()>>,
    backoff: WatchBackoff,
    store: Store<K>,
    work: Vec<WorkStream>,
}

/// What a watch asks of the controller, event by event: the primary objects to reconcile,
/// each as a change or as later work (see [`WorkQueue`](super::queue::WorkQueue)).
pub(super) type WorkStream = BoxStream<'static, Result<Vec<(Key, Priority)>, watcher::Error>>;

/// What a controller's watches are once registered: the primary kind's cache, every cache,
/// what readiness waits for, and the work the watches find.
pub(super) struct Watches<K: Resource<DynamicType = ()> + Clone + 'static> {
    pub(super) store: Store<K>,
    pub(super) caches: Caches,
    pub(super) ready: Vec<BoxFuture<'static, ()>>,
    pub(super) work: Vec<WorkStream>,
}

/// The primary object a watched object maps to.
pub(super) type OwnerOf<S> = Arc<dyn Fn(&S) -> Option<Key> + Send + Sync>;

/// What a cache does to each object before it keeps it.
pub(super) type Transform<S> = Arc<dyn Fn(&mut S) + Send + Sync>;

/// What `owns*` and `watches*` add to the setup when the controller starts.
pub(super) type Registration<K> = Box<dyn FnOnce(&mut Setup<K>) + Send>;

impl<K> Setup<K>
where
    K: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
    K::Scope: ScopeApi,
{
    /// The setup of a controller of `K`: its primary kind watched with `config` (in
    /// `namespace`, or everywhere) into the cache kube's controller reads, whose readiness
    /// `/readyz` waits for, its events passed through `filter`; the watches retried after
    /// `backoff`.
    pub(super) fn new(
        client: Client,
        namespace: Option<String>,
        config: watcher::Config,
        ignore_status_changes: bool,
        filter: Option<EventFilter<K>>,
        backoff: WatchBackoff,
    ) -> Self {
        let (store, writer) = reflector::store();
        let events = reflector::reflector(
            writer,
            watcher(api::<K>(&client, namespace.as_deref()), config).modify(strip),
        );
        let events = if ignore_status_changes {
            without_status_changes(events).boxed()
        } else {
            events.boxed()
        };
        let events = match filter {
            Some(filter) => filtered(events, filter).boxed(),
            None => events,
        };
        let work = work_of(
            events,
            store.clone(),
            Arc::new(|obj: &K| Some(key_of(obj))),
            &backoff,
        );
        Setup {
            client,
            namespace,
            ignore_status_changes,
            caches: Caches::default(),
            ready: vec![ready(store.clone())],
            backoff,
            store,
            work: vec![work],
        }
    }

    /// Runs each registration (`owns*`, `watches*`) on the setup: every watch, its cache and
    /// its work.
    pub(super) fn register(mut self, registrations: Vec<Registration<K>>) -> Watches<K> {
        for registration in registrations {
            registration(&mut self);
        }
        Watches {
            store: self.store,
            caches: self.caches,
            ready: self.ready,
            work: self.work,
        }
    }
}

impl<K> Setup<K>
where
    K: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
{
    /// A cache of `S`, indexed by `owner`, whose events reconcile the object `owner` names;
    /// with `watched`, its status-only changes are dropped when the controller ignores status
    /// changes.
    pub(super) fn cache<S>(
        &mut self,
        config: watcher::Config,
        owner: OwnerOf<S>,
        transform: Option<Transform<S>>,
        watched: bool,
    ) where
        S: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
        S::Scope: ScopeApi,
    {
        assert!(
            !self.caches.contains::<S>(),
            "{} is registered twice with one controller",
            std::any::type_name::<S>()
        );
        let (store, writer) = reflector::store();
        let index = Arc::new(RelatedIndex::default());
        let indexing = index.clone();
        let indexed_by = owner.clone();
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
            if let Ok(event) = event {
                indexing.observe(event, |obj| indexed_by(obj));
            }
        });
        // A watched kind's status-only changes too (an owned kind's status is usually what
        // the reconciler reads, so those always wake it).
        let stream = if self.ignore_status_changes && watched {
            without_status_changes(stream).boxed()
        } else {
            stream.boxed()
        };
        self.work
            .push(work_of(stream, store.clone(), owner, &self.backoff));
        self.ready.push(ready(store.clone()));
        self.caches.insert(Cache { store, index });
    }

    pub(super) fn watch<S, F>(&mut self, config: watcher::Config, map: F)
    where
        S: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
        S::Scope: ScopeApi,
        F: Fn(&S) -> Option<ObjectRef<K>> + Send + Sync + 'static,
    {
        self.cache::<S>(
            config,
            Arc::new(move |obj: &S| map(obj).map(|r| (r.namespace.clone(), r.name.clone()))),
            None,
            true,
        );
    }

    /// Owns `C`: a cache of it indexed by its controller owner reference to a `K` (what
    /// [`Context::related`](super::Context::related) reads), whose changes reconcile that `K`.
    pub(super) fn own<C>(&mut self, config: watcher::Config, transform: Option<Transform<C>>)
    where
        C: Resource<DynamicType = ()> + Clone + Debug + DeserializeOwned + Send + Sync + 'static,
        C::Scope: ScopeApi,
        K::Scope: ScopeApi,
    {
        self.cache::<C>(config, Arc::new(controller_of::<K, C>), transform, false);
    }
}

/// The work `events` (a watch of `S` after its cache, `store`) asks of the controller: the
/// object `owner` maps each event's object to, retried after `backoff`.
///
/// Created, changed and deleted objects are changes. A list's objects are later work when
/// they are as the cache held them (a relist after the watch expired or the API server
/// restarted brings back every object, changed or not) and the first list's all are (nothing
/// was reconciled yet: whatever is created meanwhile goes first). An object the cache held
/// and a relist no longer has was deleted while the watch was down: a change, the one
/// event nobody sent (kube's watcher reports none; client-go's informer reports it as
/// `DeletedFinalStateUnknown`).
///
/// A list's work is told only once the list is complete. Until then the reflector's store
/// keeps serving what it held before the list, and a reconcile started on a relisted change
/// would read the old object, succeed, and consume the change: found by the fault battery at
/// N = 1,000, where the relist after an expired watch takes two pages, and every Memcached
/// resized while the watch was down was reconciled at its old size and then left alone.
fn work_of<S>(
    events: BoxStream<'static, Result<watcher::Event<S>, watcher::Error>>,
    store: Store<S>,
    owner: OwnerOf<S>,
    backoff: &WatchBackoff,
) -> WorkStream
where
    S: Resource<DynamicType = ()> + Clone + Debug + Send + Sync + 'static,
{
    let mut listed = false;
    // What the cache held when a relist began, less what the relist brought back so far.
    let mut before: HashMap<Key, Arc<S>> = HashMap::new();
    // The work of the list under way, told when it is complete.
    let mut listing: Vec<(Key, Priority)> = Vec::new();
    let mut classify = move |event: watcher::Event<S>| -> Vec<(Key, Priority)> {
        let work = |obj: &S, priority| owner(obj).map(|key| (key, priority));
        match event {
            watcher::Event::Apply(obj) | watcher::Event::Delete(obj) => {
                work(&obj, Priority::Change).into_iter().collect()
            }
            watcher::Event::Init => {
                // The reflector keeps what it held until the list is complete.
                before = store
                    .state()
                    .into_iter()
                    .map(|obj| (key_of(obj.as_ref()), obj))
                    .collect();
                listing.clear();
                Vec::new()
            }
            watcher::Event::InitApply(obj) => {
                let held = before.remove(&key_of(&obj));
                let unchanged = held.is_some_and(|held| {
                    held.meta().resource_version == obj.meta().resource_version
                });
                let priority = if unchanged || !listed {
                    Priority::Later
                } else {
                    Priority::Change
                };
                listing.extend(work(&obj, priority));
                Vec::new()
            }
            watcher::Event::InitDone => {
                // The reflector has put the listed objects in the store by now.
                listed = true;
                let mut told = std::mem::take(&mut listing);
                told.extend(
                    std::mem::take(&mut before)
                        .into_values()
                        .filter_map(|gone| work(&gone, Priority::Change)),
                );
                told
            }
        }
    };
    StreamBackoff::new(events, backoff.clone())
        .map(move |event| event.map(&mut classify))
        .boxed()
}

/// The `K` that controls `obj`, by its controller owner reference (the one that kube's and
/// controller-runtime's `owns` follow): its name, in `obj`'s namespace for a namespaced `K`.
pub(super) fn controller_of<K, C>(obj: &C) -> Option<Key>
where
    K: Resource<DynamicType = ()>,
    K::Scope: ScopeApi,
    C: Resource,
{
    let owner = obj.meta().owner_references.as_ref()?.iter().find(|o| {
        o.controller == Some(true) && o.kind == K::kind(&()) && o.api_version == K::api_version(&())
    })?;
    let namespace = if <K::Scope as ScopeApi>::NAMESPACED {
        Some(obj.meta().namespace.clone()?)
    } else {
        None
    };
    Some((namespace, owner.name.clone()))
}

/// Managed fields are never read by a reconciler; dropping them halves a cache's memory.
pub(super) fn strip<S: Resource>(obj: &mut S) {
    obj.meta_mut().managed_fields = None;
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

    #[test]
    fn an_owned_object_belongs_to_the_kind_its_controller_reference_names() {
        use k8s_openapi::api::apps::v1::Deployment;
        use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
        let reference = |kind: &str, api_version: &str, name: &str, controller| OwnerReference {
            kind: kind.into(),
            api_version: api_version.into(),
            name: name.into(),
            controller,
            ..Default::default()
        };
        let cm = |refs: Vec<OwnerReference>| ConfigMap {
            metadata: kube::api::ObjectMeta {
                name: Some("c".into()),
                namespace: Some("ns".into()),
                owner_references: Some(refs),
                ..Default::default()
            },
            ..Default::default()
        };
        let owned = cm(vec![
            reference("Deployment", "apps/v1", "not-controller", None),
            reference("Deployment", "apps/v1", "web", Some(true)),
        ]);
        assert_eq!(
            controller_of::<Deployment, _>(&owned),
            Some((Some("ns".into()), "web".into()))
        );
        // Another kind, another group's kind of the same name, or no controller flag.
        for refs in [
            vec![reference("StatefulSet", "apps/v1", "web", Some(true))],
            vec![reference("Deployment", "other.io/v1", "web", Some(true))],
            vec![reference("Deployment", "apps/v1", "web", Some(false))],
        ] {
            assert_eq!(controller_of::<Deployment, _>(&cm(refs)), None);
        }
        // A cluster-scoped owner: no namespace in the key.
        let in_namespace = cm(vec![reference("Namespace", "v1", "ns", Some(true))]);
        assert_eq!(
            controller_of::<Namespace, _>(&in_namespace),
            Some((None, "ns".into()))
        );
    }

    #[tokio::test]
    async fn changes_are_told_from_relisted_objects_and_a_deletion_missed_is_found() {
        use k8s_openapi::api::core::v1::ConfigMap;
        let cm = |name: &str, version: &str| ConfigMap {
            metadata: kube::api::ObjectMeta {
                name: Some(name.into()),
                namespace: Some("ns".into()),
                resource_version: Some(version.into()),
                ..Default::default()
            },
            ..Default::default()
        };
        use watcher::Event::{Apply, Delete, Init, InitApply, InitDone};
        let events = vec![
            // The first list: nothing reconciled yet, all later work.
            Init,
            InitApply(cm("a", "1")),
            InitApply(cm("b", "1")),
            InitDone,
            Apply(cm("a", "2")),
            // A relist: `a` as held, `c` new, `b` gone while the watch was down.
            Init,
            InitApply(cm("a", "2")),
            InitApply(cm("c", "3")),
            InitDone,
            Delete(cm("c", "3")),
        ];
        let (store, writer) = reflector::store();
        let events = reflector::reflector(
            writer,
            futures::stream::iter(events.into_iter().map(Ok::<_, watcher::Error>)),
        )
        .boxed();
        let cached = store.clone();
        // Each item's work, and the version of each object it names as the store held it
        // when the work was told (what a reconcile started then would read).
        let told: Vec<Vec<(String, Priority, Option<String>)>> = work_of(
            events,
            store,
            Arc::new(|cm: &ConfigMap| Some(key_of(cm))),
            &WatchBackoff::default(),
        )
        .map(|found| {
            found
                .unwrap()
                .into_iter()
                .map(|((namespace, name), priority)| {
                    let at =
                        ObjectRef::<ConfigMap>::new(&name).within(namespace.as_deref().unwrap());
                    let version = cached
                        .get(&at)
                        .and_then(|cm| cm.metadata.resource_version.clone());
                    (name, priority, version)
                })
                .collect()
        })
        .collect()
        .await;
        let item =
            |work: &[(&str, Priority, Option<&str>)]| -> Vec<(String, Priority, Option<String>)> {
                work.iter()
                    .map(|(name, priority, version)| {
                        (name.to_string(), *priority, version.map(str::to_string))
                    })
                    .collect()
            };
        let expected = vec![
            // The first list: told once complete.
            item(&[]),
            item(&[]),
            item(&[]),
            item(&[
                ("a", Priority::Later, Some("1")),
                ("b", Priority::Later, Some("1")),
            ]),
            item(&[("a", Priority::Change, Some("2"))]),
            // The relist: told once the store holds what it listed (`c` at version 3, `b`
            // gone), not while it still serves what it held before.
            item(&[]),
            item(&[]),
            item(&[]),
            item(&[
                ("a", Priority::Later, Some("2")),
                ("c", Priority::Change, Some("3")),
                ("b", Priority::Change, None),
            ]),
            item(&[("c", Priority::Change, None)]),
        ];
        assert_eq!(told, expected);
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
}
