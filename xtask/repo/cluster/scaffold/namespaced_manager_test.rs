//! The namespace-scoped project's whole manager against a real API server, as the cluster
//! runs it: the project's own binary, started with the operator's service account bound to
//! the Roles `cargo xtask manifests` generated (no ClusterRole), watching its namespace and
//! electing a leader there. A Memcached in its namespace becomes Ready and the Lease names
//! the instance; one in another namespace is left alone. The scaffold test puts this file
//! into the namespaced project it makes, as `tests/manager.rs`.

use std::path::Path;
use std::process::{Child, Command};
use std::time::Duration;

use envtest::TestEnv;
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{Api, PostParams};
use kube::config::Kubeconfig;
use tenant_operator::api::cache::v1alpha1::{Memcached, MemcachedSpec};

const WAIT: Duration = Duration::from_secs(60);

/// The manager's process, stopped when the test ends however it ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn ready(obj: &Memcached) -> bool {
    obj.status.as_ref().is_some_and(|s| {
        s.conditions
            .iter()
            .any(|c| c.type_ == "Ready" && c.status == "True")
    })
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn the_manager_runs_in_its_namespace_under_its_roles() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let config_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config");
    envtest::crds::install_dir(&env.client(), &config_dir.join("crd/bases"), WAIT)
        .await
        .unwrap();
    let role = std::fs::read_to_string(config_dir.join("rbac/role.yaml")).unwrap();
    assert!(
        !role.contains("kind: ClusterRole"),
        "a namespace-scoped project's role.yaml holds Roles only:\n{role}"
    );
    let ns = env.namespace("tenant").await.unwrap();
    let elsewhere = env.namespace("elsewhere").await.unwrap();
    let (operator_config, _bound) = env
        .operator_config(ns.name(), "controller-manager", &role)
        .await
        .unwrap();

    // The control plane's kubeconfig with the service account's token in place of the
    // admin's credentials: what the binary reads with --kubeconfig.
    let mut kubeconfig = Kubeconfig::read().expect("the control plane's kubeconfig");
    for named in &mut kubeconfig.auth_infos {
        named.auth_info = Some(operator_config.auth_info.clone());
    }
    let dir = std::env::temp_dir().join(envtest::testing::unique_name("tenant-kubeconfig"));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("kubeconfig");
    // JSON is YAML: the binary reads it as a kubeconfig.
    std::fs::write(&file, serde_json::to_vec(&kubeconfig).unwrap()).unwrap();

    let identity = envtest::testing::unique_name("tenant-manager");
    let _manager = Running(
        Command::new(env!("CARGO_BIN_EXE_tenant-operator"))
            .arg("--kubeconfig")
            .arg(&file)
            .args(["--watch-namespace", ns.name()])
            .args(["--leader-elect", "--leader-election-namespace", ns.name()])
            .args(["--metrics-bind-address", "0"])
            .args(["--health-probe-bind-address", "0"])
            .env("HOSTNAME", &identity)
            .env("POD_NAME", &identity)
            .spawn()
            .expect("starting the project's binary"),
    );

    let here: Api<Memcached> = Api::namespaced(env.client(), ns.name());
    let there: Api<Memcached> = Api::namespaced(env.client(), elsewhere.name());
    let name = envtest::testing::unique_name("memcached");
    for api in [&here, &there] {
        api.create(
            &PostParams::default(),
            &Memcached::new(&name, MemcachedSpec::default()),
        )
        .await
        .unwrap();
    }
    envtest::wait_until(
        "the Memcached in the manager's namespace to be Ready",
        WAIT,
        || async { here.get(&name).await.ok().filter(ready).map(|_| ()) },
    )
    .await
    .unwrap();

    // The instance leads through the Lease in its own namespace.
    let leases: Api<Lease> = Api::namespaced(env.client(), ns.name());
    let held = envtest::wait_until("a Lease held in the manager's namespace", WAIT, || async {
        let list = leases.list(&Default::default()).await.ok()?;
        list.items
            .into_iter()
            .find_map(|l| l.spec?.holder_identity.filter(|h| !h.is_empty()))
    })
    .await
    .unwrap();
    assert!(!held.is_empty());

    // By now the manager has long seen the other namespace's Memcached, had it watched it.
    let other = there.get(&name).await.unwrap();
    assert!(
        other.status.is_none() && other.metadata.finalizers.is_none(),
        "the manager of namespace {} reconciled a Memcached in {}: {other:?}",
        ns.name(),
        elsewhere.name()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
