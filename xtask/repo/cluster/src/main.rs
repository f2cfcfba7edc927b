//! This repository's cluster binary: the standard commands of `operator-xtask-cluster`, the
//! benchmarks, the table generator, and a `test` that also proves a freshly scaffolded project.
//! Run them as `cargo xtask <command>`.

mod bench;
mod bench_edit;
mod bench_gen;
mod beside_kopium;
#[cfg(test)]
#[path = "../../src/extra.rs"]
mod extra;
mod fuzz_gen;
mod known_types;
mod scaffold;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use operator_xtask_cluster::{Standard, report, test};

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
    #[command(flatten)]
    Standard(Standard),
    /// Benchmark the operator on the cluster: N Memcacheds created at once, time to convergence,
    /// API requests per reconcile, quiet steady state, peak memory.
    BenchOperator(bench::BenchArgs),
    /// Benchmark operator-gen against controller-gen side by side: the same synthetic API of N
    /// kinds in Go and Rust, both tools timed as processes, outputs compared.
    BenchGen(bench_gen::BenchGenArgs),
    /// Fuzz operator-gen: random mutations of the workspace's API sources, each run through the
    /// release `operator-gen all --out`; aborts, panics, hangs, unlocated errors and output
    /// touched by a failed run are failures, and their inputs are kept.
    FuzzGen(fuzz_gen::FuzzGenArgs),
    /// Regenerate operator-gen's table of Kubernetes type schemas (every type of the pinned
    /// k8s-openapi) from controller-gen and the Go sources of k8s.io/api and its siblings.
    KnownTypes,
    /// The last step of `cargo xtask test` on its own: package the publishable crates, serve
    /// them from a registry on the local disk (beside crates.io), install cargo-operator
    /// from it, scaffold a project and run its `cargo xtask test` (on the control plane, which
    /// it starts unless one is up).
    ScaffoldTest,
    /// operator-rs and kopium side by side on the CRD corpus: per CRD, what each keeps of the
    /// original schemas (validations, enums, CEL rules, defaults, descriptions, list and map
    /// types) after its own round trip; kopium is installed from crates.io on first use.
    BesideKopium,
}

fn main() -> ExitCode {
    report(match Cli::parse().command {
        // Here the test run also scaffolds a new project and runs its own tests, on the same
        // control plane.
        Cmd::Standard(Standard::Test {
            strict_rbac,
            lanes,
            test_args,
        }) => test::test(
            &test::Options {
                extra: test_args,
                strict_rbac,
                lanes: lanes.into(),
            },
            scaffold::fresh_project_passes_its_tests,
        ),
        Cmd::Standard(command) => operator_xtask_cluster::run(command),
        Cmd::BenchOperator(args) => bench::bench(&args),
        Cmd::BenchGen(args) => bench_gen::bench_gen(&args).map(|()| ExitCode::SUCCESS),
        Cmd::FuzzGen(args) => fuzz_gen::fuzz_gen(&args).map(|()| ExitCode::SUCCESS),
        Cmd::KnownTypes => known_types::known_types().map(|()| ExitCode::SUCCESS),
        Cmd::ScaffoldTest => scaffold::on_its_own().map(|()| ExitCode::SUCCESS),
        Cmd::BesideKopium => beside_kopium::beside_kopium().map(|()| ExitCode::SUCCESS),
    })
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory as _;

    /// This binary has the standard commands and exactly the extra ones the front end hands
    /// over.
    #[test]
    fn the_front_end_forwards_exactly_these_commands() {
        let standard = operator_xtask_cluster::standard_commands();
        let mut extra: Vec<String> = super::Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .filter(|name| name != "help" && name != "manifests" && !standard.contains(name))
            .collect();
        let mut forwarded: Vec<String> = super::extra::EXTRA
            .iter()
            .map(|(name, _)| name.to_string())
            .collect();
        extra.sort();
        forwarded.sort();
        assert_eq!(extra, forwarded);
        assert_eq!(standard.len(), operator_xtask::CLUSTER_COMMANDS.len());
    }
}
