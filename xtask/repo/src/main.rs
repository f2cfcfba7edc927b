//! `cargo xtask <command>` of this repository: the standard commands of every project (see
//! `operator_xtask`) and the repository's own benchmarks and table generator, which
//! `repo-xtask-cluster` (`xtask/repo/cluster`) runs.

use std::process::ExitCode;

mod extra;

fn main() -> ExitCode {
    operator_xtask::Xtask {
        cluster_package: "repo-xtask-cluster",
        cluster_bin: "repo-xtask-cluster",
        extra: extra::EXTRA,
    }
    .main()
}
