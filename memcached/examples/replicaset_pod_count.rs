//! controller-runtime's seed example on this toolkit: a controller for a built-in kind.
//!
//! It reconciles every ReplicaSet, counts the Pods the ReplicaSet owns, and keeps that count in
//! the ReplicaSet's `pod-count` label. It watches ReplicaSets and the Pods they own, so the label
//! follows scaling. Its permissions come from the `#[rbac]` markers below:
//!
//! ```sh
//! cargo run -p operator-gen --features cli -- rbac --paths memcached/examples/replicaset_pod_count.rs --stdout
//! cargo run -p memcached --example replicaset_pod_count            # against the current kubeconfig
//! ```

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::ReplicaSet;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::{Action, Controller};
use kube::runtime::watcher;
use kube::{Client, ResourceExt};
use operator_derive::rbac;

/// The label this controller maintains.
const POD_COUNT_LABEL: &str = "pod-count";

struct Context {
    client: Client,
}

#[derive(Debug, thiserror::Error)]
enum Error {
    #[error("Kubernetes API error: {0}")]
    Kube(#[from] kube::Error),
    #[error("ReplicaSet {0} has no namespace or uid")]
    Incomplete(String),
}

/// Sets the `pod-count` label of a ReplicaSet to the number of Pods it owns.
#[rbac(
    groups = "apps",
    resources = "replicasets",
    verbs = "get;list;watch;patch"
)]
#[rbac(groups = "core", resources = "pods", verbs = "get;list;watch")]
async fn reconcile(rs: Arc<ReplicaSet>, ctx: Arc<Context>) -> Result<Action, Error> {
    let (Some(ns), Some(uid)) = (rs.namespace(), rs.uid()) else {
        return Err(Error::Incomplete(rs.name_any()));
    };
    let pods: Api<Pod> = Api::namespaced(ctx.client.clone(), &ns);
    let owned = pods
        .list_metadata(&Default::default())
        .await?
        .items
        .iter()
        .filter(|p| p.owner_references().iter().any(|o| o.uid == uid))
        .count();
    let count = owned.to_string();
    if rs.labels().get(POD_COUNT_LABEL) != Some(&count) {
        let replicasets: Api<ReplicaSet> = Api::namespaced(ctx.client.clone(), &ns);
        let patch = serde_json::json!({ "metadata": { "labels": { POD_COUNT_LABEL: count } } });
        replicasets
            .patch(
                &rs.name_any(),
                &PatchParams::default(),
                &Patch::Merge(&patch),
            )
            .await?;
    }
    Ok(Action::await_change())
}

fn error_policy(_rs: Arc<ReplicaSet>, error: &Error, _ctx: Arc<Context>) -> Action {
    eprintln!("reconcile failed: {error}");
    Action::requeue(Duration::from_secs(5))
}

/// Runs the controller over `namespace` (all namespaces when `None`) until `shutdown`.
async fn run(
    client: Client,
    namespace: Option<String>,
    shutdown: impl std::future::Future<Output = ()> + Send + Sync + 'static,
) {
    let (replicasets, pods): (Api<ReplicaSet>, Api<Pod>) = match namespace.as_deref() {
        Some(ns) => (
            Api::namespaced(client.clone(), ns),
            Api::namespaced(client.clone(), ns),
        ),
        None => (Api::all(client.clone()), Api::all(client.clone())),
    };
    Controller::new(replicasets, watcher::Config::default())
        .owns(pods, watcher::Config::default())
        .graceful_shutdown_on(shutdown)
        .run(reconcile, error_policy, Arc::new(Context { client }))
        .for_each(|_| async {})
        .await;
}

#[tokio::main]
async fn main() -> Result<(), kube::Error> {
    let client = Client::try_default().await?;
    run(client, None, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::apps::v1::Deployment;
    use kube::api::PostParams;

    #[tokio::test]
    #[ignore = "needs the control plane: run by `cargo xtask test`"]
    async fn the_pod_count_label_follows_scaling() {
        let env = envtest::TestEnv::connect().await.unwrap();
        let ns = env.namespace("rs-pod-count").await.unwrap();
        let stop = tokio_util::sync::CancellationToken::new();
        let stopped = stop.clone();
        let controller = tokio::spawn(run(env.client(), Some(ns.name().to_string()), async move {
            stopped.cancelled().await
        }));
        let deployments: Api<Deployment> = Api::namespaced(env.client(), ns.name());
        let deployment: Deployment = serde_json::from_value(serde_json::json!({
            "metadata": { "name": "web" },
            "spec": {
                "replicas": 3,
                "selector": { "matchLabels": { "app": "web" } },
                "template": {
                    "metadata": { "labels": { "app": "web" } },
                    "spec": { "containers": [{ "name": "web", "image": "registry.k8s.io/pause:3.10" }] }
                }
            }
        }))
        .unwrap();
        deployments
            .create(&PostParams::default(), &deployment)
            .await
            .unwrap();
        let replicasets: Api<ReplicaSet> = Api::namespaced(env.client(), ns.name());
        for (replicas, expected) in [(3, "3"), (1, "1")] {
            deployments
                .patch(
                    "web",
                    &PatchParams::default(),
                    &Patch::Merge(serde_json::json!({ "spec": { "replicas": replicas } })),
                )
                .await
                .unwrap();
            envtest::wait_until(
                &format!("the ReplicaSet to be labelled pod-count={expected}"),
                Duration::from_secs(60),
                || {
                    let replicasets = replicasets.clone();
                    async move {
                        let list = replicasets.list(&Default::default()).await.ok()?;
                        let rs = list.items.first()?;
                        (rs.labels().get(POD_COUNT_LABEL).map(String::as_str) == Some(expected))
                            .then_some(())
                    }
                },
            )
            .await
            .unwrap();
        }
        stop.cancel();
        controller.await.unwrap();
    }
}
