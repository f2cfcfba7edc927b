//! The {{kind}} controller against a real API server, as its service account under the
//! generated roles: a new {{kind}} gets the controller's event. {{kind}}'s CRD is
//! {{api_group}}'s, applied from its copy in `config/crd/external` (the local control plane
//! has no operator that installs it). Needs a running control plane: `cargo xtask test`
//! provides one (plain `cargo test` skips these).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use envtest::TestEnv;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use operator_runtime::{Manager, ManagerOptions, Metrics};
use tokio_util::sync::CancellationToken;
use {{crate_ident}}::controllers::{{kind_snake}}::{OBSERVED, start};
use {{types_path_test}}::{{kind}};

const WAIT: Duration = Duration::from_secs(60);

/// A {{kind}} with only what its CRD requires, filled with placeholder values: put in what
/// your operator works with.
fn {{kind_snake}}(name: &str) -> {{kind}} {
    serde_json::from_value(serde_json::json!({
        "apiVersion": "{{api_group}}/{{version}}",
        "kind": "{{kind}}",
        "metadata": { "name": name }{{minimal_fields}}
    }))
    .expect("a {{kind}}")
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn a_new_{{kind_snake}}_is_observed() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let config_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config");
    envtest::crds::install_dir(&env.client(), &config_dir.join("crd/external"), WAIT)
        .await
        .unwrap();
    // The operator as the cluster runs it: its own service account, bound to the roles
    // `cargo xtask manifests` makes from the #[rbac] markers.
    let ns = env.namespace("{{kind_lower}}").await.unwrap();
    let role = std::fs::read_to_string(config_dir.join("rbac/role.yaml")).unwrap();
    let (operator_config, _bound) = env
        .operator_config(ns.name(), "controller-manager", &role)
        .await
        .unwrap();
    {{test_scope}}

    // The controller, as the manager runs it (no leader election, no servers).
    let shutdown = CancellationToken::new();
    let client = kube::Client::try_from(operator_config).unwrap();
    let watched = ns.name().to_string();
    let options = ManagerOptions {
        name: "{{project_name}}-test".into(),
        metrics_addr: None,
        health_addr: None,
        leader_election: None,
        reconcile: Default::default(),
    };
    let operator = tokio::spawn(
        Manager::new(client.clone(), Arc::new(Metrics::new()), options)
            .shutdown(shutdown.clone())
            // Watching the test's namespace only, as a namespace-scoped manager does (its Role
            // grants no more); a cluster-scoped manager's ClusterRole grants every namespace alike.
            .run(move |runtime| start(client, runtime, Some(watched))),
    );

    let name = envtest::testing::unique_name("{{kind_lower}}");
    let created = api
        .create(&PostParams::default(), &{{kind_snake}}(&name))
        .await
        .unwrap();
    let uid = created.metadata.uid.clone();
    let events: Api<Event> = Api::all(env.client());
    envtest::wait_until("the controller's event", WAIT, || async {
        let list = events.list(&ListParams::default()).await.ok()?;
        list.items
            .iter()
            .any(|e| {
                e.reason.as_deref() == Some(OBSERVED)
                    && e.regarding.as_ref().is_some_and(|r| r.uid == uid)
            })
            .then_some(())
    })
    .await
    .unwrap();

    api.delete(&name, &DeleteParams::default()).await.unwrap();
    shutdown.cancel();
    operator.await.unwrap().unwrap();
}
