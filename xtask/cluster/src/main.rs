//! `xtask-cluster`: the commands of `cargo xtask` that need a cluster or the control plane's
//! code (envtest, install, uninstall, run, test, the benchmarks, known-types). The lean
//! `xtask` binary hands these commands to it, so `cargo xtask manifests` never builds kube
//! or tokio; run them as `cargo xtask <command>`.

mod bench;
mod bench_gen;
mod cluster;
mod known_types;
mod test;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "Project commands (kubebuilder's Makefile targets)"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    /// The lean binary hands over exactly the commands this one has.
    #[test]
    fn the_lean_binary_forwards_exactly_these_commands() {
        let mut ours: Vec<String> = super::Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .filter(|name| name != "help")
            .collect();
        let mut forwarded: Vec<String> = xtask::CLUSTER_COMMANDS
            .iter()
            .map(|c| c.to_string())
            .collect();
        ours.sort();
        forwarded.sort();
        assert_eq!(ours, forwarded);
    }
}
