//! `cargo xtask bench-operator`: how the memcached operator scales on a real control plane, alone
//! or (`--against go`) beside the tutorial's Go operator on controller-runtime.
//!
//! Builds the operator (release) and, with `--against go`, the Go operator of
//! `testdata/go-operator` (on first use, cached by a hash of its sources). Each run starts one
//! operator as its own process against the target cluster (the local control plane by default),
//! restricted to a fresh namespace, and:
//!
//! 1. creates N Memcacheds of size 1 and measures the time until every one is converged: its
//!    Deployment has spec.size replicas, all ready, and the Memcached says Available;
//! 2. reads the operator's counters (`controller_runtime_reconcile_total`,
//!    `rest_client_requests_total` by method: both operators export them), waits a steady window
//!    (`--steady`, 60 s) and counts the requests and writes made in it;
//! 3. resizes all N to 3 at once (the scale storm) and measures the time until converged again;
//! 4. reads peak RSS (VmHWM) and CPU seconds (utime + stime) from /proc, stops the operator,
//!    removes the finalizers itself and waits until the namespace is gone, so that one run's
//!    garbage collection does not load the API server during the next.
//!
//! Before the operators, each count runs once with no operator at all (the floor): N
//! Deployments like the ones the operator makes, created directly, converged at one replica,
//! then all resized to three. That is what the control plane alone takes; an operator's cost is
//! what it adds above it, which the overhead table reports. A second floor adds a Service in
//! front of each Deployment's pods, as ours (and the Go operator with `--same-work`) makes:
//! the control plane's work on the objects each operator asks for, so that a second table can
//! report what each operator adds above the floor of its own objects. A third floor is the
//! same work without an operator: the bench itself creates each Memcached, its finalizer,
//! Deployment and Service, resizes them and writes each status once when it changes
//! ([`run_direct_floor`]). What an operator takes above that is what its runtime costs, and
//! the part of the overhead no runtime can save is the distance between the floors.
//!
//! With `--against go` every count runs in two modes, each operator's own defaults (ours
//! `--concurrency` 4, controller-runtime's MaxConcurrentReconciles 1) and equal concurrency
//! (`--concurrency`, default 4, to both), one operator after the other, each on its own
//! namespace, in an order that alternates between the modes and between rounds
//! ([`go_runs_first`]). Every floor and every run first waits until the control plane is idle
//! ([`settle`]); with `--fresh-plane` each takes place on a local control plane started for
//! it alone and stopped after it ([`Venue`]), so that none inherits what the ones before it
//! left in etcd and in the API server's memory. `--repeat K` measures all of it K times and
//! ends with each overhead ratio's median and range over the rounds; `--timeline` prints where
//! each phase waited (the operator sending its writes, the control plane, the status:
//! [`timeline`]). The API server restart recovery the issue asks for is not measured: the
//! bench does not restart an API server while an operator runs, on a plane of its own or a
//! shared one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Service};
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};

use operator_xtask::{cargo, root, run_step, target_dir};

mod timeline;
use operator_xtask_cluster::cluster::{self, Target};

/// Our operator's default --concurrency (memcached/src/main.rs).
const OURS_DEFAULT_CONCURRENCY: u16 = 4;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    target: Target,
    /// Numbers of Memcacheds to converge, one run each.
    #[arg(long = "count", default_values_t = [100, 1000])]
    counts: Vec<usize>,
    /// Reconciles at once: ours' --concurrency and, with --against, the other operator's too
    /// in the equal-concurrency mode. Left out: ours runs with its default (4), and the
    /// equal-concurrency mode uses 4.
    #[arg(long)]
    concurrency: Option<u16>,
    /// Also run this operator, on the same cluster, one after the other: `go` is the
    /// tutorial's operator on controller-runtime (testdata/go-operator); `go-same-work` is
    /// the same operator with `--same-work`, which also does what ours does beyond the
    /// tutorial (a Service per Memcached, status.nodes from a metadata-only pod watch,
    /// Available only once all pods are ready).
    #[arg(long, value_enum)]
    against: Option<Against>,
    /// Seconds of steady state in which requests and writes are counted.
    #[arg(long, default_value_t = 60)]
    steady: u64,
    /// Give up on a phase after this many seconds.
    #[arg(long, default_value_t = 900)]
    timeout: u64,
    /// Measure everything (floors and operators) this many times, one round after the other,
    /// and end with the median of each overhead ratio and its range over the rounds: on a
    /// small machine one round's ratio can swing by more than the difference it measures.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=20))]
    repeat: u32,
    /// Start a local control plane of its own for every floor and every operator run, and
    /// stop it after: each begins on an empty database and a newly started API server, so
    /// that none is measured on a plane the runs before it have grown (etcd's database, the
    /// API server's heap and caches) and the order of the runs stops counting. Not with
    /// --kubeconfig.
    #[arg(long, conflicts_with = "kubeconfig")]
    fresh_plane: bool,
    /// Also watch each phase's objects and print, per floor and run, when they were asked
    /// for, ready and done (quantiles over the objects): where a slow phase waited. The watch
    /// loads the API server a little, so the times of a run with it are not for comparing.
    #[arg(long)]
    timeline: bool,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum Against {
    Go,
    GoSameWork,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Go,
    Ours,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Go => "go",
            Which::Ours => "ours",
        }
    }
}

struct Operator {
    child: Child,
    metrics_port: u16,
    log: PathBuf,
}

impl Operator {
    fn metrics(&self) -> Result<Metrics> {
        Ok(Metrics::parse(&http_get(self.metrics_port, "/metrics")?))
    }

    fn proc_file(&self, name: &str) -> Result<String> {
        let path = format!("/proc/{}/{name}", self.child.id());
        std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))
    }

    fn stop(mut self) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGTERM,
        );
        let _ = self.child.wait();
    }
}

impl Drop for Operator {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Peak resident memory (VmHWM) in KiB, from `/proc/<pid>/status`.
fn parse_vm_hwm_kib(status: &str) -> Option<u64> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// utime + stime in clock ticks, from `/proc/<pid>/stat` (fields 14 and 15; the command name in
/// parentheses may hold spaces, so fields are counted after its closing parenthesis).
fn parse_cpu_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After ")": state is field 3, so utime (14) and stime (15) are at 11 and 12.
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(utime + stime)
}

fn clock_ticks_per_second() -> u64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok()?.trim().parse().ok())
        .unwrap_or(100)
}

/// The local control plane's processes (API server, etcd, controller-manager, scheduler,
/// kwok), whose CPU time the benchmark reads from /proc: what a run costs the cluster, which an
/// operator's own CPU and wall-clock times do not show. Only when the target is the local plane.
#[derive(Debug, Clone)]
struct PlaneCpu {
    pids: Vec<(String, i32)>,
}

impl PlaneCpu {
    /// The local plane's processes, when `cluster` is the local plane and it runs here.
    fn of(cluster: &cluster::Connected) -> Option<Self> {
        let state = envtest::plane::read_state(&cluster::state_dir()).ok()??;
        if cluster.kubeconfig.as_deref() != Some(state.kubeconfig.as_path()) {
            return None;
        }
        Self::of_state(&state)
    }

    /// The processes of the control plane `state` records.
    fn of_state(state: &envtest::State) -> Option<Self> {
        let pids: Vec<(String, i32)> = state
            .components
            .iter()
            .map(|c| (c.name.clone(), c.pid))
            .collect();
        Self::sample_pids(&pids)?;
        Some(PlaneCpu { pids })
    }

    fn sample_pids(pids: &[(String, i32)]) -> Option<BTreeMap<String, u64>> {
        pids.iter()
            .map(|(name, pid)| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                Some((name.clone(), parse_cpu_ticks(&stat)?))
            })
            .collect()
    }

    /// CPU ticks so far, by component.
    fn sample(&self) -> Option<BTreeMap<String, u64>> {
        Self::sample_pids(&self.pids)
    }
}

/// Prints what the control plane spent in each phase of a run, by component.
fn report_plane(tag: &str, converge: &Option<PlaneSpent>, storm: &Option<PlaneSpent>) {
    for (phase, spent) in [("converge", converge), ("storm", storm)] {
        if let Some(spent) = spent {
            eprintln!("{tag} control-plane CPU, {phase}: {}", spent.breakdown());
        }
    }
}

/// CPU seconds the control plane spent between two samples, in all and by component.
#[derive(Debug, Clone, Default, PartialEq)]
struct PlaneSpent {
    by_component: BTreeMap<String, f64>,
}

impl PlaneSpent {
    fn between(
        earlier: Option<&BTreeMap<String, u64>>,
        later: Option<&BTreeMap<String, u64>>,
    ) -> Option<Self> {
        let (earlier, later) = (earlier?, later?);
        let tick = clock_ticks_per_second() as f64;
        Some(PlaneSpent {
            by_component: later
                .iter()
                .map(|(name, t)| {
                    let before = earlier.get(name).copied().unwrap_or(0);
                    (name.clone(), t.saturating_sub(before) as f64 / tick)
                })
                .collect(),
        })
    }

    fn total(&self) -> f64 {
        self.by_component.values().sum()
    }

    /// "12.3 s: kube-apiserver 8.1, etcd 2.0, ...", largest first.
    fn breakdown(&self) -> String {
        let mut parts: Vec<(&String, &f64)> = self.by_component.iter().collect();
        parts.sort_by(|a, b| b.1.total_cmp(a.1));
        let parts: Vec<String> = parts.iter().map(|(n, s)| format!("{n} {s:.1}")).collect();
        format!("{:.1} s: {}", self.total(), parts.join(", "))
    }

    fn component(&self, name: &str) -> f64 {
        self.by_component.get(name).copied().unwrap_or(0.0)
    }
}

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// A minimal HTTP/1.1 GET on loopback, for /metrics and /readyz.
fn http_get(port: u16, path: &str) -> Result<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let response = String::from_utf8_lossy(&response);
    let (head, body) = response
        .split_once("\r\n\r\n")
        .context("malformed HTTP response")?;
    if !head.starts_with("HTTP/1.1 200") {
        bail!("GET {path}: {}", head.lines().next().unwrap_or_default());
    }
    if head
        .lines()
        .any(|l| l.eq_ignore_ascii_case("transfer-encoding: chunked"))
    {
        return Ok(dechunk(body));
    }
    Ok(body.to_string())
}

/// The body of a chunked HTTP/1.1 response (Go's server chunks large /metrics answers).
fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16)
        else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].strip_prefix("\r\n").unwrap_or(&rest[size..]);
    }
    out
}

/// The samples of a Prometheus text exposition.
#[derive(Debug, Default, Clone)]
struct Metrics {
    samples: Vec<Sample>,
}

#[derive(Debug, Clone, PartialEq)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

impl Metrics {
    fn parse(text: &str) -> Self {
        let samples = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(parse_sample)
            .collect();
        Metrics { samples }
    }

    /// Sum of `name`'s samples.
    fn sum(&self, name: &str) -> f64 {
        self.samples
            .iter()
            .filter(|s| s.name == name)
            .map(|s| s.value)
            .sum()
    }

    /// `name`'s samples summed by the value of `label` (missing label: "").
    fn by_label(&self, name: &str, label: &str) -> BTreeMap<String, f64> {
        let mut out = BTreeMap::new();
        for s in self.samples.iter().filter(|s| s.name == name) {
            let key = s.labels.get(label).cloned().unwrap_or_default();
            *out.entry(key).or_insert(0.0) += s.value;
        }
        out
    }

    /// API requests by HTTP method.
    fn requests(&self) -> BTreeMap<String, u64> {
        self.by_label("rest_client_requests_total", "method")
            .into_iter()
            .map(|(k, v)| (k.to_ascii_uppercase(), v as u64))
            .collect()
    }

    fn reconciles(&self) -> u64 {
        self.sum("controller_runtime_reconcile_total") as u64
    }

    /// API requests by method and resource (`PATCH deployments`), from our operator's
    /// `operator_rest_client_requests_total`; empty for an operator that does not export it.
    fn requests_by_resource(&self) -> BTreeMap<String, u64> {
        let mut out = BTreeMap::new();
        for s in self
            .samples
            .iter()
            .filter(|s| s.name == "operator_rest_client_requests_total")
        {
            let label = |l: &str| s.labels.get(l).cloned().unwrap_or_default();
            *out.entry(format!("{} {}", label("method"), label("resource")))
                .or_insert(0) += s.value as u64;
        }
        out
    }
}

/// One sample line: `name{a="x",b="y"} value [timestamp]`.
fn parse_sample(line: &str) -> Option<Sample> {
    let (name, labels, rest) = match line.find('{') {
        Some(open) => {
            let (labels, rest) = parse_labels(&line[open + 1..])?;
            (&line[..open], labels, rest)
        }
        None => {
            let (name, rest) = line.split_once(' ')?;
            (name, BTreeMap::new(), rest)
        }
    };
    let value = rest.split_whitespace().next()?.parse().ok()?;
    Some(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

/// The labels after a sample's `{`, up to its closing `}` (quoted values may hold `}`, `,` and
/// escaped quotes); returns them and what follows the `}`.
fn parse_labels(text: &str) -> Option<(BTreeMap<String, String>, &str)> {
    let mut labels = BTreeMap::new();
    let mut rest = text.trim_start();
    loop {
        if let Some(after) = rest.strip_prefix('}') {
            return Some((labels, after));
        }
        let (key, after) = rest.split_once('=')?;
        let after = after.trim_start().strip_prefix('"')?;
        let mut value = String::new();
        let mut chars = after.char_indices();
        let end = loop {
            let (i, c) = chars.next()?;
            match c {
                '\\' => match chars.next()?.1 {
                    'n' => value.push('\n'),
                    other => value.push(other),
                },
                '"' => break i,
                c => value.push(c),
            }
        };
        labels.insert(key.trim().to_string(), value);
        rest = after[end + 1..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
}

fn total(requests: &BTreeMap<String, u64>) -> u64 {
    requests.values().sum()
}

fn writes(requests: &BTreeMap<String, u64>) -> u64 {
    requests
        .iter()
        .filter(|(m, _)| !matches!(m.as_str(), "GET" | "LIST" | "WATCH" | "HEAD" | "OPTIONS"))
        .map(|(_, n)| n)
        .sum()
}

fn diff(later: &BTreeMap<String, u64>, earlier: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    later
        .iter()
        .map(|(m, n)| (m.clone(), n.saturating_sub(*earlier.get(m).unwrap_or(&0))))
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// What one operator did in one run.
#[derive(Debug, Clone, Default)]
struct Row {
    converged: Duration,
    storm: Duration,
    reconciles: u64,
    /// All requests, converge + steady window + storm, by method.
    requests: BTreeMap<String, u64>,
    /// The same by method and resource, where the operator exports that (ours).
    by_resource: BTreeMap<String, u64>,
    steady_requests: u64,
    steady_writes: u64,
    peak_rss_kib: u64,
    cpu_seconds: f64,
    /// Lines the operator logged at error (Go) or warn/error (ours) level.
    problems: usize,
    /// The control plane's CPU while converging and in the storm (the local plane only).
    plane_converge: Option<PlaneSpent>,
    plane_storm: Option<PlaneSpent>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// Each operator with its own default concurrency.
    Defaults,
    /// Both with this many reconciles at once.
    Equal(u16),
}

impl Mode {
    fn label(self) -> String {
        match self {
            Mode::Defaults => "defaults".into(),
            Mode::Equal(n) => format!("concurrency {n}"),
        }
    }
}

pub fn bench(args: &BenchArgs) -> Result<ExitCode> {
    run_step(
        "cargo build --release -p memcached",
        cargo().args([
            "build",
            "--release",
            "--package",
            "memcached",
            "--bin",
            "memcached",
        ]),
    )?;
    let ours = target_dir()?.join("release/memcached");
    let go = match args.against {
        Some(Against::Go | Against::GoSameWork) => Some(
            envtest::gooperator::ensure_built(
                &root().join("testdata/go-operator"),
                &target_dir()?.join("go-operator"),
            )
            .context("building the Go operator")?,
        ),
        None => None,
    };
    let modes = if go.is_some() {
        vec![
            Mode::Defaults,
            Mode::Equal(args.concurrency.unwrap_or(OURS_DEFAULT_CONCURRENCY)),
        ]
    } else {
        vec![args.concurrency.map_or(Mode::Defaults, Mode::Equal)]
    };
    let rt = tokio::runtime::Runtime::new()?;
    let venue = if args.fresh_plane {
        let dir = target_dir()?.join("bench-operator").join("plane");
        eprintln!(
            "benchmarking on a local control plane started for each run in {}",
            dir.display()
        );
        Venue::Fresh { dir }
    } else {
        let cluster = rt.block_on(cluster::connect(&args.target))?;
        rt.block_on(cluster::install_crds(&cluster.client))?;
        eprintln!("benchmarking against {}", cluster.source);
        let plane = PlaneCpu::of(&cluster);
        Venue::Shared { cluster, plane }
    };
    if args.against == Some(Against::GoSameWork) {
        println!(
            "Go: the tutorial's operator with --same-work (a Service per Memcached, \
             status.nodes from a metadata-only pod watch, Available once all pods are ready, \
             as ours)"
        );
    }
    let load_before = load_average();
    let mut rounds = Vec::new();
    for round in 1..=args.repeat {
        if args.repeat > 1 {
            eprintln!("round {round} of {}", args.repeat);
        }
        // Ctrl-C drops the round under way: its operator is killed and its plane of its own
        // (--fresh-plane; in a process group of its own, so the signal does not reach it)
        // stopped and removed, as their Drop does.
        let measured = rt.block_on(async {
            tokio::select! {
                round = run_round(round, &venue, go.as_deref(), &ours, &modes, args) => round.map(Some),
                _ = tokio::signal::ctrl_c() => Ok(None),
            }
        })?;
        let Some(measured) = measured else {
            eprintln!(
                "interrupted: the operator and the control plane of the run under way are stopped"
            );
            return Ok(ExitCode::from(130));
        };
        rounds.push(measured);
    }
    println!();
    println!(
        "load average before: {load_before}; after: {}",
        load_average()
    );
    for (i, round) in rounds.iter().enumerate() {
        if args.repeat > 1 {
            println!();
            println!("## Round {} of {}", i + 1, args.repeat);
        }
        if go.is_some() {
            let order: Vec<String> = modes
                .iter()
                .enumerate()
                .map(|(m, mode)| {
                    let first = if go_runs_first(i as u32 + 1, m) {
                        "Go"
                    } else {
                        "ours"
                    };
                    format!("{} {first} first", mode.label())
                })
                .collect();
            println!();
            println!("Order: {}.", order.join("; "));
        }
        print_round(round, args.against);
    }
    if args.repeat > 1 {
        println!();
        println!(
            "Over the {} rounds: each ratio of ours' overhead to Go's, its median and (range); \
             each run's times, median (range):",
            args.repeat
        );
        println!();
        print!("{}", median_table(&rounds, args.against));
    }
    Ok(ExitCode::SUCCESS)
}

/// One measurement of everything: the floors of each count, then each mode's runs.
struct Round {
    rows: Vec<TableRow>,
    /// N Deployments, by N.
    floors: BTreeMap<usize, Floor>,
    /// N Deployments and their Services, by N.
    service_floors: BTreeMap<usize, Floor>,
    /// The bench doing an operator's writes itself ([`run_direct_floor`]), by N.
    direct_floors: BTreeMap<usize, Floor>,
}

async fn run_round(
    round: u32,
    venue: &Venue,
    go: Option<&Path>,
    ours: &Path,
    modes: &[Mode],
    args: &BenchArgs,
) -> Result<Round> {
    let mut floors = BTreeMap::new();
    let mut service_floors = BTreeMap::new();
    let mut direct_floors = BTreeMap::new();
    for &count in &args.counts {
        for services in [false, true] {
            let tag = floor_tag(count, services);
            let stage = venue.enter(&tag).await?;
            let floor = run_floor(&stage, count, services, args).await;
            let floor = stage.leave(floor).await?;
            report_plane(&tag, &floor.plane_converge, &floor.plane_storm);
            eprintln!(
                "{tag} converge {:.1} s, storm {:.1} s{}",
                floor.converged.as_secs_f64(),
                floor.storm.as_secs_f64(),
                match (&floor.plane_converge, &floor.plane_storm) {
                    (Some(c), Some(s)) => format!(
                        "; control-plane CPU {:.1} s / {:.1} s",
                        c.total(),
                        s.total()
                    ),
                    _ => String::new(),
                }
            );
            if services {
                service_floors.insert(count, floor);
            } else {
                floors.insert(count, floor);
            }
        }
        let tag = direct_tag(count);
        let stage = venue.enter(&tag).await?;
        let floor = run_direct_floor(&stage, count, args).await;
        let floor = stage.leave(floor).await?;
        report_plane(&tag, &floor.plane_converge, &floor.plane_storm);
        eprintln!(
            "{tag} converge {:.1} s, storm {:.1} s",
            floor.converged.as_secs_f64(),
            floor.storm.as_secs_f64(),
        );
        direct_floors.insert(count, floor);
    }
    let mut rows = Vec::new();
    for (mode_index, &mode) in modes.iter().enumerate() {
        for &count in &args.counts {
            let go_first = go_runs_first(round, mode_index);
            let measure = async |which: Which, binary: &Path| -> Result<Row> {
                let tag = format!("[{} {count} {}]", which.name(), mode.label());
                let stage = venue.enter(&tag).await?;
                let row = run(&stage, &tag, which, binary, count, mode, args).await;
                stage.leave(row).await
            };
            let mut go_row = None;
            if go_first && let Some(binary) = go {
                go_row = Some(measure(Which::Go, binary).await?);
            }
            let ours_row = measure(Which::Ours, ours).await?;
            if !go_first && let Some(binary) = go {
                go_row = Some(measure(Which::Go, binary).await?);
            }
            let line = TableRow {
                mode,
                count,
                go: go_row,
                ours: ours_row,
            };
            // Each row as soon as it is measured, for long runs.
            eprintln!("{}", line.render());
            rows.push(line);
        }
    }
    Ok(Round {
        rows,
        floors,
        service_floors,
        direct_floors,
    })
}

/// Whether the Go operator runs before ours in round `round` (from 1), mode `mode_index`.
/// The control plane gets slower over a round (measured: ours, same binary and settings,
/// 2.5-4.1 s slower in the storm at N = 300 as the last run of a round than as the second, in
/// each of three rounds), so whoever always ran second would be measured on a slower plane. The order alternates from one mode to the next and from one round to the
/// next: every round is balanced across its two modes, and an even `--repeat` balances each
/// mode too.
fn go_runs_first(round: u32, mode_index: usize) -> bool {
    (round as usize + mode_index) % 2 == 1
}

/// The floors each operator is measured above in the own-objects table: ours' (and the
/// same-work Go operator's) Deployments with Services; the tutorial's Deployments alone.
fn own_floors(round: &Round, against: Option<Against>) -> &BTreeMap<usize, Floor> {
    if against == Some(Against::GoSameWork) {
        &round.service_floors
    } else {
        &round.floors
    }
}

fn print_round(round: &Round, against: Option<Against>) {
    let rows = &round.rows;
    println!();
    print!("{}", table(rows));
    println!();
    println!("Above the floor (the control plane alone converging N such Deployments):");
    println!();
    print!("{}", overhead_table(rows, &round.floors, &round.floors));
    println!();
    println!(
        "Above the floor of each operator's own objects ({}):",
        match against {
            Some(Against::GoSameWork) => "N Deployments and N Services for both",
            Some(Against::Go) => "Go: N Deployments; ours: N Deployments and N Services",
            None => "N Deployments and N Services",
        }
    );
    println!();
    print!(
        "{}",
        overhead_table(rows, own_floors(round, against), &round.service_floors)
    );
    println!();
    println!(
        "Above the same work without an operator (the bench itself creating each Memcached, its \
         finalizer, Deployment and Service, resizing them, and writing each status once when \
         it changes: what no runtime can save):"
    );
    println!();
    print!(
        "{}",
        overhead_table(rows, &round.direct_floors, &round.direct_floors)
    );
    let target = target_table(round);
    if !target.is_empty() {
        println!();
        println!(
            "What the target asks (ours' overhead above the Deployments floor at most half of \
             Go's): the time ours had to stay within, beside ours' and the floors under ours' \
             own work, converge / storm:"
        );
        println!();
        print!("{target}");
    }
    let cpu = plane_table(rows, &round.floors);
    if !cpu.is_empty() {
        println!();
        println!(
            "Control-plane CPU seconds (API server, etcd, controller-manager, scheduler, kwok), \
             converge / storm, and what each operator added above the floor:"
        );
        println!();
        print!("{cpu}");
    }
    let breakdown = resource_table(rows);
    if !breakdown.is_empty() {
        println!();
        println!("Where our operator's requests went (converge, steady window and storm):");
        println!();
        print!("{breakdown}");
    }
}

/// The middle of `values` (the mean of the two middle ones for an even count) and the range,
/// as "m (lo-hi)"; "–" when there are none.
fn median_range(mut values: Vec<f64>, fmt: impl Fn(f64) -> String) -> String {
    if values.is_empty() {
        return "–".into();
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let median = if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    };
    if n == 1 {
        return fmt(median);
    }
    format!(
        "{} ({}-{})",
        fmt(median),
        fmt(values[0]),
        fmt(values[n - 1])
    )
}

/// Over the rounds, for each mode and N: ours' overhead as a multiple of Go's (above the
/// Deployments floor and above each one's own objects, converge and storm), each a median
/// with its range over the rounds that have a ratio ([`overhead_ratio`]), and the runs' times.
fn median_table(rounds: &[Round], against: Option<Against>) -> String {
    let mut out = String::from(
        "| mode | N | ours / Go converge | ours / Go storm | own objects: ours / Go converge | own objects: ours / Go storm | same work, no operator: ours / Go converge | same work, no operator: ours / Go storm | converge Go / ours | storm Go / ours |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let Some(first) = rounds.first() else {
        return out;
    };
    let x = |v: f64| format!("{v:.2}x");
    let s = |v: f64| format!("{v:.1} s");
    for (i, row) in first.rows.iter().enumerate() {
        let (mut c, mut st, mut own_c, mut own_s) = (vec![], vec![], vec![], vec![]);
        let (mut direct_c, mut direct_s) = (vec![], vec![]);
        let (mut go_c, mut go_s, mut ours_c, mut ours_s) = (vec![], vec![], vec![], vec![]);
        for round in rounds {
            let Some(r) = round.rows.get(i) else { continue };
            ours_c.push(r.ours.converged.as_secs_f64());
            ours_s.push(r.ours.storm.as_secs_f64());
            let Some(go) = &r.go else { continue };
            go_c.push(go.converged.as_secs_f64());
            go_s.push(go.storm.as_secs_f64());
            if let Some(floor) = round.floors.get(&r.count) {
                let (oc, os) = overhead(&r.ours, floor);
                let (gc, gs) = overhead(go, floor);
                c.extend(overhead_ratio(oc, gc));
                st.extend(overhead_ratio(os, gs));
            }
            if let (Some(go_floor), Some(ours_floor)) = (
                own_floors(round, against).get(&r.count),
                round.service_floors.get(&r.count),
            ) {
                let (oc, os) = overhead(&r.ours, ours_floor);
                let (gc, gs) = overhead(go, go_floor);
                own_c.extend(overhead_ratio(oc, gc));
                own_s.extend(overhead_ratio(os, gs));
            }
            if let Some(floor) = round.direct_floors.get(&r.count) {
                let (oc, os) = overhead(&r.ours, floor);
                let (gc, gs) = overhead(go, floor);
                direct_c.extend(overhead_ratio(oc, gc));
                direct_s.extend(overhead_ratio(os, gs));
            }
        }
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} / {} |\n",
            row.mode.label(),
            thousands(row.count as u64),
            median_range(c, x),
            median_range(st, x),
            median_range(own_c, x),
            median_range(own_s, x),
            median_range(direct_c, x),
            median_range(direct_s, x),
            median_range(go_c, s),
            median_range(ours_c, s),
            median_range(go_s, s),
            median_range(ours_s, s),
        ));
    }
    out
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

struct TableRow {
    mode: Mode,
    count: usize,
    go: Option<Row>,
    ours: Row,
}

const HEADER: &str = "| mode | N | converge Go / ours | scale storm Go / ours | reconciles Go / ours | API requests Go / ours | requests by method, Go; ours | steady-state requests / writes Go; ours | peak RSS Go / ours | CPU s Go / ours | errors logged Go / ours |\n|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n";

fn table(rows: &[TableRow]) -> String {
    let mut out = String::from(HEADER);
    for row in rows {
        out.push_str(&row.render());
        out.push('\n');
    }
    out
}

impl TableRow {
    fn render(&self) -> String {
        let pair = |f: &dyn Fn(&Row) -> String| -> String {
            match &self.go {
                Some(go) => format!("{} / {}", f(go), f(&self.ours)),
                None => format!("– / {}", f(&self.ours)),
            }
        };
        let pair_semi = |f: &dyn Fn(&Row) -> String| -> String {
            match &self.go {
                Some(go) => format!("{}; {}", f(go), f(&self.ours)),
                None => format!("–; {}", f(&self.ours)),
            }
        };
        format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            self.mode.label(),
            thousands(self.count as u64),
            pair(&|r| format!("{:.1} s", r.converged.as_secs_f64())),
            pair(&|r| format!("{:.1} s", r.storm.as_secs_f64())),
            pair(&|r| thousands(r.reconciles)),
            pair(&|r| thousands(total(&r.requests))),
            pair_semi(&|r| by_method(&r.requests)),
            pair_semi(&|r| format!(
                "{} / {}",
                thousands(r.steady_requests),
                thousands(r.steady_writes)
            )),
            pair(&|r| format!("{:.0} MiB", r.peak_rss_kib as f64 / 1024.0)),
            pair(&|r| format!("{:.1}", r.cpu_seconds)),
            pair(&|r| thousands(r.problems as u64)),
        )
    }
}

/// Ours' requests by method and resource, a column per row of the main table, requests per
/// Memcached in parentheses.
fn resource_table(rows: &[TableRow]) -> String {
    let keys: std::collections::BTreeSet<&String> = rows
        .iter()
        .flat_map(|r| r.ours.by_resource.keys())
        .collect();
    if keys.is_empty() {
        return String::new();
    }
    let mut out = String::from("| request |");
    for row in rows {
        out.push_str(&format!(
            " {} N = {} |",
            row.mode.label(),
            thousands(row.count as u64)
        ));
    }
    out.push_str("\n|---|");
    out.push_str(&"---:|".repeat(rows.len()));
    out.push('\n');
    for key in keys {
        out.push_str(&format!("| {key} |"));
        for row in rows {
            let n = row.ours.by_resource.get(key).copied().unwrap_or(0);
            out.push_str(&format!(
                " {} ({:.2}) |",
                thousands(n),
                n as f64 / row.count.max(1) as f64
            ));
        }
        out.push('\n');
    }
    out
}

fn by_method(requests: &BTreeMap<String, u64>) -> String {
    requests
        .iter()
        .map(|(m, n)| format!("{m} {}", thousands(*n)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The control plane alone: N Deployments created and resized directly.
#[derive(Debug, Clone, Default)]
struct Floor {
    converged: Duration,
    storm: Duration,
    /// The control plane's CPU while converging and in the storm (the local plane only).
    plane_converge: Option<PlaneSpent>,
    plane_storm: Option<PlaneSpent>,
}

/// What an operator adds above the floor, converge and storm; `–` where the operator was
/// faster than the floor run (noise), so a ratio would mean nothing.
fn overhead(row: &Row, floor: &Floor) -> (Option<Duration>, Option<Duration>) {
    (
        row.converged.checked_sub(floor.converged),
        row.storm.checked_sub(floor.storm),
    )
}

/// Ours' overhead as a multiple of Go's; none when either run was faster than its floor or
/// Go added nothing.
fn overhead_ratio(ours: Option<Duration>, go: Option<Duration>) -> Option<f64> {
    match (ours, go) {
        (Some(o), Some(g)) if !g.is_zero() => Some(o.as_secs_f64() / g.as_secs_f64()),
        _ => None,
    }
}

/// Each row's overhead above a floor of the same N: `go_floors` for the Go operator,
/// `ours_floors` for ours (the same map when both are measured against one floor).
fn overhead_table(
    rows: &[TableRow],
    go_floors: &BTreeMap<usize, Floor>,
    ours_floors: &BTreeMap<usize, Floor>,
) -> String {
    let mut out = String::from(
        "| mode | N | floor converge / storm | overhead converge Go / ours | overhead storm Go / ours | ours / Go converge, storm |\n|---|---:|---:|---:|---:|---:|\n",
    );
    let secs =
        |d: Option<Duration>| d.map_or("–".to_string(), |d| format!("{:.1} s", d.as_secs_f64()));
    let ratio =
        |ours, go| overhead_ratio(ours, go).map_or("–".to_string(), |r| format!("{r:.2}x"));
    let span = |f: &Floor| {
        format!(
            "{:.1} s / {:.1} s",
            f.converged.as_secs_f64(),
            f.storm.as_secs_f64()
        )
    };
    for row in rows {
        let Some(ours_floor) = ours_floors.get(&row.count) else {
            continue;
        };
        let go_floor = go_floors.get(&row.count);
        let (ours_c, ours_s) = overhead(&row.ours, ours_floor);
        let (go_c, go_s) = match (&row.go, go_floor) {
            (Some(go), Some(floor)) => overhead(go, floor),
            _ => (None, None),
        };
        let floor = match go_floor {
            Some(go_floor)
                if row.go.is_some()
                    && (go_floor.converged, go_floor.storm)
                        != (ours_floor.converged, ours_floor.storm) =>
            {
                format!("Go {}; ours {}", span(go_floor), span(ours_floor))
            }
            _ => span(ours_floor),
        };
        out.push_str(&format!(
            "| {} | {} | {floor} | {} / {} | {} / {} | {}, {} |\n",
            row.mode.label(),
            thousands(row.count as u64),
            secs(go_c),
            secs(ours_c),
            secs(go_s),
            secs(ours_s),
            ratio(ours_c, go_c),
            ratio(ours_s, go_s),
        ));
    }
    out
}

/// For each row with a Go run, the target as a time: the Deployments floor plus half of
/// what Go added above it, converge and storm. Beside it ours' time and the two floors no
/// runtime gets under: the control plane alone with ours' Deployments and Services, and the
/// same work without an operator. When a floor is above the target, no operator doing that
/// work meets it on that plane. Empty without Go runs.
fn target_table(round: &Round) -> String {
    let mut out = String::new();
    let secs = |d: Duration| format!("{:.1} s", d.as_secs_f64());
    let pair = |c: Duration, s: Duration| format!("{} / {}", secs(c), secs(s));
    let verdict = |ours: Duration, target: Duration| {
        if ours <= target { "met" } else { "not met" }
    };
    for row in &round.rows {
        let (Some(go), Some(floor)) = (&row.go, round.floors.get(&row.count)) else {
            continue;
        };
        let half_above =
            |go: Duration, floor: Duration| floor + go.checked_sub(floor).unwrap_or_default() / 2;
        let target_c = half_above(go.converged, floor.converged);
        let target_s = half_above(go.storm, floor.storm);
        let of = |floors: &BTreeMap<usize, Floor>| {
            floors
                .get(&row.count)
                .map_or("–".to_string(), |f| pair(f.converged, f.storm))
        };
        if out.is_empty() {
            out.push_str(
                "| mode | N | target: ours at most | ours | floor of ours' objects | same work, no operator | converge, storm |\n|---|---:|---:|---:|---:|---:|---|\n",
            );
        }
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {}, {} |\n",
            row.mode.label(),
            thousands(row.count as u64),
            pair(target_c, target_s),
            pair(row.ours.converged, row.ours.storm),
            of(&round.service_floors),
            of(&round.direct_floors),
            verdict(row.ours.converged, target_c),
            verdict(row.ours.storm, target_s),
        ));
    }
    out
}

/// The control plane's CPU in each run, converge / storm: the floor's, each operator's, and
/// what each operator added above the floor (with the API server's part of it); empty when
/// the target is not the local plane.
fn plane_table(rows: &[TableRow], floors: &BTreeMap<usize, Floor>) -> String {
    let pair = |c: &Option<PlaneSpent>, s: &Option<PlaneSpent>| match (c, s) {
        (Some(c), Some(s)) => Some((c.clone(), s.clone())),
        _ => None,
    };
    let mut out = String::new();
    for row in rows {
        let Some(floor) = floors.get(&row.count) else {
            continue;
        };
        let Some((fc, fs)) = pair(&floor.plane_converge, &floor.plane_storm) else {
            continue;
        };
        let cell = |r: Option<&Row>| -> (String, String) {
            let Some((c, s)) = r.and_then(|r| pair(&r.plane_converge, &r.plane_storm)) else {
                return ("–".into(), "–".into());
            };
            let above = |run: &PlaneSpent, base: &PlaneSpent| {
                format!(
                    "{:+.1} ({:+.1} API server)",
                    run.total() - base.total(),
                    run.component("kube-apiserver") - base.component("kube-apiserver")
                )
            };
            (
                format!("{:.1} / {:.1}", c.total(), s.total()),
                format!("{} / {}", above(&c, &fc), above(&s, &fs)),
            )
        };
        let (go, go_above) = cell(row.go.as_ref());
        let (ours, ours_above) = cell(Some(&row.ours));
        out.push_str(&format!(
            "| {} | {} | {:.1} / {:.1} | {go} | {ours} | {go_above} | {ours_above} |\n",
            row.mode.label(),
            thousands(row.count as u64),
            fc.total(),
            fs.total(),
        ));
    }
    if out.is_empty() {
        return out;
    }
    format!(
        "| mode | N | floor | Go | ours | Go above the floor | ours above the floor |\n|---|---:|---:|---:|---:|---:|---:|\n{out}"
    )
}

/// A Deployment like the operator's for a Memcached of `size` (the same pod template shape:
/// one memcached container, selected by its instance label).
fn floor_deployment(name: &str, size: i32) -> serde_json::Value {
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
fn floor_service(name: &str) -> serde_json::Value {
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

fn floor_tag(count: usize, services: bool) -> String {
    if services {
        format!("[floor {count} with Services]")
    } else {
        format!("[floor {count}]")
    }
}

/// A new namespace named `prefix` and the time.
async fn fresh_namespace(client: &kube::Client, prefix: &str) -> Result<String> {
    let ns = format!(
        "{prefix}-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_secs()
    );
    let namespace = Namespace {
        metadata: ObjectMeta {
            name: Some(ns.clone()),
            ..Default::default()
        },
        ..Default::default()
    };
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await?;
    Ok(ns)
}

/// Removes the finalizers of the `count` Memcacheds in `ns` and deletes the namespace, waiting
/// until it is gone; nothing on a plane of the stage's own, which is stopped whole after it.
async fn clean_up(
    stage: &Stage,
    mcs: &Api<DynamicObject>,
    count: usize,
    ns: &str,
    tag: &str,
) -> Result<()> {
    if stage.is_own() {
        return Ok(());
    }
    eprintln!("{tag} cleaning up");
    merge_all(
        mcs,
        count,
        serde_json::json!({ "metadata": { "finalizers": null } }),
    )
    .await
    .context("removing finalizers")?;
    let cleanup = Instant::now();
    delete_namespace(&stage.cluster.client, ns, tag).await?;
    eprintln!(
        "{tag} namespace gone in {:.1} s",
        cleanup.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Deletes `ns` and waits until it is gone (five minutes at most), so that one run's garbage
/// collection does not load the API server during the next.
async fn delete_namespace(client: &kube::Client, ns: &str, tag: &str) -> Result<()> {
    let namespaces: Api<Namespace> = Api::all(client.clone());
    namespaces.delete(ns, &DeleteParams::background()).await?;
    let cleanup = Instant::now();
    while namespaces.get_opt(ns).await?.is_some() {
        if cleanup.elapsed() > Duration::from_secs(300) {
            eprintln!("{tag} namespace {ns} still there after 300 s; going on");
            break;
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
    Ok(())
}

/// Where the floors and the runs take place.
enum Venue {
    /// The target cluster, shared by every run; each cleans up after itself.
    Shared {
        cluster: cluster::Connected,
        plane: Option<PlaneCpu>,
    },
    /// A local control plane started in `dir` for each floor and run, and stopped after it
    /// (`--fresh-plane`).
    Fresh { dir: PathBuf },
}

impl Venue {
    /// The cluster for the floor or run `tag`: the shared one, or a control plane started
    /// for it with the CRDs installed.
    async fn enter(&self, tag: &str) -> Result<Stage> {
        let dir = match self {
            Venue::Shared { cluster, plane } => {
                return Ok(Stage {
                    cluster: cluster.clone(),
                    plane: plane.clone(),
                    own: None,
                    tag: tag.to_string(),
                });
            }
            Venue::Fresh { dir } => dir,
        };
        // One a crashed run left behind would be reused by `start`, not fresh.
        envtest::plane::stop(dir)
            .await
            .with_context(|| format!("stopping the control plane left in {}", dir.display()))?;
        eprintln!("{tag} starting a control plane of its own");
        let started = Instant::now();
        let own = envtest::plane::start(&envtest::Options::new(dir))
            .await?
            .with_context(|| format!("no control plane started in {}", dir.display()))?;
        let stage = async {
            let target = Target {
                kubeconfig: Some(own.kubeconfig().to_path_buf()),
            };
            let cluster = cluster::connect(&target).await?;
            cluster::install_crds(&cluster.client).await?;
            anyhow::Ok(cluster)
        }
        .await;
        let cluster = match stage {
            Ok(cluster) => cluster,
            Err(err) => {
                let _ = own.stop().await;
                return Err(err);
            }
        };
        eprintln!(
            "{tag} control plane up in {:.1} s at {}",
            started.elapsed().as_secs_f64(),
            own.state.server
        );
        Ok(Stage {
            plane: PlaneCpu::of_state(&own.state),
            cluster,
            own: Some(own),
            tag: tag.to_string(),
        })
    }
}

/// The cluster one floor or run takes place on.
struct Stage {
    cluster: cluster::Connected,
    plane: Option<PlaneCpu>,
    /// The control plane started for this floor or run alone, stopped by [`Stage::leave`].
    own: Option<envtest::ControlPlane>,
    /// The floor's or run's tag, for messages and the name of its plane's kept logs.
    tag: String,
}

impl Stage {
    /// Whether the control plane is this stage's own, to be thrown away after it (so there is
    /// nothing to clean up).
    fn is_own(&self) -> bool {
        self.own.is_some()
    }

    /// Ends the stage once its work has `result`: stops its own control plane, if it has
    /// one, whether the work succeeded or not.
    /// Its components' logs are kept first (stopping removes the plane's directory), beside
    /// the operators' logs.
    async fn leave<T>(self, result: Result<T>) -> Result<T> {
        if let Some(own) = self.own {
            match keep_plane_logs(&own.state, &self.tag) {
                Ok(kept) => eprintln!("{} the control plane's logs: {}", self.tag, kept.display()),
                Err(err) => eprintln!(
                    "{} the control plane's logs were not kept: {err:#}",
                    self.tag
                ),
            }
            let stopped = own.stop().await;
            if result.is_ok() {
                stopped.context("stopping the control plane")?;
            }
        }
        result
    }
}

/// Copies the logs of the control plane `state` records to
/// `target/bench-operator/<seconds since the epoch>-<slug of tag>-plane/`; returns that
/// directory.
fn keep_plane_logs(state: &envtest::State, tag: &str) -> Result<PathBuf> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH)?;
    let kept =
        target_dir()?
            .join("bench-operator")
            .join(format!("{}-{}-plane", now.as_secs(), slug(tag)));
    std::fs::create_dir_all(&kept).with_context(|| format!("creating {}", kept.display()))?;
    let logs = state.state_dir.join("logs");
    for entry in std::fs::read_dir(&logs).with_context(|| format!("reading {}", logs.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            std::fs::copy(entry.path(), kept.join(entry.file_name()))
                .with_context(|| format!("copying {}", entry.path().display()))?;
        }
    }
    Ok(kept)
}

/// A tag as a file name: "[floor 1000, same work without an operator]" is
/// "floor-1000-same-work-without-an-operator".
fn slug(tag: &str) -> String {
    tag.chars()
        .filter_map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' => Some(c.to_ascii_lowercase()),
            ' ' | ',' | '-' => Some('-'),
            _ => None,
        })
        .collect::<String>()
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// The control plane is taken as settled when it spends less than this share of one core
/// (idle, the local plane spends about 0.03) ...
const SETTLED_CORES: f64 = 0.15;
/// ... over a window this long ...
const SETTLE_WINDOW: Duration = Duration::from_secs(2);
/// ... and a run starts anyway after this long.
const SETTLE_AT_MOST: Duration = Duration::from_secs(120);

/// Waits until the local control plane is idle (what the previous run left behind, garbage
/// collection and namespace finalization, is done), so that no run pays for another's.
/// Without the plane's processes (a remote cluster) there is nothing to read: returns at once.
async fn settle(plane: Option<&PlaneCpu>, tag: &str) {
    let Some(plane) = plane else { return };
    let started = Instant::now();
    let mut before = plane.sample();
    loop {
        tokio::time::sleep(SETTLE_WINDOW).await;
        let now = plane.sample();
        let Some(spent) = PlaneSpent::between(before.as_ref(), now.as_ref()) else {
            return;
        };
        let cores = spent.total() / SETTLE_WINDOW.as_secs_f64();
        if cores < SETTLED_CORES {
            if started.elapsed() > SETTLE_WINDOW * 2 {
                eprintln!(
                    "{tag} control plane settled after {:.0} s",
                    started.elapsed().as_secs_f64()
                );
            }
            return;
        }
        if started.elapsed() >= SETTLE_AT_MOST {
            eprintln!(
                "{tag} control plane still busy ({cores:.2} cores) after {} s; going on",
                SETTLE_AT_MOST.as_secs()
            );
            return;
        }
        before = now;
    }
}

/// The floor of `count`: N Deployments created directly (with `services`, each with the
/// Service ours puts in front of its pods, created with it), converged at 1 replica, resized
/// to 3.
async fn run_floor(stage: &Stage, count: usize, services: bool, args: &BenchArgs) -> Result<Floor> {
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

fn direct_tag(count: usize) -> String {
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
async fn run_direct_floor(stage: &Stage, count: usize, args: &BenchArgs) -> Result<Floor> {
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

fn spawn_operator(
    which: Which,
    binary: &Path,
    ns: &str,
    mode: Mode,
    same_work: bool,
    cluster: &cluster::Connected,
) -> Result<(Operator, u16)> {
    let (metrics_port, health_port) = (free_port()?, free_port()?);
    let log = target_dir()?
        .join("bench-operator")
        .join(format!("{ns}.log"));
    std::fs::create_dir_all(log.parent().expect("a file in a directory"))?;
    let log_file = std::fs::File::create(&log)?;
    let mut cmd = Command::new(binary);
    cmd.args([
        format!("--metrics-bind-address=127.0.0.1:{metrics_port}"),
        format!("--health-probe-bind-address=127.0.0.1:{health_port}"),
        format!("--watch-namespace={ns}"),
        // The benchmark reads the counters itself, over plain HTTP on loopback.
        "--metrics-secure=false".to_string(),
    ]);
    match which {
        Which::Ours => {
            if let Mode::Equal(n) = mode {
                cmd.arg(format!("--concurrency={n}"));
            }
            cmd.env("RUST_LOG", "warn")
                // The benchmark measures the controller; admission is not in its path.
                .env("ENABLE_WEBHOOKS", "false");
        }
        Which::Go => {
            if let Mode::Equal(n) = mode {
                cmd.arg(format!("--max-concurrent-reconciles={n}"));
            }
            // Only errors: info lines per reconcile would cost the Go side CPU ours does not spend.
            cmd.arg("--zap-log-level=error");
            if same_work {
                cmd.arg("--same-work");
            }
        }
    }
    cmd.stdout(Stdio::null()).stderr(log_file);
    if let Some(path) = &cluster.kubeconfig {
        cmd.env("KUBECONFIG", path);
    }
    let operator = Operator {
        child: cmd
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?,
        metrics_port,
        log,
    };
    Ok((operator, health_port))
}

/// Lines of the operator's log at error level (Go's JSON lines) or warn/error (ours).
fn count_problems(which: Which, log: &str) -> usize {
    log.lines()
        .filter(|l| match which {
            Which::Go => l.contains("\"level\":\"error\""),
            Which::Ours => l.contains("WARN") || l.contains("ERROR"),
        })
        .count()
}

async fn run(
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
    while http_get(health_port, "/readyz").is_err() {
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
    fan_out(0..count, |i| {
        let mcs = mcs.clone();
        let resource = resource.clone();
        async move {
            let mut obj = DynamicObject::new(&format!("mc-{i:05}"), &resource);
            obj.data = serde_json::json!({ "spec": { "size": 1 } });
            mcs.create(&PostParams::default(), &obj).await
        }
    })
    .await
    .context("creating Memcacheds")?;
    eprintln!("{tag} created in {:.1} s", start.elapsed().as_secs_f64());
    let converged =
        wait_converged(tag, Some(&mcs), &deployments, count, 1, start, deadline).await?;
    let cpu_converged = plane.and_then(PlaneCpu::sample);
    eprintln!("{tag} all converged in {:.1} s", converged.as_secs_f64());
    report_timeline(tag, "converge", recorder).await;

    let after_converge = operator.metrics()?.requests();
    eprintln!("{tag} steady state for {} s", args.steady);
    tokio::time::sleep(Duration::from_secs(args.steady)).await;
    let after_steady = operator.metrics()?.requests();
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

    let metrics = operator.metrics()?;
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

/// With `--timeline`, starts watching a phase that brings the objects to `size` from `start`.
fn record(
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
async fn report_timeline(tag: &str, phase: &str, recorder: Option<timeline::Recorder>) {
    if let Some(recorder) = recorder {
        let steps = recorder.finish().await;
        eprintln!("{tag} {phase} timeline: {}", timeline::summary(&steps));
    }
}

/// How many requests the bench keeps in flight when it writes objects itself.
const FAN_OUT: usize = 32;

/// Runs `each` on every item, [`FAN_OUT`] at a time; the first error ends it.
async fn fan_out<I, F, Fut, T>(items: I, each: F) -> kube::Result<()>
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

/// Sends the same merge patch to each of the `count` Memcacheds, 32 at a time.
async fn merge_all(
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
async fn wait_converged(
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

fn is_available(obj: &DynamicObject) -> bool {
    obj.data["status"]["conditions"]
        .as_array()
        .is_some_and(|cs| {
            cs.iter()
                .any(|c| c["type"] == "Available" && c["status"] == "True")
        })
}

fn deployment_at(d: &Deployment, size: i32) -> bool {
    let want = d.spec.as_ref().and_then(|s| s.replicas) == Some(size);
    let status = d.status.as_ref();
    want && status.and_then(|s| s.ready_replicas).unwrap_or(0) == size
        && status.and_then(|s| s.updated_replicas).unwrap_or(0) == size
        && status.and_then(|s| s.replicas).unwrap_or(0) == size
}

#[cfg(test)]
mod tests {
    use super::*;

    const GO_METRICS: &str = r#"# HELP rest_client_requests_total Number of HTTP requests, partitioned by status code, method, and host.
# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="GET"} 12
rest_client_requests_total{code="201",host="127.0.0.1:6443",method="POST"} 100
rest_client_requests_total{code="409",host="127.0.0.1:6443",method="PUT"} 7
rest_client_requests_total{code="200",host="127.0.0.1:6443",method="PUT"} 300
controller_runtime_reconcile_total{controller="memcached",result="error"} 7
controller_runtime_reconcile_total{controller="memcached",result="success"} 400
process_cpu_seconds_total 1.5
weird{label="a \"quoted\", value, }"} 3 1700000000
"#;

    #[derive(clap::Parser)]
    struct Cli {
        #[command(flatten)]
        bench: BenchArgs,
    }

    /// A plane of each run's own is the local one: with another cluster named the command
    /// is refused before anything runs.
    #[test]
    fn a_fresh_plane_is_not_taken_with_a_kubeconfig() {
        use clap::Parser as _;
        let args = Cli::try_parse_from(["bench", "--fresh-plane"]).expect("parses");
        assert!(args.bench.fresh_plane);
        assert!(
            !Cli::try_parse_from(["bench"])
                .expect("parses")
                .bench
                .fresh_plane
        );
        let err = Cli::try_parse_from(["bench", "--fresh-plane", "--kubeconfig", "k.yaml"])
            .err()
            .expect("refused");
        assert_eq!(err.kind(), clap::error::ErrorKind::ArgumentConflict);
        assert!(err.to_string().contains("--kubeconfig"), "{err}");
    }

    #[test]
    fn a_tag_becomes_a_file_name() {
        assert_eq!(
            slug("[floor 1000, same work without an operator]"),
            "floor-1000-same-work-without-an-operator"
        );
        assert_eq!(slug("[go 1000 concurrency 4]"), "go-1000-concurrency-4");
        assert_eq!(slug("[ours 30 defaults]"), "ours-30-defaults");
    }

    #[test]
    fn metrics_are_summed_by_label() {
        let m = Metrics::parse(GO_METRICS);
        assert_eq!(m.reconciles(), 407);
        let requests = m.requests();
        assert_eq!(
            requests,
            BTreeMap::from([
                ("GET".to_string(), 12),
                ("POST".to_string(), 100),
                ("PUT".to_string(), 307)
            ])
        );
        assert_eq!(total(&requests), 419);
        assert_eq!(writes(&requests), 407);
        assert_eq!(m.sum("process_cpu_seconds_total"), 1.5);
        let weird = m.samples.iter().find(|s| s.name == "weird").unwrap();
        assert_eq!(weird.labels["label"], "a \"quoted\", value, }");
        assert_eq!(weird.value, 3.0);
    }

    #[test]
    fn ours_metrics_parse_too() {
        let m = Metrics::parse(
            "rest_client_requests_total{method=\"PATCH\"} 5\nrest_client_requests_total{method=\"get\"} 2\n",
        );
        assert_eq!(
            m.requests(),
            BTreeMap::from([("GET".to_string(), 2), ("PATCH".to_string(), 5)])
        );
        assert_eq!(m.reconciles(), 0);
    }

    #[test]
    fn request_differences_drop_unchanged_methods() {
        let before = BTreeMap::from([("GET".to_string(), 5), ("PUT".to_string(), 3)]);
        let after = BTreeMap::from([
            ("GET".to_string(), 5),
            ("PUT".to_string(), 4),
            ("PATCH".to_string(), 2),
        ]);
        let d = diff(&after, &before);
        assert_eq!(
            d,
            BTreeMap::from([("PATCH".to_string(), 2), ("PUT".to_string(), 1)])
        );
        assert_eq!(writes(&d), 3);
    }

    #[test]
    fn chunked_bodies_are_joined() {
        assert_eq!(
            dechunk("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"),
            "hello world"
        );
    }

    #[test]
    fn proc_files_parse() {
        let status =
            "Name:\tmemcached-go\nVmPeak:\t 1000 kB\nVmHWM:\t   56320 kB\nVmRSS:\t 50000 kB\n";
        assert_eq!(parse_vm_hwm_kib(status), Some(56320));
        assert_eq!(parse_vm_hwm_kib("Name: x\n"), None);
        // The command name may hold spaces and parentheses.
        let stat = "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 130 27 0 0 20 0 9 0 123 456 789";
        assert_eq!(parse_cpu_ticks(stat), Some(157));
        assert_eq!(parse_cpu_ticks("garbage"), None);
    }

    #[test]
    fn the_table_puts_go_and_ours_side_by_side() {
        let row = |secs, requests: &[(&str, u64)]| Row {
            converged: Duration::from_secs_f64(secs),
            storm: Duration::from_secs(2 * secs as u64),
            reconciles: 1234,
            requests: requests.iter().map(|(m, n)| (m.to_string(), *n)).collect(),
            by_resource: BTreeMap::new(),
            steady_requests: 100,
            steady_writes: 100,
            peak_rss_kib: 56 * 1024,
            cpu_seconds: 1.25,
            problems: 3,
            ..Row::default()
        };
        let rows = [TableRow {
            mode: Mode::Equal(4),
            count: 1000,
            go: Some(row(7.5, &[("GET", 10), ("PUT", 776)])),
            ours: row(11.0, &[("PATCH", 2686)]),
        }];
        let text = table(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        let cells = |l: &str| l.matches('|').count();
        assert_eq!(cells(lines[0]), cells(lines[1]));
        assert_eq!(cells(lines[0]), cells(lines[2]));
        assert_eq!(
            lines[2],
            "| concurrency 4 | 1,000 | 7.5 s / 11.0 s | 14.0 s / 22.0 s | 1,234 / 1,234 | 786 / 2,686 | GET 10, PUT 776; PATCH 2,686 | 100 / 100; 100 / 100 | 56 MiB / 56 MiB | 1.2 / 1.2 | 3 / 3 |"
        );
        let alone = TableRow {
            mode: Mode::Defaults,
            count: 10,
            go: None,
            ours: row(1.0, &[]),
        };
        assert!(alone.render().starts_with("| defaults | 10 | – / 1.0 s |"));
        assert_eq!(resource_table(&rows), "", "no breakdown without our metric");

        let floor_of = |converged, storm| {
            BTreeMap::from([(
                1000,
                Floor {
                    converged: Duration::from_secs(converged),
                    storm: Duration::from_secs(storm),
                    ..Floor::default()
                },
            )])
        };
        // Above a floor of 5 s / 6 s: Go adds 2.5 / 9, ours 6 / 16.
        let floors = floor_of(5, 6);
        let text = overhead_table(&rows, &floors, &floors);
        assert_eq!(
            text.lines().nth(2),
            Some(
                "| concurrency 4 | 1,000 | 5.0 s / 6.0 s | 2.5 s / 6.0 s | 8.0 s / 16.0 s | 2.40x, 2.00x |"
            )
        );
        // Ours above a floor with its Services (7 s / 10 s), Go above the plain one.
        let with_services = floor_of(7, 10);
        assert_eq!(
            overhead_table(&rows, &floors, &with_services)
                .lines()
                .nth(2),
            Some(
                "| concurrency 4 | 1,000 | Go 5.0 s / 6.0 s; ours 7.0 s / 10.0 s | 2.5 s / 4.0 s | 8.0 s / 12.0 s | 1.60x, 1.50x |"
            )
        );
        // Faster than the floor (noise) has no overhead and no ratio.
        let quick = [TableRow {
            mode: Mode::Defaults,
            count: 1000,
            go: None,
            ours: row(4.0, &[]),
        }];
        assert_eq!(
            overhead_table(&quick, &floors, &floors).lines().nth(2),
            Some("| defaults | 1,000 | 5.0 s / 6.0 s | – / – | – / 2.0 s | –, – |")
        );
    }

    #[test]
    fn the_order_alternates_by_mode_and_by_round() {
        // Round 1 as before the order alternated: Go first at defaults.
        assert!(go_runs_first(1, 0));
        assert!(!go_runs_first(1, 1));
        assert!(!go_runs_first(2, 0));
        assert!(go_runs_first(2, 1));
        // Over an even number of rounds each mode has each order equally often.
        for mode in 0..2 {
            let firsts = (1..=4).filter(|&r| go_runs_first(r, mode)).count();
            assert_eq!(firsts, 2, "mode {mode}");
        }
    }

    #[test]
    fn a_median_is_the_middle_value_with_the_range() {
        let x = |v: f64| format!("{v:.2}x");
        assert_eq!(median_range(vec![], x), "–");
        assert_eq!(median_range(vec![1.5], x), "1.50x");
        assert_eq!(median_range(vec![3.0, 0.5, 1.0], x), "1.00x (0.50x-3.00x)");
        assert_eq!(
            median_range(vec![2.0, 1.0, 4.0, 3.0], x),
            "2.50x (1.00x-4.00x)"
        );
    }

    /// An operator run of N = 100 that took these seconds.
    fn row(converged: u64, storm: u64) -> Row {
        Row {
            converged: Duration::from_secs(converged),
            storm: Duration::from_secs(storm),
            ..Row::default()
        }
    }

    /// A floor of N = 100 that took these seconds.
    fn floor(converged: u64, storm: u64) -> BTreeMap<usize, Floor> {
        BTreeMap::from([(
            100,
            Floor {
                converged: Duration::from_secs(converged),
                storm: Duration::from_secs(storm),
                ..Floor::default()
            },
        )])
    }

    #[test]
    fn the_rounds_give_a_median_ratio_of_each_floor() {
        // Floors 10 / 10 s (Deployments), 20 / 20 s (with Services) and 15 / 15 s (the
        // same work without an operator) in every round.
        let round = |go: (u64, u64), ours: (u64, u64)| Round {
            rows: vec![TableRow {
                mode: Mode::Equal(4),
                count: 100,
                go: Some(row(go.0, go.1)),
                ours: row(ours.0, ours.1),
            }],
            floors: floor(10, 10),
            service_floors: floor(20, 20),
            direct_floors: floor(15, 15),
        };
        let rounds = [
            // Above 10 s: Go 20 / 10, ours 10 / 30: 0.5x, 3.0x. Above 20 s: Go 10 / 0,
            // ours 0 / 20: 0.0x and no ratio (Go added nothing). Above 15 s: Go 15 / 5,
            // ours 5 / 25: 0.33x, 5.0x.
            round((30, 20), (20, 40)),
            // 1.0x, 1.0x; above 20 s: 20 / 10 against 20 / 10: 1.0x, 1.0x; above 15 s the
            // same.
            round((40, 30), (40, 30)),
            // 0.25x, 0.33x; above 20 s: Go 30 / 20, ours 0 / 0: 0.0x, 0.0x. Above 15 s: Go
            // 35 / 25, ours 5 / 5: 0.14x, 0.2x.
            round((50, 40), (20, 20)),
        ];
        let text = median_table(&rounds, Some(Against::GoSameWork));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].matches('|').count(), lines[2].matches('|').count());
        assert_eq!(
            lines[2],
            "| concurrency 4 | 100 | 0.50x (0.25x-1.00x) | 1.00x (0.33x-3.00x) | 0.00x (0.00x-1.00x) | 0.50x (0.00x-1.00x) | \
             0.33x (0.14x-1.00x) | 1.00x (0.20x-5.00x) | 40.0 s (30.0 s-50.0 s) / 20.0 s (20.0 s-40.0 s) | 30.0 s (20.0 s-40.0 s) / 30.0 s (20.0 s-40.0 s) |"
        );
        // Against the tutorial, its own objects are the Deployments alone: Go above 10 s
        // (20 / 10), ours above 20 s (0 / 20).
        let tutorial = median_table(&rounds[..1], Some(Against::Go));
        assert_eq!(
            tutorial.lines().nth(2),
            Some(
                "| concurrency 4 | 100 | 0.50x | 3.00x | 0.00x | 2.00x | 0.33x | 5.00x | 30.0 s / 20.0 s | 20.0 s / 40.0 s |"
            )
        );
    }

    #[test]
    fn the_target_is_a_time_beside_the_floors_under_ours() {
        let round = |go: Option<(u64, u64)>| Round {
            rows: vec![TableRow {
                mode: Mode::Equal(4),
                count: 100,
                go: go.map(|(c, s)| row(c, s)),
                ours: row(20, 40),
            }],
            floors: floor(10, 10),
            service_floors: floor(18, 25),
            direct_floors: floor(19, 30),
        };
        // Go added 20 s converging and 10 s in the storm: ours may take 10 + 10 and 10 + 5.
        assert_eq!(
            target_table(&round(Some((30, 20)))).lines().nth(2),
            Some(
                "| concurrency 4 | 100 | 20.0 s / 15.0 s | 20.0 s / 40.0 s | 18.0 s / 25.0 s | 19.0 s / 30.0 s | met, not met |"
            )
        );
        // Go faster than the floor: the target is the floor itself.
        assert!(target_table(&round(Some((8, 9)))).contains("| 10.0 s / 10.0 s |"));
        // Without Go there is no target.
        assert_eq!(target_table(&round(None)), "");
    }

    #[test]
    fn ours_requests_are_broken_down_by_resource_per_memcached() {
        let metrics = Metrics::parse(
            "operator_rest_client_requests_total{method=\"PATCH\",resource=\"deployments\"} 150\n\
             operator_rest_client_requests_total{method=\"POST\",resource=\"events\"} 100\n\
             rest_client_requests_total{method=\"PATCH\"} 150\n",
        );
        let by_resource = metrics.requests_by_resource();
        assert_eq!(by_resource.len(), 2);
        let ours = Row {
            by_resource,
            ..Row::default()
        };
        let rows = [TableRow {
            mode: Mode::Defaults,
            count: 100,
            go: None,
            ours,
        }];
        assert_eq!(
            resource_table(&rows),
            "| request | defaults N = 100 |\n|---|---:|\n| PATCH deployments | 150 (1.50) |\n| POST events | 100 (1.00) |\n"
        );
    }

    #[test]
    fn the_control_plane_cpu_above_the_floor_is_per_run_and_per_phase() {
        let spent = |api: f64, rest: f64| {
            Some(PlaneSpent {
                by_component: BTreeMap::from([
                    ("kube-apiserver".to_string(), api),
                    ("etcd".to_string(), rest),
                ]),
            })
        };
        let floors = BTreeMap::from([(
            100,
            Floor {
                plane_converge: spent(10.0, 2.0),
                plane_storm: spent(20.0, 4.0),
                ..Floor::default()
            },
        )]);
        let mut ours = Row {
            plane_converge: spent(15.0, 3.0),
            plane_storm: spent(30.0, 4.0),
            ..Row::default()
        };
        let row = |ours: &Row| TableRow {
            mode: Mode::Defaults,
            count: 100,
            go: None,
            ours: ours.clone(),
        };
        assert_eq!(
            plane_table(&[row(&ours)], &floors).lines().nth(2),
            Some(
                "| defaults | 100 | 12.0 / 24.0 | – | 18.0 / 34.0 | – | +6.0 (+5.0 API server) / +10.0 (+10.0 API server) |"
            )
        );
        // A run without samples shows dashes; not the local plane (no samples at all), no table.
        ours.plane_storm = None;
        assert!(
            plane_table(&[row(&ours)], &floors)
                .ends_with("| defaults | 100 | 12.0 / 24.0 | – | – | – | – |\n")
        );
        let unsampled = BTreeMap::from([(100, Floor::default())]);
        assert_eq!(plane_table(&[row(&ours)], &unsampled), "");
        // The ticks between two samples, by component.
        let earlier = BTreeMap::from([("etcd".to_string(), 100)]);
        let later = BTreeMap::from([("etcd".to_string(), 100 + clock_ticks_per_second())]);
        let between = PlaneSpent::between(Some(&earlier), Some(&later)).unwrap();
        assert_eq!(between.total(), 1.0);
        assert_eq!(PlaneSpent::between(None, Some(&later)), None);
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(31363), "31,363");
        assert_eq!(thousands(1234567), "1,234,567");
    }
}
