//! The cluster tests (the `#[ignore]`d), one workspace package per lane, three lanes at a time.
//!
//! `cargo test -- --ignored` runs the test binaries one after another, and most of a cluster
//! test's time is spent waiting: on the API server, on the controllers, on a lease to expire.
//! Here the binaries cargo built (`cargo test --no-run`, so nothing is compiled twice and the
//! features are the workspace's) are run directly, each with the working directory and the
//! `CARGO_*` variables `cargo test` gives it, a package at a time in each lane: the
//! binaries of one package still run one after another, as `go test ./...` runs the tests of
//! one package together and the packages side by side. Tests of different packages share the
//! control plane at the same moment, as the tests inside one binary always did: each works in
//! namespaces and objects of its own. `--lanes 1` runs them one after another.
//!
//! Three lanes by default, on two cores too: what waits leaves the cores to what compiles. On
//! this repository's suite (2 cores), the cluster tests took 10m56s one binary after another,
//! 7m21s in two lanes and 6m32s in three; the machine was then busy nearly every second.
//!
//! Each lane's output goes to a log file; each binary's result line is echoed, marked with its
//! lane, with the whole output of a binary that fails. After a failure no new binary starts
//! (cargo test stops at the first failing binary too); those running finish.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context as _, Result, bail};

use operator_xtask::cargo;

use super::beside::{Header, run_logged};

/// One test binary as cargo built it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binary {
    /// The package's name and version.
    pub package: String,
    pub version: String,
    /// The package's `Cargo.toml`.
    pub manifest: PathBuf,
    /// How cargo test names it: `unittests src/lib.rs`, `tests/operator.rs`.
    pub name: String,
    pub executable: PathBuf,
    /// The crate's name (`CARGO_CRATE_NAME`).
    pub crate_name: String,
}

impl Binary {
    fn dir(&self) -> &Path {
        self.manifest.parent().unwrap_or(Path::new("."))
    }

    /// The line cargo test prints before a binary's output.
    fn running(&self, root: &Path) -> String {
        let exe = self
            .executable
            .strip_prefix(root)
            .unwrap_or(&self.executable);
        format!("     Running {} ({})", self.name, exe.display())
    }

    /// The binary with what `cargo test` sets for it; `args` after `--ignored`.
    fn command(&self, args: &[String]) -> Command {
        let mut cmd = Command::new(&self.executable);
        operator_xtask::as_if_typed(&mut cmd)
            .arg("--ignored")
            .args(args)
            .current_dir(self.dir())
            .env("CARGO_MANIFEST_DIR", self.dir())
            .env("CARGO_MANIFEST_PATH", &self.manifest)
            .env("CARGO_PKG_NAME", &self.package)
            .env("CARGO_PKG_VERSION", &self.version)
            .env("CARGO_CRATE_NAME", &self.crate_name)
            .stdin(Stdio::null());
        cmd
    }
}

/// The test binaries `cargo test --workspace --all-targets` runs, from one line of its
/// `--message-format=json` output each (other lines give `None`).
pub fn binary_of(line: &str) -> Result<Option<Binary>> {
    let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
        return Ok(None);
    };
    if message["reason"] != "compiler-artifact" || message["profile"]["test"] != true {
        return Ok(None);
    }
    let Some(executable) = message["executable"].as_str() else {
        return Ok(None);
    };
    let field = |value: &serde_json::Value, what: &str| -> Result<String> {
        value
            .as_str()
            .map(str::to_string)
            .with_context(|| format!("cargo's artifact message has no {what}: {line}"))
    };
    let manifest = PathBuf::from(field(&message["manifest_path"], "manifest_path")?);
    let target = &message["target"];
    let src = PathBuf::from(field(&target["src_path"], "target.src_path")?);
    let dir = manifest.parent().unwrap_or(Path::new("/"));
    let src = src.strip_prefix(dir).unwrap_or(&src).display().to_string();
    let kinds: Vec<&str> = target["kind"]
        .as_array()
        .map(|k| k.iter().filter_map(|k| k.as_str()).collect())
        .unwrap_or_default();
    // cargo test's names: integration tests and benches by their file, the rest as unit tests.
    let name = if kinds.iter().any(|k| matches!(*k, "test" | "bench")) {
        src
    } else {
        format!("unittests {src}")
    };
    // `path+file:///work/main/memcached#0.1.0` or `...#name@0.1.0`.
    let id = field(&message["package_id"], "package_id")?;
    let version = id
        .rsplit_once(['#', '@'])
        .map(|(_, v)| v.to_string())
        .unwrap_or_default();
    let package = match id.rsplit_once('#').map(|(_, rest)| rest) {
        Some(rest) if rest.contains('@') => rest.split('@').next().unwrap_or(rest).to_string(),
        _ => dir
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned()),
    };
    Ok(Some(Binary {
        package,
        version,
        manifest,
        name,
        executable: PathBuf::from(executable),
        crate_name: field(&target["name"], "target.name")?.replace('-', "_"),
    }))
}

/// The binaries cargo built for `cargo test --workspace --all-targets` (building what is not
/// built yet, with its progress on the terminal).
pub fn binaries() -> Result<Vec<Binary>> {
    let output = cargo()
        .args([
            "test",
            "--workspace",
            "--all-targets",
            "--no-run",
            "--message-format=json-render-diagnostics",
        ])
        .stderr(Stdio::inherit())
        .output()
        .context("starting cargo test --no-run")?;
    if !output.status.success() {
        bail!("cargo test --no-run failed ({})", output.status);
    }
    let mut found = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        if let Some(binary) = binary_of(line)? {
            found.push(binary);
        }
    }
    Ok(found)
}

/// The binaries by package, packages in name order, each package's binaries as cargo test
/// runs them (unit tests first, then by name).
pub fn by_package(mut binaries: Vec<Binary>) -> Vec<Vec<Binary>> {
    binaries.sort_by(|a, b| {
        (&a.package, !a.name.starts_with("unittests"), &a.name).cmp(&(
            &b.package,
            !b.name.starts_with("unittests"),
            &b.name,
        ))
    });
    binaries.dedup_by(|a, b| a.executable == b.executable);
    let mut packages: Vec<Vec<Binary>> = Vec::new();
    for binary in binaries {
        match packages.last_mut() {
            Some(last) if last[0].manifest == binary.manifest => last.push(binary),
            _ => packages.push(vec![binary]),
        }
    }
    packages
}

/// Runs `packages` in `lanes` lanes, each binary as `<binary> --ignored <args>` after
/// `on_the_plane` gave it what it needs of the control plane, lane `n`'s output in `log(n)`.
/// Fails when a binary fails, naming them all.
pub fn run(
    packages: Vec<Vec<Binary>>,
    lanes: usize,
    args: &[String],
    on_the_plane: impl Fn(&mut Command) + Sync,
    root: &Path,
    log: impl Fn(usize) -> PathBuf + Sync,
) -> Result<()> {
    let lanes = lanes.clamp(1, packages.len().max(1));
    let queue = Mutex::new(VecDeque::from(packages));
    let failed = AtomicBool::new(false);
    let failures = Mutex::new(Vec::<String>::new());
    std::thread::scope(|scope| {
        for lane in 1..=lanes {
            let (queue, failed, failures, log, on_the_plane) =
                (&queue, &failed, &failures, &log, &on_the_plane);
            scope.spawn(move || {
                let mark = if lanes == 1 {
                    "[cluster tests]".to_string()
                } else {
                    format!("[cluster tests {lane}/{lanes}]")
                };
                let log = log(lane);
                let mut first = true;
                while let Some(package) = queue.lock().map(|mut q| q.pop_front()).ok().flatten() {
                    for binary in package {
                        if failed.load(Ordering::SeqCst) {
                            return;
                        }
                        let running = binary.running(root);
                        let mut cmd = binary.command(args);
                        on_the_plane(&mut cmd);
                        let what = format!("{} ({})", binary.name, binary.package);
                        let header = Header {
                            mark: &mark,
                            line: Some(running.as_str()),
                        };
                        if let Err(err) = run_logged(&what, &mut cmd, &log, !first, &header) {
                            eprintln!("{mark} error: {err:#}");
                            failed.store(true, Ordering::SeqCst);
                            if let Ok(mut failures) = failures.lock() {
                                failures.push(what);
                            }
                        }
                        first = false;
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap_or_default();
    if !failures.is_empty() {
        bail!(
            "cluster tests failed: {} (the lanes' logs hold their whole output)",
            failures.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/memcached#0.1.0","manifest_path":"/w/memcached/Cargo.toml","target":{"kind":["lib"],"crate_types":["lib"],"name":"memcached","src_path":"/w/memcached/src/lib.rs","edition":"2024","doc":true,"doctest":true,"test":true},"profile":{"opt_level":"0","debuginfo":1,"debug_assertions":true,"overflow_checks":true,"test":true},"features":[],"filenames":["/w/target/debug/deps/memcached-1"],"executable":"/w/target/debug/deps/memcached-1","fresh":true}"#;
    const TEST: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/xtask/cluster#operator-xtask-cluster@0.1.0","manifest_path":"/w/xtask/cluster/Cargo.toml","target":{"kind":["test"],"crate_types":["bin"],"name":"deploy","src_path":"/w/xtask/cluster/tests/deploy.rs","edition":"2024","doc":false,"doctest":false,"test":true},"profile":{"opt_level":"0","debuginfo":1,"debug_assertions":true,"overflow_checks":true,"test":true},"features":[],"filenames":["/w/target/debug/deps/deploy-2"],"executable":"/w/target/debug/deps/deploy-2","fresh":true}"#;
    /// The library built for others (not a test): no binary to run.
    const NOT_A_TEST: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///w/memcached#0.1.0","manifest_path":"/w/memcached/Cargo.toml","target":{"kind":["lib"],"name":"memcached","src_path":"/w/memcached/src/lib.rs"},"profile":{"test":false},"filenames":["/w/target/debug/libmemcached.rlib"],"executable":null,"fresh":true}"#;

    #[test]
    fn test_binaries_are_read_from_cargos_artifact_messages() {
        let lib = binary_of(LIB).unwrap().unwrap();
        assert_eq!(
            lib,
            Binary {
                package: "memcached".into(),
                version: "0.1.0".into(),
                manifest: "/w/memcached/Cargo.toml".into(),
                name: "unittests src/lib.rs".into(),
                executable: "/w/target/debug/deps/memcached-1".into(),
                crate_name: "memcached".into(),
            }
        );
        assert_eq!(
            lib.running(Path::new("/w")),
            "     Running unittests src/lib.rs (target/debug/deps/memcached-1)"
        );
        let test = binary_of(TEST).unwrap().unwrap();
        assert_eq!(
            (&*test.package, &*test.version, &*test.name),
            ("operator-xtask-cluster", "0.1.0", "tests/deploy.rs")
        );
        assert_eq!(binary_of(NOT_A_TEST).unwrap(), None);
        assert_eq!(binary_of("   Compiling memcached v0.1.0").unwrap(), None);
        assert_eq!(
            binary_of(r#"{"reason":"build-finished","success":true}"#).unwrap(),
            None
        );
    }

    fn binary(package: &str, name: &str, executable: &Path) -> Binary {
        Binary {
            package: package.into(),
            version: "0.1.0".into(),
            manifest: executable
                .parent()
                .unwrap()
                .join(package)
                .join("Cargo.toml"),
            name: name.into(),
            executable: executable.into(),
            crate_name: package.replace('-', "_"),
        }
    }

    #[test]
    fn packages_in_name_order_unit_tests_first() {
        let b = |p: &str, n: &str| {
            let exe = format!("{p}-{}", n.replace(['/', ' '], "_"));
            binary(p, n, &Path::new("/t").join(exe))
        };
        let packages = by_package(vec![
            b("memcached", "tests/operator.rs"),
            b("conformance", "tests/parity.rs"),
            b("memcached", "unittests src/lib.rs"),
            b("memcached", "tests/cluster.rs"),
            b("conformance", "tests/parity.rs"),
        ]);
        let names: Vec<Vec<String>> = packages
            .iter()
            .map(|p| {
                p.iter()
                    .map(|b| format!("{} {}", b.package, b.name))
                    .collect()
            })
            .collect();
        assert_eq!(
            names,
            [
                vec!["conformance tests/parity.rs"],
                vec![
                    "memcached unittests src/lib.rs",
                    "memcached tests/cluster.rs",
                    "memcached tests/operator.rs"
                ],
            ]
        );
    }

    /// A shell script standing in for a test binary: notes its start in `trace`, waits until
    /// `trace` holds the line `after` (up to 20 s), then `secs`, prints what libtest prints
    /// and notes its end.
    fn script(dir: &Path, name: &str, after: &str, secs: f64, pass: bool, trace: &Path) -> PathBuf {
        let path = dir.join(name);
        let result = if pass { "ok" } else { "FAILED" };
        let (trace, code) = (trace.display(), if pass { 0 } else { 101 });
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh
echo \"start {name} $CARGO_PKG_NAME $1 $2 $(pwd)\" >> {trace}\n\
                 n=0; while [ -n '{after}' ] && ! grep -qx '{after}' {trace} && [ $n -lt 400 ]; \
                 do sleep 0.05; n=$((n+1)); done\n\
                 sleep {secs}\necho 'running 1 test'\necho 'test t ... {result}'\n\
                 echo 'test result: {result}. 1 passed; 0 failed'\n\
                 echo \"end {name}\" >> {trace}\nexit {code}\n",
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// A script's package, name, the trace line it waits for, seconds and whether it passes.
    type Spec<'a> = (&'a str, &'a str, &'a str, f64, bool);

    /// One script per [`Spec`], grouped by package as given, each package with its directory
    /// under `dir`; the scripts note what they did in `dir/trace`.
    fn packages(dir: &Path, specs: &[Spec<'_>]) -> Vec<Vec<Binary>> {
        let trace = dir.join("trace");
        let mut packages: Vec<Vec<Binary>> = Vec::new();
        for &(package, name, after, secs, pass) in specs {
            std::fs::create_dir_all(dir.join(package)).unwrap();
            let exe = script(dir, name, after, secs, pass, &trace);
            let binary = binary(package, &format!("tests/{name}.rs"), &exe);
            match packages.last_mut() {
                Some(last) if last[0].package == package => last.push(binary),
                _ => packages.push(vec![binary]),
            }
        }
        packages
    }

    fn lines(trace: &Path) -> Vec<String> {
        std::fs::read_to_string(trace)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect()
    }

    /// Two packages run side by side, each package's binaries one after another, in the
    /// package's directory with its name, `--ignored` and the arguments given.
    #[test]
    fn packages_run_side_by_side_and_a_packages_binaries_in_turn() {
        let dir = tempfile::tempdir().unwrap();
        // a1 ends only once b1 started: with one package at a time it would wait 20 s.
        let packages = packages(
            dir.path(),
            &[
                ("a", "a1", "end b1", 0.0, true),
                ("a", "a2", "", 0.0, true),
                ("b", "b1", "", 0.0, true),
            ],
        );
        let logs = dir.path().join("logs");
        std::fs::create_dir_all(&logs).unwrap();
        run(
            packages,
            2,
            &["lifecycle".to_string()],
            |_| {},
            dir.path(),
            |lane| logs.join(format!("lane-{lane}.log")),
        )
        .unwrap();
        let trace = lines(&dir.path().join("trace"));
        let at = |what: &str| trace.iter().position(|l| l.starts_with(what)).unwrap();
        assert!(at("end b1") < at("end a1"), "{trace:?}");
        assert!(at("end a1") < at("start a2"), "{trace:?}");
        let a_dir = dir.path().join("a").display().to_string();
        assert_eq!(
            trace[at("start a1")],
            format!("start a1 a --ignored lifecycle {a_dir}")
        );
        // Package a's lane (whichever took it first) logged both its binaries, each under
        // the line cargo test prints.
        let lane_a = [1, 2]
            .map(|lane| std::fs::read_to_string(logs.join(format!("lane-{lane}.log"))).unwrap())
            .into_iter()
            .find(|log| log.contains("tests/a1.rs"))
            .unwrap();
        assert!(
            lane_a.contains("     Running tests/a1.rs (a1)\nrunning 1 test"),
            "{lane_a}"
        );
        assert!(lane_a.contains("Running tests/a2.rs (a2)"), "{lane_a}");
        assert!(!lane_a.contains("tests/b1.rs"), "{lane_a}");
    }

    /// A failing binary fails the run by name; no binary starts after it, while the one
    /// running beside it finishes.
    #[test]
    fn after_a_failure_no_new_binary_starts() {
        let dir = tempfile::tempdir().unwrap();
        // b1 ends a second after a1 failed, long after its lane saw the failure (it looks
        // every 250 ms).
        let packages = packages(
            dir.path(),
            &[
                ("a", "a1", "", 0.0, false),
                ("a", "a2", "", 0.0, true),
                ("b", "b1", "end a1", 1.0, true),
                ("c", "c1", "", 0.0, true),
            ],
        );
        let err = run(
            packages,
            2,
            &[],
            |_| {},
            dir.path(),
            |lane| dir.path().join(format!("lane-{lane}.log")),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "cluster tests failed: tests/a1.rs (a) (the lanes' logs hold their whole output)"
        );
        let trace = lines(&dir.path().join("trace"));
        assert!(trace.contains(&"end b1".to_string()), "{trace:?}");
        assert!(
            !trace
                .iter()
                .any(|l| l.starts_with("start a2") || l.starts_with("start c1")),
            "{trace:?}"
        );
    }
}
