//! `bench-operator --faults`: the fault battery of `memcached/tests/operator.rs` at any N, with
//! the operators as they run in a cluster, and beside the same-work Go operator.
//!
//! Each operator gets a control plane of its own. It runs as two processes with leader
//! election, each started again a second after it exits (the kubelet's part: SIGKILLed, or
//! exited because it lost the lease), as the service account `controller-manager` bound to its
//! own RBAC (ours: `config/rbac/role.yaml`; Go: `testdata/go-operator/role.yaml`), through a
//! relay that can cut it off from the API server ([`envtest::faults::Relay`]). N Memcacheds are
//! created and converged; then, one fault after the other, every Memcached is resized at once
//! (2, 3, 2, ...) and the fault strikes in the middle of that storm:
//!
//! 1. and 2. the API server restarted; 3. etcd restarted; 4. the watches expired (both
//!    instances cut off while every Memcached is resized and etcd's history is compacted, so
//!    they can only learn the new sizes by listing again); 5. both instances SIGKILLed (and
//!    restarted); 6. the leader SIGKILLed with the standby waiting; 7. the API server
//!    restarted with the operator's service account throttled to one seat by API Priority and
//!    Fairness (429s).
//!
//! After each, the bench waits until every Memcached is converged ([`Check`]): exactly one
//! Deployment and one Service controlled by it, the Deployment at the size, that many pods
//! Running, the status Available (for the current generation where the condition says one)
//! and `status.nodes` naming exactly the Running pods; nothing left that no Memcached controls.
//! Per fault it prints the time from the fault to that, the operator's requests and how many
//! the API server refused (from the audit log, so that both operators are counted alike),
//! its lists of Memcacheds, reconciles, reconcile errors, restarts of its processes and
//! warning lines in its logs; for the leader's death, the time to the new leader's first
//! reconcile. A fault after which the operator has not converged within `--timeout` is a
//! row with what was still wrong, and the battery goes on.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Pod, Service, ServiceAccount};
use kube::api::{Api, ListParams, ObjectMeta, PostParams};
use kube::config::Kubeconfig;
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use kube::{Client, ResourceExt as _};
use operator_xtask::{root, target_dir};
use operator_xtask_cluster::cluster;

use envtest::faults::{self, Relay};
use envtest::plane::ControlPlane;

use super::converge::{create_memcacheds, merge_all};
use super::metrics::Metrics;
use super::process::{free_port, operator_command};
use super::{BenchArgs, Mode, Which, http};

/// The namespace the battery runs in, on its plane of its own.
const NS: &str = "faults";
/// The service account the operator runs as.
const ACCOUNT: &str = "controller-manager";

/// What goes wrong, in the battery's order ([`BATTERY`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Fault {
    ApiServerRestarted,
    EtcdRestarted,
    WatchesExpired,
    OperatorKilled,
    LeaderKilled,
    ApiServerThrottled,
}

pub(super) const BATTERY: [Fault; 7] = [
    Fault::ApiServerRestarted,
    Fault::ApiServerRestarted,
    Fault::EtcdRestarted,
    Fault::WatchesExpired,
    Fault::OperatorKilled,
    Fault::LeaderKilled,
    Fault::ApiServerThrottled,
];

impl Fault {
    pub(super) fn label(self) -> &'static str {
        match self {
            Fault::ApiServerRestarted => "API server restarted",
            Fault::EtcdRestarted => "etcd restarted",
            Fault::WatchesExpired => "watches expired (410)",
            Fault::OperatorKilled => "both instances SIGKILLed",
            Fault::LeaderKilled => "leader SIGKILLed",
            Fault::ApiServerThrottled => "throttled (429) + API restart",
        }
    }
}

/// Where the Memcacheds stood at a check: each count is of Memcacheds (or, for `orphaned`,
/// of Deployments and Services).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Check {
    /// Memcacheds of the N created that no longer exist.
    pub(super) lost: usize,
    /// Memcacheds with no Deployment or no Service controlled by them.
    pub(super) missing: usize,
    /// Memcacheds controlling more than one Deployment or more than one Service.
    pub(super) duplicated: usize,
    /// Deployments and Services that no existing Memcached controls.
    pub(super) orphaned: usize,
    /// Memcacheds whose status is not (yet) true: not Available, Available for an older
    /// generation, or `status.nodes` not the Running pods.
    pub(super) untrue: usize,
    /// Memcacheds whose Deployment is not at the size or whose pods are not all Running.
    pub(super) unscaled: usize,
    /// The first thing found wrong, for the log.
    pub(super) example: Option<String>,
}

impl Check {
    pub(super) fn converged(&self) -> bool {
        self.lost == 0
            && self.missing == 0
            && self.duplicated == 0
            && self.orphaned == 0
            && self.untrue == 0
            && self.unscaled == 0
    }

    fn note(&mut self, what: String) {
        self.example.get_or_insert(what);
    }
}

/// Judges `count` Memcacheds (`mc-00000`, ...) against `size` from the listed objects.
pub(super) fn judge(
    count: usize,
    size: i32,
    mcs: &[DynamicObject],
    deployments: &[Deployment],
    services: &[Service],
    pods: &[Pod],
) -> Check {
    let mut check = Check::default();
    let controller = |meta: &ObjectMeta| -> Option<String> {
        meta.owner_references
            .iter()
            .flatten()
            .find(|o| o.controller == Some(true))
            .map(|o| o.uid.clone())
    };
    let names: std::collections::BTreeSet<String> = mcs.iter().map(|m| m.name_any()).collect();
    for i in 0..count {
        let name = format!("mc-{i:05}");
        if !names.contains(&name) {
            check.lost += 1;
            check.note(format!("{name} is gone"));
        }
    }
    for mc in mcs {
        let name = mc.name_any();
        let uid = mc.uid();
        let ds: Vec<&Deployment> = deployments
            .iter()
            .filter(|d| controller(&d.metadata) == uid)
            .collect();
        let ss = services
            .iter()
            .filter(|s| controller(&s.metadata) == uid)
            .count();
        if ds.is_empty() || ss == 0 {
            check.missing += 1;
            check.note(format!("{name}: {} Deployments, {ss} Services", ds.len()));
            continue;
        }
        if ds.len() > 1 || ss > 1 {
            check.duplicated += 1;
            check.note(format!("{name}: {} Deployments, {ss} Services", ds.len()));
            continue;
        }
        let deployment = ds[0];
        let selector = deployment
            .spec
            .as_ref()
            .and_then(|s| s.selector.match_labels.clone())
            .unwrap_or_default();
        let mut running: Vec<String> = pods
            .iter()
            .filter(|p| selector.iter().all(|(k, v)| p.labels().get(k) == Some(v)))
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .filter(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"))
            .map(|p| p.name_any())
            .collect();
        running.sort();
        let replicas = deployment.spec.as_ref().and_then(|s| s.replicas);
        if replicas != Some(size) || running.len() != size as usize {
            check.unscaled += 1;
            check.note(format!(
                "{name}: Deployment at {replicas:?} of {size}, {} pods Running",
                running.len()
            ));
            continue;
        }
        if let Err(why) = status_true(mc, &running) {
            check.untrue += 1;
            check.note(format!("{name}: {why}"));
        }
    }
    let uids: Vec<String> = mcs.iter().filter_map(|m| m.uid()).collect();
    let orphan = |meta: &ObjectMeta| !controller(meta).is_some_and(|u| uids.contains(&u));
    for meta in deployments
        .iter()
        .map(|d| &d.metadata)
        .chain(services.iter().map(|s| &s.metadata))
    {
        if orphan(meta) {
            check.orphaned += 1;
            check.note(format!(
                "{} has no Memcached controlling it",
                meta.name.as_deref().unwrap_or("?")
            ));
        }
    }
    check
}

/// Whether `mc`'s status says what is so, its pods `running` (sorted) at its size: Available
/// True (for its generation, when the condition says which it saw) and `status.nodes` exactly
/// the Running pods.
fn status_true(mc: &DynamicObject, running: &[String]) -> Result<(), String> {
    let status = mc.data.get("status").ok_or("no status")?;
    let available = status
        .get("conditions")
        .and_then(|c| c.as_array())
        .and_then(|cs| cs.iter().find(|c| c["type"] == "Available"))
        .ok_or("no Available condition")?;
    if available["status"] != "True" {
        return Err(format!("Available {}", available["status"]));
    }
    if let Some(seen) = available.get("observedGeneration").and_then(|g| g.as_i64())
        && Some(seen) != mc.metadata.generation
    {
        return Err(format!(
            "Available for generation {seen} of {:?}",
            mc.metadata.generation
        ));
    }
    let mut nodes: Vec<String> = status
        .get("nodes")
        .and_then(|n| n.as_array())
        .map(|n| {
            n.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    nodes.sort();
    if nodes != running {
        return Err(format!(
            "status.nodes lists {} pods, {} Running",
            nodes.len(),
            running.len()
        ));
    }
    Ok(())
}

/// Lists what [`judge`] needs and judges it; the pods only once everything else is in place
/// (listing thousands of pods every second would load the API server the operator needs).
async fn check(client: &Client, count: usize, size: i32) -> Result<Check> {
    let resource = memcached_resource();
    let mcs = Api::<DynamicObject>::namespaced_with(client.clone(), NS, &resource)
        .list(&ListParams::default())
        .await?
        .items;
    let deployments = Api::<Deployment>::namespaced(client.clone(), NS)
        .list(&ListParams::default())
        .await?
        .items;
    let services = Api::<Service>::namespaced(client.clone(), NS)
        .list(&ListParams::default())
        .await?
        .items;
    // Without pods every Memcached reads "unscaled"; anything else wrong already shows, and
    // the pods are worth listing only once every Deployment says its pods are ready.
    let without_pods = judge(count, size, &mcs, &deployments, &services, &[]);
    let placed = without_pods.lost == 0
        && without_pods.missing == 0
        && without_pods.duplicated == 0
        && without_pods.orphaned == 0;
    if !placed {
        return Ok(without_pods);
    }
    let unready = deployments.iter().find(|d| {
        let replicas = d.spec.as_ref().and_then(|s| s.replicas);
        replicas != Some(size) || d.status.as_ref().and_then(|s| s.ready_replicas) != replicas
    });
    if let Some(d) = unready {
        return Ok(Check {
            example: Some(format!(
                "Deployment {}: {} of {} replicas ready, {size} wanted (pods not listed yet)",
                d.name_any(),
                d.status
                    .as_ref()
                    .and_then(|s| s.ready_replicas)
                    .unwrap_or(0),
                d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(0),
            )),
            ..without_pods
        });
    }
    let pods = Api::<Pod>::namespaced(client.clone(), NS)
        .list(&ListParams::default())
        .await?
        .items;
    Ok(judge(count, size, &mcs, &deployments, &services, &pods))
}

fn memcached_resource() -> ApiResource {
    ApiResource::from_gvk(&GroupVersionKind::gvk(
        "cache.example.com",
        "v1alpha1",
        "Memcached",
    ))
}

/// Waits until [`check`] says converged, or `timeout` passes: the time it took, and the last
/// check (converged or not).
async fn wait(
    tag: &str,
    client: &Client,
    count: usize,
    size: i32,
    timeout: Duration,
) -> (Duration, Check) {
    let started = Instant::now();
    let mut told = Duration::ZERO;
    let mut last = Check::default();
    loop {
        match check(client, count, size).await {
            Ok(check) if check.converged() => return (started.elapsed(), check),
            Ok(check) => last = check,
            // The API server may be down in the middle of a fault: try again.
            Err(err) => last.example = Some(format!("listing: {err:#}")),
        }
        if started.elapsed() >= timeout {
            return (started.elapsed(), last);
        }
        if started.elapsed() >= told + Duration::from_secs(30) {
            told = started.elapsed();
            eprintln!(
                "{tag}   after {:.0} s: {}",
                told.as_secs_f64(),
                last.example.as_deref().unwrap_or("listing")
            );
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// One fault's row.
#[derive(Debug, Clone)]
pub(super) struct FaultRow {
    pub(super) fault: Fault,
    /// From the fault (for the watch expiry: the cut) to converged; `None`: not within the
    /// timeout.
    pub(super) converged: Option<Duration>,
    pub(super) check: Check,
    /// The operator's requests, from the audit log.
    pub(super) requests: usize,
    /// Of those, answered 4xx or 5xx, by code.
    pub(super) refused: BTreeMap<u16, usize>,
    /// Its lists and its watches of Memcacheds (client-go's reflector lists by a watch that
    /// sends the initial objects first, so a relist of Go's is a watch).
    pub(super) lists: (usize, usize),
    pub(super) reconciles: u64,
    pub(super) reconcile_errors: u64,
    /// Process starts beyond the two it had (after a SIGKILL or a lost lease).
    pub(super) restarts: u32,
    /// Warning and error lines in its processes' logs.
    pub(super) problems: usize,
    /// For the leader's death: the new leader's first reconcile after it, and whether the new
    /// leader was the standby (warm) or the killed instance come back (cold).
    pub(super) failover: Option<(Duration, bool)>,
}

/// A counter snapshot of one process.
#[derive(Debug, Default, Clone, Copy)]
struct Counters {
    reconciles: u64,
    errors: u64,
    leader: bool,
}

impl Counters {
    fn of(metrics: &Metrics) -> Self {
        Counters {
            reconciles: metrics.reconciles(),
            errors: metrics.sum("controller_runtime_reconcile_errors_total") as u64,
            leader: metrics.sum("leader_election_master_status") > 0.0,
        }
    }
}

#[derive(Debug, Default)]
struct SlotState {
    pid: Option<i32>,
    /// What the processes that ended had counted (their last sample).
    ended: Counters,
    /// The running process's latest sample.
    current: Counters,
    starts: u32,
}

impl SlotState {
    fn total(&self) -> Counters {
        Counters {
            reconciles: self.ended.reconciles + self.current.reconciles,
            errors: self.ended.errors + self.current.errors,
            leader: self.current.leader,
        }
    }
}

/// One instance of the operator, as a pod: a process started again a second after it exits,
/// its counters sampled every 200 ms and carried over its restarts.
struct Slot {
    state: Arc<Mutex<SlotState>>,
    metrics_port: u16,
    stop: tokio::sync::watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
    log: PathBuf,
}

impl Slot {
    fn start(command: std::process::Command, log: PathBuf, metrics_port: u16) -> Self {
        let state = Arc::new(Mutex::new(SlotState::default()));
        let (stop, mut stopped) = tokio::sync::watch::channel(false);
        let shared = state.clone();
        let log_path = log.clone();
        let mut command = tokio::process::Command::from(command);
        command.kill_on_drop(true);
        let task = tokio::spawn(async move {
            loop {
                let child = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&log_path)
                    .map_err(anyhow::Error::from)
                    // Both streams: ours logs to stdout, Go's to stderr.
                    .and_then(|file| Ok(command.stdout(file.try_clone()?).stderr(file).spawn()?));
                let mut child = match child {
                    Ok(child) => child,
                    Err(err) => {
                        eprintln!("starting the operator: {err:#}");
                        return;
                    }
                };
                {
                    let mut s = shared.lock().expect("not poisoned");
                    s.pid = child.id().map(|p| p as i32);
                    s.starts += 1;
                }
                let sample = async {
                    loop {
                        if let Ok(text) = http::get(metrics_port, "/metrics").await {
                            let counters = Counters::of(&Metrics::parse(&text));
                            shared.lock().expect("not poisoned").current = counters;
                        }
                        tokio::time::sleep(Duration::from_millis(200)).await;
                    }
                };
                let stopping = tokio::select! {
                    _ = child.wait() => false,
                    _ = stopped.wait_for(|s| *s) => true,
                    () = sample => unreachable!("the sampler loops"),
                };
                if stopping {
                    let _ = child.kill().await;
                }
                {
                    let mut s = shared.lock().expect("not poisoned");
                    let ended = s.total();
                    s.ended = Counters {
                        leader: false,
                        ..ended
                    };
                    s.current = Counters::default();
                    s.pid = None;
                }
                if stopping {
                    return;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
        Slot {
            state,
            metrics_port,
            stop,
            task,
            log,
        }
    }

    fn total(&self) -> Counters {
        self.state.lock().expect("not poisoned").total()
    }

    /// The running process's own counters (zero while none runs).
    fn current(&self) -> Counters {
        self.state.lock().expect("not poisoned").current
    }

    fn starts(&self) -> u32 {
        self.state.lock().expect("not poisoned").starts
    }

    /// Samples the counters now (for a process about to be killed).
    async fn sample(&self) {
        if let Ok(text) = http::get(self.metrics_port, "/metrics").await {
            self.state.lock().expect("not poisoned").current = Counters::of(&Metrics::parse(&text));
        }
    }

    /// SIGKILLs its process (it is started again a second later).
    async fn kill(&self) {
        self.sample().await;
        let pid = self.state.lock().expect("not poisoned").pid;
        if let Some(pid) = pid.and_then(rustix::process::Pid::from_raw) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }

    fn problems(&self, which: Which) -> usize {
        super::process::count_problems(
            which,
            &std::fs::read_to_string(&self.log).unwrap_or_default(),
        )
    }

    async fn stop(self) {
        self.stop.send_replace(true);
        let _ = self.task.await;
    }
}

/// `bench-operator --faults`: the battery for ours and, with `go`, the Go operator, at each
/// count, both at the concurrency of `mode`; the tables at the end.
pub(super) async fn bench(
    go: Option<&Path>,
    ours: &Path,
    mode: Mode,
    args: &BenchArgs,
) -> Result<()> {
    let mut tables = Vec::new();
    for &count in &args.counts {
        let ours_rows = battery(Which::Ours, ours, count, mode, args).await?;
        // Ours' table at once: the Go battery after it takes as long again.
        if go.is_some() {
            eprintln!("{}", render(count, &ours_rows, None));
        }
        let go_rows = match go {
            Some(go) => Some(battery(Which::Go, go, count, mode, args).await?),
            None => None,
        };
        let table = render(count, &ours_rows, go_rows.as_deref());
        // Each count's tables as soon as they are measured, for long runs (with one count,
        // the end is as soon).
        if args.counts.len() > 1 {
            eprintln!("{table}");
        }
        tables.push(table);
    }
    println!();
    println!("{}", mode.label());
    for table in tables {
        println!();
        print!("{table}");
    }
    Ok(())
}

/// Where the battery's control plane lives while it runs.
pub(super) fn plane_dir() -> Result<PathBuf> {
    Ok(target_dir()?.join("bench-operator").join("plane"))
}

/// The battery for operator `which`: a plane of its own, `count` Memcacheds, every fault in
/// turn; its rows.
pub(super) async fn battery(
    which: Which,
    binary: &Path,
    count: usize,
    mode: Mode,
    args: &BenchArgs,
) -> Result<Vec<FaultRow>> {
    let tag = format!("[{} faults {count}]", which.name());
    let dir = plane_dir()?;
    // One a crashed run left behind would be reused by `start`, not fresh.
    envtest::plane::stop(&dir)
        .await
        .with_context(|| format!("stopping the control plane left in {}", dir.display()))?;
    eprintln!("{tag} starting a control plane of its own");
    let mut options = envtest::Options::new(&dir);
    // Memcacheds are watched from etcd, not the API server's watch cache (which keeps minutes
    // of history, so that no short outage expires a watch): compacting etcd then expires the
    // operator's watches of them.
    options.apiserver_args = vec!["--watch-cache-sizes=memcacheds.cache.example.com#0".into()];
    let mut plane = envtest::plane::start(&options)
        .await?
        .with_context(|| format!("no control plane started in {}", dir.display()))?;
    let rows = battery_on(&tag, &mut plane, which, binary, count, mode, args).await;
    let stopped = plane.stop().await;
    let rows = rows?;
    stopped.context("stopping the control plane")?;
    Ok(rows)
}

async fn battery_on(
    tag: &str,
    plane: &mut ControlPlane,
    which: Which,
    binary: &Path,
    count: usize,
    mode: Mode,
    args: &BenchArgs,
) -> Result<Vec<FaultRow>> {
    let admin = plane.config().await?;
    let client = Client::try_from(admin.clone())?;
    cluster::install_crds(&client).await?;
    Api::<Namespace>::all(client.clone())
        .create(
            &PostParams::default(),
            &Namespace {
                metadata: ObjectMeta {
                    name: Some(NS.into()),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .await?;
    envtest::wait_until(
        "the default service account",
        Duration::from_secs(60),
        || {
            let sas: Api<ServiceAccount> = Api::namespaced(client.clone(), NS);
            async move { sas.get_opt("default").await.ok()? }
        },
    )
    .await?;
    let role_yaml = match which {
        Which::Ours => root().join("config/rbac/role.yaml"),
        Which::Go => root().join("testdata/go-operator/role.yaml"),
    };
    let role_yaml = std::fs::read_to_string(&role_yaml)
        .with_context(|| format!("reading {}", role_yaml.display()))?;
    let (account, _bound) = envtest::TestEnv::from_config(admin)?
        .operator_config(NS, ACCOUNT, &role_yaml)
        .await?;
    let relay = Relay::start(&account).await?;
    // The plane's kubeconfig, as the service account and through the relay.
    let mut kubeconfig = Kubeconfig::read_from(&plane.state.kubeconfig)?;
    for named in &mut kubeconfig.auth_infos {
        named.auth_info = Some(account.auth_info.clone());
    }
    for named in &mut kubeconfig.clusters {
        if let Some(cluster) = &mut named.cluster {
            cluster.server = Some(relay.server());
        }
    }
    let out = target_dir()?.join("bench-operator");
    let kubeconfig_path = out.join(format!("faults-{}.kubeconfig", which.name()));
    std::fs::write(&kubeconfig_path, serde_yaml::to_string(&kubeconfig)?)
        .with_context(|| format!("writing {}", kubeconfig_path.display()))?;
    let audit_log = envtest::audit::log_beside(&plane.state.kubeconfig)
        .context("the control plane writes no audit log")?;
    let user = format!("system:serviceaccount:{NS}:{ACCOUNT}");

    let mut slots = Vec::new();
    for i in 0..2 {
        let (metrics_port, health_port) = (free_port()?, free_port()?);
        let mut command =
            operator_command(which, binary, NS, mode, true, metrics_port, health_port);
        command
            .args([
                "--leader-elect",
                &format!("--leader-election-namespace={NS}"),
            ])
            .env("KUBECONFIG", &kubeconfig_path);
        let log = out.join(format!("faults-{}-{i}.log", which.name()));
        let _ = std::fs::remove_file(&log);
        slots.push(Slot::start(command, log, metrics_port));
    }
    let rows = run_faults(
        tag, plane, &client, &relay, &slots, which, count, args, &audit_log, &user,
    )
    .await;
    for slot in slots {
        slot.stop().await;
    }
    rows
}

#[allow(clippy::too_many_arguments)]
async fn run_faults(
    tag: &str,
    plane: &mut ControlPlane,
    client: &Client,
    relay: &Relay,
    slots: &[Slot],
    which: Which,
    count: usize,
    args: &BenchArgs,
    audit_log: &Path,
    user: &str,
) -> Result<Vec<FaultRow>> {
    let resource = memcached_resource();
    let mcs: Api<DynamicObject> = Api::namespaced_with(client.clone(), NS, &resource);
    let timeout = Duration::from_secs(args.timeout);
    eprintln!("{tag} creating {count} Memcacheds of size 1");
    let started = Instant::now();
    create_memcacheds(&mcs, &resource, count)
        .await
        .context("creating Memcacheds")?;
    let (_, first) = wait(tag, client, count, 1, timeout).await;
    if !first.converged() {
        bail!(
            "{tag} {count} Memcacheds did not converge within {} s before any fault: {}",
            timeout.as_secs(),
            first.example.unwrap_or_default()
        );
    }
    eprintln!(
        "{tag} all converged {:.1} s after the first was created",
        started.elapsed().as_secs_f64()
    );

    let mut rows = Vec::new();
    let battery = if args.fault.is_empty() {
        &BATTERY[..]
    } else {
        &args.fault[..]
    };
    for (i, &fault) in battery.iter().enumerate() {
        let size = 2 + (i % 2) as i32;
        let resize = serde_json::json!({ "spec": { "size": size } });
        eprintln!("{tag} {}: resizing all to {size}", fault.label());
        let before: Vec<Counters> = slots.iter().map(Slot::total).collect();
        let starts_before: u32 = slots.iter().map(Slot::starts).sum();
        let problems_before: usize = slots.iter().map(|s| s.problems(which)).sum();
        let mark = envtest::audit::mark(audit_log);
        if fault != Fault::WatchesExpired {
            merge_all(&mcs, count, resize.clone())
                .await
                .context("resizing Memcacheds")?;
        }
        let injected = Instant::now();
        let mut failover = None;
        match fault {
            Fault::ApiServerRestarted => plane.restart("kube-apiserver").await?,
            Fault::EtcdRestarted => plane.restart("etcd").await?,
            Fault::WatchesExpired => {
                relay.set_cut(true);
                merge_all(&mcs, count, resize)
                    .await
                    .context("resizing Memcacheds")?;
                faults::compact_etcd(plane).await?;
                tokio::time::sleep(Duration::from_secs(2)).await;
                relay.set_cut(false);
            }
            Fault::OperatorKilled => {
                for slot in slots {
                    slot.kill().await;
                }
            }
            Fault::LeaderKilled => failover = Some(kill_the_leader(tag, slots).await?),
            Fault::ApiServerThrottled => {
                faults::throttle(client, NS, ACCOUNT).await?;
                plane.restart("kube-apiserver").await?;
            }
        }
        let (took, check) = wait(tag, client, count, size, timeout).await;
        let converged = check.converged().then_some(injected.elapsed());
        if fault == Fault::ApiServerThrottled {
            let (served, rejected) = faults::throttled_requests(client).await?;
            faults::unthrottle(client).await?;
            eprintln!(
                "{tag} throttled: {served} requests of the operator's served, {rejected} rejected (429) by the API server's flow control since its restart"
            );
        }
        let requests = envtest::audit::read_from(audit_log, mark, |u| u == user)?;
        let mut refused = BTreeMap::new();
        for r in requests.iter().filter(|r| r.code >= 400) {
            *refused.entry(r.code).or_insert(0) += 1;
        }
        let of_memcacheds = |verb: &str| {
            requests
                .iter()
                .filter(|r| r.verb == verb && r.resource == "memcacheds")
                .count()
        };
        let lists = (of_memcacheds("list"), of_memcacheds("watch"));
        let after: Vec<Counters> = slots.iter().map(Slot::total).collect();
        let row = FaultRow {
            fault,
            converged,
            check,
            requests: requests.len(),
            refused,
            lists,
            reconciles: after.iter().map(|c| c.reconciles).sum::<u64>()
                - before.iter().map(|c| c.reconciles).sum::<u64>(),
            reconcile_errors: after.iter().map(|c| c.errors).sum::<u64>()
                - before.iter().map(|c| c.errors).sum::<u64>(),
            restarts: slots.iter().map(Slot::starts).sum::<u32>() - starts_before,
            problems: slots.iter().map(|s| s.problems(which)).sum::<usize>() - problems_before,
            failover,
        };
        match row.converged {
            Some(t) => eprintln!(
                "{tag} {}: converged {:.1} s after the fault",
                fault.label(),
                t.as_secs_f64()
            ),
            None => eprintln!(
                "{tag} {}: NOT converged {:.0} s after the fault: {}",
                fault.label(),
                took.as_secs_f64(),
                row.check.example.as_deref().unwrap_or("")
            ),
        }
        rows.push(row);
    }
    Ok(rows)
}

/// SIGKILLs the instance that leads; returns the time from its death to the first reconcile
/// of the one that leads next, and whether that was the standby (warm).
async fn kill_the_leader(tag: &str, slots: &[Slot]) -> Result<(Duration, bool)> {
    let deadline = Instant::now() + Duration::from_secs(60);
    let leader = loop {
        if let Some(i) = slots.iter().position(|s| s.total().leader) {
            break i;
        }
        if Instant::now() > deadline {
            bail!("{tag} no instance leads");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let before: Vec<u64> = slots.iter().map(|s| s.total().reconciles).collect();
    let starts = slots[leader].starts();
    slots[leader].kill().await;
    let killed = Instant::now();
    let deadline = killed + Duration::from_secs(180);
    loop {
        for (i, slot) in slots.iter().enumerate() {
            // The killed instance counts once it is started again, from its new process's
            // own counters: until the slot sees the death, its last sample (which may have
            // been taken after `before`) still says it leads.
            let led = if i == leader {
                let now = slot.current();
                slot.starts() > starts && now.leader && now.reconciles > 0
            } else {
                let now = slot.total();
                now.leader && now.reconciles > before[i]
            };
            if led {
                let took = killed.elapsed();
                let warm = i != leader;
                eprintln!(
                    "{tag} the {} led and reconciled {:.1} s after the leader was killed",
                    if warm {
                        "standby (warm)"
                    } else {
                        "killed instance, restarted (cold),"
                    },
                    took.as_secs_f64()
                );
                return Ok((took, warm));
            }
        }
        if Instant::now() > deadline {
            bail!("{tag} no instance reconciled within 180 s of the leader's death");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The rows of both operators, a table per fault.
pub(super) fn render(count: usize, ours: &[FaultRow], go: Option<&[FaultRow]>) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "Fault battery at N = {count}: two instances with leader election, as a service \
         account through a relay; every Memcached resized at each fault"
    )
    .expect("to a String");
    for (i, row) in ours.iter().enumerate() {
        writeln!(out).expect("to a String");
        writeln!(out, "### {}. {}", i + 1, row.fault.label()).expect("to a String");
        writeln!(out).expect("to a String");
        writeln!(
            out,
            "| | converged after | lost / missing / duplicated / orphaned | statuses not true | requests (refused) | Memcacheds listed / watched | reconciles (errors) | restarts | log warnings |"
        )
        .expect("to a String");
        writeln!(out, "|---|---:|---|---:|---:|---:|---:|---:|---:|").expect("to a String");
        let mut line = |name: &str, row: &FaultRow| {
            writeln!(out, "| {name} | {} |", cells(row)).expect("to a String");
        };
        line("ours", row);
        if let Some(go_row) = go.and_then(|g| g.get(i)) {
            line("Go", go_row);
        }
        let go_row = go.and_then(|g| g.get(i));
        for (name, row) in [("ours", Some(row)), ("Go", go_row)] {
            if let Some((took, warm)) = row.and_then(|r| r.failover) {
                writeln!(
                    out,
                    "\n{name}: the {} reconciled {:.1} s after the leader's death.",
                    if warm {
                        "standby (warm)"
                    } else {
                        "killed instance, restarted (cold),"
                    },
                    took.as_secs_f64()
                )
                .expect("to a String");
            }
        }
    }
    out
}

fn cells(row: &FaultRow) -> String {
    let converged = match row.converged {
        Some(t) => format!("{:.1} s", t.as_secs_f64()),
        None => format!(
            "not converged ({})",
            row.check.example.as_deref().unwrap_or("?")
        ),
    };
    let refused: usize = row.refused.values().sum();
    let codes = row
        .refused
        .iter()
        .map(|(code, n)| format!("{n}×{code}"))
        .collect::<Vec<_>>()
        .join(", ");
    let c = &row.check;
    format!(
        "{converged} | {} / {} / {} / {} | {} | {} ({}) | {} / {} | {} ({}) | {} | {}",
        c.lost,
        c.missing,
        c.duplicated,
        c.orphaned,
        c.untrue + c.unscaled,
        row.requests,
        if refused == 0 {
            "0".to_string()
        } else {
            format!("{refused}: {codes}")
        },
        row.lists.0,
        row.lists.1,
        row.reconciles,
        row.reconcile_errors,
        row.restarts,
        row.problems,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

    fn owned(name: &str, uid: &str) -> ObjectMeta {
        ObjectMeta {
            name: Some(name.into()),
            owner_references: Some(vec![OwnerReference {
                uid: uid.into(),
                controller: Some(true),
                ..Default::default()
            }]),
            ..Default::default()
        }
    }

    fn memcached(i: usize, generation: i64, status: serde_json::Value) -> DynamicObject {
        let mut mc = DynamicObject::new(&format!("mc-{i:05}"), &memcached_resource());
        mc.metadata.uid = Some(format!("uid-{i}"));
        mc.metadata.generation = Some(generation);
        mc.data = serde_json::json!({ "spec": { "size": 2 }, "status": status });
        mc
    }

    fn deployment(i: usize, replicas: i32) -> Deployment {
        serde_json::from_value(serde_json::json!({
            "metadata": owned(&format!("mc-{i:05}"), &format!("uid-{i}")),
            "spec": {
                "replicas": replicas,
                "selector": { "matchLabels": { "instance": format!("mc-{i:05}") } },
                "template": {},
            },
        }))
        .unwrap()
    }

    fn service(i: usize) -> Service {
        Service {
            metadata: owned(&format!("mc-{i:05}"), &format!("uid-{i}")),
            ..Default::default()
        }
    }

    fn pod(i: usize, n: usize, phase: &str) -> Pod {
        serde_json::from_value(serde_json::json!({
            "metadata": {
                "name": format!("mc-{i:05}-{n}"),
                "labels": { "instance": format!("mc-{i:05}") },
            },
            "status": { "phase": phase },
        }))
        .unwrap()
    }

    fn available(generation: Option<i64>, nodes: &[&str]) -> serde_json::Value {
        let mut condition = serde_json::json!({ "type": "Available", "status": "True" });
        if let Some(g) = generation {
            condition["observedGeneration"] = g.into();
        }
        serde_json::json!({ "conditions": [condition], "nodes": nodes })
    }

    #[test]
    fn a_converged_memcached_passes_and_each_fault_is_named() {
        let nodes = ["mc-00000-0", "mc-00000-1"];
        let pods = [pod(0, 0, "Running"), pod(0, 1, "Running")];
        let good = judge(
            1,
            2,
            &[memcached(0, 2, available(Some(2), &nodes))],
            &[deployment(0, 2)],
            &[service(0)],
            &pods,
        );
        assert!(good.converged(), "{good:?}");
        // Go's conditions carry no observedGeneration: not held against it.
        let go = judge(
            1,
            2,
            &[memcached(0, 2, available(None, &nodes))],
            &[deployment(0, 2)],
            &[service(0)],
            &pods,
        );
        assert!(go.converged(), "{go:?}");

        let stale = judge(
            1,
            2,
            &[memcached(0, 3, available(Some(2), &nodes))],
            &[deployment(0, 2)],
            &[service(0)],
            &pods,
        );
        assert_eq!(stale.untrue, 1, "{stale:?}");
        let wrong_nodes = judge(
            1,
            2,
            &[memcached(0, 2, available(Some(2), &nodes[..1]))],
            &[deployment(0, 2)],
            &[service(0)],
            &pods,
        );
        assert_eq!(wrong_nodes.untrue, 1, "{wrong_nodes:?}");
        let pending = judge(
            1,
            2,
            &[memcached(0, 2, available(Some(2), &nodes))],
            &[deployment(0, 2)],
            &[service(0)],
            &[pod(0, 0, "Running"), pod(0, 1, "Pending")],
        );
        assert_eq!(pending.unscaled, 1, "{pending:?}");

        let twice = judge(
            1,
            2,
            &[memcached(0, 2, available(Some(2), &nodes))],
            &[deployment(0, 2), deployment(0, 2)],
            &[service(0)],
            &pods,
        );
        assert_eq!(twice.duplicated, 1, "{twice:?}");
        let missing = judge(
            1,
            2,
            &[memcached(0, 2, available(Some(2), &nodes))],
            &[deployment(0, 2)],
            &[],
            &pods,
        );
        assert_eq!(missing.missing, 1, "{missing:?}");
        // A Deployment of a Memcached that is gone: lost and orphaned.
        let gone = judge(1, 2, &[], &[deployment(0, 2)], &[service(0)], &pods);
        assert_eq!((gone.lost, gone.orphaned), (1, 2), "{gone:?}");
        assert!(!gone.converged());
        assert_eq!(gone.example.as_deref(), Some("mc-00000 is gone"));
    }

    #[test]
    fn the_table_has_a_section_per_fault_and_a_line_per_operator() {
        let row = |fault, converged: Option<f64>| FaultRow {
            fault,
            converged: converged.map(Duration::from_secs_f64),
            check: Check {
                untrue: usize::from(converged.is_none()),
                example: converged.is_none().then(|| "mc-00001: no status".into()),
                ..Default::default()
            },
            requests: 120,
            refused: BTreeMap::from([(409, 3)]),
            lists: (2, 3),
            reconciles: 40,
            reconcile_errors: 1,
            restarts: 0,
            problems: 0,
            failover: (fault == Fault::LeaderKilled).then_some((Duration::from_secs(16), true)),
        };
        let ours = [
            row(Fault::EtcdRestarted, Some(12.0)),
            row(Fault::LeaderKilled, Some(20.0)),
        ];
        let go = [
            row(Fault::EtcdRestarted, None),
            row(Fault::LeaderKilled, Some(30.0)),
        ];
        let table = render(10, &ours, Some(&go));
        assert!(table.contains("### 1. etcd restarted"), "{table}");
        assert!(table.contains("### 2. leader SIGKILLed"), "{table}");
        assert!(
            table.contains(
                "| ours | 12.0 s | 0 / 0 / 0 / 0 | 0 | 120 (3: 3×409) | 2 / 3 | 40 (1) | 0 | 0 |"
            ),
            "{table}"
        );
        assert!(
            table.contains("| Go | not converged (mc-00001: no status) | 0 / 0 / 0 / 0 | 1 |"),
            "{table}"
        );
        assert!(
            table.contains("Go: the standby (warm) reconciled 16.0 s after the leader's death."),
            "{table}"
        );
    }
}
