//! `cargo xtask test`: kubebuilder's `make test`, cluster tests included.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};

use operator_xtask::{cargo, manifests, root, run_step, target_dir};

use crate::cluster::{self, TestPlane};

mod beside;
mod lanes;

/// What to do when a check before the tests fails (said under the error).
const FMT_HINT: &str = "the files above are not formatted: run `cargo fmt`, then test again";
const CLIPPY_HINT: &str = "clippy found the problems above (warnings count as errors here): fix them, `cargo clippy --fix --workspace --all-targets --allow-dirty` fixes some, then test again";
const MANIFESTS_HINT: &str = "the generated files under config/ are not what the sources say: run `cargo xtask manifests`, then test again";

/// How `cargo xtask test` runs: what the command line asked.
#[derive(Debug, Clone)]
pub struct Options {
    /// Arguments for the test binaries (a name filter, ...).
    pub extra: Vec<String>,
    /// Fail on grants no test used.
    pub strict_rbac: bool,
    /// How many packages' cluster tests run at the same time.
    pub lanes: usize,
}

/// Runs every check and test; `more` runs on the control plane after the project's own tests
/// passed (this repository proves a fresh scaffold there). Ends with the time of each step,
/// also when one fails.
pub fn test(options: &Options, more: impl FnOnce(&TestPlane) -> Result<()>) -> Result<ExitCode> {
    let mut steps = Steps::default();
    let result = run(&mut steps, options, more);
    eprint!("{}", steps.table());
    result
}

fn run(
    steps: &mut Steps,
    options: &Options,
    more: impl FnOnce(&TestPlane) -> Result<()>,
) -> Result<ExitCode> {
    let (extra, strict_rbac) = (&options.extra[..], options.strict_rbac);
    steps.time("cargo fmt --check", || {
        run_step("cargo fmt --check", cargo().args(["fmt", "--check"]))
            .map_err(|e| anyhow::anyhow!("{e}: {FMT_HINT}"))
    })?;
    steps.time("cargo clippy", || {
        run_step(
            "cargo clippy",
            cargo().args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]),
        )
        .map_err(|e| anyhow::anyhow!("{e}: {CLIPPY_HINT}"))
    })?;
    steps.time("cargo xtask manifests --check", || {
        if manifests::manifests(true, &Default::default())? != ExitCode::SUCCESS {
            bail!("cargo xtask manifests --check failed: {MANIFESTS_HINT}");
        }
        Ok(())
    })?;
    // Independent of the tests, so a failure here is reported at the end, after them.
    let rendered = steps.time("kustomize build config/*", || kustomize_builds(&root()));
    // The Helm chart (dist/chart): up to date with config/default, linted and rendered.
    let chart = steps.time("helm --check, lint, template", || {
        crate::helm::test_chart(&root())
    });
    let book = steps.time("mdbook build docs", || build_book(&root()));
    // The API docs as docs.rs would build them, warnings refused.
    let api_docs = steps.time("cargo doc", || {
        run_step(
            "cargo doc --no-deps --workspace (warnings are errors)",
            cargo()
                .args(["doc", "--no-deps", "--workspace"])
                .env("RUSTDOCFLAGS", "-D warnings"),
        )
    });
    // Compile everything before the control plane starts, so a compile error does not wait for
    // it, and the plane does not sit idle through a long build.
    let packages = steps.time("compile the tests", || {
        eprintln!("==> cargo test --no-run");
        lanes::binaries().map(lanes::by_package)
    })?;
    let plane = steps.time("control plane up", || {
        eprintln!("==> envtest up");
        cluster::test_plane_up()
    })?;
    // Only what this run's tests ask counts (another project's tests may have used this
    // control plane before).
    let audit_from =
        envtest::audit::log_beside(&plane.kubeconfig).map_or(0, |log| envtest::audit::mark(&log));
    // Cluster tests are #[ignore]d for plain `cargo test`; here they run too, a package per
    // lane, while the others (and the doc tests) run beside them in a thread of their own.
    let target = target_dir()?;
    let beside = beside::Beside::start(extra, beside_log(&target, &root()))?;
    let tests = steps.time("cluster tests (the #[ignore]d)", || {
        // A lane log of an earlier run would pass for this run's.
        for log in lane_logs(&target, &root()) {
            std::fs::remove_file(&log).with_context(|| format!("removing {}", log.display()))?;
        }
        let lanes = options.lanes.clamp(1, packages.len().max(1));
        let binaries: usize = packages.iter().map(Vec::len).sum();
        eprintln!(
            "==> the cluster tests (the #[ignore]d): {binaries} test binaries of {} packages, \
             {lanes} package{} at a time; each lane's output in {}, its binaries' result lines \
             below",
            packages.len(),
            if lanes == 1 { "" } else { "s" },
            lane_log(&target, &root(), 1).display()
        );
        lanes::run(
            packages,
            lanes,
            extra,
            |cmd| {
                cluster::with_kubeconfig(cmd, &plane);
            },
            &root(),
            |lane| lane_log(&target, &root(), lane),
        )
    });
    let rbac = tests.as_ref().ok().map(|_| {
        steps.time("RBAC from the audit log", || {
            rbac_report(&root(), &plane, audit_from, strict_rbac)
        })
    });
    // What runs after the tests needs them passed: those beside may still be running, and
    // are waited for below.
    let more = match (&tests, beside.failed()) {
        (Ok(()), false) => Some(steps.time("after the tests", || more(&plane))),
        _ => None,
    };
    let waited = Instant::now();
    let beside = beside.finish();
    steps.record("waiting for the tests beside", waited.elapsed(), true);
    let mut beside_failed = None;
    for (name, took, result) in beside {
        steps.record(&format!("{name} (beside)"), took, result.is_ok());
        if let Err(err) = result {
            beside_failed.get_or_insert(err);
        }
    }
    let down = steps.time("control plane down", || {
        eprintln!("==> envtest down");
        plane.down()
    });
    tests?;
    if let Some(err) = beside_failed {
        return Err(err);
    }
    if let Some(rbac) = rbac {
        rbac?;
    }
    if let Some(more) = more {
        more?;
    }
    down?;
    rendered?;
    chart?;
    book?;
    api_docs?;
    eprintln!("all tests passed");
    Ok(ExitCode::SUCCESS)
}

/// The service accounts whose requests count as the operator's: kubebuilder names the
/// operator's account `controller-manager` (with the project's prefix when deployed).
pub fn is_operator(user: &str) -> bool {
    user.starts_with("system:serviceaccount:") && user.ends_with("controller-manager")
}

/// RBAC proven from the control plane's audit log: what the operator's service accounts
/// asked during the tests (the log from byte `from` on), laid against
/// `config/rbac/role.yaml`. Refused requests fail the
/// run with the marker to add; grants no test used are listed, and fail it with
/// `strict`.
pub fn rbac_report(root: &Path, plane: &TestPlane, from: u64, strict: bool) -> Result<()> {
    let role_path = root.join("config/rbac/role.yaml");
    let Ok(role) = std::fs::read_to_string(&role_path) else {
        eprintln!("==> RBAC: no config/rbac/role.yaml, nothing to check");
        return Ok(());
    };
    let Some(log) = envtest::audit::log_beside(&plane.kubeconfig) else {
        eprintln!(
            "==> RBAC: the control plane has no audit log (it was started by an older version: `cargo xtask envtest down`, then test again)"
        );
        return Ok(());
    };
    let requests = envtest::audit::read_from(&log, from, is_operator)?;
    if requests.is_empty() {
        eprintln!(
            "==> RBAC: no test ran the operator as a service account named *controller-manager under the generated role (envtest::TestEnv::service_account_config gives one), so nothing proves it"
        );
        return Ok(());
    }
    let accounts: std::collections::BTreeSet<&str> =
        requests.iter().map(|r| r.user.as_str()).collect();
    let report = envtest::audit::Report::new(&envtest::audit::grants(&role)?, &requests);
    eprintln!(
        "==> RBAC from the audit log: {} requests of {} operator service account{} against config/rbac/role.yaml\n{report}",
        requests.len(),
        accounts.len(),
        if accounts.len() == 1 { "" } else { "s" }
    );
    if !report.refused.is_empty() {
        bail!(
            "the operator was refused {} kind{} of request for want of a grant: add the #[rbac] markers above",
            report.refused.len(),
            if report.refused.len() == 1 { "" } else { "s" }
        );
    }
    let unused = report.unused().count();
    if strict && unused > 0 {
        bail!(
            "--strict-rbac: {unused} grant{} no test used: test them, or remove their #[rbac] markers",
            if unused == 1 { "" } else { "s" }
        );
    }
    Ok(())
}

/// The mdbook the book is built with.
const MDBOOK_VERSION: &str = "0.5.4";

/// `mdbook build docs` with the pinned mdbook, which `cargo install` builds into the tools
/// cache on first use (beside kustomize); nothing when the project has no `docs/book.toml`.
/// mdbook refuses a `SUMMARY.md` entry without its file; links, and the Rust blocks' ties to
/// compiled files, are checked by the book test in `cargo test` (`xtask/tests/book.rs`).
pub fn build_book(root: &Path) -> Result<()> {
    let docs = root.join("docs");
    if !docs.join("book.toml").is_file() {
        eprintln!("==> mdbook: no docs/book.toml, no book to build");
        return Ok(());
    }
    let dir = envtest::components::tools_root()?.join(format!("mdbook-v{MDBOOK_VERSION}"));
    let exe = dir.join("bin").join("mdbook");
    if !exe.is_file() {
        eprintln!(
            "==> mdbook v{MDBOOK_VERSION} is not built yet: cargo install builds it into {} (once)",
            dir.display()
        );
        run_step(
            "cargo install mdbook",
            cargo()
                .args(["install", "mdbook", "--locked", "--no-default-features"])
                .arg(format!("--version={MDBOOK_VERSION}"))
                .arg("--root")
                .arg(&dir),
        )?;
    }
    run_step(
        "mdbook build docs",
        std::process::Command::new(&exe).arg("build").arg(&docs),
    )
}

/// The kustomization files kustomize looks for in a directory.
const KUSTOMIZATIONS: &[&str] = &["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// `kustomize build` of every directory of `<root>/config` that holds a kustomization, with the
/// real kustomize (built from its Go module on first use): each must render. What the rendered
/// objects must be is the project's own tests' business.
pub fn kustomize_builds(root: &Path) -> Result<()> {
    let config = root.join("config");
    let mut dirs: Vec<PathBuf> = match std::fs::read_dir(&config) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|dir| KUSTOMIZATIONS.iter().any(|k| dir.join(k).is_file()))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(e).with_context(|| format!("reading {}", config.display())),
    };
    dirs.sort();
    let names: Vec<String> = dirs
        .iter()
        .map(|d| d.strip_prefix(root).unwrap_or(d).display().to_string())
        .collect();
    if dirs.is_empty() {
        eprintln!("==> kustomize build: no kustomization under config/");
        return Ok(());
    }
    eprintln!("==> kustomize build {}", names.join(" "));
    let exe = envtest::kustomize()?;
    let mut failed = Vec::new();
    for (dir, name) in dirs.iter().zip(&names) {
        if let Err(err) = envtest::kustomize::build_with(&exe, dir) {
            eprintln!("error: {err}");
            failed.push(name.as_str());
        }
    }
    if !failed.is_empty() {
        bail!("kustomize build failed for {}", failed.join(", "));
    }
    Ok(())
}

/// The steps of a run, with how long each took and whether it passed, and when the run began
/// (some steps overlap, so the total is the run's own time, not their sum).
#[derive(Debug)]
struct Steps {
    started: Instant,
    rows: Vec<(String, Duration, bool)>,
}

impl Default for Steps {
    fn default() -> Self {
        Self {
            started: Instant::now(),
            rows: Vec::new(),
        }
    }
}

impl Steps {
    fn time<T>(&mut self, name: &str, step: impl FnOnce() -> Result<T>) -> Result<T> {
        let started = Instant::now();
        let result = step();
        self.record(name, started.elapsed(), result.is_ok());
        result
    }

    /// A step timed elsewhere (in the thread of the tests beside the plane).
    fn record(&mut self, name: &str, took: Duration, ok: bool) {
        self.rows.push((name.to_string(), took, ok));
    }

    /// The steps as a table, slowest work visible at a glance, with the run's time.
    fn table(&self) -> String {
        self.table_with_total(self.started.elapsed())
    }

    fn table_with_total(&self, total: Duration) -> String {
        let width = self.rows.iter().map(|(n, _, _)| n.len()).max().unwrap_or(0);
        let mut out = String::from("==> time per step\n");
        for (name, took, ok) in &self.rows {
            out.push_str(&format!(
                "    {name:<width$}  {:>8}{}\n",
                clock(*took),
                if *ok { "" } else { "  FAILED" }
            ));
        }
        out.push_str(&format!("    {:<width$}  {:>8}\n", "total", clock(total)));
        out
    }
}

/// `4m05s`, `12.3s`.
fn clock(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs >= 60.0 {
        format!("{}m{:02}s", d.as_secs() / 60, d.as_secs() % 60)
    } else {
        format!("{secs:.1}s")
    }
}

/// Where `cargo xtask test` of the project at `project` writes the output of lane `lane` of
/// the cluster tests (`<project>-cluster-tests-<lane>.log` under `target/xtask`).
pub fn lane_log(target: &Path, project: &Path, lane: usize) -> PathBuf {
    target.join(format!("xtask/{}{lane}.log", lane_log_prefix(project)))
}

fn lane_log_prefix(project: &Path) -> String {
    format!("{}-cluster-tests-", log_name(project))
}

/// The name a project's logs under `target/xtask` start with: its directory's. A project
/// tested from inside another's run (this repository's scaffold test) may share the target
/// directory.
fn log_name(project: &Path) -> std::borrow::Cow<'_, str> {
    project
        .file_name()
        .map_or("project".into(), |n| n.to_string_lossy())
}

/// The lane logs of the last `cargo xtask test` of the project at `project`, lane by lane.
fn lane_logs(target: &Path, project: &Path) -> Vec<PathBuf> {
    let prefix = lane_log_prefix(project);
    let mut logs: Vec<PathBuf> = std::fs::read_dir(target.join("xtask"))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .and_then(|n| n.strip_prefix(&prefix)?.strip_suffix(".log"))
                        .is_some_and(|lane| lane.parse::<usize>().is_ok())
                })
                .collect()
        })
        .unwrap_or_default();
    logs.sort();
    logs
}

/// What the cluster tests of the last `cargo xtask test` of the project at `project` printed,
/// every lane's log one after another.
pub fn cluster_tests_output(target: &Path, project: &Path) -> Result<String> {
    let mut all = String::new();
    for log in lane_logs(target, project) {
        all.push_str(
            &std::fs::read_to_string(&log).with_context(|| format!("reading {}", log.display()))?,
        );
    }
    Ok(all)
}

/// Where `cargo xtask test` of the project at `project` writes the output of the tests it
/// runs beside the cluster tests, in the target directory `target`. Named after the
/// project: a project tested from inside another's run (this repository's scaffold test)
/// may share the target directory.
pub fn beside_log(target: &Path, project: &Path) -> PathBuf {
    target.join(format!("xtask/{}-tests-beside.log", log_name(project)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kustomization under config/ is rendered with the real kustomize; one that fails
    /// fails the step and is named.
    #[test]
    #[ignore = "needs Go to build kustomize; run by cargo xtask test"]
    fn kustomize_builds_renders_each_kustomization_and_names_the_failures() {
        let root = tempfile::tempdir().unwrap();
        // No config/ at all: nothing to render.
        kustomize_builds(root.path()).unwrap();

        let config = root.path().join("config");
        for dir in ["good", "bad", "plain"] {
            std::fs::create_dir_all(config.join(dir)).unwrap();
        }
        std::fs::write(
            config.join("good/kustomization.yaml"),
            "namePrefix: x-\nresources:\n- cm.yaml\n",
        )
        .unwrap();
        std::fs::write(
            config.join("good/cm.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n",
        )
        .unwrap();
        kustomize_builds(root.path()).unwrap();

        std::fs::write(
            config.join("bad/kustomization.yaml"),
            "resources:\n- manifests.yaml\n",
        )
        .unwrap();
        let err = kustomize_builds(root.path()).unwrap_err().to_string();
        assert_eq!(err, "kustomize build failed for config/bad");
    }

    #[test]
    fn the_table_shows_each_step_its_time_and_failures() {
        let mut steps = Steps::default();
        steps.record("fmt", Duration::from_millis(1200), true);
        steps.record("cluster tests", Duration::from_secs(245), false);
        steps.record(
            "tests without the plane (beside)",
            Duration::from_secs(200),
            true,
        );
        // The rows beside the cluster tests overlap them: the total is the run's own time.
        assert_eq!(
            steps.table_with_total(Duration::from_secs(247)),
            "==> time per step\n\
             \x20   fmt                                   1.2s\n\
             \x20   cluster tests                        4m05s  FAILED\n\
             \x20   tests without the plane (beside)     3m20s\n\
             \x20   total                                4m07s\n"
        );
        assert!(steps.time("ok", || Ok(1)).is_ok());
        assert!(steps.time::<()>("bad", || bail!("no")).is_err());
        assert_eq!(steps.rows.last().map(|s| s.2), Some(false));
    }
}
