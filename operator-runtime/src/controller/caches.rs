//! The watch caches a controller keeps besides its primary kind's: owned kinds (for the
//! applier) and watched kinds, each indexed by the primary object its objects belong to (for
//! [`Context::related`](super::Context::related)), found by the cached type.

use std::any::{Any, TypeId};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, RwLock};

use kube::Resource;
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::watcher;

/// Namespace and name of an object.
pub(crate) type Key = (Option<String>, String);

pub(crate) fn key_of<K: Resource>(obj: &K) -> Key {
    let meta = obj.meta();
    (
        meta.namespace.clone(),
        meta.name.clone().unwrap_or_default(),
    )
}

/// A cache of `S`: the reflector's store, and the index of its objects by the primary object
/// they map to (for an owned kind, its controller owner reference).
pub(crate) struct Cache<S: Resource<DynamicType = ()> + 'static> {
    pub(crate) store: Store<S>,
    pub(crate) index: Arc<RelatedIndex>,
}

/// Caches by the type they hold (`Deployment`, `PartialObjectMeta<Service>`, ...), and the
/// primary kind's store (kube's controller's).
#[derive(Default)]
pub(crate) struct Caches(
    HashMap<TypeId, Box<dyn Any + Send + Sync>>,
    Option<Box<dyn Any + Send + Sync>>,
);

impl Caches {
    pub(crate) fn set_primary<K>(&mut self, store: Store<K>)
    where
        K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
    {
        self.1 = Some(Box::new(store));
    }

    /// The primary object at `key` as the cache holds it now (`None` when it is gone, or
    /// when `K` is not the primary kind).
    pub(crate) fn primary<K>(&self, (namespace, name): &Key) -> Option<Arc<K>>
    where
        K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
    {
        let store: &Store<K> = self.1.as_ref()?.downcast_ref()?;
        let mut at = ObjectRef::<K>::new(name);
        if let Some(ns) = namespace {
            at = at.within(ns);
        }
        store.get(&at)
    }

    pub(crate) fn insert<S>(&mut self, cache: Cache<S>)
    where
        S: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
    {
        self.0.insert(TypeId::of::<S>(), Box::new(cache));
    }

    pub(crate) fn get<S>(&self) -> Option<&Cache<S>>
    where
        S: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
    {
        self.0.get(&TypeId::of::<S>())?.downcast_ref()
    }

    pub(crate) fn contains<S: 'static>(&self) -> bool {
        self.0.contains_key(&TypeId::of::<S>())
    }
}

impl<S> Cache<S>
where
    S: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
{
    pub(crate) fn lookup(&self, (namespace, name): &Key) -> Option<Arc<S>> {
        let mut at = ObjectRef::<S>::new(name);
        if let Some(ns) = namespace {
            at = at.within(ns);
        }
        self.store.get(&at)
    }
}

#[derive(Debug, Default)]
struct Maps {
    /// Primary object -> the watched objects that map to it.
    by_owner: HashMap<Key, BTreeSet<Key>>,
    /// Watched object -> the primary object it maps to, to move it when that changes.
    owner_of: HashMap<Key, Key>,
}

impl Maps {
    fn remove(&mut self, object: &Key) {
        if let Some(owner) = self.owner_of.remove(object)
            && let Some(objects) = self.by_owner.get_mut(&owner)
        {
            objects.remove(object);
            if objects.is_empty() {
                self.by_owner.remove(&owner);
            }
        }
    }

    fn insert(&mut self, object: Key, owner: Option<Key>) {
        self.remove(&object);
        if let Some(owner) = owner {
            self.by_owner
                .entry(owner.clone())
                .or_default()
                .insert(object.clone());
            self.owner_of.insert(object, owner);
        }
    }
}

/// The watched objects of each primary object, kept from the watch's events with a
/// reflector's relist semantics: after a restarted watch the old index serves until the new
/// list is complete. A lookup is then one map access instead of a scan of the whole cache.
#[derive(Debug, Default)]
pub(crate) struct RelatedIndex {
    live: RwLock<Maps>,
    pending: RwLock<Option<Maps>>,
}

impl RelatedIndex {
    pub(crate) fn observe<S: Resource>(
        &self,
        event: &watcher::Event<S>,
        owner: impl Fn(&S) -> Option<Key>,
    ) {
        match event {
            watcher::Event::Apply(obj) => write(&self.live).insert(key_of(obj), owner(obj)),
            watcher::Event::Delete(obj) => write(&self.live).remove(&key_of(obj)),
            watcher::Event::Init => *write(&self.pending) = Some(Maps::default()),
            watcher::Event::InitApply(obj) => {
                if let Some(maps) = write(&self.pending).as_mut() {
                    maps.insert(key_of(obj), owner(obj));
                }
            }
            watcher::Event::InitDone => {
                if let Some(maps) = write(&self.pending).take() {
                    *write(&self.live) = maps;
                }
            }
        }
    }

    pub(crate) fn related(&self, owner: &Key) -> Vec<Key> {
        self.live
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .by_owner
            .get(owner)
            .map(|objects| objects.iter().cloned().collect())
            .unwrap_or_default()
    }
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;
    use watcher::Event;

    fn cm(name: &str, owner: Option<&str>) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("ns".into()),
                labels: owner.map(|o| [("owner".to_string(), o.to_string())].into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    fn owner(cm: &ConfigMap) -> Option<Key> {
        let name = cm.metadata.labels.as_ref()?.get("owner")?;
        Some((Some("ns".into()), name.clone()))
    }

    fn names(index: &RelatedIndex, owner: &str) -> Vec<String> {
        index
            .related(&(Some("ns".into()), owner.into()))
            .into_iter()
            .map(|(_, n)| n)
            .collect()
    }

    #[test]
    fn objects_follow_their_owner_and_a_relist_replaces_the_index_when_complete() {
        let index = RelatedIndex::default();
        index.observe(&Event::Apply(cm("a", Some("x"))), owner);
        index.observe(&Event::Apply(cm("b", Some("x"))), owner);
        assert_eq!(names(&index, "x"), ["a", "b"]);
        // Relabelled to another owner, then to none.
        index.observe(&Event::Apply(cm("a", Some("y"))), owner);
        assert_eq!(names(&index, "x"), ["b"]);
        assert_eq!(names(&index, "y"), ["a"]);
        index.observe(&Event::Apply(cm("a", None)), owner);
        assert!(names(&index, "y").is_empty());
        index.observe(&Event::Delete(cm("b", Some("x"))), owner);
        assert!(names(&index, "x").is_empty());

        index.observe(&Event::Apply(cm("old", Some("x"))), owner);
        index.observe(&Event::Init, owner);
        index.observe(&Event::InitApply(cm("new", Some("x"))), owner);
        assert_eq!(
            names(&index, "x"),
            ["old"],
            "the old index serves during a relist"
        );
        index.observe(&Event::<ConfigMap>::InitDone, owner);
        assert_eq!(names(&index, "x"), ["new"]);
    }
}
