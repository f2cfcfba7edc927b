//! Compile-time behaviour of the derives: one file per error message, grouped by topic
//! (`tests/ui/<topic>/`), with the exact compiler output next to it. `pass/` must compile
//! and run. Regenerate outputs with `TRYBUILD=overwrite cargo test -p operator-derive-tests --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/validation/*.rs");
    t.compile_fail("tests/ui/schema/*.rs");
    t.compile_fail("tests/ui/resource/*.rs");
    t.compile_fail("tests/ui/rbac/*.rs");
    t.compile_fail("tests/ui/webhook/*.rs");
}
