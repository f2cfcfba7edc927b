//! `cargo xtask <command>`: the project's Makefile targets (kubebuilder's `make manifests`,
//! `make test`, ...), written in Rust so they run wherever cargo does.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context as _, Result, bail};
use clap::{Parser, Subcommand};
use operator_gen::{Layout, Options, output};

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
    /// Regenerate config/crd/bases/*.yaml and config/rbac/role.yaml from the markers in
    /// memcached/src (make manifests).
    Manifests {
        /// Write nothing; exit 1 with a diff when a committed manifest is stale.
        #[arg(long)]
        check: bool,
    },
    /// Run every check and test: formatting, clippy, manifests --check, cargo test (make test).
    Test {
        /// Extra arguments for `cargo test` (after `--`).
        #[arg(last = true)]
        cargo_test_args: Vec<String>,
    },
}

/// The workspace root (xtask lives one level below it).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is inside the workspace")
        .to_path_buf()
}

/// The sources `cargo xtask manifests` scans.
fn api_paths(root: &Path) -> Vec<PathBuf> {
    vec![root.join("memcached").join("src")]
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Manifests { check } => manifests(check),
        Cmd::Test { cargo_test_args } => test(&cargo_test_args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn manifests(check: bool) -> Result<ExitCode> {
    let root = root();
    // Paths in messages are relative to the workspace, like the compiler's.
    std::env::set_current_dir(&root).context("entering the workspace root")?;
    let paths: Vec<PathBuf> = api_paths(&root)
        .into_iter()
        .map(|p| p.strip_prefix(&root).map(Path::to_path_buf).unwrap_or(p))
        .collect();
    let generated = match operator_gen::generate(&paths, &Options::default()) {
        Ok(g) => g,
        Err(err) => {
            eprintln!("{err}");
            return Ok(ExitCode::FAILURE);
        }
    };
    let artifacts = generated.artifacts();
    let layout = Layout::kubebuilder(Path::new("config"));
    if check {
        let drift = output::check(&artifacts, &layout);
        if drift.is_empty() {
            eprintln!("manifests are up to date ({} files)", artifacts.len());
            return Ok(ExitCode::SUCCESS);
        }
        for d in &drift {
            eprintln!("{d}");
        }
        eprintln!("manifests are stale: run `cargo xtask manifests` and commit the result");
        return Ok(ExitCode::FAILURE);
    }
    let changed = output::write_all(&artifacts, &layout).context("writing manifests")?;
    if changed.is_empty() {
        eprintln!("manifests are up to date ({} files)", artifacts.len());
    }
    for path in changed {
        eprintln!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
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

fn test(extra: &[String]) -> Result<ExitCode> {
    run_step(
        "cargo fmt --check",
        cargo().args(["fmt", "--all", "--", "--check"]),
    )?;
    run_step(
        "cargo clippy",
        cargo().args([
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ]),
    )?;
    if manifests(true)? != ExitCode::SUCCESS {
        bail!("cargo xtask manifests --check failed");
    }
    run_step(
        "cargo test",
        cargo()
            .args(["test", "--workspace", "--all-targets"])
            .args(extra),
    )?;
    run_step(
        "cargo test --doc",
        cargo().args(["test", "--workspace", "--doc"]),
    )?;
    eprintln!("all tests passed");
    Ok(ExitCode::SUCCESS)
}
