//! The tests that need nothing outside their process, run beside the cluster tests.
//!
//! A plain `cargo test` (the tests that are not `#[ignore]`d) then `cargo test --doc`, in a
//! thread of their own, while the calling thread runs the `#[ignore]`d tests on the control
//! plane. The slow tests of the two kinds spend their time differently: the first compile
//! (trybuild cases, nested workspaces), the second mostly wait on the API server and the
//! controllers, so on two cores the run takes about as long as the longer lane instead of
//! the sum. The plane's lane prints as it goes; this lane's output goes to a log file, and
//! only each test binary's result line is echoed (with the whole failing binary's output
//! when one fails), so the two do not interleave line by line.

use std::fs::File;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};

use operator_xtask::cargo;

/// How this lane's lines are marked in the terminal.
pub(super) const MARK: &str = "[beside the plane]";

/// One command's outcome: its name, how long it took, and whether it passed.
pub type Timed = (&'static str, Duration, Result<()>);

/// The lane while it runs.
#[derive(Debug)]
pub struct Beside {
    thread: JoinHandle<Vec<Timed>>,
    state: Arc<AtomicU8>,
    log: PathBuf,
}

const RUNNING: u8 = 0;
const PASSED: u8 = 1;
const FAILED: u8 = 2;

impl Beside {
    /// Starts `cargo test` (filters and test arguments from `extra`) then `cargo test --doc`,
    /// logging to `log`.
    pub fn start(extra: &[String], log: PathBuf) -> Result<Self> {
        if let Some(dir) = log.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let state = Arc::new(AtomicU8::new(RUNNING));
        let extra = extra.to_vec();
        let (thread_state, thread_log) = (state.clone(), log.clone());
        eprintln!(
            "==> cargo test (the tests that need no control plane) and cargo test --doc, beside \
             the cluster tests: output in {}, each test binary's result below marked {MARK}",
            log.display()
        );
        let thread = std::thread::Builder::new()
            .name("tests-beside".into())
            .spawn(move || {
                let mut done = Vec::new();
                let started = Instant::now();
                let mut tests = cargo();
                tests.args(["test", "--workspace", "--all-targets", "--"]);
                tests.args(&extra);
                let result =
                    run_logged("cargo test", &mut tests, &thread_log, false, &Header::NONE);
                let passed = result.is_ok();
                done.push(("tests without the plane", started.elapsed(), result));
                if passed {
                    let started = Instant::now();
                    let mut doc = cargo();
                    doc.args(["test", "--workspace", "--doc"]);
                    let result = run_logged(
                        "cargo test --doc",
                        &mut doc,
                        &thread_log,
                        true,
                        &Header::NONE,
                    );
                    done.push(("doc tests", started.elapsed(), result));
                }
                let ok = done.iter().all(|(_, _, r)| r.is_ok());
                thread_state.store(if ok { PASSED } else { FAILED }, Ordering::SeqCst);
                done
            })
            .context("starting the thread of the tests beside the plane")?;
        Ok(Self { thread, state, log })
    }

    /// Whether the lane has already failed (it may still be running, or have passed).
    pub fn failed(&self) -> bool {
        self.state.load(Ordering::SeqCst) == FAILED
    }

    /// Waits for the lane (saying so when it is not done yet) and returns its steps.
    pub fn finish(self) -> Vec<Timed> {
        if self.state.load(Ordering::SeqCst) == RUNNING {
            eprintln!(
                "==> waiting for the tests beside the plane (output in {})",
                self.log.display()
            );
        }
        self.thread.join().unwrap_or_else(|_| {
            vec![(
                "tests without the plane",
                Duration::ZERO,
                Err(anyhow::anyhow!(
                    "the thread of the tests beside the plane panicked"
                )),
            )]
        })
    }
}

/// How a command's output is introduced in its log and marked in the terminal.
#[derive(Debug)]
pub(super) struct Header<'a> {
    /// The mark of the echoed lines.
    pub mark: &'a str,
    /// A line written to the log before the command's output (a test binary run directly
    /// gets the `Running ...` line cargo would print).
    pub line: Option<&'a str>,
}

impl Header<'_> {
    const NONE: Header<'static> = Header {
        mark: MARK,
        line: None,
    };
}

/// Runs `cmd` with its output appended to `log`, echoing what [`Echo`] picks, until it exits.
pub(super) fn run_logged(
    name: &str,
    cmd: &mut Command,
    log: &Path,
    append: bool,
    header: &Header<'_>,
) -> Result<()> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(append)
        .truncate(!append)
        .open(log)
        .with_context(|| format!("opening {}", log.display()))?;
    let from = file.metadata().map(|m| m.len()).unwrap_or(0);
    if let Some(line) = header.line {
        use std::io::Write as _;
        writeln!(&file, "{line}").with_context(|| format!("writing {}", log.display()))?;
    }
    let err = file.try_clone().context("duplicating the log's handle")?;
    let mut child: Child = cmd
        .stdout(Stdio::from(file))
        .stderr(Stdio::from(err))
        .stdin(Stdio::null())
        .spawn()
        .with_context(|| format!("starting {name}"))?;
    let mut reader = File::open(log).with_context(|| format!("reading {}", log.display()))?;
    reader.seek(SeekFrom::Start(from))?;
    let mut echo = Echo::new(header.mark);
    let status: ExitStatus = loop {
        let exited = child
            .try_wait()
            .with_context(|| format!("waiting for {name}"))?;
        echo.read(&mut reader)?;
        match exited {
            Some(status) => break status,
            None => std::thread::sleep(Duration::from_millis(250)),
        }
    };
    echo.read(&mut reader)?;
    echo.finish();
    if !status.success() {
        let failing = echo.failing_output();
        if !failing.is_empty() {
            eprintln!(
                "{} the output of the failing tests:\n{failing}",
                header.mark
            );
        }
        bail!(
            "{name} failed ({status}); its whole output is in {}",
            log.display()
        );
    }
    Ok(())
}

/// Picks the lines worth a terminal line out of cargo test's output: each binary's name with
/// its result, and libtest's word on a test that has run for over a minute. Keeps the current
/// binary's output for when it fails.
#[derive(Debug, Default)]
struct Echo {
    /// The mark of the echoed lines.
    mark: String,
    partial: String,
    /// The current test binary (cargo's `Running tests/x.rs (...)` or `Doc-tests x`).
    binary: String,
    /// The current binary's lines.
    lines: Vec<String>,
    /// The lines of the binaries that failed.
    failed: Vec<String>,
}

impl Echo {
    fn new(mark: &str) -> Self {
        Self {
            mark: mark.to_string(),
            ..Self::default()
        }
    }

    fn read(&mut self, reader: &mut File) -> Result<()> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes)?;
        self.partial.push_str(&String::from_utf8_lossy(&bytes));
        while let Some(end) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=end).collect();
            self.line(line.trim_end());
        }
        Ok(())
    }

    fn finish(&mut self) {
        let rest = std::mem::take(&mut self.partial);
        if !rest.is_empty() {
            self.line(rest.trim_end());
        }
        self.close();
    }

    fn line(&mut self, line: &str) {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("Running ") {
            self.close();
            self.binary = binary_name(rest);
        } else if let Some(rest) = trimmed.strip_prefix("Doc-tests ") {
            self.close();
            self.binary = format!("doc tests of {rest}");
        }
        if trimmed.starts_with("test result:") {
            eprintln!(
                "{} {}: {}",
                self.mark,
                self.binary,
                trimmed.trim_start_matches("test result: ")
            );
        } else if trimmed.starts_with("test ") && trimmed.contains(" has been running for over ") {
            eprintln!("{} {}: {trimmed}", self.mark, self.binary);
        }
        self.lines.push(line.to_string());
    }

    /// Ends the current binary's output: kept if it failed.
    fn close(&mut self) {
        let lines = std::mem::take(&mut self.lines);
        let failed = lines.iter().any(|l| {
            l.starts_with("test result: FAILED")
                || l.contains("error: test failed")
                || (l.starts_with("test ") && l.ends_with("FAILED"))
        });
        if failed {
            self.failed.extend(lines);
        }
    }

    fn failing_output(&self) -> String {
        self.failed.join("\n")
    }
}

/// `tests/a.rs (target/debug/deps/memcached-1f3f)` → `tests/a.rs (memcached)`: the file
/// with its crate, as `unittests src/lib.rs` alone names no crate.
fn binary_name(running: &str) -> String {
    let Some((file, exe)) = running.split_once(" (") else {
        return running.to_string();
    };
    let exe = exe.trim_end_matches(')');
    let stem = Path::new(exe)
        .file_name()
        .map_or(exe.into(), |n| n.to_string_lossy());
    let name = stem.rsplit_once('-').map_or(&*stem, |(name, _hash)| name);
    format!("{file} ({name})")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo(text: &str) -> Echo {
        let mut echo = Echo::new(MARK);
        for line in text.lines() {
            echo.line(line);
        }
        echo.finish();
        echo
    }

    #[test]
    fn a_passing_run_keeps_nothing_and_a_failing_binary_keeps_its_output() {
        let passing = echo(
            "     Running tests/a.rs (target/debug/deps/a-1)\n\nrunning 1 test\n\
             test one ... ok\n\ntest result: ok. 1 passed; 0 failed\n",
        );
        assert_eq!(passing.failing_output(), "");
        assert_eq!(passing.binary, "tests/a.rs (a)");
        assert_eq!(
            binary_name("unittests src/lib.rs (target/debug/deps/operator_gen-07a38a)"),
            "unittests src/lib.rs (operator_gen)"
        );

        let failing = echo(
            "     Running tests/a.rs (target/debug/deps/a-1)\n\
             test one ... ok\ntest result: ok. 1 passed; 0 failed\n\
             \x20    Running tests/b.rs (target/debug/deps/b-2)\n\
             test two ... FAILED\n\nfailures:\n---- two stdout ----\nboom\n\
             test result: FAILED. 0 passed; 1 failed\n\
             error: test failed, to rerun pass `--test b`",
        );
        let out = failing.failing_output();
        assert!(out.contains("Running tests/b.rs"), "{out}");
        assert!(out.contains("boom"), "{out}");
        assert!(out.contains("error: test failed"), "{out}");
        assert!(!out.contains("tests/a.rs"), "{out}");
    }

    /// The command's output lands in the log (appended to for the second command), and a
    /// failing exit fails the step with the log's path. A header line goes in before the
    /// command's output.
    #[test]
    fn the_output_goes_to_the_log_and_the_exit_status_decides() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("beside.log");
        let script = |text: &str, code: i32| {
            let mut cmd = Command::new("sh");
            cmd.arg("-c")
                .arg(format!("printf '{text}'; echo to-stderr >&2; exit {code}"));
            cmd
        };
        run_logged(
            "first",
            &mut script(
                "     Running tests/a.rs (x)\\ntest result: ok. 1 passed\\n",
                0,
            ),
            &log,
            false,
            &Header::NONE,
        )
        .unwrap();
        let err = run_logged(
            "second",
            &mut script("test b ... FAILED\\ntest result: FAILED. 0 passed\\n", 101),
            &log,
            true,
            &Header {
                mark: "[lane]",
                line: Some("     Running tests/b.rs (y)"),
            },
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("second failed"), "{err}");
        assert!(err.contains(&log.display().to_string()), "{err}");
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(
            text.contains("tests/a.rs") && text.contains("     Running tests/b.rs (y)\ntest b"),
            "{text}"
        );
        assert_eq!(text.matches("to-stderr").count(), 2, "{text}");
    }

    #[test]
    fn doc_tests_are_a_binary_of_their_own() {
        let failing = echo(
            "   Doc-tests envtest\n\nrunning 1 test\ntest src/lib.rs - x (line 3) ... FAILED\n\
             test result: FAILED. 0 passed; 1 failed\n",
        );
        assert_eq!(failing.binary, "doc tests of envtest");
        assert!(failing.failing_output().contains("src/lib.rs - x"));
    }
}
