//! The compatibility gate against a live cluster (`cargo xtask manifests --against-cluster`):
//! the CRDs the API server serves, read with their `status.storedVersions`, so that removing
//! a version objects are still stored at is refused for that reason.

use std::time::Duration;

use envtest::testing::{TestEnv, unique_name, wait_until};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kube::api::{DeleteParams, PostParams};
use operator_gen::compat::{self, Check, NewCrd, Severity};
use operator_xtask_cluster::cluster::{Target, live_crds};
use serde_json::{Value, json};

fn crd(group: &str, storage: &str, versions: &[&str]) -> Value {
    let schema = json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}
    }}});
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("gadgets.{group}")},
        "spec": {
            "group": group,
            "names": {"kind": "Gadget", "listKind": "GadgetList", "plural": "gadgets", "singular": "gadget"},
            "scope": "Namespaced",
            "versions": versions.iter().map(|v| json!({
                "name": v, "served": true, "storage": *v == storage, "schema": schema,
            })).collect::<Vec<_>>(),
        }
    })
}

#[tokio::test]
#[ignore = "needs the local control plane; run by cargo xtask test"]
async fn a_version_the_cluster_still_stores_cannot_be_removed() {
    let env = TestEnv::connect().await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let group = format!("{}.example.com", unique_name("compat"));
    let name = format!("gadgets.{group}");
    // Stored at v1, then storage moves to v2: the API server lists both as stored.
    let first: CustomResourceDefinition =
        serde_json::from_value(crd(&group, "v1", &["v1", "v2"])).unwrap();
    crds.create(&PostParams::default(), &first).await.unwrap();
    let moved = crd(&group, "v2", &["v1", "v2"]);
    wait_until(
        "the CRD accepts the storage move",
        Duration::from_secs(30),
        || {
            let (crds, moved, name) = (crds.clone(), moved.clone(), name.clone());
            async move {
                let mut live = crds.get(&name).await.ok()?;
                live.spec = serde_json::from_value(moved["spec"].clone()).ok()?;
                crds.replace(&name, &PostParams::default(), &live)
                    .await
                    .ok()
            }
        },
    )
    .await
    .unwrap();
    let stored = wait_until("both versions are stored", Duration::from_secs(30), || {
        let (crds, name) = (crds.clone(), name.clone());
        async move {
            let live = crds.get(&name).await.ok()?;
            let stored = live.status?.stored_versions?;
            (stored.len() == 2).then_some(stored)
        }
    })
    .await
    .unwrap();
    assert_eq!(stored, ["v1", "v2"]);

    let (_source, live) = live_crds(&Target { kubeconfig: None }).await.unwrap();
    let ours: Vec<_> = live
        .into_iter()
        .filter(|b| b.crd.spec.group == group)
        .collect();
    assert_eq!(ours.len(), 1);
    assert_eq!(
        ours[0].stored_versions.as_deref(),
        Some(&["v1".to_string(), "v2".to_string()][..])
    );

    // The new CRD keeps v2 only: v1 is stored, which a file baseline could not know (its
    // storage version is v2).
    let new = compat::BaselineCrd::from_value(crd(&group, "v2", &["v2"])).unwrap();
    let findings = compat::compare_all(
        &ours,
        &[NewCrd {
            crd: &new.crd,
            conversion_webhook: false,
        }],
    );
    let removed: Vec<_> = findings
        .iter()
        .filter(|f| f.check == Check::VersionRemoved)
        .collect();
    assert_eq!(removed.len(), 1, "{findings:?}");
    assert_eq!(removed[0].severity, Severity::Error);
    assert_eq!(removed[0].version.as_deref(), Some("v1"));
    assert!(
        removed[0].why.contains("status.storedVersions"),
        "{}",
        removed[0]
    );

    crds.delete(&name, &DeleteParams::default()).await.unwrap();
}
