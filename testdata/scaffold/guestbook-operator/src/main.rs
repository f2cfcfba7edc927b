//! The guestbook-operator binary: the manager's standard flags (from `operator-runtime`) and the
//! controllers it runs until SIGTERM or SIGINT (`cargo operator create webhook` adds the
//! webhook server beside it).

use anyhow::{Context as _, Result};
use clap::Parser;
use operator_derive::rbac;
use operator_runtime::{Manager, ManagerFlags};

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
    /// --webhook-cert-path or kept in the Secret --webhook-cert-secret names). `cargo xtask run`
    /// turns them off: out of the cluster nothing routes the API server to them.
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

    // The client from --kubeconfig (or kubectl's order), its requests counted in the manager's
    // metrics; /metrics over HTTPS for callers allowed to get it, unless --metrics-secure=false;
    // stops on SIGTERM or SIGINT.
    let manager = Manager::from_flags(&flags.manager, NAME, LEASE_NAME).await?;
    let client = manager.client();
    // The webhook server: every instance serves it, leader or not, and /readyz waits for it;
    // the manager starts it, counts its requests in the metrics and stops it last.
    // Its certificate from --webhook-cert-path (cert-manager's) or kept by the operator in the
    // Secret --webhook-cert-secret names.
    let manager = if flags.enable_webhooks {
        manager.webhooks_from_flags(&flags.webhook, guestbook_operator::webhooks::all())?
    } else {
        manager
    };
    // +operator:scaffold:servers
    // Every namespace, or only --watch-namespace (WATCH_NAMESPACE), which config/manager sets
    // to the pod's own namespace in a namespace-scoped project (PROJECT.toml's `namespaced`).
    let namespace = flags.manager.watch_namespace();
    manager
        .run(|runtime| guestbook_operator::controllers::run_all(client, runtime, namespace))
        .await
        .context("the manager stopped")?;
    Ok(())
}
