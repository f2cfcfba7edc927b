//! The conversion webhook against the real kube-apiserver: the generated Backup CRD is
//! installed with its conversion switched to this test's webhook server (a `url` with the
//! test CA, since the local control plane has no service network; the committed patch in
//! `config/crd/patches` points at the webhook Service instead), and the API server converts
//! every read and write between `v1` (the storage version) and `v2` through it.
//!
//! `generated_crd_is_committed` runs in plain `cargo test`; the cluster test needs the control
//! plane (`cargo xtask test` provides it).

use std::path::Path;
use std::time::Duration;

use conversion_example::{v1, v2};
use envtest::TestEnv;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceConversion, CustomResourceDefinition, ServiceReference, WebhookClientConfig,
    WebhookConversion,
};
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use operator_runtime::webhook::{Certificates, WebhookOptions, WebhookServer};
use tokio_util::sync::CancellationToken;

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn generated_crd_is_committed() {
    let generated = operator_gen::generate(
        &[crate_dir().join("src")],
        &operator_gen::Options::default(),
    )
    .unwrap();
    let artifacts = generated.artifacts();
    assert_eq!(artifacts.len(), 1, "one CRD and nothing else");
    let committed = std::fs::read_to_string(
        crate_dir()
            .join("config/crd/bases")
            .join(&artifacts[0].file_name),
    )
    .unwrap();
    assert!(
        committed == artifacts[0].contents,
        "config/crd/bases is stale: run `cargo run -p operator-gen -- crd --paths examples/conversion/src --out examples/conversion/config`"
    );
    // The derive's crd() is the same CRD.
    assert_eq!(
        serde_json::to_value(v1::Backup::crd()).unwrap(),
        serde_json::to_value(&generated.crds[0]).unwrap()
    );
}

/// The committed patch: conversion by the webhook Service at /convert.
fn committed_conversion() -> CustomResourceConversion {
    let text =
        std::fs::read_to_string(crate_dir().join("config/crd/patches/webhook_in_backups.yaml"))
            .unwrap();
    let patch: serde_json::Value = serde_yaml::from_str(&text).unwrap();
    serde_json::from_value(patch["spec"]["conversion"].clone()).unwrap()
}

#[test]
fn the_patch_sends_conversions_to_the_webhook_service() {
    let conversion = committed_conversion();
    assert_eq!(conversion.strategy, "Webhook");
    let webhook = conversion.webhook.unwrap();
    assert_eq!(
        webhook.client_config.unwrap().service,
        Some(ServiceReference {
            name: "webhook-service".into(),
            namespace: "system".into(),
            path: Some("/convert".into()),
            port: None,
        })
    );
    assert_eq!(webhook.conversion_review_versions, ["v1"]);
}

fn backup(name: &str) -> v1::Backup {
    v1::Backup::new(
        name,
        v1::BackupSpec {
            source: "data".into(),
            window: "02:00-04:30".into(),
            keep: Some(3),
        },
    )
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn the_api_server_converts_through_the_webhook() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let client = env.client();
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
        conversion_example::conversion::webhooks(),
    )
    .await
    .unwrap();
    let port = server.local_addr().port();
    let stop = CancellationToken::new();
    let serving = tokio::spawn(server.run(stop.clone()));

    // The generated CRD with the committed patch's conversion, pointed at this server.
    let mut crd: CustomResourceDefinition = v1::Backup::crd();
    let mut conversion = committed_conversion();
    let webhook: &mut WebhookConversion = conversion.webhook.as_mut().unwrap();
    let path = webhook
        .client_config
        .as_ref()
        .and_then(|c| c.service.as_ref())
        .and_then(|s| s.path.clone())
        .unwrap();
    webhook.client_config = Some(WebhookClientConfig {
        url: Some(format!("https://127.0.0.1:{port}{path}")),
        ca_bundle: Some(k8s_openapi::ByteString(
            pki.ca.cert_pem.clone().into_bytes(),
        )),
        service: None,
    });
    crd.spec.conversion = Some(conversion);
    envtest::crds::install(&client, &[crd], Duration::from_secs(60))
        .await
        .unwrap();

    let ns = env.namespace("conversion").await.unwrap();
    let v1_api: Api<v1::Backup> = Api::namespaced(client.clone(), ns.name());
    let v2_api: Api<v2::Backup> = Api::namespaced(client.clone(), ns.name());

    // Created in v1, read in v2: the window comes split. The API server may still hold the
    // previous conversion settings for a moment after the CRD changed: retry reads.
    let mut original = backup("nightly");
    original.metadata.labels = Some([("team".to_string(), "storage".to_string())].into());
    let created = v1_api
        .create(&PostParams::default(), &original)
        .await
        .unwrap();
    let as_v2 = envtest::testing::wait_until(
        "the v2 read to be converted by the webhook",
        Duration::from_secs(30),
        || async {
            v2_api
                .get("nightly")
                .await
                .ok()
                .filter(|b| b.spec.window.start == "02:00")
        },
    )
    .await
    .unwrap();
    assert_eq!(as_v2.spec.window.end, "04:30");
    assert_eq!(as_v2.spec.keep, Some(3));
    assert_eq!(as_v2.metadata.labels, original.metadata.labels);
    assert_eq!(as_v2.metadata.uid, created.metadata.uid);

    // Updated in v2, read back in v1: the parts are joined.
    let patched = v2_api
        .patch(
            "nightly",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({ "spec": { "window": { "end": "05:15" } } })),
        )
        .await
        .unwrap();
    assert_eq!(patched.spec.window.end, "05:15");
    let back = v1_api.get("nightly").await.unwrap();
    assert_eq!(back.spec.window, "02:00-05:15");

    // Created in v2, stored in the storage version v1.
    let mut fresh = v2::Backup::new(
        "weekly",
        v2::BackupSpec {
            source: "logs".into(),
            window: v2::Window {
                start: "22:00".into(),
                end: "23:59".into(),
            },
            keep: None,
        },
    );
    fresh.metadata.annotations = Some([("note".to_string(), "kept".to_string())].into());
    let created = v2_api.create(&PostParams::default(), &fresh).await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let stored = crds
        .get("backups.backup.example.com")
        .await
        .unwrap()
        .status
        .unwrap()
        .stored_versions
        .unwrap();
    assert_eq!(stored, ["v1"], "objects are stored in v1 only");
    assert_eq!(
        v1_api.get("weekly").await.unwrap().spec.window,
        "22:00-23:59"
    );

    // A round trip v2 -> v1 (storage) -> v2 loses nothing.
    let read = v2_api.get("weekly").await.unwrap();
    assert_eq!(read.spec, fresh.spec);
    assert_eq!(read.metadata.annotations, fresh.metadata.annotations);
    assert_eq!(
        read.metadata.resource_version,
        created.metadata.resource_version
    );

    // With the server gone, reads in the other version fail instead of losing fields.
    stop.cancel();
    serving.await.unwrap();
    let error = v2_api.get("nightly").await.unwrap_err().to_string();
    assert!(error.contains("conversion webhook"), "{error}");

    // The CRD points at a server that is gone: remove it (and its objects) so that nothing
    // waits on it later, such as the namespace's deletion.
    crds.delete("backups.backup.example.com", &DeleteParams::default())
        .await
        .unwrap();
}
