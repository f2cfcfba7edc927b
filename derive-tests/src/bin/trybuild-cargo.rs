//! The `cargo` that `tests/ui.rs` gives trybuild (through the `CARGO` variable, which
//! trybuild reads), so that the UI project's dependencies are compiled once, not twice.
//!
//! trybuild passes its rustflags with `--config`: without `--diagnostic-width=140` when it
//! builds the project's dependencies, with it when it builds the cases. Cargo keeps a build
//! per set of rustflags, so every dependency of the project (k8s-openapi, kube's core,
//! serde, syn, ...) was compiled a second time for the cases. This adds the width where it
//! is missing, so both calls have the same flags, and runs the real cargo
//! (`TRYBUILD_REAL_CARGO`) with the arguments otherwise as they were. Rustc's messages are
//! unchanged: the cases are checked at the same width as before.
//!
//! trybuild writes no profiles into the project's manifest, so its dependencies were built
//! with cargo's default dev profile (full debug info, the generator under the derive
//! included). `TRYBUILD_CARGO_CONFIG` (settings separated by 0x1f) gives the profiles of the
//! crates the other tests build in the same target directory (unoptimised, no debug info),
//! and each goes to cargo as a `--config`. Its builds for the host, which trybuild's
//! rustflags do not reach, could then be theirs; they are not all, because the project's
//! garde and utoipa cases turn on more of syn 3's features for the host, so the derive and
//! the generator under it are still built once more here (17 and 22 s in one run).

use std::ffi::OsString;
use std::process::{Command, ExitCode};

/// The width trybuild gives rustc when it builds the cases.
const WIDTH: &str = "--diagnostic-width=140";

/// The variable naming the cargo to run.
const REAL_CARGO: &str = "TRYBUILD_REAL_CARGO";

/// The variable with the `--config` settings to add, separated by 0x1f.
const CONFIG: &str = "TRYBUILD_CARGO_CONFIG";

fn main() -> ExitCode {
    let Some(cargo) = std::env::var_os(REAL_CARGO) else {
        eprintln!(
            "trybuild-cargo: {REAL_CARGO} is not set (tests/ui.rs sets it to the cargo to run)"
        );
        return ExitCode::FAILURE;
    };
    let config = std::env::var(CONFIG).unwrap_or_default();
    let args = std::env::args_os()
        .skip(1)
        .map(|arg| match arg.to_str().and_then(with_width) {
            Some(changed) => OsString::from(changed),
            None => arg,
        });
    // Before the subcommand: cargo reads `--config` there whatever the subcommand.
    match Command::new(&cargo)
        .args(configs(&config))
        .args(args)
        .status()
    {
        Ok(status) => status
            .code()
            .and_then(|code| u8::try_from(code).ok())
            .map_or(ExitCode::FAILURE, ExitCode::from),
        Err(err) => {
            eprintln!("trybuild-cargo: running {}: {err}", cargo.to_string_lossy());
            ExitCode::FAILURE
        }
    }
}

/// The `--config=<setting>` arguments of [`CONFIG`]'s value.
fn configs(value: &str) -> Vec<String> {
    value
        .split('\x1f')
        .filter(|s| !s.is_empty())
        .map(|s| format!("--config={s}"))
        .collect()
}

/// `arg` with [`WIDTH`] added when it is a `--config=...rustflags=[...]` without a width;
/// `None` for every other argument.
fn with_width(arg: &str) -> Option<String> {
    let (key, flags) = arg.strip_prefix("--config=")?.split_once('=')?;
    if !key.ends_with("rustflags") || flags.contains("--diagnostic-width") {
        return None;
    }
    let inner = flags.trim_end().strip_suffix(']')?.trim_end();
    let separator = if inner.ends_with('[') { "" } else { ", " };
    Some(format!("--config={key}={inner}{separator}\"{WIDTH}\"]"))
}

#[cfg(test)]
mod tests {
    use super::{configs, with_width};

    #[test]
    fn each_setting_becomes_a_config_argument() {
        assert_eq!(
            configs("profile.dev.debug = false\x1fprofile.dev.package.\"*\".opt-level = 1"),
            [
                "--config=profile.dev.debug = false",
                "--config=profile.dev.package.\"*\".opt-level = 1"
            ]
        );
        assert!(configs("").is_empty());
    }

    #[test]
    fn the_width_is_added_to_rustflags_without_one() {
        assert_eq!(
            with_width(r#"--config=build.rustflags=["--cfg", "trybuild", "-A", "dead_code"]"#)
                .unwrap(),
            r#"--config=build.rustflags=["--cfg", "trybuild", "-A", "dead_code", "--diagnostic-width=140"]"#
        );
        assert_eq!(
            with_width(r#"--config=target.x86_64-unknown-linux-gnu.rustflags=[]"#).unwrap(),
            r#"--config=target.x86_64-unknown-linux-gnu.rustflags=["--diagnostic-width=140"]"#
        );
    }

    #[test]
    fn other_arguments_are_left_alone() {
        let with = r#"--config=build.rustflags=["--cfg", "trybuild", "--diagnostic-width=140"]"#;
        assert_eq!(with_width(with), None);
        assert_eq!(with_width("--config=net.offline=true"), None);
        assert_eq!(with_width("build"), None);
        assert_eq!(with_width("--bin"), None);
    }
}
