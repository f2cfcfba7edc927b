//! The admission and conversion webhook server, what controller-runtime's webhook server
//! gives a Go operator: HTTPS with certificates reloaded when cert-manager renews them,
//! typed handlers per kind, and an answer (never a crash) for whatever arrives.
//!
//! - **Defaulting** (mutating webhook): a [`Defaulter`] changes a typed `&mut K`; the server
//!   answers with the JSON Patch between `K`'s serialization before and after, carried over
//!   onto the object as the API server sent it, so fields the Rust type does not know are
//!   never removed.
//! - **Validation**: a [`Validator`] allows or denies creates, updates and deletes, with
//!   warnings for the client either way.
//! - **Conversion** (`apiextensions.k8s.io/v1` ConversionReview at `/convert`): each version
//!   of a kind converts to and from a hub version through the operator's `From`/`TryFrom`
//!   impls ([`Conversion`]).
//!
//! Defaults are controller-runtime's: port [`DEFAULT_PORT`] (9443), `tls.crt` and `tls.key`
//! in [`DEFAULT_CERT_DIR`], webhooks at `/mutate-<group>-<version>-<kind>` and
//! `/validate-...` ([`mutate_path`], [`validate_path`]; the group's dots become dashes, the
//! kind is lower-cased), conversion at [`CONVERT_PATH`]. These are the paths
//! `operator-gen`'s webhook manifests and kubebuilder's scaffolding point to.
//!
//! # Certificates
//!
//! [`Certificates::Files`] are checked on every TLS handshake with two `stat` calls and
//! reread when they change (device, inode, size or times differ, as when the kubelet swaps a
//! Secret volume's symlink); a pair that does not parse or whose key does not match is
//! ignored and the previous one keeps serving. [`Certificates::Pem`] holds fixed PEM, for
//! tests. Details in the source of the `tls` module. [`Certificates::Shared`] is replaced
//! while the server runs: a [`CertRotator`] keeps the operator's own CA and serving
//! certificate in a Secret, writes the CA bundle into the operator's webhook configurations
//! and CRD conversions, and renews both, without cert-manager.
//!
//! # What the server answers
//!
//! | request | answer |
//! |---|---|
//! | `GET /healthz` | 200 `ok` |
//! | unknown path | 404 |
//! | a webhook path, not `POST` | 405 |
//! | content type not `application/json` | 415 |
//! | body over [`WebhookOptions::max_request_bytes`] | 413 |
//! | not JSON, not an `admission.k8s.io/v1` AdmissionReview (or `apiextensions.k8s.io/v1` ConversionReview), no `request` | 400 with the reason |
//! | an object that is not `K` (other kind or version, a field that does not decode) | 200, `allowed: false`, the request's uid, code 400 and what is wrong |
//! | a handler that panics | 200, `allowed: false`, code 500; the panic is logged and the server goes on |
//! | a conversion that fails or panics | 200, `result.status: Failure` with the message |
//!
//! The body limit, [`DEFAULT_MAX_REQUEST_BYTES`] = 7 MiB: the API server takes request
//! bodies up to 3 MiB, and an UPDATE's review carries the object twice (`object` and
//! `oldObject`), plus the request's other fields.
//!
//! # Example
//!
//! An operator with a defaulter and a validator for `Memcached` and a conversion between
//! its two versions, serving webhooks beside the manager:
//!
//! ```no_run
//! use std::sync::Arc;
//! use operator_runtime::webhook::{
//!     self, AdmissionContext, Conversion, Denial, Outcome, Validator, WebhookOptions, Webhooks,
//! };
//! use operator_runtime::{Manager, Metrics, manager};
//! # use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
//! # use serde::{Deserialize, Serialize};
//! # macro_rules! resource {
//! #     ($ty:ident, $version:literal) => {
//! #         impl kube::Resource for $ty {
//! #             type DynamicType = ();
//! #             type Scope = kube::core::NamespaceResourceScope;
//! #             fn kind(_: &()) -> std::borrow::Cow<'_, str> { "Memcached".into() }
//! #             fn group(_: &()) -> std::borrow::Cow<'_, str> { "cache.example.com".into() }
//! #             fn version(_: &()) -> std::borrow::Cow<'_, str> { $version.into() }
//! #             fn plural(_: &()) -> std::borrow::Cow<'_, str> { "memcacheds".into() }
//! #             fn meta(&self) -> &ObjectMeta { &self.metadata }
//! #             fn meta_mut(&mut self) -> &mut ObjectMeta { &mut self.metadata }
//! #         }
//! #     };
//! # }
//! # mod v1alpha1 {
//! #     use super::*;
//! #     #[derive(Clone, Debug, Serialize, Deserialize)]
//! #     pub struct Memcached { pub metadata: ObjectMeta, pub spec: MemcachedSpec }
//! #     #[derive(Clone, Debug, Default, Serialize, Deserialize)]
//! #     pub struct MemcachedSpec { pub size: i32 }
//! #     resource!(Memcached, "v1alpha1");
//! # }
//! # mod v1beta1 {
//! #     use super::*;
//! #     #[derive(Clone, Debug, Serialize, Deserialize)]
//! #     pub struct Memcached { pub metadata: ObjectMeta, pub spec: MemcachedSpec }
//! #     #[derive(Clone, Debug, Default, Serialize, Deserialize)]
//! #     pub struct MemcachedSpec { pub replicas: i32 }
//! #     resource!(Memcached, "v1beta1");
//! # }
//! use v1alpha1::Memcached;
//!
//! // Conversion: the hub (v1alpha1 here) from and to every other version.
//! impl From<v1beta1::Memcached> for v1alpha1::Memcached {
//!     fn from(m: v1beta1::Memcached) -> Self {
//!         Self { metadata: m.metadata, spec: v1alpha1::MemcachedSpec { size: m.spec.replicas } }
//!     }
//! }
//! impl From<v1alpha1::Memcached> for v1beta1::Memcached {
//!     fn from(m: v1alpha1::Memcached) -> Self {
//!         Self { metadata: m.metadata, spec: v1beta1::MemcachedSpec { replicas: m.spec.size } }
//!     }
//! }
//!
//! // Validation: only what is checked needs a method; the others allow.
//! struct MemcachedValidator { max_size: i32 }
//!
//! impl Validator<Memcached> for MemcachedValidator {
//!     async fn validate_create(&self, _ctx: &AdmissionContext, m: &Memcached) -> Outcome {
//!         if m.spec.size > self.max_size {
//!             return Err(Denial::invalid(format!("spec.size must be at most {}", self.max_size)));
//!         }
//!         Ok(vec![])
//!     }
//!
//!     async fn validate_update(&self, ctx: &AdmissionContext, _old: &Memcached, new: &Memcached) -> Outcome {
//!         let mut warnings = self.validate_create(ctx, new).await?;
//!         if new.spec.size == 0 {
//!             warnings.push("spec.size 0 stops every memcached pod".into());
//!         }
//!         Ok(warnings)
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let shutdown = operator_runtime::shutdown_on_signals();
//!     let webhooks = Webhooks::new()
//!         // Defaulting: at /mutate-cache-example-com-v1alpha1-memcached.
//!         .defaulter(webhook::defaulter_fn(|_ctx: &AdmissionContext, m: &mut Memcached| {
//!             if m.spec.size == 0 {
//!                 m.spec.size = 1;
//!             }
//!             Ok(vec![])
//!         }))
//!         // Validation: at /validate-cache-example-com-v1alpha1-memcached.
//!         .validator(MemcachedValidator { max_size: 10 })
//!         // Conversion: at /convert.
//!         .conversion(Conversion::<v1alpha1::Memcached>::hub().spoke::<v1beta1::Memcached>());
//!     let metrics = Arc::new(Metrics::new());
//!     let client = operator_runtime::connect(None, metrics.clone()).await?;
//!     let options = manager::ManagerOptions {
//!         name: "memcached-operator".into(),
//!         metrics_addr: None,
//!         health_addr: Some(([0, 0, 0, 0], 8081).into()),
//!         leader_election: None,
//!         reconcile: Default::default(),
//!     };
//!     // Port 9443, certificates from /tmp/k8s-webhook-server/serving-certs (where
//!     // kubebuilder's manager patch mounts cert-manager's Secret), reloaded when renewed.
//!     // The manager serves them on every replica, leader or not, /readyz answers 503 until
//!     // the server accepts connections, and the server stops after the controllers.
//!     Manager::new(client, metrics, options)
//!         .webhooks(WebhookOptions::default(), webhooks)
//!         .shutdown(shutdown)
//!         .run(|runtime| async move {
//!             runtime.stopped().await // start the controllers here
//!         })
//!         .await?;
//!     Ok(())
//! }
//! ```

mod admission;
mod conversion;
mod patch;
mod rotator;
mod server;
pub(crate) mod tls;

use kube::Resource;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use admission::{
    AdmissionContext, Defaulter, Denial, FnDefaulter, Outcome, Validator, Warnings, defaulter_fn,
};
pub use conversion::Conversion;
pub use kube::core::admission::Operation;
pub use rotator::{CertRotator, RotatorError, RotatorOptions, RotatorReadiness};
pub use server::{Readiness, WebhookError, WebhookOptions, WebhookServer, Webhooks, is_valid_path};
pub use tls::{Certificates, SharedCertificate};

/// controller-runtime's webhook port.
pub const DEFAULT_PORT: u16 = 9443;
/// controller-runtime's certificate directory (Go takes `os.TempDir()`; `/tmp` in a
/// container), where kubebuilder's manager patch mounts the certificate Secret.
pub const DEFAULT_CERT_DIR: &str = "/tmp/k8s-webhook-server/serving-certs";
/// The certificate file: the `tls.crt` key of a `kubernetes.io/tls` Secret.
pub const DEFAULT_CERT_NAME: &str = "tls.crt";
/// The private key file: the `tls.key` key of a `kubernetes.io/tls` Secret.
pub const DEFAULT_KEY_NAME: &str = "tls.key";
/// Where conversion webhooks are served.
pub const CONVERT_PATH: &str = "/convert";
/// The server's own health check (`GET`, 200 `ok`).
pub const HEALTH_PATH: &str = "/healthz";
/// Request bodies up to 7 MiB: an UPDATE's review holds two objects of up to the API
/// server's 3 MiB request limit, and 1 MiB for the rest.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 7 * 1024 * 1024;

/// What a webhook's kind must be: a Kubernetes resource with a static type (a custom
/// resource, or a built-in kind from k8s-openapi), to and from JSON, shareable.
pub trait WebhookResource:
    Resource<DynamicType = ()> + DeserializeOwned + Serialize + Send + Sync + 'static
{
}

impl<K> WebhookResource for K where
    K: Resource<DynamicType = ()> + DeserializeOwned + Serialize + Send + Sync + 'static
{
}

/// controller-runtime's path of the mutating webhook of `K`:
/// `/mutate-<group, dots as dashes>-<version>-<kind, lower case>`.
pub fn mutate_path<K: Resource<DynamicType = ()>>() -> String {
    mutate_path_for(&K::group(&()), &K::version(&()), &K::kind(&()))
}

/// controller-runtime's path of the validating webhook of `K`:
/// `/validate-<group, dots as dashes>-<version>-<kind, lower case>`.
pub fn validate_path<K: Resource<DynamicType = ()>>() -> String {
    validate_path_for(&K::group(&()), &K::version(&()), &K::kind(&()))
}

/// [`mutate_path`] from names (the core group is `""`: `/mutate--v1-pod`).
pub fn mutate_path_for(group: &str, version: &str, kind: &str) -> String {
    kind_path("mutate", group, version, kind)
}

/// [`validate_path`] from names.
pub fn validate_path_for(group: &str, version: &str, kind: &str) -> String {
    kind_path("validate", group, version, kind)
}

fn kind_path(prefix: &str, group: &str, version: &str, kind: &str) -> String {
    format!(
        "/{prefix}-{}-{version}-{}",
        group.replace('.', "-"),
        kind.to_lowercase()
    )
}

#[cfg(test)]
mod tests;
