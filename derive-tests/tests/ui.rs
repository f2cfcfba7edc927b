//! Compile-time behaviour of the derives: one file per error message, grouped by topic
//! (`tests/ui/<topic>/`), with the exact compiler output next to it. `pass/` must compile
//! and run. Regenerate outputs with `TRYBUILD=overwrite cargo test -p operator-derive-tests --test ui`;
//! run some cases with `cargo test -p operator-derive-tests --test ui -- ui trybuild=<part of the name>`.
//!
//! trybuild runs in a child of this test, whose `CARGO` is `src/bin/trybuild-cargo.rs`: that
//! gives trybuild's two builds of the project the same rustflags, so the project's
//! dependencies are compiled once, and the cheap profile of the crates the other tests build
//! outside the workspace (see the binary's documentation).

use std::process::{Command, Stdio};

/// Set in the child, which runs the cases.
const CHILD: &str = "OPERATOR_DERIVE_UI_CHILD";

#[test]
fn ui() {
    if std::env::var_os(CHILD).is_some() {
        let t = trybuild::TestCases::new();
        t.pass("tests/ui/pass/*.rs");
        t.compile_fail("tests/ui/validation/*.rs");
        t.compile_fail("tests/ui/schema/*.rs");
        t.compile_fail("tests/ui/resource/*.rs");
        t.compile_fail("tests/ui/rbac/*.rs");
        t.compile_fail("tests/ui/webhook/*.rs");
        return;
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // trybuild's own filter (`trybuild=<part of a file name>`) goes to the child.
    let filters = std::env::args().filter(|a| a.starts_with("trybuild="));
    // trybuild reports on standard error, shown as it comes; the child's own test summary
    // (standard output) goes into this test's output, so a run lists the UI test once.
    let child = Command::new(std::env::current_exe().expect("the test's own executable"))
        .args(["ui", "--exact", "--nocapture"])
        .args(filters)
        .env(CHILD, "1")
        .env("TRYBUILD_REAL_CARGO", cargo)
        .env(
            "TRYBUILD_CARGO_CONFIG",
            operator_gen_conformance::outside::profile_configs().join("\x1f"),
        )
        .env("CARGO", env!("CARGO_BIN_EXE_trybuild-cargo"))
        .stderr(Stdio::inherit())
        .output()
        .expect("running the UI cases in a child of this test");
    print!("{}", String::from_utf8_lossy(&child.stdout));
    assert!(child.status.success(), "the UI cases failed (above)");
}
