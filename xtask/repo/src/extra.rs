//! This repository's own cluster commands (shared by the two binaries, which test that they agree).

/// What `repo-xtask-cluster` runs beyond the standard commands.
pub const EXTRA: &[(&str, &str)] = &[
    (
        "bench-operator",
        "Benchmark the operator on the cluster: N Memcacheds created at once",
    ),
    (
        "bench-gen",
        "Benchmark operator-gen against controller-gen side by side",
    ),
    (
        "fuzz-gen",
        "Fuzz operator-gen with random mutations of the workspace's API sources",
    ),
    (
        "scaffold-test",
        "The last step of cargo xtask test alone: a project from the packaged crates, tested",
    ),
    (
        "known-types",
        "Regenerate operator-gen's table of Kubernetes type schemas from controller-gen",
    ),
    (
        "beside-kopium",
        "operator-rs and kopium side by side on the CRD corpus: what each keeps of each CRD",
    ),
];
