//! The Guestbook controller against a real API server, as its service account under the
//! generated roles: a new Guestbook gets the finalizer and a Ready condition, and its deletion
//! completes. Needs a running control plane: `cargo xtask test` provides one (plain `cargo
//! test` skips these).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use envtest::TestEnv;
use guestbook_operator::api::webapp::v1::{Guestbook, GuestbookSpec};
use guestbook_operator::controllers::guestbook::{FINALIZER, start};
use kube::api::{Api, DeleteParams, PostParams};
use operator_runtime::{Manager, ManagerOptions, Metrics};
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(60);

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn a_new_guestbook_becomes_ready_and_its_deletion_completes() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let config_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config");
    envtest::crds::install_dir(&env.client(), &config_dir.join("crd/bases"), WAIT)
        .await
        .unwrap();
    // The operator as the cluster runs it: its own service account, bound to the roles
    // `cargo xtask manifests` makes from the #[rbac] markers. A call they do not grant is
    // refused here, and `cargo xtask test` reports from the audit log which grants were used.
    let ns = env.namespace("guestbook").await.unwrap();
    let role = std::fs::read_to_string(config_dir.join("rbac/role.yaml")).unwrap();
    let (operator_config, _bound) = env
        .operator_config(ns.name(), "controller-manager", &role)
        .await
        .unwrap();
    let api: Api<Guestbook> = Api::namespaced(env.client(), ns.name());

    // The controller, as the manager runs it (no leader election, no servers).
    let shutdown = CancellationToken::new();
    let client = kube::Client::try_from(operator_config).unwrap();
    let watched = ns.name().to_string();
    let options = ManagerOptions {
        name: "guestbook-operator-test".into(),
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

    let name = envtest::testing::unique_name("guestbook");
    api.create(
        &PostParams::default(),
        &Guestbook::new(&name, GuestbookSpec::default()),
    )
    .await
    .unwrap();
    envtest::wait_until("the Ready condition and the finalizer", WAIT, || async {
        let obj = api.get(&name).await.ok()?;
        let ready = obj
            .status?
            .conditions
            .iter()
            .any(|c| c.type_ == "Ready" && c.status == "True");
        (ready && obj.metadata.finalizers?.iter().any(|f| f == FINALIZER)).then_some(())
    })
    .await
    .unwrap();

    api.delete(&name, &DeleteParams::default()).await.unwrap();
    envtest::wait_until("the deletion to complete", WAIT, || async {
        matches!(api.get_opt(&name).await, Ok(None)).then_some(())
    })
    .await
    .unwrap();

    shutdown.cancel();
    operator.await.unwrap().unwrap();
}
