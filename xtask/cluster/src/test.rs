//! `cargo xtask test`: kubebuilder's `make test`, cluster tests included.

use std::process::ExitCode;

use anyhow::{Result, bail};

use operator_xtask::{cargo, manifests, run_step};

use crate::cluster::{self, TestPlane};

/// Runs every check and test; `more` runs on the control plane after the project's own tests
/// passed (this repository proves a fresh scaffold there).
pub fn test(extra: &[String], more: impl FnOnce(&TestPlane) -> Result<()>) -> Result<ExitCode> {
    run_step("cargo fmt --check", cargo().args(["fmt", "--check"]))?;
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
    if manifests::manifests(true)? != ExitCode::SUCCESS {
        bail!("cargo xtask manifests --check failed");
    }
    // Compile everything before the control plane starts, so a compile error does not wait for
    // it, and the plane does not sit idle through a long build.
    run_step(
        "cargo test --no-run",
        cargo().args(["test", "--workspace", "--all-targets", "--no-run"]),
    )?;
    eprintln!("==> envtest up");
    let plane = cluster::test_plane_up()?;
    // Cluster tests are #[ignore]d for plain `cargo test`; here they run too.
    let tests = run_step(
        "cargo test (cluster tests included)",
        cluster::with_kubeconfig(&mut cargo(), &plane)
            .args(["test", "--workspace", "--all-targets"])
            .args(["--", "--include-ignored"])
            .args(extra),
    );
    let doc_tests = tests.as_ref().ok().map(|_| {
        run_step(
            "cargo test --doc",
            cargo().args(["test", "--workspace", "--doc"]),
        )
    });
    let more = match (&tests, &doc_tests) {
        (Ok(()), Some(Ok(()))) => Some(more(&plane)),
        _ => None,
    };
    eprintln!("==> envtest down");
    let down = plane.down();
    tests?;
    if let Some(doc_tests) = doc_tests {
        doc_tests?;
    }
    if let Some(more) = more {
        more?;
    }
    down?;
    eprintln!("all tests passed");
    Ok(ExitCode::SUCCESS)
}
