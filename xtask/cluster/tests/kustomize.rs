//! `kustomize build config/default` with the real kustomize (built from its Go module on first
//! use) renders what `cargo xtask deploy` must apply: every object in the operator's namespace
//! under the name prefix, the webhook configurations pointing at the prefixed webhook Service,
//! and the manager serving the webhooks with a certificate it keeps itself (told the Secret's,
//! the Service's and the configurations' final names, granted exactly those by name). The
//! documented switch to cert-manager, flipped on a copy, renders cert-manager's way: the
//! configurations asking for the serving certificate's CA, that certificate issued for the
//! Service's DNS names and mounted into the manager.
//!
//! `#[ignore]`d for plain `cargo test` (building kustomize needs Go); `cargo xtask test` runs
//! them. `OPERATOR_CONFIG_DIR=<dir>` checks another copy of the `config/` tree.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize as _;
use serde_yaml::Value;

const CERT_DIR: &str = "/tmp/k8s-webhook-server/serving-certs";
const CERT_SECRET: &str = "webhook-server-cert";
const WEBHOOK_PORT: u64 = 9443;
/// The generated webhook configurations, by kind, before the prefix.
const WEBHOOK_CONFIGURATIONS: [(&str, &str); 2] = [
    (
        "MutatingWebhookConfiguration",
        "mutating-webhook-configuration",
    ),
    (
        "ValidatingWebhookConfiguration",
        "validating-webhook-configuration",
    ),
];

/// Kinds without a namespace (everything else in the render must be in the operator's).
const CLUSTER_SCOPED: &[&str] = &[
    "Namespace",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleBinding",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
];

fn config_dir() -> PathBuf {
    match std::env::var_os("OPERATOR_CONFIG_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR"))
            .ancestors()
            .nth(2)
            .expect("xtask/cluster is two levels below the workspace root")
            .join("config"),
    }
}

fn read_yaml(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()))
}

/// `kustomize build <config>/<dir>`, parsed: panics with kustomize's message when it fails.
fn render(config: &Path, dir: &str) -> Vec<Value> {
    let out = envtest::kustomize::build(&config.join(dir))
        .unwrap_or_else(|e| panic!("kustomize build config/{dir}: {e}"));
    serde_yaml::Deserializer::from_str(&out)
        .map(|doc| Value::deserialize(doc).expect("kustomize printed YAML"))
        .filter(|doc| !doc.is_null())
        .collect()
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, key| v.get(key))?.as_str()
}

fn kind(o: &Value) -> &str {
    str_at(o, &["kind"]).unwrap_or_default()
}

fn name(o: &Value) -> &str {
    str_at(o, &["metadata", "name"]).unwrap_or_default()
}

fn find<'a>(objects: &'a [Value], kind_: &str, name_: &str) -> &'a Value {
    let found: Vec<&Value> = objects
        .iter()
        .filter(|o| kind(o) == kind_ && name(o) == name_)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "expected exactly one {kind_} {name_} in the render; it has: {:?}",
        objects
            .iter()
            .map(|o| format!("{} {}", kind(o), name(o)))
            .collect::<Vec<_>>()
    );
    found[0]
}

fn list<'a>(v: &'a Value, path: &[&str]) -> &'a [Value] {
    path.iter()
        .try_fold(v, |v, key| v.get(key))
        .and_then(Value::as_sequence)
        .map_or(&[], Vec::as_slice)
}

fn strings(v: &Value, path: &[&str]) -> Vec<String> {
    list(v, path)
        .iter()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

/// The namespace and name prefix config/default sets.
fn namespace_and_prefix(config: &Path) -> (String, String) {
    let k = read_yaml(&config.join("default/kustomization.yaml"));
    let namespace = str_at(&k, &["namespace"]).expect("config/default sets a namespace");
    let prefix = str_at(&k, &["namePrefix"]).expect("config/default sets a namePrefix");
    assert!(!namespace.is_empty() && !prefix.is_empty());
    (namespace.to_string(), prefix.to_string())
}

#[test]
#[ignore = "needs Go to build kustomize; run by cargo xtask test"]
fn config_default_renders_the_operator_with_its_webhooks_and_their_own_certificate() {
    let config = config_dir();
    let objects = check_default(&config);
    let (ns, prefix) = namespace_and_prefix(&config);
    let certificates = objects.iter().filter(|o| kind(o) == "Certificate").count();
    assert_eq!(
        certificates, 0,
        "config/default takes no cert-manager objects"
    );
    manager_keeps_its_certificate(&objects, &ns, &prefix);
}

/// config/default's documented switch to cert-manager (its comments say what to swap)
/// renders cert-manager's way: done here as a user would, on a copy of the tree.
#[test]
#[ignore = "needs Go to build kustomize; run by cargo xtask test"]
fn config_default_switched_to_cert_manager_renders_its_certificates() {
    let original = config_dir();
    let copy = tempfile::tempdir().unwrap();
    copy_tree(&original, copy.path());
    let kustomization = copy.path().join("default/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap();
    std::fs::write(&kustomization, switch_to_cert_manager(&text)).unwrap();
    let objects = check_default(copy.path());
    let (ns, prefix) = namespace_and_prefix(copy.path());
    cert_manager_issues_the_certificate(&objects, &ns, &prefix);
}

/// What config/default's comments say to do for cert-manager: `../certmanager` in place of
/// `../webhook-certs`, its webhook patch in place of the default's, the replacements on.
fn switch_to_cert_manager(kustomization: &str) -> String {
    let mut out = String::new();
    let mut in_replacements = false;
    let mut lines = kustomization.lines().peekable();
    while let Some(line) = lines.next() {
        if line == "- ../webhook-certs" {
            continue;
        }
        if line == "- path: manager_webhook_patch.yaml" {
            // and its two target lines
            lines.next();
            lines.next();
            continue;
        }
        if line == "#- ../certmanager" {
            out.push_str("- ../certmanager\n");
            continue;
        }
        if line == "#- path: manager_webhook_certmanager_patch.yaml" {
            out.push_str("- path: manager_webhook_certmanager_patch.yaml\n");
            for _ in 0..2 {
                let target = lines.next().unwrap();
                out.push_str(target.strip_prefix('#').unwrap());
                out.push('\n');
            }
            continue;
        }
        if line == "#replacements:" {
            in_replacements = true;
        }
        // In the replacements, YAML lines are commented as `#-`, `#  ` or `#replacements:`;
        // prose as `# `.
        if in_replacements
            && (line.starts_with("#-") || line.starts_with("#  ") || line == "#replacements:")
        {
            out.push_str(&line[1..]);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    assert!(
        out.contains("- ../certmanager\n") && out.contains("\nreplacements:\n"),
        "config/default/kustomization.yaml no longer has the switch this test flips:\n{out}"
    );
    out
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// What either way renders alike: the namespace and prefix on everything, the webhook
/// configurations calling the prefixed Service, the Service forwarding to the manager's
/// webhook port, what config/manager/manager.yaml mounts kept. Returns the render.
fn check_default(config: &Path) -> Vec<Value> {
    let manifests = config.join("webhook/manifests.yaml");
    assert!(
        manifests.is_file(),
        "config/webhook/manifests.yaml is missing ({}): config/webhook/kustomization.yaml \
         lists it, and `cargo xtask manifests` generates it from the #[webhook] markers",
        manifests.display()
    );
    let (ns, prefix) = namespace_and_prefix(config);
    let objects = render(config, "default");

    // Namespace and prefix on everything.
    for o in &objects {
        let (k, n) = (kind(o), name(o));
        let namespace = str_at(o, &["metadata", "namespace"]);
        if CLUSTER_SCOPED.contains(&k) {
            assert_eq!(namespace, None, "{k} {n} is cluster-scoped");
        } else {
            assert_eq!(namespace, Some(ns.as_str()), "namespace of {k} {n}");
        }
        match k {
            // kustomize leaves CRD names alone (they must be <plural>.<group>).
            "CustomResourceDefinition" => {}
            "Namespace" => assert_eq!(n, ns),
            _ => assert!(n.starts_with(&prefix), "{k} {n} lacks the prefix {prefix}"),
        }
    }
    let rendered = serde_yaml::to_string(&objects).unwrap();
    for placeholder in ["SERVICE_NAME", "SERVICE_NAMESPACE", "namespace: system"] {
        assert!(
            !rendered.contains(placeholder),
            "{placeholder:?} is left in the render"
        );
    }

    // The webhook configurations: each webhook called through the prefixed Service in the
    // namespace.
    let webhook_service = format!("{prefix}webhook-service");
    let mut paths = BTreeSet::new();
    for (kind_, name_) in WEBHOOK_CONFIGURATIONS {
        let conf = find(&objects, kind_, &format!("{prefix}{name_}"));
        let webhooks = list(conf, &["webhooks"]);
        assert!(!webhooks.is_empty(), "{kind_} has no webhooks");
        for w in webhooks {
            let service = &w["clientConfig"]["service"];
            assert_eq!(
                str_at(service, &["name"]),
                Some(webhook_service.as_str()),
                "{w:?}"
            );
            assert_eq!(str_at(service, &["namespace"]), Some(ns.as_str()), "{w:?}");
            if let Some(port) = service.get("port") {
                assert_eq!(port.as_u64(), Some(443), "{w:?}");
            }
            paths.insert(str_at(service, &["path"]).unwrap_or_default().to_string());
        }
    }
    for path in [
        "/mutate-cache-example-com-v1alpha1-memcached",
        "/validate-cache-example-com-v1alpha1-memcached",
    ] {
        assert!(paths.contains(path), "no webhook serves {path}: {paths:?}");
    }

    // The webhook Service forwards 443 to the manager's webhook port.
    let service = find(&objects, "Service", &webhook_service);
    let ports = list(service, &["spec", "ports"]);
    assert_eq!(ports.len(), 1, "{ports:?}");
    assert_eq!(ports[0]["port"].as_u64(), Some(443));
    assert_eq!(ports[0]["targetPort"].as_u64(), Some(WEBHOOK_PORT));

    // The manager: the webhook port.
    let deployment = find(
        &objects,
        "Deployment",
        &format!("{prefix}controller-manager"),
    );
    let pod = &deployment["spec"]["template"];
    let selector = service["spec"]["selector"]
        .as_mapping()
        .expect("the webhook Service has a selector");
    for (key, value) in selector {
        assert_eq!(
            pod["metadata"]["labels"].get(key),
            Some(value),
            "the webhook Service selects pods by {key:?}, which the manager's pods lack"
        );
    }
    let manager = list(pod, &["spec", "containers"])
        .iter()
        .find(|c| str_at(c, &["name"]) == Some("manager"))
        .expect("a container named manager");
    let args = strings(manager, &["args"]);
    assert!(
        args.iter()
            .any(|a| a.starts_with("--metrics-bind-address=")),
        "{args:?}"
    );
    assert!(
        list(manager, &["ports"]).iter().any(|p| {
            p["containerPort"].as_u64() == Some(WEBHOOK_PORT)
                && str_at(p, &["name"]) == Some("webhook-server")
                && str_at(p, &["protocol"]) == Some("TCP")
        }),
        "{manager:?}"
    );

    // The patch keeps whatever config/manager/manager.yaml mounts itself.
    let base = std::fs::read_to_string(config.join("manager/manager.yaml")).unwrap();
    for doc in serde_yaml::Deserializer::from_str(&base) {
        let doc = Value::deserialize(doc).unwrap();
        if kind(&doc) != "Deployment" {
            continue;
        }
        let base_pod = &doc["spec"]["template"]["spec"];
        for v in list(base_pod, &["volumes"]) {
            assert!(
                list(pod, &["spec", "volumes"]).contains(v),
                "volume {v:?} of manager.yaml is lost"
            );
        }
        for c in list(base_pod, &["containers"]) {
            for m in list(c, &["volumeMounts"]) {
                assert!(
                    list(manager, &["volumeMounts"]).contains(m),
                    "volumeMount {m:?} of manager.yaml is lost"
                );
            }
        }
    }
    objects
}

/// cert-manager's way: the Issuer and the certificates it signs for the Services' final DNS
/// names, the configurations asking for the serving certificate's CA, the manager reading the
/// certificate from the mounted Secret.
fn cert_manager_issues_the_certificate(objects: &[Value], ns: &str, prefix: &str) {
    let objects = objects.to_vec();
    // The Issuer and the certificates it signs, for the Services' final DNS names.
    let issuer = find(&objects, "Issuer", &format!("{prefix}selfsigned-issuer"));
    assert!(issuer["spec"]["selfSigned"].is_mapping());
    let webhook_service = format!("{prefix}webhook-service");
    for (cert, service, secret) in [
        ("serving-cert", webhook_service.as_str(), CERT_SECRET),
        (
            "metrics-certs",
            &format!("{prefix}controller-manager-metrics-service"),
            "metrics-server-cert",
        ),
    ] {
        find(&objects, "Service", service);
        let cert = find(&objects, "Certificate", &format!("{prefix}{cert}"));
        assert_eq!(
            strings(cert, &["spec", "dnsNames"]),
            [
                format!("{service}.{ns}.svc"),
                format!("{service}.{ns}.svc.cluster.local")
            ]
        );
        assert_eq!(
            str_at(cert, &["spec", "issuerRef", "name"]),
            Some(name(issuer))
        );
        assert_eq!(str_at(cert, &["spec", "issuerRef", "kind"]), Some("Issuer"));
        assert_eq!(str_at(cert, &["spec", "secretName"]), Some(secret));
    }

    let inject = format!("{ns}/{prefix}serving-cert");
    for (kind_, name_) in WEBHOOK_CONFIGURATIONS {
        let conf = find(&objects, kind_, &format!("{prefix}{name_}"));
        assert_eq!(
            str_at(
                conf,
                &["metadata", "annotations", "cert-manager.io/inject-ca-from"]
            ),
            Some(inject.as_str()),
            "{kind_}"
        );
    }
    let (pod, manager) = manager_of(&objects, prefix);
    let args = strings(manager, &["args"]);
    assert!(
        args.contains(&format!("--webhook-cert-path={CERT_DIR}")),
        "{args:?}"
    );
    let mount = list(manager, &["volumeMounts"])
        .iter()
        .find(|m| str_at(m, &["mountPath"]) == Some(CERT_DIR))
        .expect("the certificate mounted at the webhook server's cert path");
    assert_eq!(mount["readOnly"].as_bool(), Some(true));
    let volume_name = str_at(mount, &["name"]).unwrap();
    let volume = list(pod, &["spec", "volumes"])
        .iter()
        .find(|v| str_at(v, &["name"]) == Some(volume_name))
        .expect("the mounted certificate volume");
    assert_eq!(str_at(volume, &["secret", "secretName"]), Some(CERT_SECRET));
}

/// The prefixed Deployment's pod template and its container named manager.
fn manager_of<'a>(objects: &'a [Value], prefix: &str) -> (&'a Value, &'a Value) {
    let deployment = find(
        objects,
        "Deployment",
        &format!("{prefix}controller-manager"),
    );
    let pod = &deployment["spec"]["template"];
    let manager = list(pod, &["spec", "containers"])
        .iter()
        .find(|c| str_at(c, &["name"]) == Some("manager"))
        .expect("a container named manager");
    (pod, manager)
}

/// The default way: the manager keeps the certificate in a Secret, told its name, the
/// prefixed Service's and the prefixed configurations' by environment variables, and its
/// RBAC grants exactly that Secret and those two configurations, by name.
fn manager_keeps_its_certificate(objects: &[Value], ns: &str, prefix: &str) {
    let (_, manager) = manager_of(objects, prefix);
    let env = |name: &str| {
        list(manager, &["env"])
            .iter()
            .find(|e| str_at(e, &["name"]) == Some(name))
            .and_then(|e| str_at(e, &["value"]))
            .map(str::to_string)
    };
    let validating = format!("{prefix}validating-webhook-configuration");
    let mutating = format!("{prefix}mutating-webhook-configuration");
    assert_eq!(env("WEBHOOK_CERT_SECRET").as_deref(), Some(CERT_SECRET));
    assert_eq!(
        env("WEBHOOK_SERVICE"),
        Some(format!("{prefix}webhook-service"))
    );
    assert_eq!(
        env("WEBHOOK_VALIDATING_CONFIGURATIONS").as_deref(),
        Some(validating.as_str())
    );
    assert_eq!(
        env("WEBHOOK_MUTATING_CONFIGURATIONS").as_deref(),
        Some(mutating.as_str())
    );
    assert!(
        !strings(manager, &["args"])
            .iter()
            .any(|a| a.starts_with("--webhook-cert-path")),
        "both ways at once"
    );

    // Least privilege: the Secret by name (create cannot be limited to one), the two
    // configurations by name, bound to the manager's ServiceAccount.
    let role = find(objects, "Role", &format!("{prefix}webhook-cert-role"));
    let rules = list(role, &["rules"]);
    let named: Vec<&Value> = rules
        .iter()
        .filter(|r| !list(r, &["resourceNames"]).is_empty())
        .collect();
    assert_eq!(named.len(), 1, "{rules:?}");
    assert_eq!(strings(named[0], &["resourceNames"]), [CERT_SECRET]);
    assert_eq!(strings(named[0], &["verbs"]), ["get", "update"]);
    for r in rules {
        assert_eq!(strings(r, &["resources"]), ["secrets"], "{r:?}");
        if list(r, &["resourceNames"]).is_empty() {
            assert_eq!(strings(r, &["verbs"]), ["create"], "{r:?}");
        }
    }
    let cluster_role = find(
        objects,
        "ClusterRole",
        &format!("{prefix}webhook-cert-clusterrole"),
    );
    let mut granted: Vec<(String, Vec<String>)> = list(cluster_role, &["rules"])
        .iter()
        .map(|r| {
            assert_eq!(strings(r, &["verbs"]), ["get", "patch"], "{r:?}");
            (
                strings(r, &["resources"]).join(","),
                strings(r, &["resourceNames"]),
            )
        })
        .collect();
    granted.sort();
    assert_eq!(
        granted,
        [
            ("mutatingwebhookconfigurations".to_string(), vec![mutating]),
            (
                "validatingwebhookconfigurations".to_string(),
                vec![validating]
            ),
        ]
    );
    for (binding_kind, binding, role_kind, role) in [
        (
            "RoleBinding",
            "webhook-cert-rolebinding",
            "Role",
            name(role),
        ),
        (
            "ClusterRoleBinding",
            "webhook-cert-clusterrolebinding",
            "ClusterRole",
            name(cluster_role),
        ),
    ] {
        let b = find(objects, binding_kind, &format!("{prefix}{binding}"));
        assert_eq!(str_at(b, &["roleRef", "kind"]), Some(role_kind));
        assert_eq!(str_at(b, &["roleRef", "name"]), Some(role));
        let subjects = list(b, &["subjects"]);
        assert_eq!(subjects.len(), 1, "{subjects:?}");
        assert_eq!(
            str_at(&subjects[0], &["name"]),
            Some(format!("{prefix}controller-manager").as_str())
        );
        assert_eq!(str_at(&subjects[0], &["namespace"]), Some(ns));
    }
}

/// The other trees render on their own, as kubebuilder's do: `make install` applies config/crd,
/// the samples are applied with `kubectl apply -k`.
#[test]
#[ignore = "needs Go to build kustomize; run by cargo xtask test"]
fn config_crd_rbac_and_samples_render() {
    let config = config_dir();
    let crds = render(&config, "crd");
    assert!(!crds.is_empty());
    assert!(crds.iter().all(|o| kind(o) == "CustomResourceDefinition"));
    let rbac = render(&config, "rbac");
    find(&rbac, "ClusterRole", "manager-role");
    find(&rbac, "ServiceAccount", "controller-manager");
    let samples = render(&config, "samples");
    assert!(samples.iter().any(|o| kind(o) == "Memcached"));
}

/// A kustomization that kustomize refuses is an error, never an empty or partial render that
/// the checks above could pass on.
#[test]
#[ignore = "needs Go to build kustomize; run by cargo xtask test"]
fn a_failing_kustomize_build_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("kustomization.yaml"),
        "resources:\n- manifests.yaml\n",
    )
    .unwrap();
    let err = envtest::kustomize::build(dir.path())
        .unwrap_err()
        .to_string();
    assert!(err.contains("manifests.yaml"), "{err}");
    assert!(err.contains("failed"), "{err}");
}
