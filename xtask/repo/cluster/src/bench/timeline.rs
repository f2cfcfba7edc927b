//! `--timeline`: where a phase's time goes, object by object. While a phase runs, a watch on
//! its namespace's Deployments (and Memcacheds, when there are any) records for each object
//! the first moment it was *asked* (its Deployment's spec at the phase's size), *ready* (the
//! Deployment runs that many ready pods) and *done* (ready, and its Memcached says Available:
//! what [`super::converge::wait_converged`] counts). The quantiles of the three over the
//! objects say whether a slow phase waited on the operator sending its writes (asked late), on
//! the control plane (ready late after asked), or on the status (done late after ready).
//!
//! The watch is one more client of the API server, with full objects, so the phases it
//! watches cost a little more: it is off by default and for diagnosis, not for the numbers
//! compared against a target.

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::Api;
use kube::core::DynamicObject;
use kube::runtime::watcher::{self, Event};
use tokio::task::JoinHandle;

use super::converge::{deployment_at, is_available};

/// When each object reached each step, since the phase began.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Steps {
    pub asked: BTreeMap<String, Duration>,
    pub ready: BTreeMap<String, Duration>,
    pub done: BTreeMap<String, Duration>,
}

/// What the watches have seen so far: the latest of each object, and the steps.
#[derive(Default)]
struct Seen {
    available: HashSet<String>,
    ready_now: HashSet<String>,
    steps: Steps,
}

impl Seen {
    /// Records what a Deployment at `at` shows; `with_memcacheds` says whether done needs an
    /// Available Memcached (an operator's run, the floor with Memcacheds) or only readiness.
    fn deployment(&mut self, d: &Deployment, size: i32, at: Duration, with_memcacheds: bool) {
        let Some(owner) = owner_name(d, with_memcacheds) else {
            return;
        };
        if d.spec.as_ref().and_then(|s| s.replicas) == Some(size) {
            self.steps.asked.entry(owner.clone()).or_insert(at);
        }
        if deployment_at(d, size) {
            self.steps.ready.entry(owner.clone()).or_insert(at);
            self.ready_now.insert(owner.clone());
            if !with_memcacheds || self.available.contains(&owner) {
                self.steps.done.entry(owner).or_insert(at);
            }
        } else {
            self.ready_now.remove(&owner);
        }
    }

    fn memcached(&mut self, mc: &DynamicObject, at: Duration) {
        let Some(name) = mc.metadata.name.clone() else {
            return;
        };
        if is_available(mc) {
            self.available.insert(name.clone());
            if self.ready_now.contains(&name) {
                self.steps.done.entry(name).or_insert(at);
            }
        } else {
            self.available.remove(&name);
        }
    }
}

/// The name an object's steps are kept under: its owning Memcached's, or with none (the
/// Deployments floor) its own.
fn owner_name(d: &Deployment, with_memcacheds: bool) -> Option<String> {
    if !with_memcacheds {
        return d.metadata.name.clone();
    }
    d.metadata
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.kind == "Memcached")
        .map(|o| o.name.clone())
}

/// The watches of one phase, started before it begins.
pub struct Recorder {
    seen: std::sync::Arc<std::sync::Mutex<Seen>>,
    tasks: Vec<JoinHandle<()>>,
}

impl Recorder {
    /// Starts watching `deployments` (and `mcs`, if any) for a phase that brings them to
    /// `size`, timed from `start`.
    pub fn start(
        deployments: &Api<Deployment>,
        mcs: Option<&Api<DynamicObject>>,
        size: i32,
        start: Instant,
    ) -> Self {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Seen::default()));
        let with_memcacheds = mcs.is_some();
        let mut tasks = Vec::new();
        {
            let seen = seen.clone();
            let stream = watcher::watcher(deployments.clone(), watcher::Config::default());
            tasks.push(tokio::spawn(async move {
                let mut stream = std::pin::pin!(stream);
                while let Some(event) = stream.next().await {
                    let at = start.elapsed();
                    if let Ok(Event::Apply(d) | Event::InitApply(d)) = event {
                        let mut seen = seen.lock().expect("timeline lock");
                        seen.deployment(&d, size, at, with_memcacheds);
                    }
                }
            }));
        }
        if let Some(mcs) = mcs {
            let seen = seen.clone();
            let stream = watcher::watcher(mcs.clone(), watcher::Config::default());
            tasks.push(tokio::spawn(async move {
                let mut stream = std::pin::pin!(stream);
                while let Some(event) = stream.next().await {
                    let at = start.elapsed();
                    if let Ok(Event::Apply(mc) | Event::InitApply(mc)) = event {
                        seen.lock().expect("timeline lock").memcached(&mc, at);
                    }
                }
            }));
        }
        Recorder { seen, tasks }
    }

    /// Stops the watches and returns the steps seen; a moment's grace first, so that the
    /// events of the last objects (which the bench's poll has already seen) arrive.
    pub async fn finish(self) -> Steps {
        tokio::time::sleep(Duration::from_millis(500)).await;
        for task in &self.tasks {
            task.abort();
        }
        let seen = self.seen.lock().expect("timeline lock");
        seen.steps.clone()
    }
}

/// The `q` quantile (0..=1) of `values`, nearest rank; `None` when empty.
fn quantile(values: &[Duration], q: f64) -> Option<Duration> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort();
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    Some(sorted[rank - 1])
}

/// One line per step: how many objects reached it, and when (10th, 50th, 90th percentile and
/// the last), then how long each waited between steps (median and 90th percentile).
pub fn summary(steps: &Steps) -> String {
    let secs =
        |d: Option<Duration>| d.map_or("–".to_string(), |d| format!("{:.1}", d.as_secs_f64()));
    let line = |what: &str, at: &BTreeMap<String, Duration>| {
        let values: Vec<Duration> = at.values().copied().collect();
        format!(
            "{what} {}: p10 {} / p50 {} / p90 {} / last {} s",
            values.len(),
            secs(quantile(&values, 0.1)),
            secs(quantile(&values, 0.5)),
            secs(quantile(&values, 0.9)),
            secs(quantile(&values, 1.0)),
        )
    };
    let gap = |what: &str, from: &BTreeMap<String, Duration>, to: &BTreeMap<String, Duration>| {
        let values: Vec<Duration> = to
            .iter()
            .filter_map(|(name, t)| Some(t.saturating_sub(*from.get(name)?)))
            .collect();
        format!(
            "{what}: p50 {} / p90 {} / max {} s",
            secs(quantile(&values, 0.5)),
            secs(quantile(&values, 0.9)),
            secs(quantile(&values, 1.0)),
        )
    };
    [
        line("asked", &steps.asked),
        line("ready", &steps.ready),
        line("done", &steps.done),
        gap("asked to ready", &steps.asked, &steps.ready),
        gap("ready to done", &steps.ready, &steps.done),
    ]
    .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(pairs: &[(&str, u64)]) -> BTreeMap<String, Duration> {
        pairs
            .iter()
            .map(|(n, ms)| (n.to_string(), Duration::from_millis(*ms)))
            .collect()
    }

    #[test]
    fn quantiles_are_nearest_rank() {
        let values: Vec<Duration> = (1..=10).map(Duration::from_secs).collect();
        assert_eq!(quantile(&values, 0.1), Some(Duration::from_secs(1)));
        assert_eq!(quantile(&values, 0.5), Some(Duration::from_secs(5)));
        assert_eq!(quantile(&values, 0.9), Some(Duration::from_secs(9)));
        assert_eq!(quantile(&values, 1.0), Some(Duration::from_secs(10)));
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn the_summary_gives_each_step_and_the_waits_between() {
        let steps = Steps {
            asked: at(&[("a", 1000), ("b", 3000)]),
            ready: at(&[("a", 4000), ("b", 5000)]),
            done: at(&[("a", 4500)]),
        };
        assert_eq!(
            summary(&steps),
            "asked 2: p10 1.0 / p50 1.0 / p90 3.0 / last 3.0 s; \
             ready 2: p10 4.0 / p50 4.0 / p90 5.0 / last 5.0 s; \
             done 1: p10 4.5 / p50 4.5 / p90 4.5 / last 4.5 s; \
             asked to ready: p50 2.0 / p90 3.0 / max 3.0 s; \
             ready to done: p50 0.5 / p90 0.5 / max 0.5 s"
        );
    }

    #[test]
    fn done_waits_for_the_memcached_and_the_deployment_both() {
        let mut seen = Seen::default();
        let d = |name: &str, replicas: i32, ready: i32| -> Deployment {
            serde_json::from_value(serde_json::json!({
                "metadata": { "name": name, "ownerReferences": [{
                    "apiVersion": "cache.example.com/v1alpha1", "kind": "Memcached",
                    "name": name, "uid": "u"
                }] },
                "spec": { "replicas": replicas, "selector": {}, "template": {} },
                "status": { "replicas": ready, "readyReplicas": ready, "updatedReplicas": ready },
            }))
            .unwrap()
        };
        let mc = |name: &str, available: &str| {
            let mut mc = DynamicObject::new(
                name,
                &kube::core::ApiResource::from_gvk(&kube::core::GroupVersionKind::gvk(
                    "cache.example.com",
                    "v1alpha1",
                    "Memcached",
                )),
            );
            mc.data = serde_json::json!({ "status": { "conditions": [
                { "type": "Available", "status": available }
            ] } });
            mc
        };
        let secs = Duration::from_secs;
        seen.memcached(&mc("a", "False"), secs(0));
        seen.deployment(&d("a", 3, 1), 3, secs(1), true);
        seen.deployment(&d("a", 3, 3), 3, secs(4), true);
        assert_eq!(seen.steps.asked["a"], secs(1));
        assert_eq!(seen.steps.ready["a"], secs(4));
        assert!(!seen.steps.done.contains_key("a"));
        seen.memcached(&mc("a", "True"), secs(6));
        assert_eq!(seen.steps.done["a"], secs(6));
        // Available first, ready after: done when ready.
        seen.memcached(&mc("b", "True"), secs(1));
        seen.deployment(&d("b", 3, 3), 3, secs(2), true);
        assert_eq!(seen.steps.done["b"], secs(2));
        // Without Memcacheds, ready is done.
        let mut floor = Seen::default();
        floor.deployment(&d("c", 3, 3), 3, secs(3), false);
        assert_eq!(floor.steps.done["c"], secs(3));
    }
}
