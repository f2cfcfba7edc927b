//! The floors: what the control plane alone takes for N Deployments (with their Services, for
//! the second), and for the same work as an operator's done by the bench itself (the direct
//! floor).

use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Service;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};

use super::BenchArgs;
use super::converge::{deployment_at, fan_out, record, report_timeline, wait_converged};
use super::procfs::{PlaneCpu, PlaneSpent, settle};
use super::results::Floor;
use super::stage::{Stage, clean_up, delete_namespace, fresh_namespace};

/// A Deployment like the operator's for a Memcached of `size` (the same pod template shape:
/// one memcached container, selected by its instance label).
pub(super) fn floor_deployment(name: &str, size: i32) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": { "name": name, "labels": { "app.kubernetes.io/instance": name } },
        "spec": {
            "replicas": size,
            "selector": { "matchLabels": { "app.kubernetes.io/instance": name } },
            "template": {
                "metadata": { "labels": { "app.kubernetes.io/instance": name } },
                "spec": { "containers": [{
                    "name": "memcached",
                    "image": "memcached:1.6.26-alpine3.19",
                    "ports": [{ "containerPort": 11211, "name": "memcached" }],
                }] },
            },
        },
    })
}

/// The Service ours makes in front of a Memcached's pods (memcached/src/resources.rs): a
/// ClusterIP selecting the instance label, port 11211 to the container's named port.
pub(super) fn floor_service(name: &str) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": { "name": name, "labels": { "app.kubernetes.io/instance": name } },
        "spec": {
            "selector": { "app.kubernetes.io/instance": name },
            "ports": [{
                "name": "memcached",
                "port": 11211,
                "targetPort": "memcached",
                "protocol": "TCP",
            }],
        },
    })
}

pub(super) fn floor_tag(count: usize, services: bool) -> String {
    if services {
        format!("[floor {count} with Services]")
    } else {
        format!("[floor {count}]")
    }
}

/// The floor of `count`: N Deployments created directly (with `services`, each with the
/// Service ours puts in front of its pods, created with it), converged at 1 replica, resized
/// to 3.
pub(super) async fn run_floor(
    stage: &Stage,
    count: usize,
    services: bool,
    args: &BenchArgs,
) -> Result<Floor> {
    let client = stage.cluster.client.clone();
    let plane = stage.plane.as_ref();
    let tag = floor_tag(count, services);
    settle(plane, &tag).await;
    let ns = fresh_namespace(
        &client,
        &format!("bench-floor{}-{count}", if services { "-svc" } else { "" }),
    )
    .await?;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    let service_api: Api<Service> = Api::namespaced(client.clone(), &ns);
    let deadline = Duration::from_secs(args.timeout);
    let names: Vec<String> = (0..count).map(|i| format!("mc-{i:05}")).collect();
    eprintln!(
        "{tag} creating {count} Deployments of 1 replica{} in {ns}",
        if services { " and their Services" } else { "" }
    );
    let cpu_start = plane.and_then(PlaneCpu::sample);
    let start = Instant::now();
    let recorder = record(args, &deployments, None, 1, start);
    fan_out(&names, |name| {
        let deployments = deployments.clone();
        let service_api = service_api.clone();
        async move {
            let d: Deployment =
                serde_json::from_value(floor_deployment(name, 1)).expect("a valid Deployment");
            deployments.create(&PostParams::default(), &d).await?;
            if services {
                let svc: Service =
                    serde_json::from_value(floor_service(name)).expect("a valid Service");
                service_api.create(&PostParams::default(), &svc).await?;
            }
            Ok::<_, kube::Error>(())
        }
    })
    .await
    .context("creating Deployments")?;
    let converged = wait_converged(&tag, None, &deployments, count, 1, start, deadline).await?;
    let cpu_converged = plane.and_then(PlaneCpu::sample);
    report_timeline(&tag, "converge", recorder).await;
    eprintln!("{tag} resizing all {count} to 3");
    let cpu_storm = plane.and_then(PlaneCpu::sample);
    let start = Instant::now();
    let recorder = record(args, &deployments, None, 3, start);
    fan_out(&names, |name| {
        let deployments = deployments.clone();
        async move {
            let patch = serde_json::json!({ "spec": { "replicas": 3 } });
            deployments
                .patch(name, &PatchParams::default(), &Patch::Merge(patch))
                .await
        }
    })
    .await
    .context("resizing Deployments")?;
    let storm = wait_converged(&tag, None, &deployments, count, 3, start, deadline).await?;
    let cpu_end = plane.and_then(PlaneCpu::sample);
    report_timeline(&tag, "storm", recorder).await;
    if !stage.is_own() {
        delete_namespace(&client, &ns, &tag).await?;
    }
    Ok(Floor {
        converged,
        storm,
        plane_converge: PlaneSpent::between(cpu_start.as_ref(), cpu_converged.as_ref()),
        plane_storm: PlaneSpent::between(cpu_storm.as_ref(), cpu_end.as_ref()),
    })
}

pub(super) fn direct_tag(count: usize) -> String {
    format!("[floor {count}, same work without an operator]")
}

/// The finalizer the direct floor puts on each Memcached, as an operator would.
const DIRECT_FINALIZER: &str = "cache.example.com/finalizer";

/// The direct floor of `count`: the bench does itself, with no controller, what a perfect
/// operator would have to ask of the API server, so that an operator's time above it is what
/// its runtime costs (watch latency, queueing, extra requests) and nothing the work needs.
///
/// Converge: for each Memcached (32 at a time), create it at size 1, add the finalizer, create
/// its Deployment and Service owned by it; then, polling the Deployments as the operator runs
/// are timed, write each Memcached's status once its Deployment runs its ready pod (Available,
/// Progressing done). Storm: for each, resize it to 3, resize its Deployment, write its status
/// (not Available, updating); then the same report once its Deployment runs three. That is
/// one write per step, the fewest with ours' (and the same-work Go operator's) status.
pub(super) async fn run_direct_floor(
    stage: &Stage,
    count: usize,
    args: &BenchArgs,
) -> Result<Floor> {
    let client = stage.cluster.client.clone();
    let plane = stage.plane.as_ref();
    let tag = direct_tag(count);
    settle(plane, &tag).await;
    let ns = fresh_namespace(&client, &format!("bench-direct-{count}")).await?;
    let gvk = GroupVersionKind::gvk("cache.example.com", "v1alpha1", "Memcached");
    let resource = ApiResource::from_gvk(&gvk);
    let mcs: Api<DynamicObject> = Api::namespaced_with(client.clone(), &ns, &resource);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    let service_api: Api<Service> = Api::namespaced(client.clone(), &ns);
    let deadline = Duration::from_secs(args.timeout);
    let names: Vec<String> = (0..count).map(|i| format!("mc-{i:05}")).collect();

    eprintln!("{tag} creating {count} Memcacheds with their Deployments and Services in {ns}");
    let cpu_start = plane.and_then(PlaneCpu::sample);
    let start = Instant::now();
    let recorder = record(args, &deployments, Some(&mcs), 1, start);
    fan_out(&names, |name| {
        let (mcs, deployments, service_api) =
            (mcs.clone(), deployments.clone(), service_api.clone());
        let resource = resource.clone();
        async move {
            let mut mc = DynamicObject::new(name, &resource);
            mc.data = serde_json::json!({ "spec": { "size": 1 } });
            let mc = mcs.create(&PostParams::default(), &mc).await?;
            let finalizer = serde_json::json!({ "metadata": { "finalizers": [DIRECT_FINALIZER] } });
            mcs.patch(name, &PatchParams::default(), &Patch::Merge(finalizer))
                .await?;
            let owner = serde_json::json!([{
                "apiVersion": "cache.example.com/v1alpha1",
                "kind": "Memcached",
                "name": name,
                "uid": mc.metadata.uid,
                "controller": true,
                "blockOwnerDeletion": true,
            }]);
            let mut d = floor_deployment(name, 1);
            d["metadata"]["ownerReferences"] = owner.clone();
            let d: Deployment = serde_json::from_value(d).expect("a valid Deployment");
            deployments.create(&PostParams::default(), &d).await?;
            let mut svc = floor_service(name);
            svc["metadata"]["ownerReferences"] = owner;
            let svc: Service = serde_json::from_value(svc).expect("a valid Service");
            service_api.create(&PostParams::default(), &svc).await?;
            Ok::<_, kube::Error>(())
        }
    })
    .await
    .context("creating Memcacheds, Deployments and Services")?;
    let converged = report_when_ready(&tag, &mcs, &deployments, count, 1, start, deadline).await?;
    let cpu_converged = plane.and_then(PlaneCpu::sample);
    report_timeline(&tag, "converge", recorder).await;

    eprintln!("{tag} resizing all {count} to 3");
    let cpu_storm = plane.and_then(PlaneCpu::sample);
    let start = Instant::now();
    let recorder = record(args, &deployments, Some(&mcs), 3, start);
    fan_out(&names, |name| {
        let (mcs, deployments) = (mcs.clone(), deployments.clone());
        async move {
            let size = serde_json::json!({ "spec": { "size": 3 } });
            mcs.patch(name, &PatchParams::default(), &Patch::Merge(size))
                .await?;
            let replicas = serde_json::json!({ "spec": { "replicas": 3 } });
            deployments
                .patch(name, &PatchParams::default(), &Patch::Merge(replicas))
                .await?;
            mcs.patch_status(
                name,
                &PatchParams::default(),
                &Patch::Merge(direct_status(false, 3)),
            )
            .await?;
            Ok::<_, kube::Error>(())
        }
    })
    .await
    .context("resizing Memcacheds and Deployments")?;
    let storm = report_when_ready(&tag, &mcs, &deployments, count, 3, start, deadline).await?;
    let cpu_end = plane.and_then(PlaneCpu::sample);
    report_timeline(&tag, "storm", recorder).await;

    clean_up(stage, &mcs, count, &ns, &tag).await?;
    Ok(Floor {
        converged,
        storm,
        plane_converge: PlaneSpent::between(cpu_start.as_ref(), cpu_converged.as_ref()),
        plane_storm: PlaneSpent::between(cpu_storm.as_ref(), cpu_end.as_ref()),
    })
}

/// A Memcached status as ours writes it, reduced to its conditions: Available (with `size`
/// pods ready) or not yet (a resize under way), and Progressing the other way round.
fn direct_status(available: bool, size: i32) -> serde_json::Value {
    let now = k8s_openapi::jiff::Timestamp::now().to_string();
    let (ready, available_reason, progressing, progressing_reason) = if available {
        (size, "Ready", "False", "Complete")
    } else {
        (1, "Updating", "True", "Scaling")
    };
    serde_json::json!({ "status": { "conditions": [
        {
            "type": "Available",
            "status": if available { "True" } else { "False" },
            "reason": available_reason,
            "message": format!("{ready}/{size} pods are ready"),
            "lastTransitionTime": now,
        },
        {
            "type": "Progressing",
            "status": progressing,
            "reason": progressing_reason,
            "message": format!("the Deployment runs {ready} of {size} pods"),
            "lastTransitionTime": now,
        },
    ] } })
}

/// Polls the Deployments as [`wait_converged`] does and, as each reaches `size` ready
/// replicas, writes its Memcached's status once (Available); returns the time since `start`
/// when every one has been written.
async fn report_when_ready(
    tag: &str,
    mcs: &Api<DynamicObject>,
    deployments: &Api<Deployment>,
    count: usize,
    size: i32,
    start: Instant,
    deadline: Duration,
) -> Result<Duration> {
    let poll = Duration::from_secs(if count > 300 { 2 } else { 1 });
    let mut reported = std::collections::HashSet::new();
    let mut last_report = Instant::now();
    loop {
        let ready: Vec<String> = deployments
            .list(&ListParams::default())
            .await?
            .items
            .iter()
            .filter(|d| deployment_at(d, size))
            .filter_map(|d| d.metadata.name.clone())
            .filter(|name| !reported.contains(name))
            .collect();
        fan_out(&ready, |name| async move {
            let status = Patch::Merge(direct_status(true, size));
            mcs.patch_status(name, &PatchParams::default(), &status)
                .await
        })
        .await
        .context("writing Memcached statuses")?;
        reported.extend(ready);
        if reported.len() == count {
            return Ok(start.elapsed());
        }
        if start.elapsed() > deadline {
            bail!(
                "{tag} only {}/{count} ready at size {size} after {deadline:?}",
                reported.len()
            );
        }
        if last_report.elapsed() >= Duration::from_secs(10) {
            last_report = Instant::now();
            eprintln!(
                "{tag} {}/{count} at size {size} after {:.1} s",
                reported.len(),
                start.elapsed().as_secs_f64()
            );
        }
        tokio::time::sleep(poll).await;
    }
}
