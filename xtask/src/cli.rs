//! The lean `cargo xtask` front end: it runs `manifests` itself and hands every other command,
//! arguments untouched, to the project's cluster binary, which cargo builds the first time one
//! of them runs. A project's `xtask/src/main.rs` is one [`Xtask::main`] call.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Arg, ArgAction, Command, FromArgMatches as _, Parser, Subcommand};

use crate::baseline::Against;
use crate::{as_if_typed, cargo, manifests, root};

/// The commands every project's cluster binary runs (`operator_xtask_cluster::Standard`); the
/// front end hands them over with their arguments as written (clap would take a `--` of
/// theirs away), so only the name is looked at.
pub const CLUSTER_COMMANDS: &[&str] = &[
    "envtest",
    "install",
    "uninstall",
    "run",
    "test",
    "deploy",
    "undeploy",
    "image",
    "helm",
];

/// One project's `cargo xtask`: where its cluster commands are built from, and the commands of
/// its own beyond the standard ones.
#[derive(Debug, Clone, Copy)]
pub struct Xtask {
    /// The workspace package with the cluster binary (`xtask-cluster` in a scaffolded project).
    pub cluster_package: &'static str,
    /// That binary's name.
    pub cluster_bin: &'static str,
    /// The project's own cluster commands, each with its one-line help.
    pub extra: &'static [(&'static str, &'static str)],
}

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

/// A cluster command: its arguments are its own, `--help` included.
#[derive(clap::Args, Debug)]
#[command(disable_help_flag = true)]
struct Forwarded {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    _args: Vec<OsString>,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Regenerate config/crd/bases/*.yaml, config/rbac/role.yaml and
    /// config/webhook/manifests.yaml from the markers in the crates PROJECT.toml names (make
    /// manifests).
    ///
    /// Every run also compares the new CRDs with a baseline and refuses changes that break
    /// stored objects or clients, unless the root kind allows them with #[compat(allow =
    /// "<check>", path = "...", reason = "...")]. The baseline is the last release: the
    /// nearest git tag in HEAD's history matching PROJECT.toml's [compat] release-tags ("v*"
    /// by default). Before the first release the changes against the committed CRDs are
    /// shown as warnings, not refused; [compat] against = "<git ref>" | "HEAD" | "none"
    /// names another baseline. With --migrating (a move from kube-derive or another tool)
    /// only changes that lose data or refuse what the old CRD admitted are refused.
    Manifests {
        /// Write nothing; exit 1 with a diff when a committed manifest is stale.
        #[arg(long)]
        check: bool,
        /// Compare with the CRDs at this git ref (a release tag, a branch, HEAD) instead of
        /// the last release (or what [compat] against names).
        #[arg(long, value_name = "GIT_REF", conflicts_with_all = ["against_file", "against_cluster"])]
        against: Option<String>,
        /// Compare with the CRDs in this YAML file (`kubectl get crd -o yaml` output works).
        #[arg(long, value_name = "FILE", conflicts_with = "against_cluster")]
        against_file: Option<std::path::PathBuf>,
        /// Compare with the CRDs the cluster serves (the current kubeconfig's, as `install`
        /// finds it), with their status.storedVersions; builds the cluster commands on first
        /// use.
        #[arg(long)]
        against_cluster: bool,
        /// With --against-file (or --against): the baseline is the CRD another tool made
        /// (kube-derive's schemars, a Go project's controller-gen), and this is the move.
        /// The changes are sorted into those that lose data or refuse what the old CRD
        /// admitted, which fail the run unless allowed, and those that are stricter as the
        /// Rust type is, which are shown and pass.
        #[arg(long, conflicts_with = "against_cluster")]
        migrating: bool,
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
    /// Every check and test: formatting, clippy, manifests --check, the kustomize builds, the
    /// book and the API docs, then the whole cargo test suite including the cluster tests, on
    /// the local control plane (make test).
    Test(Forwarded),
    /// Render config/default with kustomize (the operator's image set), server-side apply it in
    /// dependency order and wait for the rollout (make deploy).
    Deploy(Forwarded),
    /// Delete everything `deploy` applied, and nothing else (make undeploy).
    Undeploy(Forwarded),
    /// Build the operator's container image without a container engine (static binary, one
    /// layer, OCI layout and archive under target/image/), optionally --push it
    /// (make docker-build docker-push).
    Image(Forwarded),
    /// Write a Helm chart (dist/chart) made from the rendered config/default; `--check` writes
    /// nothing and fails with a diff when it is stale.
    Helm(Forwarded),
}

impl Xtask {
    /// Parses the process's arguments and runs the command.
    pub fn main(&self) -> ExitCode {
        let args: Vec<OsString> = std::env::args_os().skip(1).collect();
        if let Some((name, args)) = self.forwarded(&args) {
            return self.forward(name, args);
        }
        // Reading a cluster needs kube: the cluster binary runs that `manifests`.
        if args.first().is_some_and(|a| a == "manifests")
            && args.iter().any(|a| a == "--against-cluster")
        {
            if args.iter().any(|a| a == "--migrating") {
                eprintln!(
                    "error: --migrating reads the other tool's CRDs from a file or a git ref, not \
                     a cluster: save them with `kubectl get crd <name> -o yaml > old.yaml` and \
                     pass --against-file old.yaml"
                );
                return ExitCode::FAILURE;
            }
            return self.forward("manifests", args[1..].to_vec());
        }
        // `manifests`, help, and mistakes (which clap reports with the list of commands).
        let matches = self.command().get_matches();
        let cli = match Cli::from_arg_matches(&matches) {
            Ok(cli) => cli,
            Err(err) => err.exit(),
        };
        let Cmd::Manifests {
            check,
            against,
            against_file,
            against_cluster,
            migrating,
        } = cli.command
        else {
            unreachable!("every other command is handed over above")
        };
        if migrating && against.is_none() && against_file.is_none() {
            eprintln!(
                "error: --migrating compares with the CRDs the other tool made: name them with \
                 --against-file <FILE> (`kubectl get crd <name> -o yaml > old.yaml` saves a \
                 cluster's) or --against <GIT_REF>"
            );
            return ExitCode::FAILURE;
        }
        let mode = if migrating {
            operator_gen::compat::Mode::Migration
        } else {
            operator_gen::compat::Mode::Release
        };
        let against = match (against, against_file, against_cluster) {
            (Some(rev), _, _) => Against::GitRef(rev),
            (_, Some(file), _) => Against::File(file),
            (_, _, true) => unreachable!("--against-cluster is handed to the cluster binary"),
            _ => Against::Project,
        };
        match manifests::manifests_judged(&crate::root(), check, &against, mode) {
            Ok(code) => code,
            Err(err) => {
                eprintln!("error: {err:#}");
                ExitCode::FAILURE
            }
        }
    }

    /// The command line, the project's own commands included (for help and mistakes).
    fn command(&self) -> Command {
        let mut command = <Cli as clap::CommandFactory>::command();
        for (name, about) in self.extra {
            command = command.subcommand(
                Command::new(*name)
                    .about(*about)
                    .disable_help_flag(true)
                    .arg(
                        Arg::new("args")
                            .action(ArgAction::Append)
                            .num_args(0..)
                            .trailing_var_arg(true)
                            .allow_hyphen_values(true)
                            .hide(true),
                    ),
            );
        }
        command
    }

    /// `Some((command, its arguments))` when `args` (without the program name) are for the
    /// cluster binary.
    fn forwarded(&self, args: &[OsString]) -> Option<(&'static str, Vec<OsString>)> {
        let first = args.first()?.to_str()?;
        let name = CLUSTER_COMMANDS
            .iter()
            .copied()
            .chain(self.extra.iter().map(|(name, _)| *name))
            .find(|name| *name == first)?;
        Some((name, args[1..].to_vec()))
    }

    /// Every command the cluster binary must run.
    pub fn cluster_commands(&self) -> Vec<&'static str> {
        CLUSTER_COMMANDS
            .iter()
            .copied()
            .chain(self.extra.iter().map(|(name, _)| *name))
            .collect()
    }

    /// Runs `<cluster_bin> <name> <args>`, built with every target of the workspace. Not
    /// `--quiet`: a rebuild after a change (or a dependency's) shows its progress instead of
    /// sitting silent for minutes.
    ///
    /// Why the whole workspace: cargo resolves a dependency's features over the packages and
    /// targets it builds, and a build is reused only with the same features. `cargo run
    /// --package <cluster package>` resolved them over that package alone, so the kube stack
    /// it built was not the one `cargo xtask test` (every target of the workspace) or `cargo
    /// xtask run` built: a new project's first `cargo xtask test` compiled it three times.
    /// `cargo build --workspace --all-targets` is what the tests build, so the cluster
    /// commands, the tests and the operator share one build of every dependency (clippy's
    /// check of them is the one other). When the workspace does not compile (an edit in
    /// progress), the cluster binary built before runs anyway; before the first build, it is
    /// built on its own.
    fn forward(&self, name: &str, args: Vec<OsString>) -> ExitCode {
        let binary = std::env::current_exe()
            .ok()
            .and_then(|exe| Some(exe.parent()?.join(self.cluster_bin)));
        let built = binary.as_ref().is_some_and(|bin| bin.is_file());
        if !built {
            eprintln!(
                "==> building the workspace for the cluster commands on first use (kube, tokio \
                 and the control plane's code, which the tests and the operator then reuse; a \
                 few minutes on two cores)"
            );
        }
        let workspace_built = cargo()
            .args(["build", "--workspace", "--all-targets"])
            .status()
            .is_ok_and(|status| status.success());
        let mut cmd = match &binary {
            Some(binary) if (workspace_built && binary.is_file()) || built => {
                if !workspace_built {
                    eprintln!(
                        "==> the workspace does not compile (above): `cargo xtask {name}` runs \
                         from the cluster binary built before"
                    );
                }
                let mut cmd = std::process::Command::new(binary);
                as_if_typed(&mut cmd).current_dir(root());
                cmd
            }
            _ => {
                eprintln!(
                    "==> the workspace does not compile (above): building the cluster commands \
                     on their own"
                );
                let mut cmd = cargo();
                cmd.args(["run", "--package", self.cluster_package]).args([
                    "--bin",
                    self.cluster_bin,
                    "--",
                ]);
                cmd
            }
        };
        cmd.arg(name).args(args);
        // This process becomes the cluster binary (or cargo, which execs it): Ctrl-C then
        // reaches the command itself, which may clean up before it ends
        // (`run` takes its webhook configurations down), and the terminal gets its prompt back
        // only when it is done. A process waiting here would die of the Ctrl-C first.
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt as _;
            let err = cmd.exec();
            eprintln!("error: cannot start `{} {name}`: {err}", self.cluster_bin);
            ExitCode::FAILURE
        }
        #[cfg(not(unix))]
        match cmd.status() {
            Ok(status) if status.success() => ExitCode::SUCCESS,
            Ok(status) => ExitCode::from(status.code().map_or(1, |c| c.clamp(1, 255) as u8)),
            Err(err) => {
                eprintln!("error: cannot start `{} {name}`: {err}", self.cluster_bin);
                ExitCode::FAILURE
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const OURS: Xtask = Xtask {
        cluster_package: "p",
        cluster_bin: "b",
        extra: &[("bench-gen", "Benchmark.")],
    };

    fn handed_over(args: &[&str]) -> (&'static str, Vec<String>) {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        let (name, args) = OURS.forwarded(&args).unwrap();
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
        assert_eq!(
            handed_over(&["bench-gen", "--kinds", "3"]),
            ("bench-gen", vec!["--kinds".into(), "3".into()])
        );
        assert!(
            OURS.forwarded(&["manifests".into(), "--check".into()])
                .is_none()
        );
        assert!(OURS.forwarded(&["--help".into()]).is_none());
        assert!(
            OURS.command()
                .try_get_matches_from(["xtask", "manifests", "--check"])
                .is_ok()
        );
        assert!(
            OURS.command()
                .try_get_matches_from(["xtask", "manifest"])
                .is_err()
        );
        // Every command the help lists is either run here or handed over.
        let listed: Vec<String> = OURS
            .command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        for name in &listed {
            assert!(
                name == "manifests" || OURS.cluster_commands().contains(&name.as_str()),
                "{name} is neither run nor handed over"
            );
        }
        assert!(listed.iter().any(|n| n == "bench-gen"), "{listed:?}");
    }
}
