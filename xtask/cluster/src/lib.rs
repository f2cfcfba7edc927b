//! `cargo xtask` for operator projects, the cluster half: the local control plane (`envtest`),
//! `install`, `uninstall`, `run` and `test`, the commands that need kube, tokio and the
//! control plane's code. The lean front end (`operator-xtask`) hands them to a project's
//! cluster binary, whose `main` is one call:
//!
//! ```no_run
//! fn main() -> std::process::ExitCode {
//!     operator_xtask_cluster::main()
//! }
//! ```
//!
//! A project with commands of its own flattens [`Standard`] into its clap enum and calls
//! [`run`] for the standard ones.

pub mod cluster;
pub mod deploy;
pub mod helm;
pub mod image;
pub mod test;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// The commands every project has.
#[derive(Subcommand, Debug)]
pub enum Standard {
    /// The local control plane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler and
    /// kwok, built from Go modules on first use.
    Envtest {
        #[command(subcommand)]
        command: cluster::EnvtestCmd,
    },
    /// Server-side apply config/crd/bases/*.yaml and wait until each CRD is Established
    /// (make install); on the local control plane also the copies of other projects' CRDs in
    /// config/crd/external (from `cargo operator create api --external`).
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
    /// Every check and test: formatting, clippy, manifests --check, the kustomize builds, the
    /// book and the API docs, then the whole cargo test suite including the cluster tests, on
    /// the local control plane (started and stopped around the run unless one is already up)
    /// (make test).
    Test {
        /// Fail when the role grants something no test used (the audit log's report lists
        /// those grants either way).
        #[arg(long)]
        strict_rbac: bool,
        /// How many packages' cluster tests run at the same time on the control plane, each
        /// package's test binaries one after another (as `go test ./...` runs packages side by
        /// side); 1 runs every binary one after another.
        #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..))]
        lanes: u16,
        /// Arguments for the test binaries (after `--`), e.g. a name filter: `-- lifecycle`.
        #[arg(last = true)]
        test_args: Vec<String>,
    },
    /// Build the operator's container image without a container engine: the static release
    /// binary as the one layer, written as an OCI layout and a `docker load`-able archive under
    /// target/image/, optionally pushed to a registry (make docker-build docker-push).
    Image(image::ImageArgs),
    /// Render config/default with kustomize (the operator's image set), server-side apply it in
    /// dependency order and wait for the rollout (make deploy).
    Deploy(deploy::DeployArgs),
    /// Delete everything `deploy` applied, and nothing else (make undeploy).
    Undeploy(deploy::UndeployArgs),
    /// Write a Helm chart (dist/chart) made from the rendered config/default: the CRDs kept on
    /// uninstall, values for the image, replicas, resources, leader election, metrics,
    /// webhooks and cert-manager; `--check` writes nothing and fails when it is stale.
    Helm(helm::HelmArgs),
    /// `cargo xtask manifests --against-cluster`, which the lean front end hands over: the
    /// compatibility gate against the CRDs the cluster serves.
    #[command(hide = true)]
    Manifests {
        /// Write nothing; exit 1 with a diff when a committed manifest is stale.
        #[arg(long)]
        check: bool,
        /// Compare with the cluster's CRDs (the only baseline this command reads).
        #[arg(long, required = true)]
        against_cluster: bool,
        #[command(flatten)]
        target: cluster::Target,
    },
}

/// Runs one standard command.
pub fn run(command: Standard) -> Result<ExitCode> {
    match command {
        Standard::Envtest { command } => cluster::envtest(command),
        Standard::Install(target) => cluster::install(&target),
        Standard::Uninstall(target) => cluster::uninstall(&target),
        Standard::Run {
            target,
            operator_args,
        } => cluster::run(&target, &operator_args),
        Standard::Test {
            strict_rbac,
            lanes,
            test_args,
        } => test::test(
            &test::Options {
                extra: test_args,
                strict_rbac,
                lanes: lanes.into(),
            },
            |_| Ok(()),
        ),
        Standard::Image(args) => image::command(&args),
        Standard::Deploy(args) => deploy::deploy_command(&args),
        Standard::Undeploy(args) => deploy::undeploy_command(&args),
        Standard::Helm(args) => helm::command(&args),
        Standard::Manifests { check, target, .. } => cluster::manifests_against(check, &target),
    }
}

/// An error as `cargo xtask` prints it, and the exit code.
pub fn report(result: Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

#[derive(Parser, Debug)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "Project commands (kubebuilder's Makefile targets)"
)]
struct Cli {
    #[command(subcommand)]
    command: Standard,
}

/// The `main` of a project whose cluster commands are the standard ones.
pub fn main() -> ExitCode {
    report(run(Cli::parse().command))
}

/// The names of the standard commands (what the front end must hand over).
pub fn standard_commands() -> Vec<String> {
    use clap::CommandFactory as _;
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        // `manifests` is the front end's own; it hands it over only with --against-cluster.
        .filter(|name| name != "help" && name != "manifests")
        .collect()
}

#[cfg(test)]
mod tests {
    /// The front end hands over exactly the standard commands.
    #[test]
    fn the_front_end_forwards_exactly_these_commands() {
        let mut ours = super::standard_commands();
        ours.sort();
        let mut forwarded = operator_xtask::CLUSTER_COMMANDS.to_vec();
        forwarded.sort();
        assert_eq!(ours, forwarded);
    }
}
