// The webhook server: every instance serves it, leader or not, and /readyz waits for it.
let webhook_stop = shutdown.child_token();
let mut checks = checks;
let webhook_server = if flags.enable_webhooks {
    let server = operator_runtime::webhook::WebhookServer::bind(
        flags.webhook.options().with_metrics(metrics.clone()),
        {{crate_ident}}::webhooks::all(),
    )
    .await
    .context("starting the webhook server (ENABLE_WEBHOOKS=false runs without it)")?;
    checks.push(Arc::new(server.readiness()));
    Some(tokio::spawn(server.run(webhook_stop.clone())))
} else {
    None
};
