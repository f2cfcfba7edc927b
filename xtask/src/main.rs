//! `cargo xtask <command>`: the project's Makefile targets (kubebuilder's `make manifests`,
//! `make install`, `make run`, `make test`, ...) and the local control plane, written in Rust so
//! they run wherever cargo does.

mod bench;
mod bench_gen;
mod cluster;
mod known_types;
mod manifests;
mod project;
mod test;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "cargo xtask",
    about = "Project commands (kubebuilder's Makefile targets)"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Regenerate config/crd/bases/*.yaml and config/rbac/role.yaml from the markers in the
    /// crates PROJECT.toml names (make manifests).
    Manifests {
        /// Write nothing; exit 1 with a diff when a committed manifest is stale.
        #[arg(long)]
        check: bool,
    },
    /// The local control plane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and
    /// kwok, built from Go modules on first use.
    Envtest {
        #[command(subcommand)]
        command: cluster::EnvtestCmd,
    },
    /// Server-side apply config/crd/bases/*.yaml and wait until each CRD is Established
    /// (make install).
    Install(cluster::Target),
    /// Delete the CRDs of config/crd/bases, and with them every object of their kinds
    /// (make uninstall).
    Uninstall(cluster::Target),
    /// Install the CRDs, then build and run the operator out of cluster against the current
    /// kubeconfig (make run).
    Run {
        #[command(flatten)]
        target: cluster::Target,
        /// Arguments for the operator (after `--`), e.g. `-- --log-format=json`.
        #[arg(last = true)]
        operator_args: Vec<String>,
    },
    /// Benchmark the operator on the cluster: N Memcacheds created at once, time to convergence,
    /// API requests per reconcile, quiet steady state, peak memory.
    BenchOperator(bench::BenchArgs),
    /// Benchmark operator-gen against controller-gen side by side: the same synthetic API of N
    /// kinds in Go and Rust, both tools timed as processes, outputs compared.
    BenchGen(bench_gen::BenchGenArgs),
    /// Regenerate operator-gen's table of Kubernetes type schemas (PodTemplateSpec,
    /// ResourceRequirements, ...) from controller-gen and the Go sources of k8s.io/api.
    KnownTypes,
    /// Every check and test: formatting, clippy, manifests --check, then the whole cargo test
    /// suite including the cluster tests, on the local control plane (started and stopped around
    /// the run unless one is already up) (make test).
    Test {
        /// Arguments for the test binaries (after `--`), e.g. a name filter: `-- lifecycle`.
        #[arg(last = true)]
        test_args: Vec<String>,
    },
}

/// The workspace root (xtask lives one level below it).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is inside the workspace")
        .to_path_buf()
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Manifests { check } => manifests::manifests(check),
        Cmd::Envtest { command } => cluster::envtest(command),
        Cmd::Install(target) => cluster::install(&target),
        Cmd::Uninstall(target) => cluster::uninstall(&target),
        Cmd::Run {
            target,
            operator_args,
        } => cluster::run(&target, &operator_args),
        Cmd::BenchOperator(args) => bench::bench(&args),
        Cmd::BenchGen(args) => bench_gen::bench_gen(&args).map(|()| ExitCode::SUCCESS),
        Cmd::KnownTypes => known_types::known_types().map(|()| ExitCode::SUCCESS),
        Cmd::Test { test_args } => test::test(&test_args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace's target directory as cargo resolves it (`CARGO_TARGET_DIR`,
/// `build.target-dir`, else `target/`), where the release binaries the benchmarks run are.
fn target_dir() -> Result<PathBuf> {
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .context("running cargo metadata")?;
    if !out.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("reading cargo metadata's output")?;
    meta["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .context("cargo metadata names no target_directory")
}

fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

fn run_step(name: &str, cmd: &mut Command) -> Result<()> {
    eprintln!("==> {name}");
    let status = cmd.status().with_context(|| format!("starting {name}"))?;
    if !status.success() {
        bail!("{name} failed ({status})");
    }
    Ok(())
}
