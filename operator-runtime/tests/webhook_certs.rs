//! Webhook certificates without cert-manager, on the API server: two replicas' rotators
//! make one CA and one serving certificate between them in a Secret, write the CA bundle
//! into a validating and a mutating configuration (every webhook) and a CRD's conversion, a
//! webhook server presents the certificate to a client trusting only that bundle, for the
//! Service's name; readiness waits for the configurations; the certificate (made to last 9
//! seconds here) is renewed before it expires and the running server presents the new one,
//! the CA and the bundle unchanged.
//!
//! Needs a running control plane: `cargo xtask test` provides one (plain `cargo test` skips it).

use std::sync::Arc;
use std::time::{Duration, Instant};

use envtest::{TestEnv, wait_until};
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhook, MutatingWebhookConfiguration, ServiceReference, ValidatingWebhook,
    ValidatingWebhookConfiguration, WebhookClientConfig,
};
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, CustomResourceDefinition, CustomResourceDefinitionNames,
    CustomResourceDefinitionSpec, CustomResourceDefinitionVersion, CustomResourceValidation,
    JSONSchemaProps, WebhookConversion,
};
use kube::Client;
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams};
use operator_runtime::ReadyCheck as _;
use operator_runtime::webhook::{
    CertRotator, RotatorOptions, WebhookOptions, WebhookServer, Webhooks,
};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(60);
const SERVICE: &str = "webhook-service";
const SECRET: &str = "webhook-server-cert";

fn client_config(service: &str, namespace: &str) -> WebhookClientConfig {
    WebhookClientConfig {
        service: Some(ServiceReference {
            name: service.into(),
            namespace: namespace.into(),
            path: Some("/validate".into()),
            port: Some(443),
        }),
        ..Default::default()
    }
}

/// A webhook that matches nothing anyone creates (a group of its own), so that other tests
/// never call it.
fn rules() -> Vec<k8s_openapi::api::admissionregistration::v1::RuleWithOperations> {
    vec![
        k8s_openapi::api::admissionregistration::v1::RuleWithOperations {
            api_groups: Some(vec!["rotator-test.example.com".into()]),
            api_versions: Some(vec!["v1".into()]),
            operations: Some(vec!["CREATE".into()]),
            resources: Some(vec!["gadgets".into()]),
            ..Default::default()
        },
    ]
}

fn validating(name: &str, namespace: &str) -> ValidatingWebhookConfiguration {
    ValidatingWebhookConfiguration {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        webhooks: Some(vec![ValidatingWebhook {
            name: "vgadget.rotator-test.example.com".into(),
            admission_review_versions: vec!["v1".into()],
            side_effects: "None".into(),
            failure_policy: Some("Ignore".into()),
            client_config: client_config(SERVICE, namespace),
            rules: Some(rules()),
            ..Default::default()
        }]),
    }
}

fn mutating(name: &str, namespace: &str) -> MutatingWebhookConfiguration {
    let webhook = |name: &str| MutatingWebhook {
        name: name.into(),
        admission_review_versions: vec!["v1".into()],
        side_effects: "None".into(),
        failure_policy: Some("Ignore".into()),
        client_config: client_config(SERVICE, namespace),
        rules: Some(rules()),
        ..Default::default()
    };
    MutatingWebhookConfiguration {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        webhooks: Some(vec![
            webhook("mgadget.rotator-test.example.com"),
            webhook("mgadget2.rotator-test.example.com"),
        ]),
    }
}

/// A CRD of two versions converted by the webhook (nothing ever converts: it has no objects).
fn crd(plural: &str, group: &str, namespace: &str) -> CustomResourceDefinition {
    let version = |name: &str, storage| CustomResourceDefinitionVersion {
        name: name.into(),
        served: true,
        storage,
        schema: Some(CustomResourceValidation {
            open_api_v3_schema: Some(JSONSchemaProps {
                type_: Some("object".into()),
                x_kubernetes_preserve_unknown_fields: Some(true),
                ..Default::default()
            }),
        }),
        ..Default::default()
    };
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as ext;
    let config = ext::WebhookClientConfig {
        service: Some(ext::ServiceReference {
            name: SERVICE.into(),
            namespace: namespace.into(),
            path: Some("/convert".into()),
            port: Some(443),
        }),
        ..Default::default()
    };
    CustomResourceDefinition {
        metadata: ObjectMeta {
            name: Some(format!("{plural}.{group}")),
            ..Default::default()
        },
        spec: CustomResourceDefinitionSpec {
            group: group.into(),
            names: CustomResourceDefinitionNames {
                kind: "Gadget".into(),
                plural: plural.into(),
                ..Default::default()
            },
            scope: "Namespaced".into(),
            versions: vec![version("v1", true), version("v2", false)],
            conversion: Some(CustomResourceConversion {
                strategy: "Webhook".into(),
                webhook: Some(WebhookConversion {
                    client_config: Some(config),
                    conversion_review_versions: vec!["v1".into()],
                }),
            }),
            ..Default::default()
        },
        status: None,
    }
}

/// The bundle each webhook of the three configurations carries.
async fn bundles(client: &Client, validating: &str, mutating: &str, crd: &str) -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    let v = Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .get(validating)
        .await
        .unwrap();
    for w in v.webhooks.unwrap() {
        found.push(w.client_config.ca_bundle.map(|b| b.0).unwrap_or_default());
    }
    let m = Api::<MutatingWebhookConfiguration>::all(client.clone())
        .get(mutating)
        .await
        .unwrap();
    for w in m.webhooks.unwrap() {
        found.push(w.client_config.ca_bundle.map(|b| b.0).unwrap_or_default());
    }
    let c = Api::<CustomResourceDefinition>::all(client.clone())
        .get(crd)
        .await
        .unwrap();
    found.push(
        c.spec
            .conversion
            .and_then(|c| c.webhook)
            .and_then(|w| w.client_config)
            .and_then(|c| c.ca_bundle)
            .map(|b| b.0)
            .unwrap_or_default(),
    );
    found
}

fn key(secret: &Secret, key: &str) -> Vec<u8> {
    secret.data.as_ref().unwrap()[key].0.clone()
}

/// The certificate a client trusting only `bundle` gets from `addr` for `name` (the
/// handshake verifies the chain and the name).
async fn presented(addr: std::net::SocketAddr, bundle: &[u8], name: &str) -> Vec<u8> {
    let mut roots = rustls::RootCertStore::empty();
    for ca in CertificateDer::pem_slice_iter(bundle) {
        roots.add(ca.unwrap()).unwrap();
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let tls = tokio_rustls::TlsConnector::from(Arc::new(config))
        .connect(ServerName::try_from(name.to_string()).unwrap(), tcp)
        .await
        .expect("a handshake trusting only the bundle");
    tls.get_ref().1.peer_certificates().unwrap()[0].to_vec()
}

fn der(pem: &[u8]) -> Vec<u8> {
    CertificateDer::from_pem_slice(pem).unwrap().to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn replicas_share_one_certificate_write_the_bundle_and_renew_it() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let client = env.client();
    let ns = env.namespace("webhook-certs").await.unwrap();
    let ns = ns.name().to_string();
    // Cluster-scoped objects: named after the namespace, which is unique.
    let (vname, mname) = (format!("{ns}-validating"), format!("{ns}-mutating"));
    let group = format!("{ns}.rotator-test.example.com");
    let crd_name = format!("gadgets.{group}");

    let mut options = RotatorOptions::new(&ns, SECRET, SERVICE);
    options.validating = vec![vname.clone()];
    options.mutating = vec![mname.clone()];
    options.conversion_crds = vec![crd_name.clone()];
    options.cert_validity = Duration::from_secs(9);
    options.check_every = Duration::from_millis(500);
    let first = CertRotator::new(client.clone(), options.clone());
    let second = CertRotator::new(client.clone(), options.clone());

    // Before the configurations exist: the certificate is made and served, not ready.
    let (a, b) = tokio::join!(first.sync(), second.sync());
    // One of the two created the Secret; the other was refused and reads it on its next pass.
    let lost = [&a, &b].iter().filter(|r| r.is_err()).count();
    assert!(lost <= 1, "{a:?} {b:?}");
    first.sync().await.unwrap();
    second.sync().await.unwrap();
    assert!(
        !first.readiness().is_ready(),
        "ready without its configurations"
    );

    Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .create(&PostParams::default(), &validating(&vname, &ns))
        .await
        .unwrap();
    Api::<MutatingWebhookConfiguration>::all(client.clone())
        .create(&PostParams::default(), &mutating(&mname, &ns))
        .await
        .unwrap();
    Api::<CustomResourceDefinition>::all(client.clone())
        .create(&PostParams::default(), &crd("gadgets", &group, &ns))
        .await
        .unwrap();
    first.sync().await.unwrap();
    second.sync().await.unwrap();
    assert!(first.readiness().is_ready() && second.readiness().is_ready());

    let secrets: Api<Secret> = Api::namespaced(client.clone(), &ns);
    let secret = secrets.get(SECRET).await.unwrap();
    assert_eq!(secret.type_.as_deref(), Some("kubernetes.io/tls"));
    let ca = key(&secret, "ca.crt");
    assert_eq!(
        bundles(&client, &vname, &mname, &crd_name).await,
        vec![ca.clone(); 4],
        "every webhook and the conversion carry the CA"
    );

    // Each replica's server presents the Secret's certificate for the Service's name.
    let stop = CancellationToken::new();
    let mut addrs = Vec::new();
    for rotator in [&first, &second] {
        let server = WebhookServer::bind(
            WebhookOptions {
                addr: "127.0.0.1:0".parse().unwrap(),
                certificates: rotator.certificates(),
                ..Default::default()
            },
            Webhooks::new(),
        )
        .await
        .unwrap();
        addrs.push(server.local_addr());
        tokio::spawn(server.run(stop.clone()));
    }
    let name = format!("{SERVICE}.{ns}.svc");
    let issued = der(&key(&secret, "tls.crt"));
    for addr in &addrs {
        assert_eq!(presented(*addr, &ca, &name).await, issued);
    }

    // Renewed before it expires (at 6 of its 9 seconds), without a restart.
    let started = Instant::now();
    let runs = [first.clone(), second.clone()].map(|r| tokio::spawn(r.run(stop.clone())));
    let renewed = wait_until("the serving certificate to be renewed", WAIT, || {
        let secrets = secrets.clone();
        let issued = issued.clone();
        async move {
            let secret = secrets.get(SECRET).await.ok()?;
            let now = der(&key(&secret, "tls.crt"));
            (now != issued).then_some(secret)
        }
    })
    .await
    .unwrap();
    eprintln!("renewed {:?} after the rotators started", started.elapsed());
    assert_eq!(key(&renewed, "ca.crt"), ca, "the CA stays");
    let new_cert = der(&key(&renewed, "tls.crt"));
    for addr in addrs {
        wait_until("the server to present the new certificate", WAIT, || {
            let (ca, name, new_cert) = (ca.clone(), name.clone(), new_cert.clone());
            async move { (presented(addr, &ca, &name).await == new_cert).then_some(()) }
        })
        .await
        .unwrap();
    }
    assert_eq!(
        bundles(&client, &vname, &mname, &crd_name).await,
        vec![ca.clone(); 4]
    );
    stop.cancel();
    for run in runs {
        run.await.unwrap();
    }

    let dp = DeleteParams::default();
    Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .delete(&vname, &dp)
        .await
        .unwrap();
    Api::<MutatingWebhookConfiguration>::all(client.clone())
        .delete(&mname, &dp)
        .await
        .unwrap();
    Api::<CustomResourceDefinition>::all(client.clone())
        .delete(&crd_name, &dp)
        .await
        .unwrap();
}
