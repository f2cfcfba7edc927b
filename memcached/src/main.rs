//! The memcached operator binary: the manager's standard flags (from `operator-runtime`) plus
//! its own, and the one controller it runs until SIGTERM or SIGINT.

use std::sync::Arc;

use anyhow::{Context as _, Result};
use clap::Parser;
use memcached::controller::{self, FIELD_MANAGER, Settings};
use memcached::resources;
use operator_runtime::{ManagerFlags, Metrics, manager};

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
}

#[tokio::main]
async fn main() -> Result<()> {
    let flags = Flags::parse();
    operator_runtime::logging::init(flags.manager.log_format);

    let options = flags.manager.options(FIELD_MANAGER, LEASE_NAME)?;
    let settings = Settings {
        namespace: flags.manager.watch_namespace(),
        concurrency: flags.concurrency,
        image: resources::image_from_env(),
    };
    let metrics = Arc::new(Metrics::new());
    let client =
        operator_runtime::connect(flags.manager.kubeconfig.as_deref(), metrics.clone()).await?;
    let shutdown = operator_runtime::shutdown_on_signals();
    manager::run(client.clone(), metrics, options, shutdown, |runtime| {
        controller::start(client, settings, runtime)
    })
    .await
    .context("the manager stopped")?;
    Ok(())
}
