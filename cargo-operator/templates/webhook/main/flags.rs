/// Serve the webhooks of `webhooks::all()` (on :9443, with the certificate in
/// --webhook-cert-path). `cargo xtask run` turns them off: out of the cluster there is no
/// certificate.
#[arg(long, env = "ENABLE_WEBHOOKS", default_value_t = true, action = clap::ArgAction::Set)]
enable_webhooks: bool,
#[command(flatten)]
webhook: operator_runtime::WebhookFlags,
