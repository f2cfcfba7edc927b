//! The operator's admission and conversion webhooks, one module per version (kubebuilder's
//! `internal/webhook`). Each handler's `#[webhook]` marker is what `cargo xtask manifests`
//! writes to `config/webhook/manifests.yaml`; [`all`] is what `main` serves, and
//! `cargo operator create webhook` adds each new handler to both.

use operator_runtime::webhook::Webhooks;

pub mod v1;
// +operator:scaffold:webhook-versions

/// Every webhook of the operator, each at the path its marker names (defaulting and
/// validation) or at `/convert` (conversion).
pub fn all() -> Webhooks {
    Webhooks::new()
        .defaulter(v1::GuestbookDefaulter)
        .validator(v1::GuestbookValidator)
    // +operator:scaffold:webhooks
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// Each path the generated webhook configurations send the API server to is served: a
    /// handler with a `#[webhook]` marker but missing from [`all`] fails here, not in the
    /// cluster.
    #[test]
    fn every_configured_webhook_path_is_served() {
        let manifests =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/webhook/manifests.yaml");
        // A project with only conversion webhooks has no such file.
        let text = std::fs::read_to_string(&manifests).unwrap_or_default();
        let webhooks = all();
        let served: Vec<&str> = webhooks.paths().collect();
        for line in text.lines() {
            if let Some(path) = line.trim().strip_prefix("path: ") {
                assert!(
                    served.contains(&path),
                    "{} sends the API server to {path}, which webhooks::all() does not serve \
                     (served: {served:?})",
                    manifests.display()
                );
            }
        }
    }
}
