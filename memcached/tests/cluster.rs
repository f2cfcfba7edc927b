//! The generated CRDs against the real kube-apiserver of the local control plane: accepted and
//! Established, validation enforced by the server with the marker's message, and status only
//! writable through the status subresource.
//!
//! These need a running control plane: `cargo xtask test` provides one (plain `cargo test` skips
//! them).

use std::path::Path;
use std::time::Duration;

use envtest::TestEnv;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, Patch, PatchParams, PostParams};
use memcached::api::v1alpha1::{Memcached, MemcachedSpec, MemcachedStatus};

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

async fn env_with_crds() -> TestEnv {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    envtest::crds::install_dir(
        &env.client(),
        &workspace().join("config/crd/bases"),
        Duration::from_secs(60),
    )
    .await
    .unwrap();
    env
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn every_generated_crd_is_accepted_and_established() {
    let env = env_with_crds().await;
    let files = envtest::crds::read_dir(&workspace().join("config/crd/bases")).unwrap();
    assert!(!files.is_empty());
    let api: Api<CustomResourceDefinition> = Api::all(env.client());
    for (file, crd) in files {
        let name = crd.metadata.name.unwrap();
        let live = api.get(&name).await.unwrap();
        let conditions = live.status.and_then(|s| s.conditions).unwrap_or_default();
        for wanted in ["NamesAccepted", "Established"] {
            assert!(
                conditions
                    .iter()
                    .any(|c| c.type_ == wanted && c.status == "True"),
                "{} ({}): {wanted} is not True: {conditions:?}",
                name,
                file.display()
            );
        }
    }
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn a_negative_size_is_rejected_by_the_api_server_with_the_minimum_message() {
    let env = env_with_crds().await;
    let ns = env.namespace("mc-validation").await.unwrap();
    let api: Api<Memcached> = Api::namespaced(env.client(), ns.name());
    let err = api
        .create(
            &PostParams::default(),
            &Memcached::new(
                "negative",
                MemcachedSpec {
                    size: -1,
                    ..Default::default()
                },
            ),
        )
        .await
        .unwrap_err();
    let kube::Error::Api(status) = err else {
        panic!("expected the API server to reject it, got {err}")
    };
    assert_eq!(status.code, 422, "{status:?}");
    assert!(
        status.message.contains(
            "spec.size: Invalid value: -1: spec.size in body should be greater than or equal to 0"
        ),
        "{}",
        status.message
    );
    // Zero is the boundary and allowed.
    api.create(
        &PostParams::default(),
        &Memcached::new(
            "zero",
            MemcachedSpec {
                size: 0,
                ..Default::default()
            },
        ),
    )
    .await
    .unwrap();
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn the_sample_is_accepted_and_status_is_written_only_through_the_subresource() {
    let env = env_with_crds().await;
    let ns = env.namespace("mc-status").await.unwrap();
    let api: Api<Memcached> = Api::namespaced(env.client(), ns.name());
    let sample: Memcached = serde_yaml::from_str(
        &std::fs::read_to_string(workspace().join("config/samples/cache_v1alpha1_memcached.yaml"))
            .unwrap(),
    )
    .unwrap();
    let name = sample.metadata.name.clone().unwrap();
    let mut created = api.create(&PostParams::default(), &sample).await.unwrap();
    assert_eq!(created.spec.size, 3);

    // Through the main resource, status is ignored (and spec is what counts).
    created.status = Some(MemcachedStatus {
        nodes: vec!["written-through-main-resource".into()],
        ..Default::default()
    });
    let replaced = api
        .replace(&name, &PostParams::default(), &created)
        .await
        .unwrap();
    assert_eq!(replaced.status, None);

    // Through /status, status is written and spec changes are ignored.
    let patch = serde_json::json!({
        "spec": { "size": 7 },
        "status": { "nodes": ["memcached-sample-0"] },
    });
    let patched = api
        .patch_status(&name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap();
    assert_eq!(
        patched.status.map(|s| s.nodes),
        Some(vec!["memcached-sample-0".to_string()])
    );
    assert_eq!(patched.spec.size, 3);
}
