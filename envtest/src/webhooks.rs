//! A project's webhook configurations (`config/webhook/manifests.yaml`, as `cargo xtask
//! manifests` writes them) pointed at a webhook server on this machine, so that the API
//! server of the local plane calls the handlers under test.
//!
//! The local plane has no service network, so each webhook's `service` reference becomes a
//! `url` on the server's address, with the bundle of the CA that signed its certificate
//! ([`crate::certs::Pki`] makes both). Everything else the file says (rules, names, failure
//! policy, side effects, review versions) stays, unless a test narrows it: to one namespace
//! (so that parallel tests do not call each other's servers) or to another failure policy.
//!
//! ```no_run
//! # async fn demo(client: kube::Client, base_url: &str, ca: &[u8]) -> Result<(), envtest::Error> {
//! use envtest::webhooks::WebhookConfigurations;
//! let configurations = WebhookConfigurations::read("config/webhook/manifests.yaml".as_ref())?
//!     .served_at(base_url, ca)
//!     .only_in_namespace("webhooks-test-1");
//! configurations.apply(&client).await?;
//! // ... create objects in webhooks-test-1: the API server asks the local handlers ...
//! configurations.delete(&client).await?;
//! # Ok(()) }
//! ```

use std::path::Path;

use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration, WebhookClientConfig,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube::{Client, ResourceExt as _};

use crate::Error;

/// The field manager of what [`WebhookConfigurations::apply`] writes.
const FIELD_MANAGER: &str = "envtest-webhooks";

/// The mutating and validating webhook configurations of a project, to install on a test
/// cluster.
#[derive(Debug, Clone, Default)]
pub struct WebhookConfigurations {
    pub mutating: Vec<MutatingWebhookConfiguration>,
    pub validating: Vec<ValidatingWebhookConfiguration>,
}

impl WebhookConfigurations {
    /// The configurations in `path` (a YAML stream; other kinds are an error).
    pub fn read(path: &Path) -> Result<Self, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let bad = |what: String| Error::Manifest(format!("{}: {what}", path.display()));
        let mut out = Self::default();
        for doc in serde_yaml::Deserializer::from_str(&text) {
            let value: serde_json::Value =
                serde::Deserialize::deserialize(doc).map_err(|e| bad(e.to_string()))?;
            if value.is_null() {
                continue;
            }
            match value["kind"].as_str() {
                Some("MutatingWebhookConfiguration") => out
                    .mutating
                    .push(serde_json::from_value(value).map_err(|e| bad(e.to_string()))?),
                Some("ValidatingWebhookConfiguration") => out
                    .validating
                    .push(serde_json::from_value(value).map_err(|e| bad(e.to_string()))?),
                other => {
                    return Err(bad(format!(
                        "expected webhook configurations, found kind {other:?}"
                    )));
                }
            }
        }
        Ok(out)
    }

    /// Every webhook called at `base_url` (`https://127.0.0.1:9443`) followed by its path,
    /// trusting `ca_bundle` (PEM).
    pub fn served_at(mut self, base_url: &str, ca_bundle: &[u8]) -> Self {
        let base_url = base_url.trim_end_matches('/');
        self.each_hook(|hook| {
            let config = hook.client_config;
            let path = config
                .service
                .as_ref()
                .and_then(|s| s.path.clone())
                .or_else(|| config.url.as_deref().and_then(url_path))
                .unwrap_or_default();
            *config = WebhookClientConfig {
                url: Some(format!("{base_url}{path}")),
                ca_bundle: Some(k8s_openapi::ByteString(ca_bundle.to_vec())),
                service: None,
            };
        });
        self
    }

    /// Every webhook called only for objects in `namespace`, and every configuration named
    /// `<namespace>-<name>`, so that tests in other namespaces do not meet it.
    pub fn only_in_namespace(mut self, namespace: &str) -> Self {
        let only_here = LabelSelector {
            match_labels: Some(
                [(
                    "kubernetes.io/metadata.name".to_string(),
                    namespace.to_string(),
                )]
                .into(),
            ),
            ..Default::default()
        };
        let metadata = self
            .mutating
            .iter_mut()
            .map(|c| &mut c.metadata)
            .chain(self.validating.iter_mut().map(|c| &mut c.metadata));
        for meta in metadata {
            let name = meta.name.as_deref().unwrap_or_default();
            meta.name = Some(format!("{namespace}-{name}"));
        }
        self.each_hook(|hook| *hook.namespace_selector = Some(only_here.clone()));
        self
    }

    /// Every webhook with this `failurePolicy` (`Fail` or `Ignore`).
    pub fn failure_policy(mut self, policy: &str) -> Self {
        self.each_hook(|hook| *hook.failure_policy = Some(policy.into()));
        self
    }

    /// Calls `f` with what the adjustments change of every webhook, mutating or validating.
    fn each_hook(&mut self, mut f: impl FnMut(Hook<'_>)) {
        for h in self
            .mutating
            .iter_mut()
            .flat_map(|c| c.webhooks.iter_mut().flatten())
        {
            f(Hook {
                client_config: &mut h.client_config,
                namespace_selector: &mut h.namespace_selector,
                failure_policy: &mut h.failure_policy,
            });
        }
        for h in self
            .validating
            .iter_mut()
            .flat_map(|c| c.webhooks.iter_mut().flatten())
        {
            f(Hook {
                client_config: &mut h.client_config,
                namespace_selector: &mut h.namespace_selector,
                failure_policy: &mut h.failure_policy,
            });
        }
    }

    /// Installs (or replaces) every configuration with server-side apply.
    pub async fn apply(&self, client: &Client) -> Result<(), Error> {
        let params = PatchParams::apply(FIELD_MANAGER).force();
        for c in &self.mutating {
            apply(client, c, "MutatingWebhookConfiguration", &params).await?;
        }
        for c in &self.validating {
            apply(client, c, "ValidatingWebhookConfiguration", &params).await?;
        }
        Ok(())
    }

    /// Deletes every configuration (those already gone are no error).
    pub async fn delete(&self, client: &Client) -> Result<(), Error> {
        let mutating: Api<MutatingWebhookConfiguration> = Api::all(client.clone());
        for c in &self.mutating {
            gone(
                mutating
                    .delete(&c.name_any(), &DeleteParams::default())
                    .await,
            )?;
        }
        let validating: Api<ValidatingWebhookConfiguration> = Api::all(client.clone());
        for c in &self.validating {
            gone(
                validating
                    .delete(&c.name_any(), &DeleteParams::default())
                    .await,
            )?;
        }
        Ok(())
    }
}

/// The fields a mutating and a validating webhook share that the adjustments change.
struct Hook<'a> {
    client_config: &'a mut WebhookClientConfig,
    namespace_selector: &'a mut Option<LabelSelector>,
    failure_policy: &'a mut Option<String>,
}

/// The path of a `url` client config (`https://host:port/validate-x` is `/validate-x`).
fn url_path(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    rest.find('/').map(|i| rest[i..].to_string())
}

async fn apply<K>(
    client: &Client,
    object: &K,
    kind: &str,
    params: &PatchParams,
) -> Result<(), Error>
where
    K: kube::Resource<DynamicType = (), Scope = kube::core::ClusterResourceScope>
        + serde::Serialize
        + serde::de::DeserializeOwned
        + Clone
        + std::fmt::Debug,
{
    let name = object.name_any();
    let mut body =
        serde_json::to_value(object).map_err(|e| Error::Manifest(format!("{kind} {name}: {e}")))?;
    body["apiVersion"] = "admissionregistration.k8s.io/v1".into();
    body["kind"] = kind.into();
    Api::<K>::all(client.clone())
        .patch(&name, params, &Patch::Apply(body))
        .await
        .map_err(|e| Error::Manifest(format!("applying {kind} {name}: {e}")))?;
    Ok(())
}

fn gone<T>(result: Result<T, kube::Error>) -> Result<(), Error> {
    match result {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANIFESTS: &str = r#"---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /mutate-cache-example-com-v1alpha1-memcached
  failurePolicy: Fail
  name: mmemcached-v1alpha1.kb.io
  sideEffects: None
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /validate-cache-example-com-v1alpha1-memcached
  failurePolicy: Fail
  name: vmemcached-v1alpha1.kb.io
  sideEffects: None
"#;

    /// Service references become URLs on the local server with the CA bundle, narrowed to
    /// one namespace and renamed for it; a failure policy can be swapped.
    #[test]
    fn generated_configurations_are_pointed_at_a_local_server() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifests.yaml");
        std::fs::write(&path, MANIFESTS).unwrap();
        let c = WebhookConfigurations::read(&path)
            .unwrap()
            .served_at("https://127.0.0.1:9443/", b"CA")
            .only_in_namespace("ns-1")
            .failure_policy("Ignore");
        let hook = &c.mutating[0].webhooks.as_ref().unwrap()[0];
        assert_eq!(
            hook.client_config.url.as_deref(),
            Some("https://127.0.0.1:9443/mutate-cache-example-com-v1alpha1-memcached")
        );
        assert!(hook.client_config.service.is_none());
        assert_eq!(hook.client_config.ca_bundle.as_ref().unwrap().0, b"CA");
        assert_eq!(hook.failure_policy.as_deref(), Some("Ignore"));
        assert_eq!(
            c.mutating[0].name_any(),
            "ns-1-mutating-webhook-configuration"
        );
        let selector = hook.namespace_selector.as_ref().unwrap();
        assert_eq!(
            selector.match_labels.as_ref().unwrap()["kubernetes.io/metadata.name"],
            "ns-1"
        );
        // Pointed again (a server on another port): the path is kept.
        let again = c.served_at("https://127.0.0.1:1234", b"CA2");
        assert_eq!(
            again.validating[0].webhooks.as_ref().unwrap()[0]
                .client_config
                .url
                .as_deref(),
            Some("https://127.0.0.1:1234/validate-cache-example-com-v1alpha1-memcached")
        );

        std::fs::write(&path, "apiVersion: v1\nkind: ConfigMap\n").unwrap();
        let err = WebhookConfigurations::read(&path).unwrap_err().to_string();
        assert!(
            err.contains("expected webhook configurations, found kind Some(\"ConfigMap\")"),
            "{err}"
        );
    }
}
