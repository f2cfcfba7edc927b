//! The memcached operator binary: flags and environment, logging, the Kubernetes client, and the
//! manager until SIGTERM or SIGINT.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, Result};
use clap::{Parser, ValueEnum};
use memcached::controller::Settings;
use memcached::manager::{self, LeaderElection, ManagerOptions};
use memcached::metrics::{Metrics, counting_client};
use memcached::resources;
use tokio_util::sync::CancellationToken;

#[derive(Parser, Debug)]
#[command(name = "memcached", version, about = "The memcached operator")]
struct Flags {
    /// Address of the Prometheus endpoint (/metrics); `0` turns it off.
    #[arg(long, env = "METRICS_BIND_ADDRESS", default_value = "0.0.0.0:8080")]
    metrics_bind_address: String,
    /// Address of /healthz and /readyz; `0` turns them off.
    #[arg(
        long,
        env = "HEALTH_PROBE_BIND_ADDRESS",
        default_value = "0.0.0.0:8081"
    )]
    health_probe_bind_address: String,
    /// Elect a leader on a Lease so that only one instance reconciles.
    #[arg(long, env = "LEADER_ELECT")]
    leader_elect: bool,
    /// Namespace of the Lease (default: $POD_NAMESPACE, the pod's namespace, else `default`).
    #[arg(long, env = "LEADER_ELECTION_NAMESPACE")]
    leader_election_namespace: Option<String>,
    /// Name of the Lease.
    #[arg(long, default_value = "memcached-operator.cache.example.com")]
    leader_election_id: String,
    /// How long a lease lasts without renewal.
    #[arg(long, default_value = "15", value_name = "SECONDS")]
    lease_duration: u64,
    /// Watch only this namespace (default: all).
    #[arg(long, env = "WATCH_NAMESPACE")]
    watch_namespace: Option<String>,
    /// Memcacheds reconciled at once.
    #[arg(long, env = "MAX_CONCURRENT_RECONCILES", default_value_t = 4)]
    concurrency: u16,
    /// Log format.
    #[arg(long, env = "LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum LogFormat {
    Text,
    Json,
}

fn address(flag: &str, value: &str) -> Result<Option<SocketAddr>> {
    if value == "0" || value.is_empty() {
        return Ok(None);
    }
    // Accept Go's ":8080" as well.
    let full = if value.starts_with(':') {
        format!("0.0.0.0{value}")
    } else {
        value.to_string()
    };
    full.parse()
        .map(Some)
        .with_context(|| format!("--{flag}={value} is not an address like 0.0.0.0:8080 or :8080"))
}

fn init_logging(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,kube=warn"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().flatten_event(true).init(),
    }
}

/// The namespace this pod runs in, from the service account mount.
fn pod_namespace() -> Option<String> {
    std::fs::read_to_string("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

fn identity() -> String {
    let host = std::env::var("POD_NAME")
        .ok()
        .or_else(|| {
            std::fs::read_to_string("/etc/hostname")
                .ok()
                .map(|h| h.trim().to_string())
        })
        .unwrap_or_else(|| "memcached-operator".into());
    format!("{host}_{}", std::process::id())
}

#[tokio::main]
async fn main() -> Result<()> {
    let flags = Flags::parse();
    init_logging(flags.log_format);

    let metrics = Arc::new(Metrics::new());
    let config = kube::Config::infer()
        .await
        .context("no Kubernetes configuration (KUBECONFIG, ~/.kube/config or in-cluster)")?;
    let client = counting_client(config, metrics.clone()).context("building the client")?;

    let leader_election = flags.leader_elect.then(|| LeaderElection {
        namespace: flags
            .leader_election_namespace
            .clone()
            .or_else(|| {
                std::env::var("POD_NAMESPACE")
                    .ok()
                    .filter(|ns| !ns.is_empty())
            })
            .or_else(pod_namespace)
            .unwrap_or_else(|| "default".into()),
        lease_name: flags.leader_election_id.clone(),
        identity: identity(),
        lease_duration: Duration::from_secs(flags.lease_duration),
        renew_grace: Duration::from_secs((flags.lease_duration / 3).max(1)),
    });
    let options = ManagerOptions {
        metrics_addr: address("metrics-bind-address", &flags.metrics_bind_address)?,
        health_addr: address(
            "health-probe-bind-address",
            &flags.health_probe_bind_address,
        )?,
        leader_election,
        controller: Settings {
            namespace: flags.watch_namespace.filter(|ns| !ns.is_empty()),
            concurrency: flags.concurrency,
            image: resources::image_from_env(),
        },
    };

    let shutdown = CancellationToken::new();
    let on_signal = shutdown.clone();
    tokio::spawn(async move {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("installing the SIGTERM handler");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        tracing::info!("shutting down");
        on_signal.cancel();
    });
    manager::run(client, metrics, options, shutdown).await?;
    Ok(())
}
