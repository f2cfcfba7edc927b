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
use syn::spanned::Spanned as _;

use crate::diagnostics::Diagnostics;
use crate::generator::{Facts, Generator};
use crate::markers::{self, MetaSource, WebhookConfigurationMarker, WebhookMarker, WebhookTarget};
use crate::output::{Artifact, ArtifactKind, document};
use crate::source::SourceFile;
use crate::{LocatedError, Options, Origin, yaml};

/// The file the configurations go to, as controller-gen names it.
pub const MANIFESTS_FILE: &str = "manifests.yaml";
/// kubebuilder's name of the mutating configuration.
pub const DEFAULT_MUTATING_NAME: &str = "mutating-webhook-configuration";
/// kubebuilder's name of the validating configuration.
pub const DEFAULT_VALIDATING_NAME: &str = "validating-webhook-configuration";

/// The webhook generator: `#[webhook]` markers to `webhook/manifests.yaml`.
#[derive(Debug)]
pub struct WebhookGenerator;

/// What one file holds: its markers with where they are.
#[derive(Debug, Default)]
struct FileFacts {
    webhooks: Vec<(WebhookMarker, LocatedError)>,
    configurations: Vec<(WebhookConfigurationMarker, LocatedError)>,
}

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

    fn owns(&self, file_name: &str) -> bool {
        file_name == MANIFESTS_FILE
    }

    fn collect(&self, file: &SourceFile, diags: &mut Diagnostics) -> Option<Facts> {
        let at = |span| LocatedError::new(file, span, String::new(), Origin::Source);
        let mut facts = FileFacts::default();
        let (webhooks, misplaced) = crate::source::item_markers(file, markers::WEBHOOK);
        for attr in webhooks {
            if let Some(m) = markers::parse_webhook(MetaSource::Attr(attr), diags) {
                facts.webhooks.push((m.value, at(m.span)));
            }
        }
        let (configurations, misplaced_configurations) =
            crate::source::item_markers(file, markers::WEBHOOK_CONFIGURATION);
        for attr in configurations {
            if let Some(m) = markers::parse_webhook_configuration(MetaSource::Attr(attr), diags) {
                facts.configurations.push((m.value, at(m.span)));
            }
        }
        for attr in misplaced {
            diags.push(attr.span(), markers::MISPLACED_WEBHOOK);
        }
        for attr in misplaced_configurations {
            diags.push(attr.span(), markers::MISPLACED_WEBHOOK_CONFIGURATION);
        }
        (!facts.webhooks.is_empty() || !facts.configurations.is_empty())
            .then(|| Box::new(facts) as Facts)
    }

    fn build(
        &self,
        facts: Vec<Facts>,
        _options: &Options,
    ) -> Result<Vec<Artifact>, Vec<LocatedError>> {
        let mut all = FileFacts::default();
        for f in facts {
            if let Ok(f) = f.downcast::<FileFacts>() {
                all.webhooks.extend(f.webhooks);
                all.configurations.extend(f.configurations);
            }
        }
        let configurations = build_configurations(all.webhooks, &all.configurations)?;
        Ok(render(&configurations).into_iter().collect())
    }
}

/// The two configurations of a project (either may be absent).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WebhookConfigurations {
    pub mutating: Option<MutatingWebhookConfiguration>,
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
    mut webhooks: Vec<(WebhookMarker, LocatedError)>,
    configurations: &[(WebhookConfigurationMarker, LocatedError)],
) -> Result<WebhookConfigurations, Vec<LocatedError>> {
    let mut errors = Vec::new();
    let mut names: [Option<&(WebhookConfigurationMarker, LocatedError)>; 2] = [None, None];
    for entry in configurations {
        let slot = &mut names[usize::from(entry.0.mutating)];
        match slot {
            Some(first) => errors.push(LocatedError {
                message: format!(
                    "a second #[webhook_configuration(mutating = {})]: the {} configuration is already named at {}:{}:{}; keep one",
                    entry.0.mutating,
                    kind_word(entry.0.mutating),
                    first.1.file.display(),
                    first.1.line,
                    first.1.column
                ),
                ..entry.1.clone()
            }),
            None => *slot = Some(entry),
        }
    }
    // Sorted by name, as controller-gen sorts them (byte order).
    webhooks.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    let mut seen: std::collections::BTreeMap<(bool, &str), &LocatedError> = Default::default();
    for (marker, at) in &webhooks {
        match seen.entry((marker.mutating, marker.name.as_str())) {
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(at);
            }
            std::collections::btree_map::Entry::Occupied(first) => errors.push(LocatedError {
                message: format!(
                    "two {} webhooks are named {:?} (the other is at {}:{}:{}); the API server refuses a configuration whose webhooks share a name",
                    kind_word(marker.mutating),
                    marker.name,
                    first.get().file.display(),
                    first.get().line,
                    first.get().column
                ),
                ..at.clone()
            }),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let name_of = |mutating: bool, default: &str| ObjectMeta {
        name: Some(
            names[usize::from(mutating)]
                .and_then(|c| c.0.name.clone())
                .unwrap_or_else(|| default.to_string()),
        ),
        ..Default::default()
    };
    let m: Vec<MutatingWebhook> = webhooks
        .iter()
        .filter(|w| w.0.mutating)
        .map(|w| mutating(&w.0))
        .collect();
    let v: Vec<ValidatingWebhook> = webhooks
        .iter()
        .filter(|w| !w.0.mutating)
        .map(|w| validating(&w.0))
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
