//! `cargo xtask bench-operator`: how the memcached operator scales on a real control plane.
//!
//! Builds the operator (release), runs it as its own process against the target cluster (the
//! local control plane by default), creates N Memcacheds of size 1 in a fresh namespace and
//! measures the time until every one reports Available with its pod in `status.nodes`, the API
//! requests the operator made per reconcile (its own `rest_client_requests_total` and
//! `controller_runtime_reconcile_total`), whether a converged set stays quiet, and the
//! operator's peak memory (VmHWM). Then it deletes everything through the operator.

use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, PostParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};

use operator_xtask::{cargo, run_step, target_dir};
use operator_xtask_cluster::cluster::{self, Target};

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    #[command(flatten)]
    target: Target,
    /// Numbers of Memcacheds to converge, one run each.
    #[arg(long = "count", default_values_t = [100, 1000])]
    counts: Vec<usize>,
    /// The operator's --concurrency.
    #[arg(long, default_value_t = 8)]
    concurrency: u16,
    /// Give up on a run after this many seconds.
    #[arg(long, default_value_t = 600)]
    timeout: u64,
}

struct Operator {
    child: Child,
    metrics_port: u16,
}

impl Operator {
    fn metrics(&self) -> Result<String> {
        http_get(self.metrics_port, "/metrics")
    }

    /// Peak resident memory (VmHWM) in KiB.
    fn peak_rss_kib(&self) -> Result<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .context("no VmHWM in /proc/<pid>/status")
    }

    fn stop(mut self) {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGTERM,
        );
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

fn free_port() -> Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// A minimal HTTP/1.1 GET on loopback, for /metrics and /readyz.
fn http_get(port: u16, path: &str) -> Result<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )?;
    let mut response = String::new();
    stream.read_to_string(&mut response)?;
    let (head, body) = response
        .split_once("\r\n\r\n")
        .context("malformed HTTP response")?;
    if !head.starts_with("HTTP/1.1 200") {
        bail!("GET {path}: {}", head.lines().next().unwrap_or_default());
    }
    Ok(body.to_string())
}

/// Sum of a metric's samples whose line starts with `prefix`.
fn metric_sum(text: &str, prefix: &str) -> f64 {
    text.lines()
        .filter(|l| l.starts_with(prefix))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

pub fn bench(args: &BenchArgs) -> Result<ExitCode> {
    run_step(
        "cargo build --release -p memcached",
        cargo().args([
            "build",
            "--release",
            "--package",
            "memcached",
            "--bin",
            "memcached",
        ]),
    )?;
    let binary = target_dir()?.join("release/memcached");
    let rt = tokio::runtime::Runtime::new()?;
    let cluster = rt.block_on(cluster::connect(&args.target))?;
    rt.block_on(cluster::install_crds(&cluster.client))?;
    eprintln!("benchmarking against {}", cluster.source);
    let mut rows = Vec::new();
    for &count in &args.counts {
        rows.push(rt.block_on(run(&cluster, &binary, count, args))?);
    }
    println!();
    println!(
        "| Memcacheds | converged in | reconciles | API requests | requests/reconcile | requests in 10 s of steady state | operator peak RSS |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        println!(
            "| {} | {:.1} s | {} | {} | {:.2} | {} | {:.1} MiB |",
            r.count,
            r.converged.as_secs_f64(),
            r.reconciles,
            r.requests,
            r.requests as f64 / r.reconciles.max(1) as f64,
            r.steady_requests,
            r.peak_rss_kib as f64 / 1024.0
        );
    }
    Ok(ExitCode::SUCCESS)
}

struct Row {
    count: usize,
    converged: Duration,
    reconciles: u64,
    requests: u64,
    steady_requests: u64,
    peak_rss_kib: u64,
}

async fn run(
    cluster: &cluster::Connected,
    binary: &std::path::Path,
    count: usize,
    args: &BenchArgs,
) -> Result<Row> {
    let client = cluster.client.clone();
    let ns = format!(
        "bench-{count}-{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_secs()
    );
    let namespaces: Api<Namespace> = Api::all(client.clone());
    namespaces
        .create(
            &PostParams::default(),
            &Namespace {
                metadata: ObjectMeta {
                    name: Some(ns.clone()),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .await?;

    let (metrics_port, health_port) = (free_port()?, free_port()?);
    let mut cmd = Command::new(binary);
    cmd.args([
        format!("--metrics-bind-address=127.0.0.1:{metrics_port}"),
        format!("--health-probe-bind-address=127.0.0.1:{health_port}"),
        format!("--watch-namespace={ns}"),
        format!("--concurrency={}", args.concurrency),
        // The benchmark reads the counters itself, over plain HTTP on loopback.
        "--metrics-secure=false".to_string(),
    ])
    .env("RUST_LOG", "warn")
    // The benchmark measures the controller; admission is not in its path.
    .env("ENABLE_WEBHOOKS", "false")
    .stdout(Stdio::null())
    .stderr(Stdio::inherit());
    if let Some(path) = &cluster.kubeconfig {
        cmd.env("KUBECONFIG", path);
    }
    let operator = Operator {
        child: cmd.spawn().context("starting the operator")?,
        metrics_port,
    };
    let started = Instant::now();
    while http_get(health_port, "/readyz").is_err() {
        if started.elapsed() > Duration::from_secs(60) {
            bail!("the operator did not become ready within 60 s");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let gvk = GroupVersionKind::gvk("cache.example.com", "v1alpha1", "Memcached");
    let resource = ApiResource::from_gvk(&gvk);
    let mcs: Api<DynamicObject> = Api::namespaced_with(client.clone(), &ns, &resource);
    eprintln!("[{count}] creating {count} Memcacheds of size 1 in {ns}");
    let start = Instant::now();
    futures::stream::iter(0..count)
        .map(|i| {
            let mcs = mcs.clone();
            let resource = resource.clone();
            async move {
                let mut obj = DynamicObject::new(&format!("mc-{i:05}"), &resource);
                obj.data = serde_json::json!({ "spec": { "size": 1 } });
                mcs.create(&PostParams::default(), &obj).await
            }
        })
        .buffer_unordered(32)
        .try_collect::<Vec<_>>()
        .await
        .context("creating Memcacheds")?;
    eprintln!(
        "[{count}] created in {:.1} s",
        start.elapsed().as_secs_f64()
    );

    let deadline = Duration::from_secs(args.timeout);
    let converged = loop {
        let list = mcs.list(&ListParams::default()).await?;
        let done = list.items.iter().filter(|o| is_converged(o)).count();
        if done == count {
            break start.elapsed();
        }
        if start.elapsed() > deadline {
            bail!("[{count}] only {done}/{count} converged after {deadline:?}");
        }
        eprintln!(
            "[{count}] {done}/{count} converged after {:.1} s",
            start.elapsed().as_secs_f64()
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
    };
    eprintln!(
        "[{count}] all converged in {:.1} s",
        converged.as_secs_f64()
    );
    // Let the last events settle, then measure a quiet period.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let text = operator.metrics()?;
    let reconciles = metric_sum(&text, "controller_runtime_reconcile_total{") as u64;
    let requests = metric_sum(&text, "rest_client_requests_total{") as u64;
    tokio::time::sleep(Duration::from_secs(10)).await;
    let later = metric_sum(&operator.metrics()?, "rest_client_requests_total{") as u64;
    let peak_rss_kib = operator.peak_rss_kib()?;

    eprintln!("[{count}] cleaning up");
    mcs.delete_collection(&DeleteParams::background(), &ListParams::default())
        .await?;
    let cleanup = Instant::now();
    while !mcs.list(&ListParams::default()).await?.items.is_empty() {
        if cleanup.elapsed() > deadline {
            bail!("[{count}] Memcacheds were not finalized within {deadline:?}");
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    operator.stop();
    namespaces.delete(&ns, &DeleteParams::background()).await?;
    Ok(Row {
        count,
        converged,
        reconciles,
        requests,
        steady_requests: later.saturating_sub(requests),
        peak_rss_kib,
    })
}

fn is_converged(obj: &DynamicObject) -> bool {
    let status = &obj.data["status"];
    let available = status["conditions"].as_array().is_some_and(|cs| {
        cs.iter()
            .any(|c| c["type"] == "Available" && c["status"] == "True")
    });
    available && status["nodes"].as_array().is_some_and(|n| n.len() == 1)
}
