//! The admission webhooks against the real kube-apiserver of the local control plane: the API
//! server calls the operator's webhook server (`operator_runtime::webhook`, serving
//! `memcached::webhooks`) through the configurations `cargo xtask manifests` generated, and
//! its answers decide what is stored.
//!
//! The local plane has no service network, so the generated configurations are installed
//! with a `url` client config (this test's server on loopback) and the test CA's bundle
//! instead of the Service reference, and only for this test's namespace
//! (`envtest::webhooks`). Everything else (rules, names, failure policy, side effects, review
//! versions) is what the file says.
//!
//! Needs a running control plane: `cargo xtask test` provides one.

use std::path::Path;
use std::time::Duration;

use envtest::TestEnv;
use envtest::webhooks::WebhookConfigurations;
use futures::FutureExt as _;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt as _};
use memcached::api::v1alpha1::{Memcached, MemcachedSpec};
use operator_runtime::webhook::{Certificates, WebhookOptions, WebhookServer};
use tokio_util::sync::CancellationToken;

const IMAGE: &str = "example/memcached:from-the-operator";
const MAX_SIZE: i32 = 5;

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// The generated configurations, pointed at `base_url` and limited to `namespace`.
fn generated_configurations(
    base_url: &str,
    ca_bundle: &[u8],
    namespace: &str,
    failure_policy: &str,
) -> WebhookConfigurations {
    WebhookConfigurations::read(&workspace().join("config/webhook/manifests.yaml"))
        .expect("config/webhook/manifests.yaml (cargo xtask manifests writes it)")
        .served_at(base_url, ca_bundle)
        .only_in_namespace(namespace)
        .failure_policy(failure_policy)
}

fn memcached(name: &str, size: i32) -> Memcached {
    Memcached::new(
        name,
        MemcachedSpec {
            size,
            ..Default::default()
        },
    )
}

fn dry_run() -> PostParams {
    PostParams {
        dry_run: true,
        ..Default::default()
    }
}

/// The message of a refused request.
fn refusal(result: Result<Memcached, kube::Error>) -> String {
    match result {
        Ok(mc) => panic!("{} was admitted", mc.name_any()),
        Err(kube::Error::Api(status)) => status.message,
        Err(e) => panic!("not an API refusal: {e}"),
    }
}

/// A merge patch of `spec` sent raw, to read the `Warning` headers the client library drops.
async fn patch_spec_warnings(
    client: &Client,
    namespace: &str,
    name: &str,
    spec: serde_json::Value,
) -> Vec<String> {
    let request = http::Request::patch(format!(
        "/apis/cache.example.com/v1alpha1/namespaces/{namespace}/memcacheds/{name}"
    ))
    .header("Content-Type", "application/merge-patch+json")
    .body(kube::client::Body::from(
        serde_json::to_vec(&serde_json::json!({ "spec": spec })).unwrap(),
    ))
    .unwrap();
    let response = client.send(request).await.unwrap();
    assert!(
        response.status().is_success(),
        "the patch was refused: {}",
        response.status()
    );
    response
        .headers()
        .get_all("warning")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn the_api_server_calls_the_operators_webhooks() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let client = env.client();
    envtest::crds::install_dir(
        &client,
        &workspace().join("config/crd/bases"),
        Duration::from_secs(60),
    )
    .await
    .unwrap();
    let ns = env.namespace("webhooks").await.unwrap();
    let namespace = ns.name().to_string();
    let outcome = std::panic::AssertUnwindSafe(exercise(&client, &namespace))
        .catch_unwind()
        .await;
    // The configurations are cluster-wide objects: remove them whatever happened.
    generated_configurations("https://127.0.0.1", b"", &namespace, "Fail")
        .delete(&client)
        .await
        .unwrap();
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

async fn exercise(client: &Client, namespace: &str) {
    let pki_dir = tempfile::tempdir().unwrap();
    let pki = envtest::certs::Pki::generate(pki_dir.path()).unwrap();
    let server = WebhookServer::bind(
        WebhookOptions {
            addr: ([127, 0, 0, 1], 0).into(),
            certificates: Certificates::pem(
                pki.serving.cert_pem.clone().into_bytes(),
                pki.serving.key_pem.clone().into_bytes(),
            ),
            ..Default::default()
        },
        memcached::webhooks::webhooks(IMAGE.into(), MAX_SIZE),
    )
    .await
    .unwrap();
    let base_url = format!("https://127.0.0.1:{}", server.local_addr().port());
    let stop = CancellationToken::new();
    let serving = tokio::spawn(server.run(stop.clone()));
    let ca = pki.ca.cert_pem.as_bytes();
    generated_configurations(&base_url, ca, namespace, "Fail")
        .apply(client)
        .await
        .unwrap();
    let api: Api<Memcached> = Api::namespaced(client.clone(), namespace);

    // The API server picks new configurations up within a moment: wait for the validator.
    let too_big = envtest::testing::wait_until(
        "the validating webhook to refuse a size above the limit",
        Duration::from_secs(30),
        || async {
            match api
                .create(&dry_run(), &memcached("too-big", MAX_SIZE + 1))
                .await
            {
                Err(kube::Error::Api(status)) if status.message.contains("more than") => {
                    Some(status.message)
                }
                _ => None,
            }
        },
    )
    .await
    .unwrap();
    assert!(
        too_big.contains(
            "spec.size 6 is more than this operator allows (5, its --max-memcached-size)"
        ),
        "{too_big}"
    );

    // Defaulting: the stored object carries the operator's image.
    let created = api
        .create(&PostParams::default(), &memcached("cache", 2))
        .await
        .unwrap();
    assert_eq!(created.spec.image.as_deref(), Some(IMAGE));
    let stored = api.get("cache").await.unwrap();
    assert_eq!(stored.spec.image.as_deref(), Some(IMAGE));
    // An image the user gave is kept.
    let mut own = memcached("own-image", 1);
    own.spec.image = Some("mine/memcached:1.5".into());
    let created = api.create(&PostParams::default(), &own).await.unwrap();
    assert_eq!(created.spec.image.as_deref(), Some("mine/memcached:1.5"));

    // Validation on update, with the handler's message.
    let message = refusal(
        api.patch(
            "cache",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({ "spec": { "size": 50 } })),
        )
        .await,
    );
    assert!(message.contains("spec.size 50 is more than"), "{message}");

    // A warning reaches the client, and the update goes through.
    let warnings =
        patch_spec_warnings(client, namespace, "cache", serde_json::json!({ "size": 0 })).await;
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("spec.size 0 stops every memcached pod of cache")),
        "warnings: {warnings:?}"
    );
    assert_eq!(api.get("cache").await.unwrap().spec.size, 0);

    // The server stops: with failurePolicy Fail nothing gets through...
    stop.cancel();
    serving.await.unwrap();
    let message = refusal(api.create(&dry_run(), &memcached("unserved", 1)).await);
    assert!(
        message.contains("failed calling webhook"),
        "with the server down and failurePolicy Fail: {message}"
    );
    // ...and with Ignore everything does (the schema still holds).
    generated_configurations(&base_url, ca, namespace, "Ignore")
        .apply(client)
        .await
        .unwrap();
    let admitted = envtest::testing::wait_until(
        "failurePolicy Ignore to admit while the server is down",
        Duration::from_secs(30),
        || async {
            api.create(&dry_run(), &memcached("unserved", MAX_SIZE + 10))
                .await
                .ok()
        },
    )
    .await
    .unwrap();
    assert_eq!(admitted.spec.image, None, "no webhook ran, so no default");
}
