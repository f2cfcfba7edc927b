//! `cargo xtask <command>`: the project's Makefile targets (kubebuilder's `make manifests`,
//! `make install`, `make run`, `make test`, ...) and the local control plane, written in Rust so
//! they run wherever cargo does.
//!
//! This binary is the lean half: it runs `manifests` itself (operator-gen and little else) and
//! hands every other command, arguments untouched, to `xtask-cluster`, which cargo builds the
//! first time one of them runs.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use xtask::{CLUSTER_COMMANDS as FORWARDED, cargo, manifests};

#[derive(Parser, Debug)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    about = "Project commands (kubebuilder's Makefile targets)",
    after_help = "Every command but `manifests` is built on its first use (kube, tokio and the \
                  control plane's code: a few minutes on two cores). `cargo xtask <command> \
                  --help` shows its options."
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

/// A command of `xtask-cluster`: its arguments are its own, `--help` included.
#[derive(clap::Args, Debug)]
#[command(disable_help_flag = true)]
struct Forwarded {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    args: Vec<OsString>,
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
    /// The local control plane (up, down, status, env): etcd, kube-apiserver,
    /// kube-controller-manager, kube-scheduler and kwok, built from Go modules on first use.
    Envtest(Forwarded),
    /// Server-side apply config/crd/bases/*.yaml and wait until each CRD is Established
    /// (make install).
    Install(Forwarded),
    /// Delete the CRDs of config/crd/bases, and with them every object of their kinds
    /// (make uninstall).
    Uninstall(Forwarded),
    /// Install the CRDs, then build and run the operator out of cluster against the current
    /// kubeconfig (make run).
    Run(Forwarded),
    /// Every check and test: formatting, clippy, manifests --check, then the whole cargo test
    /// suite including the cluster tests, on the local control plane (make test).
    Test(Forwarded),
    /// Benchmark the operator on the cluster: N Memcacheds created at once.
    BenchOperator(Forwarded),
    /// Benchmark operator-gen against controller-gen side by side.
    BenchGen(Forwarded),
    /// Regenerate operator-gen's table of Kubernetes type schemas from controller-gen.
    KnownTypes(Forwarded),
}

/// `Some((command, its arguments))` when `args` (without the program name) are for
/// `xtask-cluster`.
fn forwarded(args: &[OsString]) -> Option<(&'static str, Vec<OsString>)> {
    let first = args.first()?.to_str()?;
    let name = FORWARDED.iter().find(|name| **name == first)?;
    Some((name, args[1..].to_vec()))
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if let Some((name, args)) = forwarded(&args) {
        return forward(name, args);
    }
    // `manifests`, help, and mistakes (which clap reports with the list of commands).
    let Cmd::Manifests { check } = Cli::parse().command else {
        unreachable!("every other command is forwarded above")
    };
    match manifests::manifests(check) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs `xtask-cluster <name> <args>` through cargo, which builds it when needed. The first
/// build shows cargo's progress; later ones are quiet.
fn forward(name: &str, args: Vec<OsString>) -> ExitCode {
    let built = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("xtask-cluster")))
        .is_some_and(|bin| bin.is_file());
    let mut cmd = cargo();
    cmd.arg("run");
    if built {
        cmd.arg("--quiet");
    } else {
        eprintln!(
            "==> building the cluster commands on first use (kube, tokio and the control \
             plane's code; a few minutes on two cores)"
        );
    }
    cmd.args(["--package", "xtask-cluster", "--"])
        .arg(name)
        .args(args);
    match cmd.status() {
        Ok(status) if status.success() => ExitCode::SUCCESS,
        Ok(status) => ExitCode::from(status.code().map_or(1, |c| c.clamp(1, 255) as u8)),
        Err(err) => {
            eprintln!("error: cannot start cargo to run `xtask-cluster {name}`: {err}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handed_over(args: &[&str]) -> (&'static str, Vec<String>) {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let (name, args) = forwarded(&args).unwrap();
        (
            name,
            args.into_iter().map(|a| a.into_string().unwrap()).collect(),
        )
    }

    #[test]
    fn other_commands_are_handed_over_with_their_arguments_untouched() {
        assert_eq!(
            handed_over(&["test", "--", "lifecycle"]),
            ("test", vec!["--".into(), "lifecycle".into()])
        );
        assert_eq!(
            handed_over(&["install", "--help"]),
            ("install", vec!["--help".into()])
        );
        assert_eq!(
            handed_over(&["run", "--kubeconfig", "k", "--", "--log-format=json"]),
            (
                "run",
                vec![
                    "--kubeconfig".into(),
                    "k".into(),
                    "--".into(),
                    "--log-format=json".into()
                ]
            )
        );
        assert_eq!(
            handed_over(&["envtest", "up"]),
            ("envtest", vec!["up".into()])
        );
        assert!(forwarded(&["manifests".into(), "--check".into()]).is_none());
        assert!(forwarded(&["--help".into()]).is_none());
        assert!(Cli::try_parse_from(["xtask", "manifests", "--check"]).is_ok());
        assert!(Cli::try_parse_from(["xtask", "manifest"]).is_err());
        // Every command the help lists is either run here or handed over.
        for sub in <Cli as clap::CommandFactory>::command().get_subcommands() {
            let name = sub.get_name();
            assert!(
                name == "manifests" || FORWARDED.contains(&name),
                "{name} is neither run nor handed over"
            );
        }
    }
}
