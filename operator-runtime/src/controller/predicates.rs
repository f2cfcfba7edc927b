//! Which events of a watch reconcile: the filter that drops status-only changes
//! ([`Controller::ignore_status_changes`](super::Controller::ignore_status_changes)) and the
//! operator's own ([`Controller::event_filter`](super::Controller::event_filter)), applied
//! after the cache: it still sees every change.

use std::sync::Arc;

use futures::StreamExt as _;
use kube::Resource;
use kube::runtime::watcher;

use super::caches::{Key, key_of};

/// An operator's filter of the primary kind's events: reconcile for this object or not.
pub(super) type EventFilter<K> = Arc<dyn Fn(&K) -> bool + Send + Sync>;

/// The events of `events` less the updates that changed nothing but the status (see
/// [`Controller::ignore_status_changes`](super::Controller::ignore_status_changes));
/// deletions and relists pass.
pub(super) fn without_status_changes<K, S>(events: S) -> impl futures::Stream<Item = S::Item> + Send
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

/// The events of `events` whose object `filter` keeps; the list's start and end pass.
pub(super) fn filtered<K, S>(
    events: S,
    filter: EventFilter<K>,
) -> impl futures::Stream<Item = S::Item> + Send
where
    K: Resource + Send + 'static,
    S: futures::Stream<Item = Result<watcher::Event<K>, watcher::Error>> + Send,
{
    events.filter(move |event| {
        let pass = match event {
            Ok(
                watcher::Event::Apply(obj)
                | watcher::Event::InitApply(obj)
                | watcher::Event::Delete(obj),
            ) => filter(obj),
            _ => true,
        };
        std::future::ready(pass)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[tokio::test]
    async fn the_operators_filter_drops_the_events_of_the_objects_it_refuses() {
        use k8s_openapi::api::core::v1::ConfigMap;
        let cm = |name: &str, paused: bool| ConfigMap {
            metadata: kube::api::ObjectMeta {
                name: Some(name.into()),
                annotations: paused.then(|| [("paused".to_string(), "true".to_string())].into()),
                ..Default::default()
            },
            ..Default::default()
        };
        let events = vec![
            watcher::Event::Init,
            watcher::Event::InitApply(cm("a", false)),
            watcher::Event::InitApply(cm("b", true)),
            watcher::Event::InitDone,
            watcher::Event::Apply(cm("a", true)),
            watcher::Event::Delete(cm("b", false)),
        ];
        let not_paused: EventFilter<ConfigMap> = Arc::new(|cm: &ConfigMap| {
            !cm.metadata
                .annotations
                .as_ref()
                .is_some_and(|a| a.contains_key("paused"))
        });
        let passed: Vec<String> = filtered(
            futures::stream::iter(events.into_iter().map(Ok::<_, watcher::Error>)),
            not_paused,
        )
        .map(|e| match e.unwrap() {
            watcher::Event::Init => "init".to_string(),
            watcher::Event::InitDone => "done".to_string(),
            watcher::Event::InitApply(cm) => format!("list {}", cm.metadata.name.unwrap()),
            watcher::Event::Apply(cm) => format!("apply {}", cm.metadata.name.unwrap()),
            watcher::Event::Delete(cm) => format!("delete {}", cm.metadata.name.unwrap()),
        })
        .collect()
        .await;
        assert_eq!(passed, ["init", "list a", "done", "delete b"]);
    }
}
