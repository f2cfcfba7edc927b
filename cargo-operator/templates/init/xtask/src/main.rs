//! `cargo xtask <command>`: `manifests` runs here (operator-gen and little else); every other
//! command runs in `xtask-cluster`, which cargo builds the first time one is used.

fn main() -> std::process::ExitCode {
    operator_xtask::Xtask {
        cluster_package: "xtask-cluster",
        cluster_bin: "xtask-cluster",
        extra: &[],
    }
    .main()
}
