//! The standard cluster commands of `cargo xtask` (envtest, install, uninstall, run, test, ...)
//! as a project's cluster binary runs them; this crate's own command-line tests run it.

fn main() -> std::process::ExitCode {
    operator_xtask_cluster::main()
}
