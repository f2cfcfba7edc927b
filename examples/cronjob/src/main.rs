//! The CronJob operator binary: the manager's standard flags and its webhook flags, the
//! controller and the webhooks, until SIGTERM or SIGINT.

use std::sync::Arc;

use anyhow::{Context as _, Result};
use clap::Parser;
use cronjob_example::controller::{self, FIELD_MANAGER, Settings};
use cronjob_example::webhooks;
use operator_runtime::{Manager, ManagerFlags, Metrics, WebhookFlags};

/// The Lease instances elect a leader on, unless `--leader-election-id` names another.
const LEASE_NAME: &str = "cronjob-operator.batch.tutorial.kubebuilder.io";

#[derive(Parser, Debug)]
#[command(
    name = "cronjob",
    version,
    about = "The CronJob operator of the tutorial"
)]
struct Flags {
    #[command(flatten)]
    manager: ManagerFlags,
    /// Serve the defaulting and validating webhooks.
    #[arg(long, env = "ENABLE_WEBHOOKS", default_value_t = true, action = clap::ArgAction::Set)]
    enable_webhooks: bool,
    #[command(flatten)]
    webhook: WebhookFlags,
}

#[tokio::main]
async fn main() -> Result<()> {
    let flags = Flags::parse();
    operator_runtime::logging::init(flags.manager.log_format);
    let options = flags.manager.options(FIELD_MANAGER, LEASE_NAME)?;
    let settings = Settings::new(flags.manager.watch_namespace());
    let metrics = Arc::new(Metrics::new());
    let client =
        operator_runtime::connect(flags.manager.kubeconfig.as_deref(), metrics.clone()).await?;
    let mut manager = Manager::new(client.clone(), metrics, options)
        .metrics_security(flags.manager.metrics_security());
    if flags.enable_webhooks {
        manager = manager.webhooks(flags.webhook.options(), webhooks::webhooks());
    }
    manager
        .run(|runtime| controller::start(client, settings, runtime))
        .await
        .context("the manager stopped")?;
    Ok(())
}
