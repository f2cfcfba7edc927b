//! The memcached operator binary: the manager's standard flags (from `operator-runtime`) plus
//! its own, and the one controller it runs until SIGTERM or SIGINT.

use anyhow::{Context as _, Result};
use clap::Parser;
use memcached::controller::{self, FIELD_MANAGER, Settings};
use memcached::{resources, webhooks};
use operator_runtime::{Manager, ManagerFlags, WebhookFlags};

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
    /// Serve the defaulting and validating webhooks (on :9443, with a certificate from files
    /// or kept in a Secret, as the webhook flags say).
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

    let image = resources::image_from_env();
    let settings = Settings {
        namespace: flags.manager.watch_namespace(),
        concurrency: flags.concurrency,
        image: image.clone(),
    };
    // The client from --kubeconfig (or kubectl's order), /metrics over HTTPS for callers
    // allowed to get it unless --metrics-secure=false.
    let mut manager = Manager::from_flags(&flags.manager, FIELD_MANAGER, LEASE_NAME).await?;
    let client = manager.client();
    // Every instance serves the webhooks, leader or not; /readyz waits for the server.
    if flags.enable_webhooks {
        manager = manager.webhooks_from_flags(
            &flags.webhook,
            webhooks::webhooks(image, flags.max_memcached_size),
        )?;
    }
    manager
        .run(|runtime| controller::start(client, settings, runtime))
        .await
        .context("the manager stopped (ENABLE_WEBHOOKS=false runs without the webhook server)")?;
    Ok(())
}
