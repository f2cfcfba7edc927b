//! The operator under test as a child process: started on free loopback ports against the
//! stage's cluster, its counters read, stopped; and its log's problems counted.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use anyhow::{Context as _, Result};
use operator_xtask::target_dir;
use operator_xtask_cluster::cluster;

use super::metrics::Metrics;
use super::{Mode, Which, http};

/// An operator running as a child process, stopped (killed, if need be) when dropped.
pub(super) struct Operator {
    child: Child,
    metrics_port: u16,
    pub(super) log: PathBuf,
}

impl Operator {
    /// The operator's counters now.
    pub(super) async fn metrics(&self) -> Result<Metrics> {
        Ok(Metrics::parse(
            &http::get(self.metrics_port, "/metrics").await?,
        ))
    }

    pub(super) fn proc_file(&self, name: &str) -> Result<String> {
        let path = format!("/proc/{}/{name}", self.child.id());
        std::fs::read_to_string(&path).with_context(|| format!("reading {path}"))
    }

    pub(super) fn stop(mut self) {
        if let Some(pid) = rustix::process::Pid::from_raw(self.child.id() as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
        let _ = self.child.wait();
    }
}

impl Drop for Operator {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub(super) fn spawn_operator(
    which: Which,
    binary: &Path,
    ns: &str,
    mode: Mode,
    same_work: bool,
    cluster: &cluster::Connected,
) -> Result<(Operator, u16)> {
    let (metrics_port, health_port) = (free_port()?, free_port()?);
    let log = target_dir()?
        .join("bench-operator")
        .join(format!("{ns}.log"));
    std::fs::create_dir_all(log.parent().expect("a file in a directory"))?;
    let log_file = std::fs::File::create(&log)?;
    let mut cmd = operator_command(
        which,
        binary,
        ns,
        mode,
        same_work,
        metrics_port,
        health_port,
    );
    // Both streams: ours logs to stdout, Go's to stderr.
    cmd.stdout(log_file.try_clone()?).stderr(log_file);
    if let Some(path) = &cluster.kubeconfig {
        cmd.env("KUBECONFIG", path);
    }
    let operator = Operator {
        child: cmd
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?,
        metrics_port,
        log,
    };
    Ok((operator, health_port))
}

/// The command line of operator `which` restricted to `ns`, its counters in plain HTTP on
/// `metrics_port` and its probes on `health_port` (loopback), at the concurrency of `mode`.
pub(super) fn operator_command(
    which: Which,
    binary: &Path,
    ns: &str,
    mode: Mode,
    same_work: bool,
    metrics_port: u16,
    health_port: u16,
) -> Command {
    let mut cmd = Command::new(binary);
    cmd.args([
        format!("--metrics-bind-address=127.0.0.1:{metrics_port}"),
        format!("--health-probe-bind-address=127.0.0.1:{health_port}"),
        format!("--watch-namespace={ns}"),
        // The benchmark reads the counters itself, over plain HTTP on loopback.
        "--metrics-secure=false".to_string(),
    ]);
    match which {
        Which::Ours => {
            if let Mode::Equal(n) = mode {
                cmd.arg(format!("--concurrency={n}"));
            }
            // OPERATOR_LOG sets ours' RUST_LOG, to see what a run did in detail.
            let log = std::env::var("OPERATOR_LOG").unwrap_or_else(|_| "warn".into());
            cmd.env("RUST_LOG", log)
                // The benchmark measures the controller; admission is not in its path.
                .env("ENABLE_WEBHOOKS", "false");
        }
        Which::Go => {
            if let Mode::Equal(n) = mode {
                cmd.arg(format!("--max-concurrent-reconciles={n}"));
            }
            // Only errors: info lines per reconcile would cost the Go side CPU ours does not spend.
            cmd.arg("--zap-log-level=error");
            if same_work {
                cmd.arg("--same-work");
            }
        }
    }
    cmd
}

pub(super) fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// Lines of the operator's log at error level (Go's JSON lines) or warn/error (ours).
pub(super) fn count_problems(which: Which, log: &str) -> usize {
    log.lines()
        .filter(|l| match which {
            Which::Go => l.contains("\"level\":\"error\""),
            Which::Ours => l.contains("WARN") || l.contains("ERROR"),
        })
        .count()
}
