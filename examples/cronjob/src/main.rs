//! The CronJob operator binary: the manager's standard flags and its webhook flags, the
//! controller and the webhooks, until SIGTERM or SIGINT.

use anyhow::{Context as _, Result};
use clap::Parser;
use cronjob_example::controller::{self, FIELD_MANAGER, Settings};
use cronjob_example::webhooks;
use operator_runtime::{Manager, ManagerFlags, WebhookFlags};

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
    let settings = Settings::new(flags.manager.watch_namespace());
    let mut manager = Manager::from_flags(&flags.manager, FIELD_MANAGER, LEASE_NAME).await?;
    let client = manager.client();
    if flags.enable_webhooks {
        manager = manager.webhooks_from_flags(&flags.webhook, webhooks::webhooks())?;
    }
    manager
        .run(|runtime| controller::start(client, settings, runtime))
        .await
        .context("the manager stopped")?;
    Ok(())
}
