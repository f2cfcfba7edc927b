//! The end of this repository's `cargo xtask test`: a new project made as the README says
//! (`cargo operator init`, then `create api` for a namespaced kind, a second version of it and
//! a cluster-scoped kind in another group, and `create webhook` for the first), whose own `cargo xtask manifests` and `cargo xtask
//! test` must pass on the control plane that is up. It shares this workspace's target
//! directory and lock file, so it builds the project's own crates, not a second world.

use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use operator_xtask::{cargo, root, run_step, target_dir};
use operator_xtask_cluster::cluster::{self, TestPlane};

pub fn fresh_project_passes_its_tests(_plane: &TestPlane) -> Result<()> {
    let root = root();
    run_step(
        "build cargo-operator",
        cargo().args(["build", "--quiet", "--package", "cargo-operator"]),
    )?;
    let target = target_dir()?;
    let scaffolder = target.join("debug").join("cargo-operator");
    let scratch = tempfile::tempdir().context("a temporary directory")?;
    let project = scratch.path().join("guestbook-operator");

    let started = Instant::now();
    run_step(
        "cargo operator init (in a temporary directory)",
        Command::new(&scaffolder)
            .args(["operator", "init"])
            .arg(&project)
            .args(["--domain", "example.com", "--operator-rs-path"])
            .arg(&root),
    )?;
    for api in cargo_operator::EXAMPLE_APIS {
        run_step(
            &format!("cargo operator create api {}", api.join(" ")),
            Command::new(&scaffolder)
                .args(["operator", "create", "api"])
                .args(*api)
                .current_dir(&project),
        )?;
    }
    for webhook in cargo_operator::EXAMPLE_WEBHOOKS {
        run_step(
            &format!("cargo operator create webhook {}", webhook.join(" ")),
            Command::new(&scaffolder)
                .args(["operator", "create", "webhook"])
                .args(*webhook)
                .current_dir(&project),
        )?;
    }
    let scaffolded = started.elapsed();
    // The same dependency versions as this workspace, so their builds are shared.
    std::fs::copy(root.join("Cargo.lock"), project.join("Cargo.lock"))
        .context("copying Cargo.lock")?;

    let in_project = |args: &[&str]| {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        operator_xtask::as_if_typed(&mut cmd);
        cmd.args(args)
            .current_dir(&project)
            .env("CARGO_TARGET_DIR", &target)
            .env("ENVTEST_STATE_DIR", cluster::state_dir());
        cmd
    };
    let started = Instant::now();
    run_step(
        "the new project's cargo xtask manifests --check",
        &mut in_project(&["xtask", "manifests", "--check"]),
    )?;
    let manifests = started.elapsed();
    let started = Instant::now();
    eprintln!("==> the new project's cargo xtask test");
    let output = passed_through(in_project(&["xtask", "test"]))?;
    let tested = started.elapsed();
    // Its controllers' cluster tests ran (not skipped) and passed.
    for test in [
        "a_new_guestbook_becomes_ready_and_its_deletion_completes",
        "a_new_backup_becomes_ready_and_its_deletion_completes",
        "the_api_server_calls_the_webhooks",
    ] {
        if !output
            .lines()
            .any(|l| l.starts_with(&format!("test {test} ... ok")))
        {
            bail!("the new project's cargo xtask test did not run {test}");
        }
    }
    eprintln!(
        "scaffold: init + {} create api + {} create webhook in {:.2}s; its cargo xtask \
         manifests --check {:.1}s, cargo xtask test {:.0}s",
        cargo_operator::EXAMPLE_APIS.len(),
        cargo_operator::EXAMPLE_WEBHOOKS.len(),
        scaffolded.as_secs_f64(),
        manifests.as_secs_f64(),
        tested.as_secs_f64()
    );
    Ok(())
}

/// Runs `cmd`, its standard output shown as it comes and returned; fails if it fails.
fn passed_through(mut cmd: Command) -> Result<String> {
    use std::io::{BufRead as _, BufReader};
    let mut child = cmd
        .stdout(Stdio::piped())
        .spawn()
        .context("starting cargo")?;
    let mut seen = String::new();
    for line in BufReader::new(child.stdout.take().context("cargo's output")?).lines() {
        let line = line.context("reading cargo's output")?;
        println!("{line}");
        seen.push_str(&line);
        seen.push('\n');
    }
    let status = child.wait().context("waiting for cargo")?;
    if !status.success() {
        bail!("the new project's cargo xtask test failed ({status})");
    }
    Ok(seen)
}
