//! The control plane does what the operator's tests rely on: Deployments get ReplicaSets and
//! Running Pods (kube-controller-manager, kube-scheduler, kwok), owners garbage-collect their
//! dependents, RBAC is enforced, and `up` + `down` leave nothing behind.
//!
//! These need a running control plane: `cargo xtask test` provides one (plain `cargo test` skips
//! them).

use std::collections::BTreeMap;
use std::time::Duration;

use envtest::{TestEnv, wait_until};
use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec, ReplicaSet};
use k8s_openapi::api::core::v1::{ConfigMap, Container, Pod, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, OwnerReference};
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, PostParams};
use kube::{Resource, ResourceExt};

const TIMEOUT: Duration = Duration::from_secs(60);

async fn env() -> TestEnv {
    TestEnv::connect().await.expect("a cluster to test against")
}

fn deployment(name: &str, replicas: i32) -> Deployment {
    let labels: BTreeMap<String, String> = [("app".to_string(), name.to_string())].into();
    Deployment {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            ..Default::default()
        },
        spec: Some(DeploymentSpec {
            replicas: Some(replicas),
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..Default::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..Default::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "main".into(),
                        image: Some("registry.k8s.io/pause:3.10".into()),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        ..Default::default()
    }
}

async fn running_pods(pods: &Api<Pod>, selector: &str) -> Vec<Pod> {
    let list = pods
        .list(&ListParams::default().labels(selector))
        .await
        .map(|l| l.items)
        .unwrap_or_default();
    list.into_iter()
        .filter(|p| {
            p.metadata.deletion_timestamp.is_none()
                && p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
        })
        .collect()
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn a_deployment_gets_a_replicaset_and_running_pods_on_kwok_nodes() {
    let env = env().await;
    let ns = env.namespace("deployment").await.unwrap();
    let deployments: Api<Deployment> = Api::namespaced(env.client(), ns.name());
    let created = deployments
        .create(&PostParams::default(), &deployment("web", 3))
        .await
        .unwrap();

    let replicasets: Api<ReplicaSet> = Api::namespaced(env.client(), ns.name());
    let rs = wait_until("a ReplicaSet owned by the Deployment", TIMEOUT, || {
        let replicasets = replicasets.clone();
        let uid = created.metadata.uid.clone();
        async move {
            let list = replicasets.list(&ListParams::default()).await.ok()?;
            list.items.into_iter().find(|rs| {
                rs.owner_references()
                    .iter()
                    .any(|o| o.controller == Some(true) && Some(&o.uid) == uid.as_ref())
            })
        }
    })
    .await
    .unwrap();
    assert_eq!(rs.spec.as_ref().and_then(|s| s.replicas), Some(3));

    let pods: Api<Pod> = Api::namespaced(env.client(), ns.name());
    let running = wait_until("3 Running pods", TIMEOUT, || {
        let pods = pods.clone();
        async move {
            let running = running_pods(&pods, "app=web").await;
            (running.len() == 3).then_some(running)
        }
    })
    .await
    .unwrap();
    for pod in &running {
        let node = pod.spec.as_ref().and_then(|s| s.node_name.clone());
        assert!(
            node.as_deref()
                .is_some_and(|n| n.starts_with("envtest-node-")),
            "{} scheduled on {node:?}",
            pod.name_any()
        );
        assert!(
            pod.status
                .as_ref()
                .and_then(|s| s.pod_ip.as_ref())
                .is_some()
        );
    }

    wait_until("the Deployment to report 3 ready replicas", TIMEOUT, || {
        let deployments = deployments.clone();
        async move {
            let d = deployments.get("web").await.ok()?;
            (d.status?.ready_replicas == Some(3)).then_some(())
        }
    })
    .await
    .unwrap();
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn deleting_an_owner_garbage_collects_what_it_owns() {
    let env = env().await;
    let ns = env.namespace("gc").await.unwrap();
    let configmaps: Api<ConfigMap> = Api::namespaced(env.client(), ns.name());
    let owner = configmaps
        .create(
            &PostParams::default(),
            &ConfigMap {
                metadata: ObjectMeta {
                    name: Some("owner".into()),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let owner_ref = OwnerReference {
        api_version: ConfigMap::api_version(&()).into(),
        kind: ConfigMap::kind(&()).into(),
        name: owner.name_any(),
        uid: owner.metadata.uid.clone().unwrap(),
        ..Default::default()
    };
    let owned = configmaps
        .create(
            &PostParams::default(),
            &ConfigMap {
                metadata: ObjectMeta {
                    name: Some("owned".into()),
                    owner_references: Some(vec![owner_ref.clone()]),
                    ..Default::default()
                },
                ..Default::default()
            },
        )
        .await
        .unwrap();
    // A Deployment owned by the same object: its ReplicaSet and Pods must go too.
    let deployments: Api<Deployment> = Api::namespaced(env.client(), ns.name());
    let mut owned_deployment = deployment("owned-web", 2);
    owned_deployment.metadata.owner_references = Some(vec![owner_ref]);
    deployments
        .create(&PostParams::default(), &owned_deployment)
        .await
        .unwrap();
    let pods: Api<Pod> = Api::namespaced(env.client(), ns.name());
    wait_until("2 Running pods of the owned Deployment", TIMEOUT, || {
        let pods = pods.clone();
        async move { (running_pods(&pods, "app=owned-web").await.len() == 2).then_some(()) }
    })
    .await
    .unwrap();

    configmaps
        .delete("owner", &DeleteParams::background())
        .await
        .unwrap();

    wait_until("the owned ConfigMap to be collected", TIMEOUT, || {
        let configmaps = configmaps.clone();
        let uid = owned.metadata.uid.clone();
        async move {
            match configmaps.get_opt("owned").await {
                Ok(None) => Some(()),
                Ok(Some(cm)) if cm.metadata.uid != uid => Some(()),
                _ => None,
            }
        }
    })
    .await
    .unwrap();
    wait_until(
        "the owned Deployment, its ReplicaSet and Pods to be collected",
        TIMEOUT,
        || {
            let (deployments, pods) = (deployments.clone(), pods.clone());
            let replicasets: Api<ReplicaSet> = Api::namespaced(env.client(), ns.name());
            async move {
                let d = deployments.list(&ListParams::default()).await.ok()?;
                let rs = replicasets.list(&ListParams::default()).await.ok()?;
                let p = pods.list(&ListParams::default()).await.ok()?;
                (d.items.is_empty() && rs.items.is_empty() && p.items.is_empty()).then_some(())
            }
        },
    )
    .await
    .unwrap();
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn rbac_is_enforced_for_service_accounts() {
    let env = env().await;
    let ns = env.namespace("rbac").await.unwrap();
    let mut config = env.config().clone();
    config.auth_info.impersonate = Some(format!("system:serviceaccount:{}:default", ns.name()));
    let as_default_sa = kube::Client::try_from(config).unwrap();
    let pods: Api<Pod> = Api::namespaced(as_default_sa, ns.name());
    let err = pods.list(&ListParams::default()).await.unwrap_err();
    let kube::Error::Api(status) = err else {
        panic!("expected an API error, got {err}")
    };
    assert_eq!(status.code, 403, "{status:?}");
    assert!(
        status.message.contains("cannot list resource \"pods\""),
        "{}",
        status.message
    );
}

#[tokio::test]
#[ignore = "needs the control plane binaries: run by `cargo xtask test`"]
async fn up_then_down_leaves_no_process_and_no_state() {
    use rustix::io::Errno;
    use rustix::process::{Pid, test_kill_process};

    let scratch = tempfile::tempdir().unwrap();
    let state_dir = scratch.path().join("plane");
    let mut options = envtest::Options::new(&state_dir);
    options.nodes = 1;
    let plane = envtest::plane::start(&options)
        .await
        .unwrap()
        .expect("a new control plane");
    let pids: Vec<i32> = plane.state.components.iter().map(|c| c.pid).collect();
    assert_eq!(pids.len(), 5, "{:?}", plane.state.components);
    let client = plane.client().await.unwrap();
    client.apiserver_version().await.unwrap();
    assert!(state_dir.join("state.json").is_file());

    // A second start on the same state directory reuses the running one.
    assert!(envtest::plane::start(&options).await.unwrap().is_none());

    plane.stop().await.unwrap();
    for pid in pids {
        assert_eq!(
            test_kill_process(Pid::from_raw(pid).expect("a process's pid")),
            Err(Errno::SRCH),
            "process {pid} is still there"
        );
    }
    assert!(
        !state_dir.exists(),
        "{} was left behind",
        state_dir.display()
    );
    // Stopping again finds nothing to stop.
    assert!(!envtest::plane::stop(&state_dir).await.unwrap());
}
