//! `cargo xtask <command>` of this repository: the standard commands of every project (see
//! `operator_xtask`) and the repository's own benchmarks and table generator, which
//! `operator-xtask-cluster` runs.

use std::process::ExitCode;

mod extra;

fn main() -> ExitCode {
    operator_xtask::Xtask {
        cluster_package: "operator-xtask-cluster",
        cluster_bin: "operator-xtask-cluster",
        extra: extra::EXTRA,
    }
    .main()
}
