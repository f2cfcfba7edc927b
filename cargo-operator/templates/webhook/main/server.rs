// The webhook server: every instance serves it, leader or not, and /readyz waits for it;
// the manager starts it, counts its requests in the metrics and stops it last.
// Its certificate from --webhook-cert-path (cert-manager's) or kept by the operator in the
// Secret --webhook-cert-secret names.
let manager = if flags.enable_webhooks {
    manager.webhooks_from_flags(&flags.webhook, {{crate_ident}}::webhooks::all())?
} else {
    manager
};
