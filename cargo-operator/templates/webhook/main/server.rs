// The webhook server: every instance serves it, leader or not, and /readyz waits for it;
// the manager starts it, counts its requests in the metrics and stops it last.
let manager = if flags.enable_webhooks {
    manager.webhooks(flags.webhook.options(), {{crate_ident}}::webhooks::all())
} else {
    manager
};
