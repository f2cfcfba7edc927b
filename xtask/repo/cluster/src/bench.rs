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
//! ([`procfs::settle`]); with `--fresh-plane` each takes place on a local control plane started for
//! it alone and stopped after it ([`Venue`]), so that none inherits what the ones before it
//! left in etcd and in the API server's memory. `--repeat K` measures all of it K times and
//! ends with each overhead ratio's median and range over the rounds; `--timeline` prints where
//! each phase waited (the operator sending its writes, the control plane, the status:
//! [`timeline`]).
//!
//! `--faults` measures something else: what each operator survives. Instead of the rounds,
//! each count runs the fault battery ([`faults`]): per operator a control plane of its own,
//! two instances with leader election, and seven faults in the middle of scale storms (the
//! API server and etcd restarted, the watches expired, the instances and the leader
//! SIGKILLed, the operator throttled), with a table per fault.
//!
//! The modules, from the bottom up: `procfs` (what `/proc` says of the operator and the
//! control plane), `http` and `metrics` (the operators' counters, fetched and read),
//! `process` (an operator as a child process), `stage` and `converge` (where a measurement
//! takes place, and its phases against the API server), `floors`, `operator_run` and
//! `faults` (the measurements), `results`, `stats` and `tables` (what they give and how it
//! is shown); this file parses the arguments and runs the rounds.

mod converge;
mod faults;
mod floors;
mod http;
mod metrics;
mod operator_run;
mod process;
mod procfs;
mod results;
mod stage;
mod stats;
mod tables;
mod timeline;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use operator_xtask::{cargo, root, run_step, target_dir};
use operator_xtask_cluster::cluster::{self, Target};

use floors::{direct_tag, floor_tag, run_direct_floor, run_floor};
use operator_run::run;
use procfs::{PlaneCpu, load_average, report_plane};
use results::{Round, Row, TableRow};
use stage::Venue;
use tables::{median_table, print_round};

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
    /// With --against, only the equal-concurrency mode (the one the overhead target is
    /// stated in), not each operator's defaults too: half the runs of a round.
    #[arg(long, requires = "against")]
    equal_only: bool,
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
    /// Instead of the rounds, the fault battery at each --count: every Memcached resized at
    /// once while the API server restarts (twice), etcd restarts, the watches expire, both
    /// instances are SIGKILLed, the leader is SIGKILLed, the API server throttles the operator;
    /// after each, the time to converge and whether anything was lost, orphaned, duplicated
    /// or left with an untrue status. Ours and, with `--against go-same-work`, the Go operator,
    /// each as two processes with leader election on a control plane of its own.
    #[arg(long, conflicts_with = "kubeconfig")]
    faults: bool,
    /// With --faults, only these faults, in this order (repeat the flag), instead of the
    /// whole battery.
    #[arg(long, value_enum, requires = "faults")]
    fault: Vec<faults::Fault>,
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
    // Refused before anything is built.
    if args.faults && args.against == Some(Against::Go) {
        anyhow::bail!(
            "--faults compares with --against go-same-work: the tutorial's operator makes no \
             Service and no status.nodes, which the battery checks"
        );
    }
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
    let equal = Mode::Equal(args.concurrency.unwrap_or(OURS_DEFAULT_CONCURRENCY));
    if args.faults {
        let rt = tokio::runtime::Runtime::new()?;
        return rt.block_on(async {
            tokio::select! {
                done = faults::bench(go.as_deref(), &ours, equal, args) => done.map(|()| ExitCode::SUCCESS),
                _ = tokio::signal::ctrl_c() => {
                    // The operators are killed as their processes are dropped; the control
                    // plane of the battery under way is stopped here.
                    envtest::plane::stop(&faults::plane_dir()?).await?;
                    eprintln!("interrupted: the operators and the control plane are stopped");
                    Ok(ExitCode::from(130))
                }
            }
        });
    }
    let modes = if go.is_some() && args.equal_only {
        vec![equal]
    } else if go.is_some() {
        vec![Mode::Defaults, equal]
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn equal_only_needs_another_operator() {
        use clap::Parser as _;
        let args = Cli::try_parse_from(["bench", "--against", "go-same-work", "--equal-only"])
            .expect("parses");
        assert!(args.bench.equal_only);
        let err = Cli::try_parse_from(["bench", "--equal-only"])
            .err()
            .expect("refused");
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert!(err.to_string().contains("--against"), "{err}");
    }

    #[test]
    fn faults_are_picked_only_for_the_battery_and_in_order() {
        use clap::Parser as _;
        let args = Cli::try_parse_from([
            "bench",
            "--faults",
            "--fault",
            "leader-killed",
            "--fault",
            "api-server-restarted",
        ])
        .expect("parses");
        assert_eq!(
            args.bench.fault,
            [
                faults::Fault::LeaderKilled,
                faults::Fault::ApiServerRestarted
            ]
        );
        let err = Cli::try_parse_from(["bench", "--fault", "etcd-restarted"])
            .err()
            .expect("refused");
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert!(
            Cli::try_parse_from(["bench", "--faults", "--fault", "etcd"]).is_err(),
            "an unknown fault is refused"
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
}
