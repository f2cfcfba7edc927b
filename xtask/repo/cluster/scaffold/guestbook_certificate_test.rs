//! The Guestbook's Certificate against a real API server, as the operator's service account
//! under the generated roles: a new Guestbook gets its Certificate, owned by it, and one
//! deleted by hand is put back. cert-manager's CRD comes from its copy in
//! `config/crd/external` (no cert-manager runs here: the Certificate is only stored). The
//! scaffold test puts this file into the project it makes, as
//! `tests/guestbook_certificate.rs`.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use envtest::TestEnv;
use guestbook_operator::api::external::cert_manager_io::v1::certificate::Certificate;
use guestbook_operator::api::webapp::v1::{Guestbook, GuestbookSpec};
use guestbook_operator::controllers::guestbook_certificate::{ISSUER, start};
use kube::ResourceExt as _;
use kube::api::{Api, DeleteParams, PostParams};
use operator_runtime::{Manager, ManagerOptions, Metrics};
use tokio_util::sync::CancellationToken;

const WAIT: Duration = Duration::from_secs(60);

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn a_guestbook_owns_its_certificate() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let config_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config");
    for dir in ["crd/bases", "crd/external"] {
        envtest::crds::install_dir(&env.client(), &config_dir.join(dir), WAIT)
            .await
            .unwrap();
    }
    let ns = env.namespace("guestbook-tls").await.unwrap();
    let role = std::fs::read_to_string(config_dir.join("rbac/role.yaml")).unwrap();
    let (operator_config, _bound) = env
        .operator_config(ns.name(), "controller-manager", &role)
        .await
        .unwrap();
    let guestbooks: Api<Guestbook> = Api::namespaced(env.client(), ns.name());
    let certificates: Api<Certificate> = Api::namespaced(env.client(), ns.name());

    let shutdown = CancellationToken::new();
    let client = kube::Client::try_from(operator_config).unwrap();
    let options = ManagerOptions {
        name: "guestbook-certificate-test".into(),
        metrics_addr: None,
        health_addr: None,
        leader_election: None,
        reconcile: Default::default(),
    };
    let operator = tokio::spawn(
        Manager::new(client.clone(), Arc::new(Metrics::new()), options)
            .shutdown(shutdown.clone())
            .run(move |runtime| start(client, runtime, None)),
    );

    let name = envtest::testing::unique_name("guestbook");
    let guestbook = guestbooks
        .create(
            &PostParams::default(),
            &Guestbook::new(&name, GuestbookSpec::default()),
        )
        .await
        .unwrap();
    let tls = format!("{name}-tls");
    let first = envtest::wait_until("the Guestbook's Certificate", WAIT, || async {
        certificates.get_opt(&tls).await.ok()?
    })
    .await
    .unwrap();
    let owner = &first.owner_references()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str()),
        ("Guestbook", name.as_str())
    );
    assert_eq!(Some(&owner.uid), guestbook.metadata.uid.as_ref());
    let spec = first.spec.as_ref().unwrap();
    assert_eq!(spec.issuer_ref.name, ISSUER);
    assert_eq!(spec.secret_name, tls);

    // Deleted by hand: the controller owns Certificates, so it hears of it and puts it back.
    certificates
        .delete(&tls, &DeleteParams::default())
        .await
        .unwrap();
    envtest::wait_until("the Certificate put back", WAIT, || async {
        let again = certificates.get_opt(&tls).await.ok()??;
        (again.uid() != first.uid()).then_some(())
    })
    .await
    .unwrap();

    shutdown.cancel();
    operator.await.unwrap().unwrap();
}
