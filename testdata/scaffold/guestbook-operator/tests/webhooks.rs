//! The operator's admission webhooks called by the real API server of the local control
//! plane: `webhooks::all()` is served on loopback, and the configurations `cargo xtask
//! manifests` generated are installed pointing at it (a `url` with the test CA's bundle
//! instead of the webhook Service, and only for this test's namespace), so the creates below
//! pass through the handlers as they would in a cluster. `cargo operator create webhook` adds
//! a check for each kind; add your own cases beside them (an object your validator refuses:
//! its message is in the `kube::Error::Api` of the create; a field your defaulter sets: it is
//! in the object the create returns).
//!
//! Needs the control plane: `cargo xtask test` provides one (plain `cargo test` skips it).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use envtest::TestEnv;
use envtest::webhooks::WebhookConfigurations;
use futures::FutureExt as _;
use kube::Client;
use kube::api::{Api, PostParams};
use operator_runtime::Metrics;
use operator_runtime::webhook::{Certificates, WebhookOptions, WebhookServer};
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(60);

fn manifests() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/webhook/manifests.yaml")
}

/// The generated configurations, called at `base_url` and limited to `namespace`.
fn configurations(base_url: &str, ca_bundle: &[u8], namespace: &str) -> WebhookConfigurations {
    WebhookConfigurations::read(&manifests())
        .expect("config/webhook/manifests.yaml (cargo xtask manifests writes it)")
        .served_at(base_url, ca_bundle)
        .only_in_namespace(namespace)
}

/// The paths of the generated webhooks that a create of `resource` in `group` goes through.
fn paths_for(group: &str, resource: &str) -> Vec<String> {
    let generated = WebhookConfigurations::read(&manifests()).unwrap();
    let mutating = generated
        .mutating
        .iter()
        .flat_map(|c| c.webhooks.iter().flatten());
    let validating = generated
        .validating
        .iter()
        .flat_map(|c| c.webhooks.iter().flatten());
    let hooks = mutating
        .map(|w| (&w.rules, &w.client_config))
        .chain(validating.map(|w| (&w.rules, &w.client_config)));
    let mut paths = Vec::new();
    for (rules, client) in hooks {
        let applies = rules.iter().flatten().any(|r| {
            r.api_groups.iter().flatten().any(|g| g == group)
                && r.resources.iter().flatten().any(|r| r == resource)
                && r.operations
                    .iter()
                    .flatten()
                    .any(|o| o == "CREATE" || o == "*")
        });
        if let (true, Some(path)) = (
            applies,
            client.service.as_ref().and_then(|s| s.path.clone()),
        ) {
            paths.push(path);
        }
    }
    paths
}

/// Creates `obj` (dry run: nothing is stored) until the API server has called every webhook
/// at `paths` for it (new configurations take it a moment), and returns what it answered.
async fn created_through<K>(api: &Api<K>, obj: &K, paths: &[String], metrics: &Metrics) -> K
where
    K: kube::Resource + Clone + std::fmt::Debug + serde::Serialize + serde::de::DeserializeOwned,
{
    assert!(!paths.is_empty(), "no generated webhook for this kind");
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    envtest::wait_until("the API server to call the webhooks", WAIT, || async {
        let before: Vec<u64> = paths.iter().map(|p| metrics.webhook_requests(p)).collect();
        let created = api.create(&dry_run, obj).await.expect("admitted");
        let called = paths
            .iter()
            .zip(before)
            .all(|(path, before)| metrics.webhook_requests(path) > before);
        called.then_some(created)
    })
    .await
    .unwrap()
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn the_api_server_calls_the_webhooks() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let client = env.client();
    let crds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/crd/bases");
    envtest::crds::install_dir(&client, &crds, WAIT)
        .await
        .unwrap();
    let ns = env.namespace("webhooks").await.unwrap();
    let namespace = ns.name().to_string();

    // The handlers on loopback, with a certificate of a throwaway CA.
    let pki_dir = std::env::temp_dir().join(envtest::testing::unique_name("webhook-pki"));
    let pki = envtest::certs::Pki::generate(&pki_dir).unwrap();
    let _ = std::fs::remove_dir_all(&pki_dir);
    let metrics = Arc::new(Metrics::new());
    let options = WebhookOptions {
        addr: ([127, 0, 0, 1], 0).into(),
        certificates: Certificates::pem(
            pki.serving.cert_pem.clone().into_bytes(),
            pki.serving.key_pem.clone().into_bytes(),
        ),
        metrics: Some(metrics.clone()),
        ..Default::default()
    };
    let server = WebhookServer::bind(options, guestbook_operator::webhooks::all())
        .await
        .unwrap();
    let base_url = format!("https://127.0.0.1:{}", server.local_addr().port());
    let stop = CancellationToken::new();
    let serving = tokio::spawn(server.run(stop.clone()));
    let installed = configurations(&base_url, pki.ca.cert_pem.as_bytes(), &namespace);
    installed.apply(&client).await.unwrap();

    let outcome = std::panic::AssertUnwindSafe(exercise(&client, &namespace, &metrics))
        .catch_unwind()
        .await;
    // The configurations are cluster-wide objects: remove them whatever happened, before the
    // server stops (the API server would refuse what they cover while they point at nothing).
    installed.delete(&client).await.unwrap();
    stop.cancel();
    serving.await.unwrap();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

async fn exercise(client: &Client, namespace: &str, metrics: &Metrics) {
    // Guestbook (webapp.example.com/v1): a sample is admitted through its webhooks.
    {
        use guestbook_operator::api::webapp::v1::{Guestbook, GuestbookSpec};
        // Created in `namespace`, where the configurations apply (cluster-scoped kinds: anywhere).
        let api: Api<Guestbook> = operator_runtime::controller::api(client, Some(namespace));
        let name = envtest::testing::unique_name("guestbook");
        let sample = Guestbook::new(&name, GuestbookSpec::default());
        let paths = paths_for("webapp.example.com", "guestbooks");
        let created = created_through(&api, &sample, &paths, metrics).await;
        assert_eq!(created.metadata.name.as_deref(), Some(name.as_str()));
    }
    // +operator:scaffold:webhook-checks
}
