//! The cluster commands of `cargo xtask`: envtest, install, uninstall, run and test.

fn main() -> std::process::ExitCode {
    operator_xtask_cluster::main()
}
