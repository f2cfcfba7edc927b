//! The memcached operator binary: the manager's standard flags (from `operator-runtime`) plus
//! its own, and the one controller it runs until SIGTERM or SIGINT.

use std::sync::Arc;

use anyhow::{Context as _, Result};
use clap::Parser;
use memcached::controller::{self, FIELD_MANAGER, Settings};
use memcached::{resources, webhooks};
use operator_runtime::webhook::WebhookServer;
use operator_runtime::{ManagerFlags, Metrics, ReadyCheck, WebhookFlags, manager};

/// The Lease instances elect a leader on, unless `--leader-election-id` names another.
const LEASE_NAME: &str = "memcached-operator.cache.example.com";

#[derive(Parser, Debug)]
#[command(name = "memcached", version, about = "The memcached operator")]
struct Flags {
    #[command(flatten)]
    manager: ManagerFlags,
    /// Memcacheds reconciled at once.
    #[arg(long, env = "MAX_CONCURRENT_RECONCILES", default_value_t = 4)]
    concurrency: u16,
    /// Serve the defaulting and validating webhooks (on :9443, with the certificate below).
    /// `cargo xtask run` turns them off: out of the cluster there is no certificate.
    #[arg(long, env = "ENABLE_WEBHOOKS", default_value_t = true, action = clap::ArgAction::Set)]
    enable_webhooks: bool,
    #[command(flatten)]
    webhook: WebhookFlags,
    /// The largest spec.size the validating webhook admits.
    #[arg(long, env = "MAX_MEMCACHED_SIZE", default_value_t = webhooks::DEFAULT_MAX_SIZE)]
    max_memcached_size: i32,
}

#[tokio::main]
async fn main() -> Result<()> {
    let flags = Flags::parse();
    operator_runtime::logging::init(flags.manager.log_format);

    let options = flags.manager.options(FIELD_MANAGER, LEASE_NAME)?;
    let image = resources::image_from_env();
    let settings = Settings {
        namespace: flags.manager.watch_namespace(),
        concurrency: flags.concurrency,
        image: image.clone(),
        reconcile: flags.manager.reconcile_settings(),
    };
    let metrics = Arc::new(Metrics::new());
    let client =
        operator_runtime::connect(flags.manager.kubeconfig.as_deref(), metrics.clone()).await?;
    let shutdown = operator_runtime::shutdown_on_signals();
    // Every instance serves the webhooks, leader or not; /readyz waits for the server.
    let webhook_stop = shutdown.child_token();
    let mut checks: Vec<Arc<dyn ReadyCheck>> = Vec::new();
    let webhook_server = if flags.enable_webhooks {
        let server = WebhookServer::bind(
            flags.webhook.options().with_metrics(metrics.clone()),
            webhooks::webhooks(image, flags.max_memcached_size),
        )
        .await
        .context("starting the webhook server (ENABLE_WEBHOOKS=false runs without it)")?;
        checks.push(Arc::new(server.readiness()));
        Some(tokio::spawn(server.run(webhook_stop.clone())))
    } else {
        None
    };
    // /metrics over HTTPS for callers allowed to get it, unless --metrics-secure=false.
    let result = manager::run_with_metrics_security(
        client.clone(),
        metrics,
        options,
        flags.manager.metrics_security(),
        checks,
        shutdown,
        |runtime| controller::start(client, settings, runtime),
    )
    .await;
    webhook_stop.cancel();
    if let Some(server) = webhook_server {
        server.await.context("the webhook server failed")?;
    }
    result.context("the manager stopped")?;
    Ok(())
}
