//! `cargo xtask deploy`, the operator as it runs in a cluster, and `cargo xtask undeploy`, on a
//! control plane of this test's own (deploy installs cluster-wide objects, the CRD and the
//! webhook configurations among them, which the other tests' plane must not see).
//!
//! The local plane's pods are simulated (kwok), so after the rollout the test runs what the
//! pod would, with `incluster` (shared with the Helm chart's test): the `manager` binary out
//! of the image `cargo xtask image` built, alone in a read-only root, with the live
//! Deployment's command, args and env. It has to elect itself leader with its
//! ServiceAccount's RBAC, keep its webhook certificate itself (no cert-manager in this
//! cluster: it makes the CA and the certificate, writes the bundle into its configurations,
//! and renews the certificate, given a short life here, without a restart), serve its
//! webhooks and reconcile a Memcached to Available.
//!
//! Needs root (mount namespace, chroot) and the control-plane binaries: `cargo xtask test`.

mod incluster;

use std::path::{Path, PathBuf};
use std::time::Duration;

use kube::api::{Api, DynamicObject, PostParams};
use kube::core::GroupVersionKind;
use kube::{Client, ResourceExt as _};
use operator_xtask_cluster::deploy::{self, Change};
use operator_xtask_cluster::image;

use incluster::{DEPLOYMENT, OPERATOR_NAMESPACE};

const PROJECT: &str = "memcached-operator";

fn root() -> PathBuf {
    operator_xtask::root()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "starts a control plane of its own and builds the image; run by cargo xtask test"]
async fn deploy_then_the_image_runs_as_in_the_cluster_then_undeploy_leaves_nothing() {
    incluster::on_a_plane_of_its_own("deploy-test-", scenario).await;
}

async fn scenario(kubeconfig: PathBuf, scratch: PathBuf) {
    let config = kube::Config::from_custom_kubeconfig(
        kube::config::Kubeconfig::read_from(&kubeconfig).unwrap(),
        &Default::default(),
    )
    .await
    .unwrap();
    let client = Client::try_from(config.clone()).unwrap();

    // The image, as `cargo xtask image --profile image-test` builds it (release without the
    // optimiser: the same static binary and image, minutes sooner).
    let mut options = image::ImageOptions::new(root());
    options.profile = "image-test".to_string();
    let built = tokio::task::spawn_blocking(move || image::build(&options))
        .await
        .unwrap()
        .expect("cargo xtask image");
    let objects = {
        let reference = built.reference.clone();
        tokio::task::spawn_blocking(move || {
            deploy::render(&root(), Path::new("config/default"), &reference)
        })
        .await
        .unwrap()
        .expect("rendering config/default")
    };

    // config/default needs no cert-manager: the manager keeps its webhook certificate
    // itself. Switched to cert-manager (config/certmanager's objects beside the rest), it
    // cannot be taken by a cluster without cert-manager's CRDs: deploy says so and applies
    // nothing.
    let mut cert_manager_way = objects.clone();
    let issued = envtest::kustomize::build(&root().join("config/certmanager"))
        .expect("rendering config/certmanager");
    for doc in serde_yaml::Deserializer::from_str(&issued) {
        use serde::Deserialize as _;
        let value = serde_json::Value::deserialize(doc).unwrap();
        if value.is_null() {
            continue;
        }
        let object: DynamicObject = serde_json::from_value(value).unwrap();
        let types = object.types.clone().unwrap();
        let (group, version) = types
            .api_version
            .split_once('/')
            .unwrap_or(("", &types.api_version));
        cert_manager_way.push(deploy::Rendered {
            gvk: GroupVersionKind::gvk(group, version, &types.kind),
            object,
        });
    }
    let err = deploy::deploy(&client, cert_manager_way, Duration::from_secs(120))
        .await
        .expect_err("deploy without cert-manager's CRDs");
    let message = format!("{err:#}");
    assert!(message.contains("cert-manager"), "{message}");
    assert!(message.contains("nothing was applied"), "{message}");
    assert!(
        deploy::leftovers(&client, PROJECT)
            .await
            .unwrap()
            .is_empty(),
        "a refused deploy applied something"
    );

    let report = deploy::deploy(&client, objects.clone(), Duration::from_secs(120))
        .await
        .expect("cargo xtask deploy");
    assert_eq!(report.objects.len(), objects.len());
    assert!(
        report.objects.iter().all(|(_, c)| *c == Change::Created),
        "{:?}",
        report.objects
    );
    assert_eq!(
        report
            .rolled_out
            .iter()
            .map(|(d, _)| d.as_str())
            .collect::<Vec<_>>(),
        [format!("deployment.apps {OPERATOR_NAMESPACE}/{DEPLOYMENT}")]
    );

    // Deploying the same again creates nothing.
    let again = deploy::deploy(&client, objects.clone(), Duration::from_secs(120))
        .await
        .expect("a second deploy");
    assert!(
        again.objects.iter().all(|(_, c)| *c != Change::Created),
        "{:?}",
        again.objects
    );

    incluster::restricted_pod_security(&client).await;
    // Its webhook certificate valid for 45 s: the test sees it renewed after 30 and served.
    incluster::operator_runs_as_in_the_cluster(
        &client,
        &config,
        &kubeconfig,
        &scratch,
        &built,
        incluster::Renewal::Forced(Duration::from_secs(45)),
    )
    .await;

    // Undeploy removes what deploy applied, and only that.
    let stranger: Api<k8s_openapi::api::core::v1::ConfigMap> =
        Api::namespaced(client.clone(), "default");
    stranger
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": "memcached-manager-config"}
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    let report = deploy::undeploy(&client, objects.clone(), PROJECT, Duration::from_secs(120))
        .await
        .expect("cargo xtask undeploy");
    assert!(
        report
            .objects
            .iter()
            .all(|(_, c)| matches!(c, Change::Deleted | Change::Absent)),
        "{:?}",
        report.objects
    );
    let left = deploy::leftovers(&client, PROJECT).await.unwrap();
    assert!(
        left.is_empty(),
        "left behind: {:?}",
        left.iter().map(|(_, _, what)| what).collect::<Vec<_>>()
    );
    for object in &objects {
        let gvk = &object.gvk;
        if let Ok((resource, caps)) = kube::discovery::pinned_kind(&client, gvk).await {
            let api: Api<DynamicObject> = match (&caps.scope, &object.object.metadata.namespace) {
                (kube::discovery::Scope::Namespaced, Some(ns)) => {
                    Api::namespaced_with(client.clone(), ns, &resource)
                }
                _ => Api::all_with(client.clone(), &resource),
            };
            assert!(
                api.get_opt(&object.object.name_any())
                    .await
                    .unwrap()
                    .is_none(),
                "{} is still there",
                object.describe()
            );
        }
    }
    assert!(
        kube::discovery::pinned_kind(
            &client,
            &GroupVersionKind::gvk("cache.example.com", "v1alpha1", "Memcached")
        )
        .await
        .is_err(),
        "the Memcached CRD is still served"
    );
    // Not ours: untouched.
    assert!(
        stranger
            .get_opt("memcached-manager-config")
            .await
            .unwrap()
            .is_some()
    );
    let again = deploy::undeploy(&client, objects.clone(), PROJECT, Duration::from_secs(60))
        .await
        .expect("a second undeploy");
    assert!(again.objects.iter().all(|(_, c)| *c == Change::Absent));
}
