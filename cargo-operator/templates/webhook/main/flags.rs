/// Serve the webhooks of `webhooks::all()` (on :9443, with the certificate in
/// --webhook-cert-path or kept in the Secret --webhook-cert-secret names). `cargo xtask run`
/// turns them off: out of the cluster nothing routes the API server to them.
#[arg(long, env = "ENABLE_WEBHOOKS", default_value_t = true, action = clap::ArgAction::Set)]
enable_webhooks: bool,
#[command(flatten)]
webhook: operator_runtime::WebhookFlags,
