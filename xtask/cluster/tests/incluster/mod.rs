//! What the deploy and Helm tests share: the operator, rolled out on the local plane, run as
//! in the cluster, and what it must do there.
//!
//! The local plane's pods are simulated (kwok), so after the rollout this runs what the pod
//! would: the `manager` binary taken out of the image `cargo xtask image` built, alone in a
//! read-only root (a chroot holding only the image's layer and what the kubelet mounts: the
//! ServiceAccount token from the TokenRequest API, the cluster CA, the namespace, the webhook
//! certificate), as the image's user 65532, with the live Deployment's command, args and env
//! (downward-API values taken from the rollout's pod) and the in-cluster service variables.
//! What it stands in for, and says so where it does: the service network (the webhook
//! configurations get a loopback `url` instead of the Service, and the manager's own
//! certificate names loopback too) and, for a render that takes the certificate from
//! cert-manager, cert-manager's controller (the test issues the certificate and injects its
//! CA).
//!
//! Needs root (mount namespace, chroot): `cargo xtask test` runs the tests that use it.

#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use envtest::wait_until;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::authentication::v1::{BoundObjectReference, TokenRequest, TokenRequestSpec};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Namespace, Pod, ServiceAccount};
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams,
};
use kube::core::GroupVersionKind;
use kube::{Client, ResourceExt as _};
use operator_xtask_cluster::image;

/// Runs `scenario(kubeconfig, scratch)` on a control plane of its own, started in a scratch
/// directory under `target/` named with `prefix`, and stops the plane whether the scenario
/// passes or panics (the panic then goes on).
pub async fn on_a_plane_of_its_own<F, Fut>(prefix: &str, scenario: F)
where
    F: FnOnce(PathBuf, PathBuf) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let scratch = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(operator_xtask::root().join("target"))
        .unwrap();
    let plane = envtest::plane::start(&envtest::Options::new(scratch.path().join("plane")))
        .await
        .expect("starting a control plane for this test")
        .expect("a fresh state directory has no plane running");
    let result = tokio::spawn(scenario(
        plane.kubeconfig().to_path_buf(),
        scratch.path().to_path_buf(),
    ))
    .await;
    plane.stop().await.expect("stopping this test's plane");
    match result {
        Ok(()) => {}
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => panic!("{e}"),
    }
}

/// The operator's namespace (config/default's; the Helm test installs its release there).
pub const OPERATOR_NAMESPACE: &str = "memcached-system";
pub const DEPLOYMENT: &str = "memcached-controller-manager";
/// Where the webhook Service forwards to (config/default/manager_webhook_patch.yaml).
const WEBHOOK_PORT: u16 = 9443;

/// The operator's namespace enforces the restricted Pod Security Standard, and the API server
/// admitted the operator's pod under it (the rollout made one): a privileged pod is refused.
pub async fn restricted_pod_security(client: &Client) {
    // The restricted Pod Security Standard is enforced on the operator's namespace, and the
    // API server admitted the operator's pod under it (the rollout made one).
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let ns = namespaces.get(OPERATOR_NAMESPACE).await.unwrap();
    assert_eq!(
        ns.labels()
            .get("pod-security.kubernetes.io/enforce")
            .map(String::as_str),
        Some("restricted")
    );
    let pods: Api<Pod> = Api::namespaced(client.clone(), OPERATOR_NAMESPACE);
    let privileged: Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "privileged-probe"},
        "spec": {"containers": [{"name": "c", "image": "x", "securityContext": {"privileged": true}}]}
    }))
    .unwrap();
    let refused = pods
        .create(&PostParams::default(), &privileged)
        .await
        .expect_err("a privileged pod in the operator's namespace");
    assert!(
        refused.to_string().contains("PodSecurity"),
        "refused for another reason: {refused}"
    );
}

/// The rolled-out operator's pod, run as the kubelet would run it: it must elect itself
/// leader, have the API server call its webhooks (defaulting and validation), reconcile a
/// Memcached to Available and through its finalizer, serve secure metrics to a bound
/// ServiceAccount only, and exit 0 on SIGTERM within its grace period, logging no error.
/// `scratch` holds its root and log.
pub async fn operator_runs_as_in_the_cluster(
    client: &Client,
    config: &kube::Config,
    kubeconfig: &Path,
    scratch: &Path,
    built: &image::BuiltImage,
    renewal: Renewal,
) {
    let client = client.clone();
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let pods: Api<Pod> = Api::namespaced(client.clone(), OPERATOR_NAMESPACE);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), OPERATOR_NAMESPACE);
    let live = deployments.get(DEPLOYMENT).await.unwrap();
    let template = live.spec.unwrap().template;
    let pod_spec = template.spec.unwrap();
    let selector = template
        .metadata
        .unwrap()
        .labels
        .unwrap()
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    let pod = pods
        .list(&ListParams::default().labels(&selector))
        .await
        .unwrap()
        .items
        .into_iter()
        .next()
        .expect("the rollout's pod");
    let pod_name = pod.name_any();
    let container = pod_spec
        .containers
        .iter()
        .find(|c| c.name == "manager")
        .expect("the manager container");
    assert_eq!(container.image.as_deref(), Some(built.reference.as_str()));
    let security = container.security_context.clone().unwrap();
    assert_eq!(security.read_only_root_filesystem, Some(true));
    assert_eq!(security.allow_privilege_escalation, Some(false));

    // What the kubelet would mount: the token of the pod's ServiceAccount, the CA, the namespace.
    let service_account = pod_spec.service_account_name.clone().unwrap();
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), OPERATOR_NAMESPACE);
    let token = accounts
        .create_token_request(
            &service_account,
            &PostParams::default(),
            &TokenRequest {
                // Bound to the pod, as the kubelet's projected token is.
                spec: Some(TokenRequestSpec {
                    bound_object_ref: Some(BoundObjectReference {
                        api_version: Some("v1".into()),
                        kind: Some("Pod".into()),
                        name: Some(pod_name.clone()),
                        uid: pod.metadata.uid.clone(),
                    }),
                    expiration_seconds: Some(3600),
                    ..Default::default()
                }),
                ..Default::default()
            },
        )
        .await
        .expect("a token for the operator's ServiceAccount")
        .status
        .and_then(|s| s.token)
        .expect("the TokenRequest's token");
    let cluster_ca = cluster_ca(kubeconfig);

    let rootfs = scratch.join("rootfs");
    let manager_bin =
        image::read_file(&built.archive, "manager").expect("/manager in the image's layer");
    write(&rootfs.join("manager"), &manager_bin, 0o755);
    let sa_dir = rootfs.join("var/run/secrets/kubernetes.io/serviceaccount");
    write(&sa_dir.join("token"), token.as_bytes(), 0o644);
    write(&sa_dir.join("ca.crt"), &cluster_ca, 0o644);
    write(
        &sa_dir.join("namespace"),
        OPERATOR_NAMESPACE.as_bytes(),
        0o644,
    );
    // Whose certificate the webhook server presents: the manager's own (kept in the Secret
    // WEBHOOK_CERT_SECRET names, the default), or cert-manager's in files.
    let kept_secret = container
        .env
        .iter()
        .flatten()
        .find(|e| e.name == "WEBHOOK_CERT_SECRET")
        .and_then(|e| e.value.clone());
    match &kept_secret {
        Some(_) => {
            // The service network's part: the configurations reach the manager on loopback.
            // The manager writes the CA bundle into them itself.
            point_webhooks_at_loopback(&client, None).await;
        }
        None => {
            // cert-manager's part: a CA and the webhook Service's serving certificate (also
            // valid for loopback, where the test points the configurations), the CA injected
            // into them.
            let webhook_ca = WebhookPki::new(&format!(
                "memcached-webhook-service.{OPERATOR_NAMESPACE}.svc"
            ));
            let cert_dir = rootfs.join("tmp/k8s-webhook-server/serving-certs");
            write(
                &cert_dir.join("tls.crt"),
                webhook_ca.cert_pem.as_bytes(),
                0o644,
            );
            write(
                &cert_dir.join("tls.key"),
                webhook_ca.key_pem.as_bytes(),
                0o644,
            );
            point_webhooks_at_loopback(&client, Some(&webhook_ca.ca_pem)).await;
        }
    }
    std::fs::set_permissions(&rootfs, std::fs::Permissions::from_mode(0o755)).unwrap();

    // The container's command line and environment, as the kubelet builds them.
    let mut argv: Vec<String> = container.command.clone().unwrap_or_default();
    argv.extend(container.args.clone().unwrap_or_default());
    assert_eq!(argv.first().map(String::as_str), Some("/manager"));
    if kept_secret.is_some() {
        // The configurations reach the server by URL at loopback (above), so the certificate
        // must name it too; and a short life when the test waits for a renewal.
        argv.push("--webhook-cert-hosts=127.0.0.1".into());
        if let Renewal::Forced(validity) = renewal {
            argv.push(format!("--webhook-cert-validity={}s", validity.as_secs()));
        }
    }
    let mut env: Vec<(String, String)> = vec![
        (
            "PATH".into(),
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".into(),
        ),
        ("HOSTNAME".into(), pod_name.clone()),
    ];
    env.push((
        "KUBERNETES_SERVICE_HOST".into(),
        config.cluster_url.host().unwrap().to_string(),
    ));
    env.push((
        "KUBERNETES_SERVICE_PORT".into(),
        config.cluster_url.port_u16().unwrap().to_string(),
    ));
    for var in container.env.clone().unwrap_or_default() {
        let value = match (var.value, var.value_from) {
            (Some(v), _) => v,
            (None, Some(from)) => {
                let path = from
                    .field_ref
                    .expect("only fieldRef env in the manager")
                    .field_path;
                match path.as_str() {
                    "metadata.namespace" => OPERATOR_NAMESPACE.to_string(),
                    "metadata.name" => pod_name.clone(),
                    other => panic!("unexpected fieldRef {other}"),
                }
            }
            (None, None) => String::new(),
        };
        env.push((var.name, value));
    }
    let memcached_image = env
        .iter()
        .find(|(k, _)| k == "MEMCACHED_IMAGE")
        .map(|(_, v)| v.clone())
        .expect("MEMCACHED_IMAGE in the Deployment");
    // The manager binds the operator's default ports on this machine, as `cargo xtask run`
    // does in memcached's tests, which may run at the same time.
    let _ports = tokio::task::spawn_blocking(envtest::testing::OperatorPorts::hold)
        .await
        .unwrap()
        .expect("holding the operator's ports");
    let mut manager = start_manager(&rootfs, &argv, &env, &scratch.join("manager.log"));

    // It elects itself leader under its own identity (from the pod's name), with its own RBAC.
    let leases: Api<Lease> = Api::namespaced(client.clone(), OPERATOR_NAMESPACE);
    let holder = wait_until(
        "the manager to hold a Lease",
        Duration::from_secs(60),
        || {
            let leases = leases.clone();
            let pod_name = pod_name.clone();
            async move {
                let list = leases.list(&ListParams::default()).await.ok()?;
                list.items.into_iter().find_map(|l| {
                    let holder = l.spec?.holder_identity?;
                    // `<pod name>_<process id>`: the pod's name, made unique per process as
                    // controller-runtime does with a UUID.
                    (holder == pod_name || holder.starts_with(&format!("{pod_name}_")))
                        .then_some(l.metadata.name?)
                })
            }
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}\n{}", manager.log()));
    eprintln!("leader: Lease {OPERATOR_NAMESPACE}/{holder} held by {pod_name}");

    if kept_secret.is_some() {
        // Ready only once the configurations trust its certificate: it wrote the bundle.
        wait_until(
            "the manager to write its CA bundle into every webhook",
            Duration::from_secs(60),
            || {
                let client = client.clone();
                async move {
                    let bundles = ca_bundles(&client).await;
                    (!bundles.is_empty() && bundles.iter().all(|b| !b.is_empty())).then_some(())
                }
            },
        )
        .await
        .unwrap_or_else(|e| panic!("{e}\n{}", manager.log()));
    }

    // A Memcached, admitted through the operator's webhooks (defaulted image) and reconciled.
    let work = format!("deploy-test-{}", std::process::id());
    namespaces
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({"metadata": {"name": work}})).unwrap(),
        )
        .await
        .unwrap();
    let resource = ApiResource::from_gvk_with_plural(
        &GroupVersionKind::gvk("cache.example.com", "v1alpha1", "Memcached"),
        "memcacheds",
    );
    let memcacheds: Api<DynamicObject> = Api::namespaced_with(client.clone(), &work, &resource);
    let mut cache = DynamicObject::new("cache", &resource);
    cache.data = serde_json::json!({"spec": {"size": 2}});
    let created = memcacheds
        .create(&PostParams::default(), &cache)
        .await
        .unwrap_or_else(|e| panic!("creating a Memcached: {e}\n{}", manager.log()));
    assert_eq!(
        created.data["spec"]["image"].as_str(),
        Some(memcached_image.as_str()),
        "the defaulting webhook did not set spec.image"
    );
    let mut too_big = DynamicObject::new("too-big", &resource);
    too_big.data = serde_json::json!({"spec": {"size": 1000}});
    let refused = memcacheds
        .create(&PostParams::default(), &too_big)
        .await
        .expect_err("size 1000 is over --max-memcached-size");
    assert!(refused.to_string().contains("1000"), "{refused}");

    wait_until(
        "the Memcached to be Available",
        Duration::from_secs(120),
        || {
            let memcacheds = memcacheds.clone();
            async move {
                let live = memcacheds.get("cache").await.ok()?;
                live.data["status"]["conditions"]
                    .as_array()?
                    .iter()
                    .any(|c| c["type"] == "Available" && c["status"] == "True")
                    .then_some(())
            }
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}\n{}", manager.log()));

    // Secure metrics with the deployed RBAC: the manager reviews callers' tokens under its
    // ServiceAccount (metrics_auth_role), and a ServiceAccount bound to the metrics-reader
    // ClusterRole may read; no token is 401.
    let scraper = format!("scraper-{}", std::process::id());
    let work_accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), &work);
    work_accounts
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({"metadata": {"name": scraper}})).unwrap(),
        )
        .await
        .unwrap();
    let bindings: Api<k8s_openapi::api::rbac::v1::ClusterRoleBinding> = Api::all(client.clone());
    bindings
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": scraper},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                            "name": "memcached-metrics-reader"},
                "subjects": [{"kind": "ServiceAccount", "name": scraper, "namespace": work}]
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    let scraper_token = work_accounts
        .create_token_request(&scraper, &PostParams::default(), &TokenRequest::default())
        .await
        .unwrap()
        .status
        .and_then(|s| s.token)
        .unwrap();
    let metrics_port = argv
        .iter()
        .find_map(|a| a.strip_prefix("--metrics-bind-address=:"))
        .expect("the Deployment's --metrics-bind-address=:PORT")
        .parse::<u16>()
        .unwrap();
    let (code, body) = scrape(metrics_port, Some(&scraper_token)).await;
    assert_eq!(code, 200, "{body}\n{}", manager.log());
    assert!(
        body.contains("controller_runtime_reconcile_total"),
        "{body}"
    );
    assert_eq!(scrape(metrics_port, None).await.0, 401);
    bindings
        .delete(&scraper, &DeleteParams::default())
        .await
        .unwrap();

    if let (Some(secret), Renewal::Forced(validity)) = (&kept_secret, renewal) {
        certificate_renewed_and_served(&client, secret, container, validity, &manager).await;
        // The API server still calls the webhooks: a Memcached too big is refused by them.
        let refused = memcacheds
            .create(&PostParams::default(), &too_big)
            .await
            .expect_err("size 1000 is over --max-memcached-size, after the renewal too");
        assert!(refused.to_string().contains("1000"), "{refused}");
    }

    // Deletion goes through the operator's finalizer while it runs.
    memcacheds
        .delete("cache", &DeleteParams::default())
        .await
        .unwrap();
    wait_until("the Memcached to be gone", Duration::from_secs(60), || {
        let memcacheds = memcacheds.clone();
        async move {
            memcacheds
                .get_opt("cache")
                .await
                .ok()?
                .is_none()
                .then_some(())
        }
    })
    .await
    .unwrap_or_else(|e| panic!("{e}\n{}", manager.log()));

    let grace = Duration::from_secs(
        pod_spec
            .termination_grace_period_seconds
            .unwrap_or(30)
            .try_into()
            .unwrap(),
    );
    let status = manager.terminate(grace);
    assert!(
        status.success(),
        "exit {status} on SIGTERM\n{}",
        manager.log()
    );
    let log = manager.log();
    assert!(
        !log.contains("\"level\":\"ERROR\""),
        "errors in the manager's log:\n{log}"
    );
    namespaces
        .delete(&work, &DeleteParams::default())
        .await
        .unwrap();
}

/// How the test treats the webhook certificate the manager keeps itself.
#[derive(Debug, Clone, Copy)]
pub enum Renewal {
    /// The default validity (a year): none during the test.
    Never,
    /// A certificate valid this long, so that the test sees it renewed (after two thirds)
    /// and served.
    Forced(Duration),
}

/// The two kinds of webhook configuration, each with its API.
fn webhook_configurations(client: &Client) -> [(&'static str, Api<DynamicObject>); 2] {
    [
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
    ]
    .map(|kind| {
        let resource = ApiResource::from_gvk(&GroupVersionKind::gvk(
            "admissionregistration.k8s.io",
            "v1",
            kind,
        ));
        (kind, Api::all_with(client.clone(), &resource))
    })
}

/// The CA bundle of every webhook of every configuration (empty where there is none).
async fn ca_bundles(client: &Client) -> Vec<String> {
    let mut bundles = Vec::new();
    for (_, api) in webhook_configurations(client) {
        let Ok(list) = api.list(&ListParams::default()).await else {
            continue;
        };
        for config in list {
            for webhook in config.data["webhooks"].as_array().into_iter().flatten() {
                bundles.push(
                    webhook["clientConfig"]["caBundle"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                );
            }
        }
    }
    bundles
}

/// The manager renews its serving certificate in the Secret once two thirds of `validity`
/// have passed, and then presents the new one, which the bundle in the configurations trusts
/// for the webhook Service's name.
async fn certificate_renewed_and_served(
    client: &Client,
    secret: &str,
    container: &k8s_openapi::api::core::v1::Container,
    validity: Duration,
    manager: &Manager,
) {
    use base64::Engine as _;
    use rustls::pki_types::pem::PemObject as _;
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(client.clone(), OPERATOR_NAMESPACE);
    let serving = |s: k8s_openapi::api::core::v1::Secret| {
        s.data
            .and_then(|d| d.get("tls.crt").cloned())
            .map(|b| b.0)
            .unwrap_or_default()
    };
    let first = serving(secrets.get(secret).await.unwrap());
    assert!(!first.is_empty(), "the Secret {secret} holds no tls.crt");
    let renewed = wait_until(
        "the serving certificate to be renewed",
        validity + Duration::from_secs(30),
        || {
            let secrets = secrets.clone();
            let first = first.clone();
            async move {
                let now = serving(secrets.get(secret).await.ok()?);
                (!now.is_empty() && now != first).then_some(now)
            }
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}\n{}", manager.log()));
    let renewed_der = rustls::pki_types::CertificateDer::pem_slice_iter(&renewed)
        .next()
        .expect("a certificate in tls.crt")
        .unwrap();
    let service = container
        .env
        .iter()
        .flatten()
        .find(|e| e.name == "WEBHOOK_SERVICE")
        .and_then(|e| e.value.clone())
        .expect("WEBHOOK_SERVICE beside WEBHOOK_CERT_SECRET");
    let host = format!("{service}.{OPERATOR_NAMESPACE}.svc");
    let presented = wait_until(
        "the webhook server to present the renewed certificate",
        Duration::from_secs(30),
        || {
            let client = client.clone();
            let host = host.clone();
            let renewed_der = renewed_der.clone();
            async move {
                let bundle = ca_bundles(&client).await.into_iter().next()?;
                let bundle = base64::engine::general_purpose::STANDARD
                    .decode(bundle)
                    .ok()?;
                let presented = tokio::task::spawn_blocking(move || {
                    presented_certificate(WEBHOOK_PORT, &host, &bundle)
                })
                .await
                .ok()?
                .ok()?;
                (presented == renewed_der).then_some(presented)
            }
        },
    )
    .await
    .unwrap_or_else(|e| panic!("{e}\n{}", manager.log()));
    eprintln!(
        "webhook certificate renewed and served ({} bytes) under a {validity:?} validity",
        presented.len()
    );
}

/// The certificate the server on loopback `port` presents, in a handshake that trusts only
/// the PEM `bundle` and checks it for `host`.
fn presented_certificate(
    port: u16,
    host: &str,
    bundle: &[u8],
) -> Result<rustls::pki_types::CertificateDer<'static>, String> {
    use rustls::pki_types::pem::PemObject as _;
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls::pki_types::CertificateDer::pem_slice_iter(bundle) {
        roots
            .add(cert.map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    }
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| e.to_string())?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let name =
        rustls::pki_types::ServerName::try_from(host.to_string()).map_err(|e| e.to_string())?;
    let mut connection = rustls::ClientConnection::new(std::sync::Arc::new(config), name)
        .map_err(|e| e.to_string())?;
    let mut socket =
        std::net::TcpStream::connect(("127.0.0.1", port)).map_err(|e| e.to_string())?;
    socket
        .set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(|e| e.to_string())?;
    while connection.is_handshaking() {
        connection
            .complete_io(&mut socket)
            .map_err(|e| e.to_string())?;
    }
    connection
        .peer_certificates()
        .and_then(|chain| chain.first())
        .map(|c| c.clone().into_owned())
        .ok_or_else(|| "no certificate presented".to_string())
}

/// The operator process; killed if the test fails before stopping it.
struct Manager {
    child: Option<Child>,
    log: PathBuf,
}

impl Manager {
    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// SIGTERM, and the exit status within the grace period the Deployment gives it.
    fn terminate(&mut self, grace: Duration) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("running");
        if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
        let deadline = std::time::Instant::now() + grace;
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!(
                    "the manager did not exit within {grace:?} of SIGTERM\n{}",
                    self.log()
                );
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Manager {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
            eprintln!("--- manager log ---\n{}", self.log());
        }
    }
}

/// The CA the control plane's kubeconfig trusts (what the kubelet mounts as ca.crt).
fn cluster_ca(kubeconfig: &Path) -> Vec<u8> {
    use base64::Engine as _;
    let config = kube::config::Kubeconfig::read_from(kubeconfig).unwrap();
    let cluster = config.clusters[0].cluster.clone().unwrap();
    match (
        cluster.certificate_authority_data,
        cluster.certificate_authority,
    ) {
        (Some(data), _) => base64::engine::general_purpose::STANDARD
            .decode(data)
            .unwrap(),
        (None, Some(file)) => std::fs::read(kubeconfig.parent().unwrap().join(file)).unwrap(),
        (None, None) => panic!("{} names no CA", kubeconfig.display()),
    }
}

/// GET https://127.0.0.1:PORT/metrics (the manager's self-signed certificate is not checked,
/// as Prometheus' `insecureSkipVerify` in config/prometheus): the status and the body.
async fn scrape(port: u16, token: Option<&str>) -> (u16, String) {
    let mut config = kube::Config::new(format!("https://127.0.0.1:{port}").parse().unwrap());
    config.accept_invalid_certs = true;
    config.auth_info.token = token.map(|t| t.to_string().into());
    let client = Client::try_from(config).unwrap();
    let request = http::Request::get("/metrics").body(Vec::new()).unwrap();
    match client.request_text(request).await {
        Ok(body) => (200, body),
        Err(kube::Error::Api(status)) => (status.code, status.message),
        Err(e) => panic!("scraping /metrics: {e}"),
    }
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1).map(|euid| euid == "0"))
        .unwrap_or(false)
}

fn write(path: &Path, bytes: &[u8], mode: u32) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    for dir in path.ancestors().skip(1) {
        if dir.ends_with("rootfs") {
            break;
        }
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::write(path, bytes).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Runs `argv` in `rootfs` as the container runtime would: a private mount namespace where
/// the root is read-only, with the runtime's devices and /proc, chrooted, as user and group
/// 65532, with exactly `env`.
fn start_manager(rootfs: &Path, argv: &[String], env: &[(String, String)], log: &Path) -> Manager {
    assert!(
        is_root(),
        "the in-cluster run needs root for its mount namespace and chroot (as a container runtime does)"
    );
    // What every container has beside its image: the runtime's devices and /proc, the
    // kubelet's /etc/hosts, /etc/hostname and /etc/resolv.conf.
    for device in ["null", "zero", "full", "random", "urandom", "tty"] {
        write(&rootfs.join("dev").join(device), b"", 0o644);
    }
    std::fs::create_dir_all(rootfs.join("proc")).unwrap();
    let hostname = env
        .iter()
        .find(|(k, _)| k == "HOSTNAME")
        .map_or("manager", |(_, v)| v.as_str());
    write(
        &rootfs.join("etc/hostname"),
        format!("{hostname}\n").as_bytes(),
        0o644,
    );
    write(
        &rootfs.join("etc/hosts"),
        format!("127.0.0.1\tlocalhost\n::1\tlocalhost\n127.0.0.1\t{hostname}\n").as_bytes(),
        0o644,
    );
    write(
        &rootfs.join("etc/resolv.conf"),
        b"nameserver 127.0.0.1\noptions ndots:5\n",
        0o644,
    );
    let out = std::fs::File::create(log).unwrap();
    let mut cmd = Command::new("unshare");
    cmd.args(["--mount", "--propagation", "private", "--", "/bin/sh", "-c"])
        .arg(
            "set -e; r=\"$0\"; mount --bind \"$r\" \"$r\"; \
             for d in null zero full random urandom tty; do mount --bind /dev/$d \"$r/dev/$d\"; done; \
             mount -t proc proc \"$r/proc\"; \
             mount -o remount,bind,ro \"$r\"; \
             exec chroot --userspec=65532:65532 \"$r\" \"$@\"",
        )
        .arg(rootfs)
        .args(argv)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out);
    // sh, mount and chroot are found through the image's PATH, which is the usual one.
    let child = cmd.spawn().expect("starting unshare");
    Manager {
        child: Some(child),
        log: log.to_path_buf(),
    }
}

/// A CA and a serving certificate for the webhook Service's names and loopback.
struct WebhookPki {
    ca_pem: String,
    cert_pem: String,
    key_pem: String,
}

impl WebhookPki {
    fn new(service_dns: &str) -> Self {
        use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let key = KeyPair::generate().unwrap();
        let params = CertificateParams::new(vec![
            service_dns.to_string(),
            format!("{service_dns}.cluster.local"),
            "127.0.0.1".to_string(),
        ])
        .unwrap();
        let cert = params.signed_by(&key, &issuer).unwrap();
        Self {
            ca_pem: ca.pem(),
            cert_pem: cert.pem(),
            key_pem: key.serialize_pem(),
        }
    }
}

/// What the service network would do (and cert-manager's CA injector, given its CA): the
/// webhook configurations reach the manager on loopback at the Service's target port, each
/// at its own path, and trust `ca_pem` if given (else keep the bundle they have).
async fn point_webhooks_at_loopback(client: &Client, ca_pem: Option<&str>) {
    use base64::Engine as _;
    let bundle = ca_pem.map(|pem| base64::engine::general_purpose::STANDARD.encode(pem));
    for (kind, api) in webhook_configurations(client) {
        for config in api.list(&ListParams::default()).await.unwrap() {
            // A strategic merge patch merges the list by name and keeps the rest of each
            // webhook (rules, policies) as deployed; `service: null` removes the Service.
            let webhooks: Vec<serde_json::Value> = config.data["webhooks"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|w| {
                    let path = w["clientConfig"]["service"]["path"].as_str().unwrap_or("");
                    let mut client_config = serde_json::json!({
                        "service": null,
                        "url": format!("https://127.0.0.1:{WEBHOOK_PORT}{path}"),
                    });
                    if let Some(bundle) = &bundle {
                        client_config["caBundle"] = bundle.clone().into();
                    }
                    serde_json::json!({"name": w["name"], "clientConfig": client_config})
                })
                .collect();
            let name = config.name_any();
            let patch = serde_json::json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": kind,
                "webhooks": webhooks,
            });
            api.patch(&name, &PatchParams::default(), &Patch::Strategic(&patch))
                .await
                .unwrap_or_else(|e| panic!("pointing {kind} {name} at the manager: {e}"));
        }
    }
}
