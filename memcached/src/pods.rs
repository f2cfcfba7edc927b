//! The operator's pods by Memcached: `status.nodes` of one Memcached without scanning every
//! pod the operator manages (a scan per reconcile is quadratic when a thousand Memcacheds'
//! pods all change at once). Kept up to date from the pod watch's events, with the same relist
//! semantics as a reflector's store: after a restarted watch the old index stays until the new
//! list is complete.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, RwLock};

use k8s_openapi::api::core::v1::Pod;
use kube::ResourceExt as _;
use kube::core::PartialObjectMeta;
use kube::runtime::watcher;

use crate::resources::{APP_NAME, INSTANCE_LABEL, NAME_LABEL};

/// (namespace, name).
type Key = (String, String);

#[derive(Debug, Default)]
struct Maps {
    /// (namespace, Memcached) -> its pods' names.
    by_memcached: HashMap<Key, BTreeSet<String>>,
    /// (namespace, pod) -> its Memcached, to move or drop a pod whose labels changed.
    memcached_of: HashMap<Key, String>,
}

impl Maps {
    fn remove(&mut self, ns: &str, pod: &str) {
        let key = (ns.to_string(), pod.to_string());
        if let Some(memcached) = self.memcached_of.remove(&key) {
            let owner = (ns.to_string(), memcached);
            if let Some(pods) = self.by_memcached.get_mut(&owner) {
                pods.remove(pod);
                if pods.is_empty() {
                    self.by_memcached.remove(&owner);
                }
            }
        }
    }

    fn apply(&mut self, pod: &PartialObjectMeta<Pod>) {
        let (Some(ns), name) = (pod.namespace(), pod.name_any()) else {
            return;
        };
        self.remove(&ns, &name);
        let labels = pod.labels();
        let ours = labels.get(NAME_LABEL).map(String::as_str) == Some(APP_NAME);
        let (true, Some(memcached), None) = (
            ours,
            labels.get(INSTANCE_LABEL),
            pod.metadata.deletion_timestamp.as_ref(),
        ) else {
            return;
        };
        self.by_memcached
            .entry((ns.clone(), memcached.clone()))
            .or_default()
            .insert(name.clone());
        self.memcached_of.insert((ns, name), memcached.clone());
    }
}

/// The pods of each Memcached that are not being deleted, from the pod watch's events.
#[derive(Debug, Clone, Default)]
pub struct PodIndex {
    live: Arc<RwLock<Maps>>,
    /// The relist in progress (between `Init` and `InitDone`).
    pending: Arc<RwLock<Option<Maps>>>,
}

impl PodIndex {
    /// Takes one event of the pod watch into account.
    pub fn observe(&self, event: &watcher::Event<PartialObjectMeta<Pod>>) {
        match event {
            watcher::Event::Apply(pod) => write(&self.live).apply(pod),
            watcher::Event::Delete(pod) => {
                if let Some(ns) = pod.namespace() {
                    write(&self.live).remove(&ns, &pod.name_any());
                }
            }
            watcher::Event::Init => *write(&self.pending) = Some(Maps::default()),
            watcher::Event::InitApply(pod) => {
                if let Some(maps) = write(&self.pending).as_mut() {
                    maps.apply(pod);
                }
            }
            watcher::Event::InitDone => {
                if let Some(maps) = write(&self.pending).take() {
                    *write(&self.live) = maps;
                }
            }
        }
    }

    /// The names of the Memcached's pods that are not being deleted, sorted.
    pub fn pods_of(&self, ns: &str, memcached: &str) -> Vec<String> {
        self.live
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .by_memcached
            .get(&(ns.to_string(), memcached.to_string()))
            .map(|pods| pods.iter().cloned().collect())
            .unwrap_or_default()
    }
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::api::ObjectMeta;
    use watcher::Event;

    fn pod(ns: &str, name: &str, memcached: Option<&str>) -> PartialObjectMeta<Pod> {
        let mut labels = std::collections::BTreeMap::new();
        labels.insert(NAME_LABEL.to_string(), APP_NAME.to_string());
        if let Some(m) = memcached {
            labels.insert(INSTANCE_LABEL.to_string(), m.to_string());
        }
        PartialObjectMeta {
            types: None,
            metadata: ObjectMeta {
                namespace: Some(ns.into()),
                name: Some(name.into()),
                labels: Some(labels),
                ..Default::default()
            },
            _phantom: Default::default(),
        }
    }

    #[test]
    fn pods_are_indexed_by_memcached_and_follow_changes() {
        let index = PodIndex::default();
        index.observe(&Event::Apply(pod("a", "p2", Some("cache"))));
        index.observe(&Event::Apply(pod("a", "p1", Some("cache"))));
        index.observe(&Event::Apply(pod("b", "p3", Some("cache"))));
        index.observe(&Event::Apply(pod("a", "p4", Some("other"))));
        assert_eq!(index.pods_of("a", "cache"), ["p1", "p2"]);
        assert_eq!(index.pods_of("b", "cache"), ["p3"]);

        // Relabelled to another Memcached, then being deleted, then gone.
        index.observe(&Event::Apply(pod("a", "p2", Some("other"))));
        assert_eq!(index.pods_of("a", "cache"), ["p1"]);
        assert_eq!(index.pods_of("a", "other"), ["p2", "p4"]);
        let mut terminating = pod("a", "p1", Some("cache"));
        terminating.metadata.deletion_timestamp =
            Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                k8s_openapi::jiff::Timestamp::UNIX_EPOCH,
            ));
        index.observe(&Event::Apply(terminating));
        assert!(index.pods_of("a", "cache").is_empty());
        index.observe(&Event::Delete(pod("a", "p4", Some("other"))));
        assert_eq!(index.pods_of("a", "other"), ["p2"]);
        // Not one of ours (no instance label): not indexed.
        index.observe(&Event::Apply(pod("a", "p5", None)));
        assert_eq!(index.pods_of("a", ""), Vec::<String>::new());
    }

    #[test]
    fn a_relist_replaces_the_index_only_when_complete() {
        let index = PodIndex::default();
        index.observe(&Event::Apply(pod("a", "old", Some("cache"))));
        index.observe(&Event::Init);
        index.observe(&Event::InitApply(pod("a", "new", Some("cache"))));
        assert_eq!(
            index.pods_of("a", "cache"),
            ["old"],
            "half a list is not the truth"
        );
        index.observe(&Event::InitDone);
        assert_eq!(index.pods_of("a", "cache"), ["new"]);
    }
}
