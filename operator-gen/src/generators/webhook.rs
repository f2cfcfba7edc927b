//! Webhook configurations from `#[webhook]` markers, as controller-gen's `webhook` generator
//! writes them: one `MutatingWebhookConfiguration` then one `ValidatingWebhookConfiguration`
//! (each only when it has webhooks) in `webhook/manifests.yaml`, webhooks sorted by name,
//! one rule per webhook, Service `webhook-service` in `system` unless the marker names
//! another, object names from `#[webhook_configuration]` or kubebuilder's defaults.
//!
//! Where controller-gen writes what the API server refuses (two webhooks of one
//! configuration with the same name), or picks silently (two `webhookconfiguration` markers
//! in different packages: the last package loaded wins), this generator refuses, at the
//! marker.

use crate::api::admissionregistration::v1::{
    MutatingWebhook, MutatingWebhookConfiguration, RuleWithOperations, ServiceReference,
    ValidatingWebhook, ValidatingWebhookConfiguration, WebhookClientConfig,
};
use crate::api::meta::v1::ObjectMeta;

use super::{Artifact, ArtifactKind};
use crate::generators::{Generator, Reads};
use crate::markers::{WebhookConfigurationMarker, WebhookMarker, WebhookTarget};
use crate::model::Api;
use crate::place::{Located, Location};
use crate::render::document;
use crate::render::yaml;
use crate::{LocatedError, Options};

/// The file the configurations go to, as controller-gen names it.
pub const MANIFESTS_FILE: &str = "manifests.yaml";
/// kubebuilder's name of the mutating configuration.
pub const DEFAULT_MUTATING_NAME: &str = "mutating-webhook-configuration";
/// kubebuilder's name of the validating configuration.
pub const DEFAULT_VALIDATING_NAME: &str = "validating-webhook-configuration";

/// The webhook generator: `#[webhook]` markers to `webhook/manifests.yaml`.
#[derive(Debug)]
pub struct WebhookGenerator;

impl Generator for WebhookGenerator {
    fn name(&self) -> &'static str {
        "webhook"
    }

    fn help(&self) -> &'static str {
        "Mutating and validating webhook configurations from #[webhook] markers, into webhook/manifests.yaml"
    }

    fn dir(&self) -> &'static str {
        "webhook"
    }

    fn owns(&self, path: &str) -> bool {
        path == MANIFESTS_FILE
    }

    fn reads(&self) -> Reads {
        Reads {
            webhooks: true,
            ..Default::default()
        }
    }

    fn build(&self, api: &Api, _options: &Options) -> Result<Vec<Artifact>, Vec<LocatedError>> {
        let configurations = build_configurations(&api.webhooks, &api.webhook_configurations)?;
        Ok(render(&configurations).into_iter().collect())
    }
}

/// The two configurations of a project (either may be absent).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WebhookConfigurations {
    /// The MutatingWebhookConfiguration, when there is a mutating webhook.
    pub mutating: Option<MutatingWebhookConfiguration>,
    /// The ValidatingWebhookConfiguration, when there is a validating webhook.
    pub validating: Option<ValidatingWebhookConfiguration>,
}

fn rule(m: &WebhookMarker) -> RuleWithOperations {
    let list = |l: &[String]| (!l.is_empty()).then(|| l.to_vec());
    RuleWithOperations {
        api_groups: list(&m.groups),
        api_versions: list(&m.versions),
        operations: list(&m.operations),
        resources: list(&m.resources),
        scope: None,
    }
}

fn client_config(m: &WebhookMarker) -> WebhookClientConfig {
    match &m.target {
        WebhookTarget::Service {
            name,
            namespace,
            path,
            port,
        } => WebhookClientConfig {
            service: Some(ServiceReference {
                name: name.clone(),
                namespace: namespace.clone(),
                path: Some(path.clone()),
                port: *port,
            }),
            ..Default::default()
        },
        WebhookTarget::Url(url) => WebhookClientConfig {
            url: Some(url.clone()),
            ..Default::default()
        },
    }
}

fn mutating(m: &WebhookMarker) -> MutatingWebhook {
    MutatingWebhook {
        admission_review_versions: m.admission_review_versions.clone(),
        client_config: client_config(m),
        failure_policy: Some(m.failure_policy.clone()),
        match_policy: m.match_policy.clone(),
        name: m.name.clone(),
        reinvocation_policy: m.reinvocation_policy.clone(),
        rules: Some(vec![rule(m)]),
        side_effects: m.side_effects.clone(),
        timeout_seconds: m.timeout_seconds,
    }
}

fn validating(m: &WebhookMarker) -> ValidatingWebhook {
    ValidatingWebhook {
        admission_review_versions: m.admission_review_versions.clone(),
        client_config: client_config(m),
        failure_policy: Some(m.failure_policy.clone()),
        match_policy: m.match_policy.clone(),
        name: m.name.clone(),
        rules: Some(vec![rule(m)]),
        side_effects: m.side_effects.clone(),
        timeout_seconds: m.timeout_seconds,
    }
}

fn kind_word(mutating: bool) -> &'static str {
    if mutating { "mutating" } else { "validating" }
}

/// Builds both configurations from the markers (with their locations), or says where two
/// markers contradict each other.
fn build_configurations(
    webhooks: &[Located<WebhookMarker>],
    configurations: &[Located<WebhookConfigurationMarker>],
) -> Result<WebhookConfigurations, Vec<LocatedError>> {
    let mut errors = Vec::new();
    let mut names: [Option<&Located<WebhookConfigurationMarker>>; 2] = [None, None];
    for entry in configurations {
        let slot = &mut names[usize::from(entry.value.mutating)];
        match slot {
            Some(first) => errors.push(entry.at.error(format!(
                "a second #[webhook_configuration(mutating = {})]: the {} configuration is already named at {}; keep one",
                entry.value.mutating,
                kind_word(entry.value.mutating),
                first.at
            ))),
            None => *slot = Some(entry),
        }
    }
    // Sorted by name, as controller-gen sorts them (byte order).
    let mut webhooks: Vec<&Located<WebhookMarker>> = webhooks.iter().collect();
    webhooks.sort_by(|a, b| a.value.name.cmp(&b.value.name));
    let mut seen: std::collections::BTreeMap<(bool, &str), &Location> = Default::default();
    for Located { value: marker, at } in webhooks.iter().copied() {
        match seen.entry((marker.mutating, marker.name.as_str())) {
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(at);
            }
            std::collections::btree_map::Entry::Occupied(first) => errors.push(at.error(format!(
                "two {} webhooks are named {:?} (the other is at {}); the API server refuses a configuration whose webhooks share a name",
                kind_word(marker.mutating),
                marker.name,
                first.get()
            ))),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let name_of = |mutating: bool, default: &str| ObjectMeta {
        name: Some(
            names[usize::from(mutating)]
                .and_then(|c| c.value.name.clone())
                .unwrap_or_else(|| default.to_string()),
        ),
        ..Default::default()
    };
    let m: Vec<MutatingWebhook> = webhooks
        .iter()
        .filter(|w| w.value.mutating)
        .map(|w| mutating(&w.value))
        .collect();
    let v: Vec<ValidatingWebhook> = webhooks
        .iter()
        .filter(|w| !w.value.mutating)
        .map(|w| validating(&w.value))
        .collect();
    Ok(WebhookConfigurations {
        mutating: (!m.is_empty()).then(|| MutatingWebhookConfiguration {
            metadata: name_of(true, DEFAULT_MUTATING_NAME),
            webhooks: Some(m),
        }),
        validating: (!v.is_empty()).then(|| ValidatingWebhookConfiguration {
            metadata: name_of(false, DEFAULT_VALIDATING_NAME),
            webhooks: Some(v),
        }),
    })
}

/// The webhook file of `configurations`: none when there are no webhooks.
pub fn render(configurations: &WebhookConfigurations) -> Option<Artifact> {
    let mut docs = Vec::new();
    if let Some(m) = &configurations.mutating {
        docs.push(document(m));
    }
    if let Some(v) = &configurations.validating {
        docs.push(document(v));
    }
    (!docs.is_empty()).then(|| Artifact {
        kind: ArtifactKind::WEBHOOK,
        file_name: MANIFESTS_FILE.into(),
        contents: yaml::to_yaml_stream(&docs),
    })
}
