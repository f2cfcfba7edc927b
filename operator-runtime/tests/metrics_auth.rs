//! Secure metrics against the real API server: the manager runs as a ServiceAccount bound
//! only to the rules of `config/rbac/metrics_auth_role.yaml`, and serves `/metrics` over
//! HTTPS; a ServiceAccount bound to `config/rbac/metrics_reader_role.yaml` gets 200, another
//! ServiceAccount 403, no token and a garbage token 401. A manager whose ServiceAccount may
//! not create reviews answers 500 with the reason. Tokens come from the TokenRequest API.
//!
//! Needs a running control plane: `cargo xtask test` provides one (plain `cargo test`
//! skips it).

mod support;

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use envtest::{TestEnv, wait_until};
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, ResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, RoleRef, Subject};
use kube::api::{Api, DeleteParams, ObjectMeta, PostParams};
use kube::{Client, Config};
use operator_runtime::manager::ManagerOptions;
use operator_runtime::secure_metrics::{MetricsCertificates, MetricsSecurity, SecureMetrics};
use operator_runtime::webhook::Certificates;
use operator_runtime::{Manager, ManagerError, Metrics};
use support::{TestCert, client_config, raw_exchange};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// A ClusterRole of the repository's config/rbac, under another name.
fn cluster_role(file: &str, name: &str) -> ClusterRole {
    let path = workspace().join("config/rbac").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut role: ClusterRole = serde_yaml::from_str(&text).unwrap();
    role.metadata = ObjectMeta {
        name: Some(name.into()),
        ..Default::default()
    };
    role
}

/// Cluster-scoped objects of one test, deleted when it ends (the namespace takes the rest).
struct ClusterObjects {
    config: Config,
    roles: Vec<String>,
    bindings: Vec<String>,
}

impl Drop for ClusterObjects {
    fn drop(&mut self) {
        let (config, roles, bindings) = (
            self.config.clone(),
            self.roles.clone(),
            self.bindings.clone(),
        );
        // The test's runtime may be gone: a runtime of our own, on a thread of our own.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let client = Client::try_from(config).unwrap();
                let role_api: Api<ClusterRole> = Api::all(client.clone());
                for name in &roles {
                    let _ = role_api.delete(name, &DeleteParams::default()).await;
                }
                let binding_api: Api<ClusterRoleBinding> = Api::all(client);
                for name in &bindings {
                    let _ = binding_api.delete(name, &DeleteParams::default()).await;
                }
            })
        })
        .join();
    }
}

async fn service_account(client: &Client, ns: &str, name: &str) {
    let api: Api<ServiceAccount> = Api::namespaced(client.clone(), ns);
    let sa = ServiceAccount {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        ..Default::default()
    };
    api.create(&PostParams::default(), &sa).await.unwrap();
}

/// A token of the ServiceAccount, from the TokenRequest API (`create serviceaccounts/token`).
async fn token(client: &Client, ns: &str, name: &str) -> String {
    let api: Api<ServiceAccount> = Api::namespaced(client.clone(), ns);
    let request = TokenRequest {
        spec: Some(TokenRequestSpec {
            audiences: None,
            expiration_seconds: Some(600),
            bound_object_ref: None,
        }),
        ..Default::default()
    };
    api.create_token_request(name, &PostParams::default(), &request)
        .await
        .unwrap()
        .status
        .and_then(|status| status.token)
        .expect("a token")
}

async fn bind(client: &Client, name: &str, role: &str, ns: &str, account: &str) {
    let api: Api<ClusterRoleBinding> = Api::all(client.clone());
    let binding = ClusterRoleBinding {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        role_ref: RoleRef {
            api_group: Some("rbac.authorization.k8s.io".into()),
            kind: "ClusterRole".into(),
            name: role.into(),
        },
        subjects: Some(vec![Subject {
            kind: "ServiceAccount".into(),
            name: account.into(),
            namespace: Some(ns.into()),
            api_group: None,
        }]),
    };
    api.create(&PostParams::default(), &binding).await.unwrap();
}

/// Whether the API server's authorizer already says yes (RBAC sees new bindings after a
/// moment; a "no" before that would be cached by the metrics server for 30 s).
async fn allowed(client: &Client, user: &str, spec: SubjectAccessReviewSpec) -> Option<()> {
    let api: Api<SubjectAccessReview> = Api::all(client.clone());
    let review = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some(user.into()),
            ..spec
        },
        ..Default::default()
    };
    let answer = api.create(&PostParams::default(), &review).await.ok()?;
    answer.status.filter(|s| s.allowed).map(|_| ())
}

fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// A manager whose client holds `token`, serving secure metrics on `addr` with the
/// certificate files in `dir`.
fn start_manager(
    env: &TestEnv,
    token: &str,
    addr: SocketAddr,
    dir: &Path,
    stop: CancellationToken,
) -> JoinHandle<Result<(), ManagerError>> {
    let mut config = env.config().clone();
    config.auth_info = serde_json::from_value(serde_json::json!({ "token": token })).unwrap();
    let client = Client::try_from(config).unwrap();
    let options = ManagerOptions {
        name: "metrics-auth-test".into(),
        metrics_addr: Some(addr),
        health_addr: None,
        leader_election: None,
        reconcile: Default::default(),
    };
    let security = MetricsSecurity::Secure(SecureMetrics {
        certificates: MetricsCertificates::Given(Certificates::in_dir(dir)),
        ..SecureMetrics::default()
    });
    tokio::spawn(
        Manager::new(client, Arc::new(Metrics::new()), options)
            .metrics_security(security)
            .shutdown(stop)
            .run(|runtime| runtime.stopped()),
    )
}

/// `GET /metrics` with this bearer token: the status and the body.
async fn scrape(addr: SocketAddr, cert: &TestCert, token: Option<&str>) -> (u16, String) {
    let authorization = token
        .map(|t| format!("Authorization: Bearer {t}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "GET /metrics HTTP/1.1\r\nHost: localhost\r\n{authorization}Connection: close\r\n\r\n"
    );
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            let (status, body) = raw_exchange(addr, client_config(&[cert]), request.as_bytes())
                .await
                .expect("an HTTP answer");
            return (status, String::from_utf8_lossy(&body).into_owned());
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("nothing serves {addr}");
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn readers_get_200_others_403_and_unknown_callers_401_from_the_real_api_server() {
    let env = TestEnv::connect().await.expect("a cluster to test against");
    let client = env.client();
    let ns = env.namespace("metrics-auth").await.unwrap();
    let ns = ns.name().to_string();
    let (auth_role, reader_role) = (format!("{ns}-metrics-auth"), format!("{ns}-metrics-reader"));
    let _cleanup = ClusterObjects {
        config: env.config().clone(),
        roles: vec![auth_role.clone(), reader_role.clone()],
        bindings: vec![auth_role.clone(), reader_role.clone()],
    };
    let roles: Api<ClusterRole> = Api::all(client.clone());
    for (file, name) in [
        ("metrics_auth_role.yaml", &auth_role),
        ("metrics_reader_role.yaml", &reader_role),
    ] {
        roles
            .create(&PostParams::default(), &cluster_role(file, name))
            .await
            .unwrap();
    }
    for account in ["manager", "unbound-manager", "prometheus", "stranger"] {
        service_account(&client, &ns, account).await;
    }
    bind(&client, &auth_role, &auth_role, &ns, "manager").await;
    bind(&client, &reader_role, &reader_role, &ns, "prometheus").await;

    let user = |account: &str| format!("system:serviceaccount:{ns}:{account}");
    let metrics_get = SubjectAccessReviewSpec {
        non_resource_attributes: Some(NonResourceAttributes {
            path: Some("/metrics".into()),
            verb: Some("get".into()),
        }),
        ..Default::default()
    };
    let review_create = |group: &str, resource: &str| SubjectAccessReviewSpec {
        resource_attributes: Some(ResourceAttributes {
            group: Some(group.into()),
            resource: Some(resource.into()),
            verb: Some("create".into()),
            ..Default::default()
        }),
        ..Default::default()
    };
    wait_until(
        "RBAC to see the new bindings",
        Duration::from_secs(30),
        || {
            let (client, metrics_get) = (client.clone(), metrics_get.clone());
            let (prometheus, manager) = (user("prometheus"), user("manager"));
            let (tokens, sars) = (
                review_create("authentication.k8s.io", "tokenreviews"),
                review_create("authorization.k8s.io", "subjectaccessreviews"),
            );
            async move {
                allowed(&client, &prometheus, metrics_get).await?;
                allowed(&client, &manager, tokens).await?;
                allowed(&client, &manager, sars).await
            }
        },
    )
    .await
    .unwrap();

    let cert = TestCert::new();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tls.crt"), &cert.cert_pem).unwrap();
    std::fs::write(dir.path().join("tls.key"), &cert.key_pem).unwrap();

    let stop = CancellationToken::new();
    let addr = free_addr();
    let manager_token = token(&client, &ns, "manager").await;
    let running = start_manager(&env, &manager_token, addr, dir.path(), stop.clone());

    let reader = token(&client, &ns, "prometheus").await;
    let stranger = token(&client, &ns, "stranger").await;

    let (status, body) = scrape(addr, &cert, Some(&reader)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("leader_election_master_status"), "{body}");
    // Again, from the cache this time; the answer is the same.
    assert_eq!(scrape(addr, &cert, Some(&reader)).await.0, 200);

    let (status, body) = scrape(addr, &cert, Some(&stranger)).await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains(&user("stranger")), "{body}");

    let (status, body) = scrape(addr, &cert, None).await;
    assert_eq!(status, 401, "{body}");
    let (status, body) = scrape(addr, &cert, Some("not-a-token")).await;
    assert_eq!(status, 401, "{body}");
    // A token of the right shape, signed by nobody the API server trusts.
    let forged = format!("{}.e30.c2lnbmF0dXJl", reader.split('.').next().unwrap());
    assert_eq!(scrape(addr, &cert, Some(&forged)).await.0, 401);

    // Without the rules of metrics_auth_role.yaml the manager cannot check anyone: 500 with
    // the API server's reason, and it keeps serving.
    let unbound_addr = free_addr();
    let unbound_token = token(&client, &ns, "unbound-manager").await;
    let unbound = start_manager(&env, &unbound_token, unbound_addr, dir.path(), stop.clone());
    let (status, body) = scrape(unbound_addr, &cert, Some(&reader)).await;
    assert_eq!(status, 500, "{body}");
    assert!(body.contains("tokenreviews"), "{body}");
    assert_eq!(scrape(unbound_addr, &cert, Some(&reader)).await.0, 500);

    stop.cancel();
    running.await.unwrap().unwrap();
    unbound.await.unwrap().unwrap();
}
