//! One operator measured: started in a fresh namespace, N Memcacheds converged, a steady
//! window, the scale storm, then its counters, memory and CPU read and the namespace removed.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::Api;
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};

use super::converge::{create_memcacheds, merge_all, record, report_timeline, wait_converged};
use super::metrics::{diff, total, writes};
use super::process::{count_problems, spawn_operator};
use super::procfs::{
    PlaneCpu, PlaneSpent, clock_ticks_per_second, parse_cpu_ticks, parse_vm_hwm_kib, report_plane,
    settle,
};
use super::results::Row;
use super::stage::{Stage, clean_up, fresh_namespace};
use super::{Against, BenchArgs, Mode, Which, http};

/// One operator's run on `stage`: converge N Memcacheds, a steady window, the scale storm;
/// what it took and what the operator did.
pub(super) async fn run(
    stage: &Stage,
    tag: &str,
    which: Which,
    binary: &Path,
    count: usize,
    mode: Mode,
    args: &BenchArgs,
) -> Result<Row> {
    let cluster = &stage.cluster;
    let plane = stage.plane.as_ref();
    let client = cluster.client.clone();
    settle(plane, tag).await;
    let ns = fresh_namespace(&client, &format!("bench-{}-{count}", which.name())).await?;

    let (operator, health_port) = spawn_operator(
        which,
        binary,
        &ns,
        mode,
        args.against == Some(Against::GoSameWork),
        cluster,
    )?;
    let started = Instant::now();
    while http::get(health_port, "/readyz").await.is_err() {
        if started.elapsed() > Duration::from_secs(60) {
            bail!(
                "{tag} the operator did not become ready within 60 s (log: {})",
                operator.log.display()
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let gvk = GroupVersionKind::gvk("cache.example.com", "v1alpha1", "Memcached");
    let resource = ApiResource::from_gvk(&gvk);
    let mcs: Api<DynamicObject> = Api::namespaced_with(client.clone(), &ns, &resource);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    let deadline = Duration::from_secs(args.timeout);

    eprintln!("{tag} creating {count} Memcacheds of size 1 in {ns}");
    let cpu_start = plane.and_then(PlaneCpu::sample);
    let start = Instant::now();
    let recorder = record(args, &deployments, Some(&mcs), 1, start);
    create_memcacheds(&mcs, &resource, count)
        .await
        .context("creating Memcacheds")?;
    eprintln!("{tag} created in {:.1} s", start.elapsed().as_secs_f64());
    let converged =
        wait_converged(tag, Some(&mcs), &deployments, count, 1, start, deadline).await?;
    let cpu_converged = plane.and_then(PlaneCpu::sample);
    eprintln!("{tag} all converged in {:.1} s", converged.as_secs_f64());
    report_timeline(tag, "converge", recorder).await;

    let after_converge = operator.metrics().await?.requests();
    eprintln!("{tag} steady state for {} s", args.steady);
    tokio::time::sleep(Duration::from_secs(args.steady)).await;
    let after_steady = operator.metrics().await?.requests();
    let steady = diff(&after_steady, &after_converge);

    eprintln!("{tag} scale storm: all {count} resized to 3");
    let cpu_storm = plane.and_then(PlaneCpu::sample);
    let start = Instant::now();
    let recorder = record(args, &deployments, Some(&mcs), 3, start);
    merge_all(&mcs, count, serde_json::json!({ "spec": { "size": 3 } }))
        .await
        .context("resizing Memcacheds")?;
    let storm = wait_converged(tag, Some(&mcs), &deployments, count, 3, start, deadline).await?;
    let cpu_end = plane.and_then(PlaneCpu::sample);
    eprintln!("{tag} storm converged in {:.1} s", storm.as_secs_f64());
    report_timeline(tag, "storm", recorder).await;
    let plane_converge = PlaneSpent::between(cpu_start.as_ref(), cpu_converged.as_ref());
    let plane_storm = PlaneSpent::between(cpu_storm.as_ref(), cpu_end.as_ref());
    report_plane(tag, &plane_converge, &plane_storm);

    let metrics = operator.metrics().await?;
    let peak_rss_kib = parse_vm_hwm_kib(&operator.proc_file("status")?)
        .context("no VmHWM in /proc/<pid>/status")?;
    let cpu_ticks =
        parse_cpu_ticks(&operator.proc_file("stat")?).context("malformed /proc/<pid>/stat")?;

    // Clean up without the operator: finalizing N objects at the Go operator's client rate
    // limit would take minutes and measures nothing. Then wait until the namespace is gone, so
    // that the garbage collection of this run does not load the API server during the next.
    let log = operator.log.clone();
    operator.stop();
    clean_up(stage, &mcs, count, &ns, tag).await?;
    let problems = count_problems(which, &std::fs::read_to_string(&log).unwrap_or_default());
    Ok(Row {
        converged,
        storm,
        reconciles: metrics.reconciles(),
        requests: metrics.requests(),
        by_resource: metrics.requests_by_resource(),
        steady_requests: total(&steady),
        steady_writes: writes(&steady),
        peak_rss_kib,
        cpu_seconds: cpu_ticks as f64 / clock_ticks_per_second() as f64,
        problems,
        plane_converge,
        plane_storm,
    })
}
