//! The render's objects and the rules for each: which switch an object is installed under,
//! which templates directory it goes to, and how its text becomes a template (the release's
//! namespace, Helm's labels, cert-manager's annotation, the CRDs kept on uninstall).

use anyhow::{Context as _, Result, bail};
use serde::Deserialize as _;
use serde_yaml::{Mapping, Value};

use super::deployment::deployment;
use super::template::{Tpl, get, get_mut, insert_after, s, wrap_key};
use super::values::Defaults;

/// One object of the render.
pub(super) struct Object {
    pub(super) kind: String,
    pub(super) name: String,
    pub(super) body: Mapping,
}

/// Parses kustomize's output: each document a mapping with apiVersion, kind and metadata.name.
pub(super) fn parse(yaml: &str) -> Result<Vec<Object>> {
    let mut out = Vec::new();
    for (index, doc) in serde_yaml::Deserializer::from_str(yaml).enumerate() {
        let value = Value::deserialize(doc).with_context(|| format!("document {}", index + 1))?;
        let body = match value {
            Value::Null => continue,
            Value::Mapping(m) => m,
            _ => bail!(
                "document {} is not a Kubernetes object (a mapping)",
                index + 1
            ),
        };
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let Some(kind) = text(body.get("kind")) else {
            bail!("document {} has no kind", index + 1);
        };
        if text(body.get("apiVersion")).is_none() {
            bail!("document {} ({kind}) has no apiVersion", index + 1);
        }
        let name = text(body.get("metadata").and_then(|m| m.get("name")))
            .filter(|n| !n.is_empty())
            .with_context(|| format!("document {} ({kind}) has no metadata.name", index + 1))?;
        out.push(Object { kind, name, body });
    }
    if out.is_empty() {
        bail!("kustomize rendered no objects");
    }
    Ok(out)
}

/// The condition an object is installed under (none: always).
pub(super) fn condition(object: &Object) -> Option<&'static str> {
    let name = object.name.as_str();
    let is = |suffix: &str| name.ends_with(suffix);
    match object.kind.as_str() {
        "CustomResourceDefinition" => Some(".Values.crd.enable"),
        "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration" => {
            Some(".Values.webhook.enable")
        }
        "Issuer" | "ClusterIssuer" => Some(".Values.certManager.enable"),
        "Certificate" => {
            let secret = get(&object.body, &["spec", "secretName"])
                .and_then(Value::as_str)
                .unwrap_or("");
            if name.contains("metrics") || secret.contains("metrics") {
                Some("and .Values.certManager.enable .Values.metrics.enable")
            } else {
                Some("and .Values.certManager.enable .Values.webhook.enable")
            }
        }
        "Service" if name.contains("metrics") => Some(".Values.metrics.enable"),
        "Service" if name.contains("webhook") => Some(".Values.webhook.enable"),
        "ClusterRole" | "ClusterRoleBinding" | "Role" | "RoleBinding" => {
            if is("metrics-auth-role") || is("metrics-auth-rolebinding") {
                Some("and .Values.metrics.enable .Values.metrics.secure")
            } else if is("metrics-reader") {
                Some(".Values.metrics.enable")
            } else if name.contains("webhook-cert-") {
                // What the manager needs to keep the webhook certificate itself.
                Some(super::certs::KEPT)
            } else if is("-admin-role") || is("-editor-role") || is("-viewer-role") {
                Some(".Values.rbacHelpers.enable")
            } else {
                None
            }
        }
        "ServiceMonitor" => Some("and .Values.prometheus.enable .Values.metrics.enable"),
        "NetworkPolicy" => Some(".Values.networkPolicy.enable"),
        _ => None,
    }
}

/// The templates directory an object's file goes to.
pub(super) fn group(object: &Object) -> &'static str {
    match object.kind.as_str() {
        "CustomResourceDefinition" => "crd",
        "ServiceAccount" | "Role" | "ClusterRole" | "RoleBinding" | "ClusterRoleBinding" => "rbac",
        "Deployment" | "StatefulSet" | "DaemonSet" => "manager",
        "MutatingWebhookConfiguration" | "ValidatingWebhookConfiguration" => "webhook",
        "Issuer" | "ClusterIssuer" | "Certificate" => "cert-manager",
        "Service" if object.name.contains("webhook") => "webhook",
        "Service" if object.name.contains("metrics") => "metrics",
        "ServiceMonitor" => "prometheus",
        "NetworkPolicy" => "network-policy",
        _ => "other",
    }
}

/// Every string of the object that names the render's namespace names the release's:
/// `namespace:` fields, `<service>.<namespace>.svc` DNS names, cert-manager's
/// `<namespace>/<certificate>` annotation.
fn release_namespace(value: &mut Value, ns: &str, marker: &str, under_namespace_key: bool) {
    match value {
        Value::String(text) => {
            if under_namespace_key && text == ns {
                *text = marker.to_string();
            } else if text.contains(&format!(".{ns}.svc")) {
                *text = text.replace(&format!(".{ns}.svc"), &format!(".{marker}.svc"));
            }
        }
        Value::Mapping(map) => {
            for (k, v) in map.iter_mut() {
                release_namespace(v, ns, marker, k.as_str() == Some("namespace"));
            }
        }
        Value::Sequence(items) => {
            for v in items {
                release_namespace(v, ns, marker, false);
            }
        }
        _ => {}
    }
}

pub(super) const INJECT_CA: &str = "cert-manager.io/inject-ca-from";
/// Labels the chart's helper sets on every object (the render's values of them are dropped).
const CHART_LABELS: &[&str] = &[
    "app.kubernetes.io/managed-by",
    "app.kubernetes.io/instance",
    "helm.sh/chart",
];

/// The namespace the render puts its objects in: its Namespace's, or the first an object
/// names.
pub(super) fn render_namespace(objects: &[Object]) -> Option<String> {
    objects
        .iter()
        .find(|o| o.kind == "Namespace")
        .map(|o| o.name.clone())
        .or_else(|| {
            objects.iter().find_map(|o| {
                get(&o.body, &["metadata", "namespace"])
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
        })
}

/// The template of one object, after `header`: the release's namespace for the render's
/// (`namespace`), Helm's labels for kustomize's, cert-manager's annotation under its switch,
/// the CRDs kept on uninstall, the Deployment and the metrics Service taking the values (the
/// Deployment's settings go to `defaults`), and the whole under the object's condition.
pub(super) fn template(
    object: &Object,
    namespace: Option<&str>,
    labels_helper: &str,
    header: &str,
    defaults: &mut Defaults,
) -> Result<String> {
    let mut tpl = Tpl::default();
    let ns_marker = tpl.marker("{{ .Release.Namespace }}");
    let mut body = object.body.clone();
    if let Some(ns) = namespace {
        let mut value = Value::Mapping(body);
        release_namespace(&mut value, ns, &ns_marker, false);
        let Value::Mapping(m) = value else {
            unreachable!()
        };
        body = m;
    }
    let metadata = body
        .get_mut("metadata")
        .and_then(Value::as_mapping_mut)
        .context("metadata is not a mapping")?;
    // Helm's labels in place of kustomize's.
    if !matches!(metadata.get("labels"), Some(Value::Mapping(_))) {
        insert_after(
            metadata,
            "name",
            s("labels"),
            Value::Mapping(Mapping::new()),
        );
    }
    let labels = metadata
        .get_mut("labels")
        .and_then(Value::as_mapping_mut)
        .expect("just made");
    for label in CHART_LABELS {
        labels.remove(*label);
    }
    let old = std::mem::take(labels);
    labels.insert(
        tpl.key(format!(
            "{{{{- include \"{labels_helper}\" . | nindent {{indent}} }}}}"
        )),
        Value::Null,
    );
    labels.extend(old);
    if let Some(Value::Mapping(annotations)) = metadata.get_mut("annotations") {
        if let Some(Value::String(from)) = annotations.get_mut(INJECT_CA)
            && let Some(ns) = namespace
            && let Some(rest) = from.strip_prefix(&format!("{ns}/"))
        {
            *from = format!("{ns_marker}/{rest}");
        }
        if annotations.len() == 1 && annotations.contains_key(INJECT_CA) {
            wrap_key(
                metadata,
                "annotations",
                ".Values.certManager.enable",
                &mut tpl,
            );
        } else {
            wrap_key(
                annotations,
                INJECT_CA,
                ".Values.certManager.enable",
                &mut tpl,
            );
        }
    }
    if object.kind == "CustomResourceDefinition" {
        let metadata = body
            .get_mut("metadata")
            .and_then(Value::as_mapping_mut)
            .expect("checked");
        if !metadata.contains_key("annotations") {
            insert_after(
                metadata,
                "labels",
                s("annotations"),
                Value::Mapping(Mapping::new()),
            );
        }
        if let Some(Value::Mapping(annotations)) = metadata.get_mut("annotations") {
            annotations.insert(tpl.key("{{- if .Values.crd.keep }}"), Value::Null);
            annotations.insert(s("helm.sh/resource-policy"), s("keep"));
            annotations.insert(tpl.key("{{- end }}"), Value::Null);
        }
    }
    if object.kind == "Deployment" {
        deployment(&mut body, &mut tpl, defaults)
            .with_context(|| format!("templating deployment {}", object.name))?;
    }
    if object.kind == "Service" && group(object) == "metrics" {
        metrics_service(&mut body, &mut tpl);
    }
    let text = tpl
        .render(&Value::Mapping(body))
        .with_context(|| format!("{} {}", object.kind, object.name))?;
    Ok(match condition(object) {
        Some(c) => format!("{header}{{{{- if {c} }}}}\n{text}{{{{- end }}}}\n"),
        None => format!("{header}{text}"),
    })
}

/// The metrics Service: its port from the values, named for what it serves.
fn metrics_service(body: &mut Mapping, tpl: &mut Tpl) {
    if let Some(Value::Sequence(ports)) = get_mut(body, &["spec", "ports"]) {
        for port in ports.iter_mut().filter_map(Value::as_mapping_mut) {
            port.insert(s("port"), s(&tpl.marker("{{ .Values.metrics.port }}")));
            port.insert(
                s("targetPort"),
                s(&tpl.marker("{{ .Values.metrics.port }}")),
            );
            if port.contains_key("name") {
                port.insert(
                    s("name"),
                    s(&tpl.marker("{{ ternary \"https\" \"http\" .Values.metrics.secure }}")),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::helm::fixture::chart;

    /// A namespace-scoped manager's render (`cargo operator init --namespaced`): its Role and
    /// RoleBinding go to the release's namespace, the Role's rules as they were.
    #[test]
    fn a_namespaced_managers_role_and_binding_are_in_the_release_namespace() {
        use crate::helm::fixture::{RENDER, meta};
        let binding = "kind: ClusterRoleBinding\nmetadata:\n  name: demo-manager-rolebinding\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: demo-manager-role}\n";
        assert!(RENDER.contains(binding));
        let render = RENDER.replace(
            binding,
            "kind: RoleBinding\nmetadata:\n  name: demo-manager-rolebinding\n  namespace: demo-system\n\
             roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: demo-manager-role}\n",
        ) + "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  \
             name: demo-manager-role\n  namespace: demo-system\nrules:\n- apiGroups: [example.com]\n  \
             resources: [widgets]\n  verbs: [get, list, watch]\n";
        let chart = crate::helm::chart_from_render(&render, &meta()).unwrap();
        let role = &chart.files["templates/rbac/demo-manager-role.yaml"];
        assert!(
            role.contains("kind: Role\nmetadata:\n  name: demo-manager-role\n")
                && role.contains("\n  namespace: {{ .Release.Namespace }}\nrules:\n"),
            "{role}"
        );
        assert!(role.contains("  - widgets\n"), "{role}");
        let binding = &chart.files["templates/rbac/demo-manager-rolebinding.yaml"];
        assert!(
            binding.contains("kind: RoleBinding\n")
                && binding
                    .matches("namespace: {{ .Release.Namespace }}")
                    .count()
                    == 2,
            "{binding}"
        );
        let all: String = chart.files.values().cloned().collect();
        assert!(!all.contains("demo-system"), "{all}");
    }

    #[test]
    fn objects_are_grouped_by_kind_and_the_namespace_is_the_release_s() {
        let chart = chart();
        let names: Vec<&str> = chart.files.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                ".helmignore",
                "Chart.yaml",
                "templates/_helpers.tpl",
                "templates/cert-manager/demo-selfsigned-issuer.yaml",
                "templates/cert-manager/demo-serving-cert.yaml",
                "templates/crd/widgets.example.com.yaml",
                "templates/manager/demo-controller-manager.yaml",
                "templates/metrics/demo-controller-manager-metrics-service.yaml",
                "templates/rbac/demo-controller-manager.yaml",
                "templates/rbac/demo-manager-rolebinding.yaml",
                "templates/rbac/demo-metrics-auth-role.yaml",
                "templates/webhook/demo-validating-webhook-configuration.yaml",
                "templates/webhook/demo-webhook-service.yaml",
                "values.yaml",
            ]
        );
        let all: String = chart.files.values().cloned().collect();
        assert!(!all.contains("demo-system"), "{all}");
        assert!(!all.contains("kustomize"), "{all}");
        let binding = &chart.files["templates/rbac/demo-manager-rolebinding.yaml"];
        assert!(
            binding.contains("  namespace: {{ .Release.Namespace }}\n"),
            "{binding}"
        );
        let cert = &chart.files["templates/cert-manager/demo-serving-cert.yaml"];
        assert!(
            cert.contains("- demo-webhook-service.{{ .Release.Namespace }}.svc\n"),
            "{cert}"
        );
        assert!(
            cert.contains("{{- if and .Values.certManager.enable .Values.webhook.enable }}\n"),
            "{cert}"
        );
        let webhook = &chart.files["templates/webhook/demo-validating-webhook-configuration.yaml"];
        assert!(webhook.starts_with("# Generated by `cargo xtask helm` from config/default"));
        assert!(
            webhook.contains("{{- if .Values.webhook.enable }}\n"),
            "{webhook}"
        );
        assert!(
            webhook.contains(
                "  {{- if .Values.certManager.enable }}\n  annotations:\n    cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/demo-serving-cert\n  {{- end }}\n"
            ),
            "{webhook}"
        );
    }

    #[test]
    fn crds_are_kept_on_uninstall_and_their_text_is_not_a_template() {
        let crd = &chart().files["templates/crd/widgets.example.com.yaml"];
        assert!(crd.contains("{{- if .Values.crd.enable }}\n"), "{crd}");
        assert!(
            crd.contains("    {{- if .Values.crd.keep }}\n    helm.sh/resource-policy: keep\n    {{- end }}\n"),
            "{crd}"
        );
        assert!(
            crd.contains(r#"Templates like {{ "{{" }} .Name }} are text here."#),
            "{crd}"
        );
    }
}
