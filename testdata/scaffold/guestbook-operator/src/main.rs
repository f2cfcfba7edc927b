//! The guestbook-operator binary: the manager's standard flags (from `operator-runtime`) and the
//! controllers it runs until SIGTERM or SIGINT (`cargo operator create webhook` adds the
//! webhook server beside it).

use std::sync::Arc;

use anyhow::{Context as _, Result};
use clap::Parser;
use operator_derive::rbac;
use operator_runtime::{ManagerFlags, Metrics, ReadyCheck, manager};

/// Field manager and name of the operator in metrics and events.
const NAME: &str = "guestbook-operator";
/// The Lease instances elect a leader on, unless `--leader-election-id` names another.
const LEASE_NAME: &str = "guestbook-operator.example.com";

#[derive(Parser, Debug)]
#[command(
    name = "guestbook-operator",
    version,
    about = "The guestbook-operator operator"
)]
struct Flags {
    #[command(flatten)]
    manager: ManagerFlags,
    /// Serve the webhooks of `webhooks::all()` (on :9443, with the certificate in
    /// --webhook-cert-path). `cargo xtask run` turns them off: out of the cluster there is no
    /// certificate.
    #[arg(long, env = "ENABLE_WEBHOOKS", default_value_t = true, action = clap::ArgAction::Set)]
    enable_webhooks: bool,
    #[command(flatten)]
    webhook: operator_runtime::WebhookFlags,
    // +operator:scaffold:flags
}

// Leader election only touches one Lease in the operator's own namespace (kustomize rewrites
// `system` to the deployment namespace), so it gets a namespaced Role.
#[rbac(
    groups = "coordination.k8s.io",
    resources = "leases",
    verbs = "get;create;patch",
    namespace = "system",
    role_name = "leader-election-role"
)]
#[tokio::main]
async fn main() -> Result<()> {
    let flags = Flags::parse();
    operator_runtime::logging::init(flags.manager.log_format);

    let options = flags.manager.options(NAME, LEASE_NAME)?;
    let metrics = Arc::new(Metrics::new());
    let client =
        operator_runtime::connect(flags.manager.kubeconfig.as_deref(), metrics.clone()).await?;
    let shutdown = operator_runtime::shutdown_on_signals();
    // What /readyz waits for besides the controllers' caches: the servers started here.
    let checks: Vec<Arc<dyn ReadyCheck>> = Vec::new();
    // The webhook server: every instance serves it, leader or not, and /readyz waits for it.
    let webhook_stop = shutdown.child_token();
    let mut checks = checks;
    let webhook_server = if flags.enable_webhooks {
        let server = operator_runtime::webhook::WebhookServer::bind(
            flags.webhook.options().with_metrics(metrics.clone()),
            guestbook_operator::webhooks::all(),
        )
        .await
        .context("starting the webhook server (ENABLE_WEBHOOKS=false runs without it)")?;
        checks.push(Arc::new(server.readiness()));
        Some(tokio::spawn(server.run(webhook_stop.clone())))
    } else {
        None
    };
    // +operator:scaffold:servers
    // /metrics over HTTPS for callers allowed to get it, unless --metrics-secure=false.
    let result = manager::run_with_metrics_security(
        client.clone(),
        metrics,
        options,
        flags.manager.metrics_security(),
        checks,
        shutdown,
        |runtime| guestbook_operator::controllers::run_all(client, runtime),
    )
    .await;
    webhook_stop.cancel();
    if let Some(server) = webhook_server {
        server.await.context("the webhook server failed")?;
    }
    // +operator:scaffold:stop-servers
    result.context("the manager stopped")?;
    Ok(())
}
