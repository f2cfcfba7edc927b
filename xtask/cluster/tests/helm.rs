//! The Helm chart `cargo xtask helm` makes of config/default (committed in dist/chart): its
//! switches, `--check`, and `helm install` on a control plane of this test's own, where the
//! operator rolls out and then runs as in the cluster (the same proof as the deploy test's,
//! from `incluster`), and `helm uninstall`, which leaves the CRD.
//!
//! helm and kustomize are built from their Go modules on first use; the install needs root
//! and the control-plane binaries: `cargo xtask test` runs these.

mod incluster;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::rbac::v1::ClusterRole;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use kube::{Client, ResourceExt as _};
use operator_xtask_cluster::{deploy, helm, image};
use serde::Deserialize as _;

use incluster::{DEPLOYMENT, OPERATOR_NAMESPACE};

const CRD: &str = "memcacheds.cache.example.com";

fn root() -> PathBuf {
    operator_xtask::root()
}

fn chart() -> String {
    root().join(helm::CHART_DIR).display().to_string()
}

/// `helm template` of the committed chart into `check-ns`, with `--set` for each of `sets`.
fn template(sets: &[&str]) -> Vec<serde_json::Value> {
    let chart = chart();
    let mut args = vec![
        "template",
        "release",
        chart.as_str(),
        "--namespace",
        "check-ns",
    ];
    for set in sets {
        args.extend(["--set", set]);
    }
    let text = helm::helm(&args).unwrap();
    serde_yaml::Deserializer::from_str(&text)
        .map(|doc| serde_json::Value::deserialize(doc).unwrap())
        .filter(|v| !v.is_null())
        .collect()
}

fn kinds_and_names(objects: &[serde_json::Value]) -> Vec<String> {
    objects
        .iter()
        .map(|o| {
            format!(
                "{} {}",
                o["kind"].as_str().unwrap(),
                o["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect()
}

fn find<'a>(objects: &'a [serde_json::Value], kind: &str) -> &'a serde_json::Value {
    objects
        .iter()
        .find(|o| o["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} in {:?}", kinds_and_names(objects)))
}

/// The manager's environment variable `name`, if set.
fn env(objects: &[serde_json::Value], name: &str) -> Option<String> {
    find(objects, "Deployment")["spec"]["template"]["spec"]["containers"][0]["env"]
        .as_array()?
        .iter()
        .find(|e| e["name"] == name)
        .and_then(|e| e["value"].as_str())
        .map(str::to_string)
}

fn args(objects: &[serde_json::Value]) -> Vec<String> {
    find(objects, "Deployment")["spec"]["template"]["spec"]["containers"][0]["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect()
}

/// Each switch of values.yaml takes its objects (and the Deployment's arguments and volumes)
/// out and puts them back; the namespace everywhere is the release's.
#[test]
#[ignore = "builds helm from its Go module on first use; run by cargo xtask test"]
fn the_values_switch_their_objects_off_and_on() {
    let all = template(&[]);
    let names = kinds_and_names(&all);
    for expected in [
        "CustomResourceDefinition memcacheds.cache.example.com",
        "Deployment memcached-controller-manager",
        "Service memcached-controller-manager-metrics-service",
        "Service memcached-webhook-service",
        "MutatingWebhookConfiguration memcached-mutating-webhook-configuration",
        "ValidatingWebhookConfiguration memcached-validating-webhook-configuration",
        "Role memcached-webhook-cert-role",
        "ClusterRole memcached-webhook-cert-clusterrole",
        "ClusterRole memcached-metrics-auth-role",
        "ClusterRole memcached-metrics-reader",
        "ClusterRole memcached-memcached-editor-role",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not in {names:?}"
        );
    }
    assert!(
        !names.iter().any(|n| n.starts_with("Namespace ")),
        "{names:?}"
    );
    // The release's namespace wherever config/default had its own.
    let text = serde_json::to_string(&all).unwrap();
    assert!(!text.contains("memcached-system"), "{text}");
    for o in &all {
        if let Some(ns) = o["metadata"]["namespace"].as_str() {
            assert_eq!(ns, "check-ns", "{}", o["metadata"]["name"]);
        }
    }
    // By default the manager keeps its webhook certificate: no cert-manager objects, no
    // CA-injection annotation, the Secret and the names in its environment.
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("Issuer ") || n.starts_with("Certificate ")),
        "{names:?}"
    );
    let webhook = find(&all, "ValidatingWebhookConfiguration");
    assert!(
        webhook["metadata"]["annotations"]
            .get("cert-manager.io/inject-ca-from")
            .is_none()
    );
    assert_eq!(
        env(&all, "WEBHOOK_SERVICE").as_deref(),
        Some("memcached-webhook-service")
    );
    assert_eq!(
        env(&all, "WEBHOOK_CERT_SECRET").as_deref(),
        Some("webhook-server-cert")
    );
    assert_eq!(
        webhook["webhooks"][0]["clientConfig"]["service"]["namespace"],
        "check-ns"
    );
    let crd = find(&all, "CustomResourceDefinition");
    assert_eq!(
        crd["metadata"]["annotations"]["helm.sh/resource-policy"],
        "keep"
    );
    let defaults = args(&all);
    for arg in ["--metrics-bind-address=:8443", "--leader-elect"] {
        assert!(
            defaults.iter().any(|a| a == arg),
            "{arg} not in {defaults:?}"
        );
    }
    assert!(!defaults.iter().any(|a| a == "--metrics-secure=false"));
    assert!(
        !defaults
            .iter()
            .any(|a| a.starts_with("--webhook-cert-path"))
    );
    let deployment = find(&all, "Deployment");
    assert_eq!(
        deployment["spec"]["template"]["spec"]["containers"][0]["image"],
        "memcached-operator:0.1.0"
    );
    assert_eq!(
        deployment["metadata"]["labels"]["app.kubernetes.io/managed-by"],
        "Helm"
    );

    // Webhooks off: their configurations, Service, certificate, its RBAC and settings go.
    let off = template(&["webhook.enable=false"]);
    let names = kinds_and_names(&off);
    for gone in [
        "WebhookConfiguration",
        "memcached-webhook-service",
        "memcached-serving-cert",
        "webhook-cert",
    ] {
        assert!(
            !names.iter().any(|n| n.contains(gone)),
            "{gone} in {names:?}"
        );
    }
    assert_eq!(env(&off, "WEBHOOK_CERT_SECRET"), None);
    assert!(
        !args(&off)
            .iter()
            .any(|a| a.starts_with("--webhook-cert-path"))
    );
    let pod = &find(&off, "Deployment")["spec"]["template"]["spec"];
    assert!(
        pod["volumes"].as_array().is_none_or(|v| v.is_empty()),
        "{pod}"
    );

    // cert-manager on: its Issuer and the serving Certificate for the release's Service, the
    // CA injected, the Secret mounted and read; the manager's own way and its RBAC gone.
    let on = template(&["certManager.enable=true"]);
    let names = kinds_and_names(&on);
    for expected in [
        "Issuer memcached-selfsigned-issuer",
        "Certificate memcached-serving-cert",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} not in {names:?}"
        );
    }
    assert!(
        !names.iter().any(|n| n.contains("webhook-cert")),
        "{names:?}"
    );
    let serving = on
        .iter()
        .find(|o| o["metadata"]["name"] == "memcached-serving-cert")
        .unwrap();
    assert_eq!(
        serving["spec"]["dnsNames"][0],
        "memcached-webhook-service.check-ns.svc"
    );
    assert_eq!(serving["spec"]["secretName"], "webhook-server-cert");
    let webhook = find(&on, "ValidatingWebhookConfiguration");
    assert_eq!(
        webhook["metadata"]["annotations"]["cert-manager.io/inject-ca-from"],
        "check-ns/memcached-serving-cert"
    );
    assert!(
        args(&on)
            .iter()
            .any(|a| a == "--webhook-cert-path=/tmp/k8s-webhook-server/serving-certs")
    );
    assert_eq!(env(&on, "WEBHOOK_CERT_SECRET"), None);
    let pod = &find(&on, "Deployment")["spec"]["template"]["spec"];
    assert_eq!(
        pod["volumes"][0]["secret"]["secretName"], "webhook-server-cert",
        "{pod}"
    );

    // Metrics off: no bind address, no Service, no roles guarding it.
    let off = template(&["metrics.enable=false"]);
    let names = kinds_and_names(&off);
    for gone in [
        "metrics-service",
        "metrics-auth-role",
        "metrics-reader",
        "metrics-certs",
    ] {
        assert!(
            !names.iter().any(|n| n.contains(gone)),
            "{gone} in {names:?}"
        );
    }
    assert!(
        !args(&off)
            .iter()
            .any(|a| a.starts_with("--metrics-bind-address"))
    );

    // Plain metrics: the flag, the Service's port named http, no token review roles.
    let plain = template(&["metrics.secure=false", "metrics.port=8080"]);
    let plain_args = args(&plain);
    assert!(plain_args.iter().any(|a| a == "--metrics-secure=false"));
    assert!(
        plain_args
            .iter()
            .any(|a| a == "--metrics-bind-address=:8080")
    );
    let service = plain
        .iter()
        .find(|o| o["metadata"]["name"] == "memcached-controller-manager-metrics-service")
        .unwrap();
    assert_eq!(service["spec"]["ports"][0]["name"], "http");
    assert_eq!(service["spec"]["ports"][0]["port"], 8080);
    assert!(
        !kinds_and_names(&plain)
            .iter()
            .any(|n| n.contains("metrics-auth-role"))
    );

    // CRDs off, or not kept; the helper roles off; leader election off.
    let off = template(&["crd.enable=false", "rbacHelpers.enable=false"]);
    let names = kinds_and_names(&off);
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("CustomResourceDefinition"))
    );
    assert!(!names.iter().any(|n| n.ends_with("-editor-role")));
    let unkept = template(&["crd.keep=false"]);
    assert!(
        find(&unkept, "CustomResourceDefinition")["metadata"]["annotations"]
            .get("helm.sh/resource-policy")
            .is_none()
    );
    assert!(
        !args(&template(&["manager.leaderElection=false"]))
            .iter()
            .any(|a| a == "--leader-elect")
    );

    // The manager's own values.
    let mine = template(&[
        "manager.image.repository=registry.example.com/op",
        "manager.image.tag=v9",
        "manager.replicas=3",
        "manager.resources.limits.memory=1Gi",
        "manager.args={--log-format=text}",
        "manager.env[0].name=EXTRA,manager.env[0].value=yes",
        "manager.nodeSelector.disk=ssd",
    ]);
    let deployment = find(&mine, "Deployment");
    let container = &deployment["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(container["image"], "registry.example.com/op:v9");
    assert_eq!(deployment["spec"]["replicas"], 3);
    assert_eq!(container["resources"]["limits"]["memory"], "1Gi");
    assert_eq!(
        args(&mine).last().map(String::as_str),
        Some("--log-format=text")
    );
    let env = container["env"].as_array().unwrap();
    assert!(env.iter().any(|e| e["name"] == "MEMCACHED_IMAGE"));
    assert!(
        env.iter()
            .any(|e| e["name"] == "EXTRA" && e["value"] == "yes")
    );
    assert_eq!(
        deployment["spec"]["template"]["spec"]["nodeSelector"]["disk"],
        "ssd"
    );

    // Everything off still lints and renders the operator.
    let chart = chart();
    helm::helm(&["lint", "--strict", &chart, "--set", helm::SWITCHES_OFF]).unwrap();
    let bare = template(&[helm::SWITCHES_OFF]);
    assert_eq!(
        kinds_and_names(&bare),
        [
            "ServiceAccount memcached-controller-manager",
            "ClusterRole memcached-manager-role",
            "ClusterRoleBinding memcached-manager-rolebinding",
            "Role memcached-leader-election-role",
            "RoleBinding memcached-leader-election-rolebinding",
            "Deployment memcached-controller-manager",
        ]
    );
}

fn xtask_helm(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_operator-xtask-cluster"))
        .current_dir(root())
        .arg("helm")
        .args(args)
        .output()
        .unwrap()
}

/// `cargo xtask helm --check` passes on the committed chart, fails with a diff on a copy with
/// an edited file and writes nothing; `cargo xtask helm` mends the copy.
#[test]
#[ignore = "builds kustomize from its Go module on first use; run by cargo xtask test"]
fn the_check_catches_a_stale_chart_and_the_command_mends_it() {
    let out = xtask_helm(&["--check"]);
    assert!(
        out.status.success(),
        "the committed dist/chart is stale:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let scratch = tempfile::tempdir().unwrap();
    let copy = scratch.path().join("chart");
    let copy_arg = copy.display().to_string();
    let written = xtask_helm(&["--out", &copy_arg]);
    assert!(
        written.status.success(),
        "{}",
        String::from_utf8_lossy(&written.stderr)
    );
    let manager = copy.join("templates/manager/memcached-controller-manager.yaml");
    let fresh = std::fs::read_to_string(&manager).unwrap();
    assert_eq!(
        fresh,
        std::fs::read_to_string(
            root().join("dist/chart/templates/manager/memcached-controller-manager.yaml")
        )
        .unwrap()
    );
    let stale = fresh.replace(
        "terminationGracePeriodSeconds: 10",
        "terminationGracePeriodSeconds: 99",
    );
    assert_ne!(stale, fresh);
    std::fs::write(&manager, &stale).unwrap();

    let out = xtask_helm(&["--check", "--out", &copy_arg]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("templates/manager/memcached-controller-manager.yaml is stale"),
        "{stderr}"
    );
    assert!(
        stderr.contains("-      terminationGracePeriodSeconds: 99"),
        "{stderr}"
    );
    assert!(
        stderr.contains("+      terminationGracePeriodSeconds: 10"),
        "{stderr}"
    );
    assert!(stderr.contains("run `cargo xtask helm`"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&manager).unwrap(),
        stale,
        "--check wrote"
    );

    let out = xtask_helm(&["--out", &copy_arg]);
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&manager).unwrap(), fresh);
    assert!(
        xtask_helm(&["--check", "--out", &copy_arg])
            .status
            .success()
    );

    // A directory that kustomize cannot render is named.
    let out = xtask_helm(&["--check", "--config", "config/nope"]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("config/nope has no kustomization.yaml"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "starts a control plane of its own and builds the image and helm; run by cargo xtask test"]
async fn helm_install_rolls_the_operator_out_and_uninstall_keeps_the_crd() {
    incluster::on_a_plane_of_its_own("helm-test-", scenario).await;
}

/// helm with this test's kubeconfig and its own config, cache and data directories.
fn helm_on(kubeconfig: &Path, scratch: &Path, args: &[&str]) -> String {
    let exe = envtest::helm().expect("helm");
    let out = Command::new(&exe)
        .args(args)
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .env("HELM_CONFIG_HOME", scratch.join("helm/config"))
        .env("HELM_CACHE_HOME", scratch.join("helm/cache"))
        .env("HELM_DATA_HOME", scratch.join("helm/data"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "helm {}: {}\n{stdout}{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    eprint!("{stdout}");
    stdout
}

async fn scenario(kubeconfig: PathBuf, scratch: PathBuf) {
    let config = kube::Config::from_custom_kubeconfig(
        kube::config::Kubeconfig::read_from(&kubeconfig).unwrap(),
        &Default::default(),
    )
    .await
    .unwrap();
    let client = Client::try_from(config.clone()).unwrap();

    // The image, as `cargo xtask image --profile image-test` builds it (as the deploy test).
    let mut options = image::ImageOptions::new(root());
    options.profile = "image-test".to_string();
    let built = tokio::task::spawn_blocking(move || image::build(&options))
        .await
        .unwrap()
        .expect("cargo xtask image");
    let (repository, tag) = built.reference.rsplit_once(':').unwrap();

    // No cert-manager in this cluster: the chart's default has the manager keep its webhook
    // certificate itself.
    // The release's namespace, labelled as config/default's Namespace is (the chart leaves
    // namespaces to whoever installs it).
    let rendered = {
        let reference = built.reference.clone();
        tokio::task::spawn_blocking(move || {
            deploy::render(&root(), Path::new("config/default"), &reference)
        })
        .await
        .unwrap()
        .expect("rendering config/default")
    };
    let namespace = rendered
        .iter()
        .find(|o| o.gvk.kind == "Namespace")
        .expect("config/default's Namespace");
    assert_eq!(namespace.object.name_any(), OPERATOR_NAMESPACE);
    let mut labels = namespace.object.labels().clone();
    labels.remove(deploy::DEPLOYED_BY);
    let namespaces: Api<Namespace> = Api::all(client.clone());
    namespaces
        .create(
            &PostParams::default(),
            &serde_json::from_value(serde_json::json!({
                "metadata": {"name": OPERATOR_NAMESPACE, "labels": labels}
            }))
            .unwrap(),
        )
        .await
        .unwrap();

    let chart = chart();
    let set_image = format!("manager.image.repository={repository},manager.image.tag={tag}");
    let installed = {
        let (kubeconfig, scratch) = (kubeconfig.clone(), scratch.clone());
        tokio::task::spawn_blocking(move || {
            helm_on(
                &kubeconfig,
                &scratch,
                &[
                    "install",
                    "memcached",
                    &chart,
                    "--namespace",
                    OPERATOR_NAMESPACE,
                    "--set",
                    &set_image,
                    "--wait",
                    "--timeout",
                    "3m",
                ],
            )
        })
        .await
        .unwrap()
    };
    assert!(installed.contains("STATUS: deployed"), "{installed}");
    // Available, as deploy waits for it: every replica updated and available.
    deploy::wait_rollout(
        &client,
        OPERATOR_NAMESPACE,
        DEPLOYMENT,
        Duration::from_secs(120),
    )
    .await
    .expect("the chart's Deployment rolls out");
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), OPERATOR_NAMESPACE);
    let live = deployments.get(DEPLOYMENT).await.unwrap();
    assert_eq!(
        live.labels()
            .get("app.kubernetes.io/managed-by")
            .map(String::as_str),
        Some("Helm")
    );
    let available = live
        .status
        .and_then(|s| s.conditions)
        .unwrap_or_default()
        .into_iter()
        .any(|c| c.type_ == "Available" && c.status == "True");
    assert!(available, "the Deployment is not Available");

    incluster::restricted_pod_security(&client).await;
    incluster::operator_runs_as_in_the_cluster(
        &client,
        &config,
        &kubeconfig,
        &scratch,
        &built,
        incluster::Renewal::Never,
    )
    .await;

    let uninstalled = {
        let (kubeconfig, scratch) = (kubeconfig.clone(), scratch.clone());
        tokio::task::spawn_blocking(move || {
            helm_on(
                &kubeconfig,
                &scratch,
                &[
                    "uninstall",
                    "memcached",
                    "--namespace",
                    OPERATOR_NAMESPACE,
                    "--wait",
                    "--timeout",
                    "2m",
                ],
            )
        })
        .await
        .unwrap()
    };
    assert!(uninstalled.contains("uninstalled"), "{uninstalled}");
    assert!(
        uninstalled.contains("kept due to the resource policy")
            && uninstalled.contains(&format!("[CustomResourceDefinition] {CRD}")),
        "{uninstalled}"
    );

    // The CRD stays (helm.sh/resource-policy: keep); the rest of the release is gone.
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let crd = crds
        .get_opt(CRD)
        .await
        .unwrap()
        .expect("the CRD after helm uninstall");
    assert!(
        crd.metadata.deletion_timestamp.is_none(),
        "the CRD is being deleted"
    );
    assert!(
        deployments.get_opt(DEPLOYMENT).await.unwrap().is_none(),
        "the Deployment is still there"
    );
    let roles: Api<ClusterRole> = Api::all(client.clone());
    assert!(
        roles
            .get_opt("memcached-manager-role")
            .await
            .unwrap()
            .is_none()
    );
    let releases = {
        let (kubeconfig, scratch) = (kubeconfig.clone(), scratch.clone());
        tokio::task::spawn_blocking(move || {
            helm_on(
                &kubeconfig,
                &scratch,
                &[
                    "list",
                    "--all",
                    "--short",
                    "--namespace",
                    OPERATOR_NAMESPACE,
                ],
            )
        })
        .await
        .unwrap()
    };
    assert_eq!(releases.trim(), "", "releases left: {releases}");
}
