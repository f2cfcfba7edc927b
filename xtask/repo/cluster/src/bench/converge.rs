//! A phase against the API server: writing many objects a few at a time, waiting until every
//! Deployment (and Memcached) is where the phase takes it, and, with `--timeline`, watching
//! the phase's objects on the way.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, DynamicObject};

use super::{BenchArgs, timeline};

/// With `--timeline`, starts watching a phase that brings the objects to `size` from `start`.
pub(super) fn record(
    args: &BenchArgs,
    deployments: &Api<Deployment>,
    mcs: Option<&Api<DynamicObject>>,
    size: i32,
    start: Instant,
) -> Option<timeline::Recorder> {
    args.timeline
        .then(|| timeline::Recorder::start(deployments, mcs, size, start))
}

/// Prints what `recorder` saw of the phase `phase` of `tag`.
pub(super) async fn report_timeline(tag: &str, phase: &str, recorder: Option<timeline::Recorder>) {
    if let Some(recorder) = recorder {
        let steps = recorder.finish().await;
        eprintln!("{tag} {phase} timeline: {}", timeline::summary(&steps));
    }
}

/// How many requests the bench keeps in flight when it writes objects itself.
const FAN_OUT: usize = 32;

/// Runs `each` on every item, [`FAN_OUT`] at a time; the first error ends it.
pub(super) async fn fan_out<I, F, Fut, T>(items: I, each: F) -> kube::Result<()>
where
    I: IntoIterator,
    F: FnMut(I::Item) -> Fut,
    Fut: std::future::Future<Output = kube::Result<T>>,
{
    futures::stream::iter(items)
        .map(each)
        .buffer_unordered(FAN_OUT)
        .try_for_each(|_| std::future::ready(Ok(())))
        .await
}

/// Creates the Memcacheds `mc-00000` to `mc-<count - 1>` of `resource`, of size 1, 32 at a
/// time.
pub(super) async fn create_memcacheds(
    mcs: &Api<DynamicObject>,
    resource: &ApiResource,
    count: usize,
) -> kube::Result<()> {
    fan_out(0..count, |i| {
        let (mcs, resource) = (mcs.clone(), resource.clone());
        async move {
            let mut obj = DynamicObject::new(&format!("mc-{i:05}"), &resource);
            obj.data = serde_json::json!({ "spec": { "size": 1 } });
            mcs.create(&PostParams::default(), &obj).await
        }
    })
    .await
}

/// Sends the same merge patch to each of the `count` Memcacheds, 32 at a time.
pub(super) async fn merge_all(
    mcs: &Api<DynamicObject>,
    count: usize,
    patch: serde_json::Value,
) -> kube::Result<()> {
    fan_out(0..count, |i| {
        let (mcs, patch) = (mcs.clone(), patch.clone());
        async move {
            mcs.patch(
                &format!("mc-{i:05}"),
                &PatchParams::default(),
                &Patch::Merge(patch),
            )
            .await
        }
    })
    .await
}

/// Waits until `count` Deployments run `size` ready replicas and, with `mcs` (an operator
/// run; the floor has none), each belongs to a Memcached that says Available; returns the
/// time since `start`.
pub(super) async fn wait_converged(
    tag: &str,
    mcs: Option<&Api<DynamicObject>>,
    deployments: &Api<Deployment>,
    count: usize,
    size: i32,
    start: Instant,
    deadline: Duration,
) -> Result<Duration> {
    let poll = Duration::from_secs(if count > 300 { 2 } else { 1 });
    let mut last_report = Instant::now();
    loop {
        let available: Option<std::collections::HashSet<String>> = match mcs {
            Some(mcs) => Some(
                mcs.list(&ListParams::default())
                    .await?
                    .items
                    .iter()
                    .filter(|o| is_available(o))
                    .filter_map(|o| o.metadata.name.clone())
                    .collect(),
            ),
            None => None,
        };
        let ready = deployments
            .list(&ListParams::default())
            .await?
            .items
            .iter()
            .filter(|d| deployment_at(d, size))
            .filter(|d| {
                available.as_ref().is_none_or(|available| {
                    d.metadata
                        .owner_references
                        .iter()
                        .flatten()
                        .any(|o| o.kind == "Memcached" && available.contains(&o.name))
                })
            })
            .count();
        if ready == count {
            return Ok(start.elapsed());
        }
        if start.elapsed() > deadline {
            bail!("{tag} only {ready}/{count} converged at size {size} after {deadline:?}");
        }
        if last_report.elapsed() >= Duration::from_secs(10) {
            last_report = Instant::now();
            eprintln!(
                "{tag} {ready}/{count} at size {size} after {:.1} s",
                start.elapsed().as_secs_f64()
            );
        }
        tokio::time::sleep(poll).await;
    }
}

pub(super) fn is_available(obj: &DynamicObject) -> bool {
    obj.data["status"]["conditions"]
        .as_array()
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "Available" && c["status"] == "True")
        })
}

pub(super) fn deployment_at(d: &Deployment, size: i32) -> bool {
    let want = d.spec.as_ref().and_then(|s| s.replicas) == Some(size);
    let status = d.status.as_ref();
    want && status.and_then(|s| s.ready_replicas).unwrap_or(0) == size
        && status.and_then(|s| s.updated_replicas).unwrap_or(0) == size
        && status.and_then(|s| s.replicas).unwrap_or(0) == size
}
