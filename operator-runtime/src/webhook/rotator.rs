//! Webhook certificates without cert-manager: the operator keeps its own CA and serving
//! certificate in a Secret of its namespace, serves the certificate from memory, writes the
//! CA bundle into its own webhook configurations and CRD conversions, and renews both before
//! they expire, without a restart.
//!
//! Every replica runs a [`CertRotator`] (every replica serves webhooks, leader or not), and
//! they agree through the API server alone: a replica creates the Secret only if none
//! exists and replaces it only at the `resourceVersion` it read, so when two renew at once
//! one wins, the other reads the winner's and serves that. The configurations are patched
//! the same way (a JSON Patch that first tests the `resourceVersion`). A replica is ready
//! ([`CertRotator::readiness`]) once it serves the Secret's certificate and every named
//! configuration carries the bundle.
//!
//! The Secret (`kubernetes.io/tls`) holds `tls.crt` and `tls.key` (the serving pair, for
//! the DNS names of the webhook Service), `ca.crt` and `ca.key` (the CA that signs it), and,
//! after the CA was renewed, `ca-previous.crt`: the bundle written to the configurations has
//! both CAs until the old one expires, so replicas still serving a certificate of the old CA
//! are trusted meanwhile. The expiry of each is kept in annotations; what the Secret holds is
//! checked on every pass (the pair chains to the CA for every DNS name, now and until its
//! renewal, as a client trusting the bundle would check it) and anything else is replaced.
//!
//! A certificate is renewed once two thirds of its validity have passed (cert-manager's
//! default); the CA lasts ten years and the serving certificate one by default. Gatekeeper's
//! cert-controller does the same for Go operators; controller-runtime leaves it to
//! cert-manager.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use k8s_openapi::ByteString;
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration, WebhookClientConfig,
};
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, ObjectMeta, Patch, PatchParams, PostParams};
use kube::{Client, Resource, ResourceExt as _};
use rcgen::{
    BasicConstraints, CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, IsCa,
    Issuer, KeyPair, KeyUsagePurpose,
};
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::ServerCertVerifier as _;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use serde_json::json;
use time::OffsetDateTime;
use tokio_util::sync::CancellationToken;
use tracing::{debug, info, warn};

use super::Certificates;
use super::tls::SharedCertificate;
use crate::manager::ReadyCheck;

const CA_CERT: &str = "ca.crt";
const CA_KEY: &str = "ca.key";
const CA_PREVIOUS: &str = "ca-previous.crt";
const TLS_CERT: &str = "tls.crt";
const TLS_KEY: &str = "tls.key";
const CA_NOT_AFTER: &str = "operator-rs.dev/ca-not-after";
const CERT_NOT_AFTER: &str = "operator-rs.dev/cert-not-after";

/// What a [`CertRotator`] keeps and where it writes the bundle.
#[derive(Debug, Clone)]
pub struct RotatorOptions {
    /// The operator's namespace: the Secret's and the webhook Service's.
    pub namespace: String,
    /// The Secret holding the CA and the serving pair.
    pub secret: String,
    /// The webhook Service: the certificate is for `<service>.<namespace>.svc` (and its
    /// shorter and longer forms).
    pub service: String,
    /// Further host names or IP addresses the certificate is for, after the Service's: for
    /// configurations that reach the server by URL instead of through the Service (an
    /// operator run outside the cluster).
    pub extra_hosts: Vec<String>,
    /// ValidatingWebhookConfigurations whose every webhook gets the bundle.
    pub validating: Vec<String>,
    /// MutatingWebhookConfigurations likewise.
    pub mutating: Vec<String>,
    /// CRDs whose conversion webhook gets the bundle.
    pub conversion_crds: Vec<String>,
    /// How long a new CA is valid.
    pub ca_validity: Duration,
    /// How long a new serving certificate is valid.
    pub cert_validity: Duration,
    /// How often the Secret and the configurations are checked (a renewal due earlier is
    /// done on time).
    pub check_every: Duration,
}

impl RotatorOptions {
    /// The Secret `secret` and the Service `service` in `namespace`, no configuration yet;
    /// a CA for ten years, a serving certificate for one, checked every minute.
    pub fn new(
        namespace: impl Into<String>,
        secret: impl Into<String>,
        service: impl Into<String>,
    ) -> Self {
        Self {
            namespace: namespace.into(),
            secret: secret.into(),
            service: service.into(),
            extra_hosts: Vec::new(),
            validating: Vec::new(),
            mutating: Vec::new(),
            conversion_crds: Vec::new(),
            ca_validity: Duration::from_secs(10 * 365 * 24 * 3600),
            cert_validity: Duration::from_secs(365 * 24 * 3600),
            check_every: Duration::from_secs(60),
        }
    }

    /// The names the serving certificate is for: the Service's, as a client in the cluster
    /// (the API server) may spell it, then the [`extra_hosts`](Self::extra_hosts).
    pub fn dns_names(&self) -> Vec<String> {
        let (service, namespace) = (&self.service, &self.namespace);
        let mut names = vec![
            format!("{service}.{namespace}.svc"),
            format!("{service}.{namespace}.svc.cluster.local"),
            format!("{service}.{namespace}"),
            service.clone(),
        ];
        names.extend(self.extra_hosts.iter().cloned());
        names
    }
}

/// Why a pass failed; the next is tried after a backoff.
#[derive(Debug, thiserror::Error)]
pub enum RotatorError {
    /// The API server refused or did not answer.
    #[error("{what}: {source}")]
    Kube {
        /// What was being done.
        what: String,
        /// The client's error.
        source: kube::Error,
    },
    /// A certificate could not be made.
    #[error("making a certificate: {0}")]
    Generate(#[from] rcgen::Error),
    /// The pair made or read could not be served.
    #[error("serving the certificate: {0}")]
    Serve(String),
    /// Another replica wrote the Secret or a configuration in between: the next pass reads
    /// it again.
    #[error("{0} changed in between")]
    Conflict(String),
}

/// What a pass found missing: not ready yet, looked at again soon.
#[derive(Debug, Default)]
struct Missing(Vec<String>);

/// Keeps the webhook server's certificate, its CA and the CA bundle of the operator's
/// webhook configurations, without cert-manager: one per replica, all sharing one Secret
/// (see the [`webhook`](super) module's documentation, "Certificates").
#[derive(Clone)]
pub struct CertRotator {
    client: Client,
    options: Arc<RotatorOptions>,
    serving: SharedCertificate,
    injected: Arc<AtomicBool>,
}

impl std::fmt::Debug for CertRotator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CertRotator")
            .field("options", &self.options)
            .field("serving", &self.serving)
            .finish_non_exhaustive()
    }
}

/// Ready once the rotator serves the Secret's certificate and every configuration carries
/// the bundle; for the manager's `/readyz` ([`Manager::ready_check`](crate::Manager::ready_check)).
#[derive(Debug, Clone)]
pub struct RotatorReadiness {
    serving: SharedCertificate,
    injected: Arc<AtomicBool>,
}

impl ReadyCheck for RotatorReadiness {
    fn name(&self) -> &str {
        "webhook-certificates"
    }

    fn is_ready(&self) -> bool {
        self.serving.is_set() && self.injected.load(Ordering::SeqCst)
    }
}

/// A CA or serving pair, as PEM, with its expiry.
struct Pair {
    cert: String,
    key: String,
    not_after: OffsetDateTime,
}

impl CertRotator {
    /// A rotator of the Secret `options` names, through `client`.
    pub fn new(client: Client, options: RotatorOptions) -> Self {
        Self {
            client,
            options: Arc::new(options),
            serving: SharedCertificate::new(),
            injected: Arc::new(AtomicBool::new(false)),
        }
    }

    /// The certificates the webhook server is to present: this rotator's, replaced on
    /// renewal (`WebhookOptions::certificates`).
    pub fn certificates(&self) -> Certificates {
        Certificates::Shared(self.serving.clone())
    }

    /// See [`RotatorReadiness`].
    pub fn readiness(&self) -> RotatorReadiness {
        RotatorReadiness {
            serving: self.serving.clone(),
            injected: self.injected.clone(),
        }
    }

    /// Keeps the certificates and the bundle until `stop` is cancelled: a pass now, then
    /// every [`check_every`](RotatorOptions::check_every) (sooner when a renewal is due
    /// sooner, or something was missing; after a failure, with a backoff up to 30 s).
    pub async fn run(self, stop: CancellationToken) {
        let mut failures = 0u32;
        loop {
            let wait = match self.pass().await {
                Ok((renewal, missing)) => {
                    failures = 0;
                    let mut wait = self.options.check_every.min(renewal);
                    if !missing.0.is_empty() {
                        warn!(missing = ?missing.0, "webhook configurations to carry the CA bundle are missing");
                        wait = wait.min(Duration::from_secs(5));
                    }
                    wait
                }
                Err(RotatorError::Conflict(what)) => {
                    debug!(%what, "changed by another replica; reading it again");
                    Duration::from_millis(200)
                }
                Err(error) => {
                    failures = failures.saturating_add(1);
                    let wait = Duration::from_millis(500) * 2u32.pow(failures.min(6));
                    warn!(%error, retry_in = ?wait.min(Duration::from_secs(30)), "webhook certificates");
                    wait.min(Duration::from_secs(30))
                }
            };
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(wait.max(Duration::from_millis(100))) => {}
            }
        }
    }

    /// One pass: the Secret made or renewed if it must be, its pair served, the bundle
    /// written where it is missing. Returns when the next renewal is due.
    pub async fn sync(&self) -> Result<Duration, RotatorError> {
        self.pass().await.map(|(renewal, _)| renewal)
    }

    async fn pass(&self) -> Result<(Duration, Missing), RotatorError> {
        let secrets: Api<Secret> = Api::namespaced(self.client.clone(), &self.options.namespace);
        let what = format!(
            "reading Secret {}/{}",
            self.options.namespace, self.options.secret
        );
        let current = secrets
            .get_opt(&self.options.secret)
            .await
            .map_err(|source| RotatorError::Kube { what, source })?;
        let secret = match current {
            Some(secret) if self.usable(&secret).is_some() => secret,
            other => self.renew(&secrets, other).await?,
        };
        let data = secret.data.clone().unwrap_or_default();
        let get = |key: &str| data.get(key).map(|b| b.0.clone()).unwrap_or_default();
        self.serving
            .set_pem(&get(TLS_CERT), &get(TLS_KEY))
            .map_err(RotatorError::Serve)?;
        let mut bundle = get(CA_CERT);
        bundle.extend(get(CA_PREVIOUS));
        let missing = self.inject(&bundle).await?;
        self.injected.store(missing.0.is_empty(), Ordering::SeqCst);
        Ok((self.renewal(&secret), missing))
    }

    /// `Some` when `secret` can be served as it is: the pair chains to its CA for every DNS
    /// name, now and at the time it is to be renewed, and neither is due for renewal.
    fn usable(&self, secret: &Secret) -> Option<()> {
        let data = secret.data.as_ref()?;
        let now = OffsetDateTime::now_utc();
        let ca_due = renew_at(not_after(secret, CA_NOT_AFTER)?, self.options.ca_validity);
        let cert_due = renew_at(
            not_after(secret, CERT_NOT_AFTER)?,
            self.options.cert_validity,
        );
        if ca_due <= now || cert_due <= now {
            return None;
        }
        let ca = CertificateDer::from_pem_slice(&data.get(CA_CERT)?.0).ok()?;
        let cert = CertificateDer::from_pem_slice(&data.get(TLS_CERT)?.0).ok()?;
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca).ok()?;
        let verifier = WebPkiServerVerifier::builder_with_provider(
            Arc::new(roots),
            Arc::new(rustls::crypto::ring::default_provider()),
        )
        .build()
        .ok()?;
        let at = |t: OffsetDateTime| {
            UnixTime::since_unix_epoch(Duration::from_secs(t.unix_timestamp().max(0) as u64))
        };
        for name in self.options.dns_names() {
            let name = ServerName::try_from(name).ok()?;
            for time in [now, cert_due.min(ca_due)] {
                verifier
                    .verify_server_cert(&cert, &[], &name, &[], at(time))
                    .ok()?;
            }
        }
        data.get(CA_KEY)?;
        data.get(TLS_KEY)?;
        Some(())
    }

    /// A new serving pair (and a new CA if the old one is due, or unusable), written as the
    /// Secret: created if there was none, replaced at the version read otherwise.
    async fn renew(
        &self,
        secrets: &Api<Secret>,
        old: Option<Secret>,
    ) -> Result<Secret, RotatorError> {
        let now = OffsetDateTime::now_utc();
        let old_data = old
            .as_ref()
            .and_then(|s| s.data.clone())
            .unwrap_or_default();
        let text = |key: &str| {
            old_data
                .get(key)
                .and_then(|b| String::from_utf8(b.0.clone()).ok())
        };
        let old_ca = match (
            text(CA_CERT),
            text(CA_KEY),
            old.as_ref().and_then(|s| not_after(s, CA_NOT_AFTER)),
        ) {
            (Some(cert), Some(key), Some(not_after))
                if renew_at(not_after, self.options.ca_validity) > now
                    // The CA must outlive the certificate it signs.
                    && not_after > now + self.options.cert_validity =>
            {
                Some(Pair {
                    cert,
                    key,
                    not_after,
                })
            }
            _ => None,
        };
        let (ca, previous) = match old_ca {
            Some(ca) => (ca, text(CA_PREVIOUS)),
            None => {
                info!(secret = %self.options.secret, "making a new webhook CA");
                (self.new_ca(now)?, text(CA_CERT))
            }
        };
        let cert = self.new_cert(&ca, now)?;
        info!(secret = %self.options.secret, not_after = %cert.not_after, "renewing the webhook serving certificate");
        let mut data = std::collections::BTreeMap::from([
            (
                CA_CERT.to_string(),
                ByteString(ca.cert.clone().into_bytes()),
            ),
            (CA_KEY.to_string(), ByteString(ca.key.clone().into_bytes())),
            (TLS_CERT.to_string(), ByteString(cert.cert.into_bytes())),
            (TLS_KEY.to_string(), ByteString(cert.key.into_bytes())),
        ]);
        if let Some(previous) = previous.filter(|p| *p != ca.cert) {
            data.insert(CA_PREVIOUS.to_string(), ByteString(previous.into_bytes()));
        }
        let annotations = std::collections::BTreeMap::from([
            (CA_NOT_AFTER.to_string(), unix(ca.not_after)),
            (CERT_NOT_AFTER.to_string(), unix(cert.not_after)),
        ]);
        let conflict = || RotatorError::Conflict(format!("Secret {}", self.options.secret));
        match old {
            None => {
                let secret = Secret {
                    metadata: ObjectMeta {
                        name: Some(self.options.secret.clone()),
                        namespace: Some(self.options.namespace.clone()),
                        annotations: Some(annotations),
                        ..Default::default()
                    },
                    type_: Some("kubernetes.io/tls".into()),
                    data: Some(data),
                    ..Default::default()
                };
                secrets
                    .create(&PostParams::default(), &secret)
                    .await
                    .map_err(|e| self.kube_error(e, "creating the Secret", conflict))
            }
            Some(mut secret) => {
                secret.annotations_mut().extend(annotations);
                secret.data = Some(data);
                secret.type_ = Some("kubernetes.io/tls".into());
                secrets
                    .replace(&self.options.secret, &PostParams::default(), &secret)
                    .await
                    .map_err(|e| self.kube_error(e, "replacing the Secret", conflict))
            }
        }
    }

    fn kube_error(
        &self,
        error: kube::Error,
        what: &str,
        conflict: impl Fn() -> RotatorError,
    ) -> RotatorError {
        match &error {
            // Created or replaced by another replica in between: AlreadyExists, Conflict;
            // a JSON Patch whose version test failed: Unprocessable.
            kube::Error::Api(status) if matches!(status.code, 409 | 422) => conflict(),
            _ => RotatorError::Kube {
                what: what.to_string(),
                source: error,
            },
        }
    }

    fn new_ca(&self, now: OffsetDateTime) -> Result<Pair, RotatorError> {
        let key = KeyPair::generate()?;
        let params = self.ca_params(now, now + self.options.ca_validity);
        let cert = params.self_signed(&key)?;
        Ok(Pair {
            cert: cert.pem(),
            key: key.serialize_pem(),
            not_after: params.not_after,
        })
    }

    /// The CA's parameters; the subject is the same every time, so a stored CA key signs
    /// with parameters made again.
    fn ca_params(
        &self,
        not_before: OffsetDateTime,
        not_after: OffsetDateTime,
    ) -> CertificateParams {
        let mut params = CertificateParams::default();
        let mut name = DistinguishedName::new();
        name.push(
            DnType::CommonName,
            format!(
                "{}.{} webhook CA",
                self.options.secret, self.options.namespace
            ),
        );
        params.distinguished_name = name;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        params.not_before = not_before - Duration::from_secs(60);
        params.not_after = not_after;
        params
    }

    fn new_cert(&self, ca: &Pair, now: OffsetDateTime) -> Result<Pair, RotatorError> {
        let ca_key = KeyPair::from_pem(&ca.key)?;
        let issuer = Issuer::new(self.ca_params(now, ca.not_after), ca_key);
        let key = KeyPair::generate()?;
        let mut params = CertificateParams::new(self.options.dns_names())?;
        let mut name = DistinguishedName::new();
        name.push(DnType::CommonName, self.options.dns_names()[0].clone());
        params.distinguished_name = name;
        params.key_usages = vec![
            KeyUsagePurpose::DigitalSignature,
            KeyUsagePurpose::KeyEncipherment,
        ];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        params.not_before = now - Duration::from_secs(60);
        params.not_after = (now + self.options.cert_validity).min(ca.not_after);
        let cert = params.signed_by(&key, &issuer)?;
        Ok(Pair {
            cert: cert.pem(),
            key: key.serialize_pem(),
            not_after: params.not_after,
        })
    }

    /// How long until the Secret's CA or pair is due for renewal.
    fn renewal(&self, secret: &Secret) -> Duration {
        let now = OffsetDateTime::now_utc();
        [
            not_after(secret, CA_NOT_AFTER).map(|t| renew_at(t, self.options.ca_validity)),
            not_after(secret, CERT_NOT_AFTER).map(|t| renew_at(t, self.options.cert_validity)),
        ]
        .into_iter()
        .flatten()
        .min()
        .map_or(Duration::ZERO, |due| {
            (due - now).try_into().unwrap_or(Duration::ZERO)
        })
    }

    /// Writes `bundle` into every named configuration that does not carry it yet; returns
    /// those that do not exist.
    async fn inject(&self, bundle: &[u8]) -> Result<Missing, RotatorError> {
        let mut missing = Missing::default();
        let encoded = ByteString(bundle.to_vec());
        for name in &self.options.validating {
            self.webhooks::<ValidatingWebhookConfiguration>(name, &encoded, &mut missing, |c| {
                client_bundles(&c.webhooks, |w| &w.client_config)
            })
            .await?;
        }
        for name in &self.options.mutating {
            self.webhooks::<MutatingWebhookConfiguration>(name, &encoded, &mut missing, |c| {
                client_bundles(&c.webhooks, |w| &w.client_config)
            })
            .await?;
        }
        for name in &self.options.conversion_crds {
            let api: Api<CustomResourceDefinition> = Api::all(self.client.clone());
            let found = self.get(&api, name).await?;
            let Some(crd) = found else {
                missing.0.push(format!("CustomResourceDefinition {name}"));
                continue;
            };
            let Some(webhook) = crd
                .spec
                .conversion
                .as_ref()
                .and_then(|c| c.webhook.as_ref())
            else {
                missing.0.push(format!(
                    "CustomResourceDefinition {name} (it has no conversion webhook)"
                ));
                continue;
            };
            if webhook
                .client_config
                .as_ref()
                .and_then(|c| c.ca_bundle.as_ref())
                == Some(&encoded)
            {
                continue;
            }
            let patch = json!([
                {"op": "test", "path": "/metadata/resourceVersion", "value": crd.resource_version()},
                {"op": "add", "path": "/spec/conversion/webhook/clientConfig/caBundle", "value": encoded},
            ]);
            self.json_patch(&api, name, patch).await?;
        }
        Ok(missing)
    }

    async fn get<K>(&self, api: &Api<K>, name: &str) -> Result<Option<K>, RotatorError>
    where
        K: Resource<DynamicType = ()> + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    {
        api.get_opt(name)
            .await
            .map_err(|source| RotatorError::Kube {
                what: format!("reading {} {name}", K::kind(&())),
                source,
            })
    }

    /// Sets `bundle` into every webhook of the configuration `name` (whose bundles, in
    /// order, `bundles` reads) that does not carry it, in one JSON Patch at the version read;
    /// a configuration that does not exist goes into `missing`.
    async fn webhooks<K>(
        &self,
        name: &str,
        bundle: &ByteString,
        missing: &mut Missing,
        bundles: impl Fn(&K) -> Vec<Option<ByteString>>,
    ) -> Result<(), RotatorError>
    where
        K: Resource<DynamicType = ()> + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    {
        let api: Api<K> = Api::all(self.client.clone());
        let Some(config) = self.get(&api, name).await? else {
            missing.0.push(format!("{} {name}", K::kind(&())));
            return Ok(());
        };
        let mut ops = vec![
            json!({"op": "test", "path": "/metadata/resourceVersion", "value": config.meta().resource_version}),
        ];
        for (i, current) in bundles(&config).iter().enumerate() {
            if current.as_ref() != Some(bundle) {
                ops.push(json!({"op": "add", "path": format!("/webhooks/{i}/clientConfig/caBundle"), "value": bundle}));
            }
        }
        if ops.len() > 1 {
            self.json_patch(&api, name, serde_json::Value::Array(ops))
                .await?;
        }
        Ok(())
    }

    async fn json_patch<K>(
        &self,
        api: &Api<K>,
        name: &str,
        patch: serde_json::Value,
    ) -> Result<(), RotatorError>
    where
        K: Resource<DynamicType = ()> + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    {
        let patch: json_patch::Patch = serde_json::from_value(patch).expect("a JSON Patch");
        let what = format!("{} {name}", K::kind(&()));
        api.patch(name, &PatchParams::default(), &Patch::<()>::Json(patch))
            .await
            .map(|_| info!(%what, "wrote the webhook CA bundle"))
            .map_err(|e| {
                let conflict_what = what.clone();
                self.kube_error(
                    e,
                    &format!("writing the CA bundle into {what}"),
                    move || RotatorError::Conflict(conflict_what.clone()),
                )
            })
    }
}

/// The CA bundle of each webhook in `webhooks`, in order (`client_config` finds its client
/// configuration: validating and mutating webhooks are different types).
fn client_bundles<W>(
    webhooks: &Option<Vec<W>>,
    client_config: impl Fn(&W) -> &WebhookClientConfig,
) -> Vec<Option<ByteString>> {
    webhooks
        .iter()
        .flatten()
        .map(|w| client_config(w).ca_bundle.clone())
        .collect()
}

/// When a certificate valid until `not_after`, made to last `validity`, is renewed: once two
/// thirds of its validity have passed.
fn renew_at(not_after: OffsetDateTime, validity: Duration) -> OffsetDateTime {
    not_after - validity / 3
}

fn not_after(secret: &Secret, annotation: &str) -> Option<OffsetDateTime> {
    let seconds: i64 = secret.annotations().get(annotation)?.parse().ok()?;
    OffsetDateTime::from_unix_timestamp(seconds).ok()
}

fn unix(time: OffsetDateTime) -> String {
    time.unix_timestamp().to_string()
}
