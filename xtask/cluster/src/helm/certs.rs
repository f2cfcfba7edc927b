//! The webhook certificate's two ways in the chart. A render whose manager keeps the
//! certificate itself (its Deployment's environment names `WEBHOOK_CERT_SECRET`, as
//! config/default does by default) still gets cert-manager as a switch, off by default: this
//! adds, as if rendered, what config/default switched to cert-manager renders (the
//! self-signed Issuer, the serving Certificate for the webhook Service, the CA-injection
//! annotation on the webhook configurations and conversion CRDs, the Secret mounted into
//! the manager and `--webhook-cert-path` pointing at it). The templates then put each way
//! under its side of `certManager.enable` ([`KEPT`], [`ISSUED`]).

use serde_yaml::{Mapping, Value};

use super::objects::{INJECT_CA, Object};
use super::template::{get, get_mut, s};

/// The condition of what the manager needs to keep the certificate itself.
pub(super) const KEPT: &str = "and .Values.webhook.enable (not .Values.certManager.enable)";
/// The condition of what the manager needs to read cert-manager's certificate.
pub(super) const ISSUED: &str = "and .Values.webhook.enable .Values.certManager.enable";
/// Where the manager reads cert-manager's certificate (controller-runtime's default).
const CERT_DIR: &str = "/tmp/k8s-webhook-server/serving-certs";
/// The volume the Secret is mounted from.
const VOLUME: &str = "webhook-certs";

/// What the manager's environment says about the certificate it keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Kept {
    /// The Secret it keeps the certificate in (cert-manager writes the same one).
    pub(super) secret: String,
    /// The webhook Service the certificate is for.
    pub(super) service: String,
    /// CRDs whose conversion webhook trusts it.
    pub(super) conversion_crds: Vec<String>,
}

/// The manager container's environment value `name`, if set literally.
pub(super) fn env_value(container: &Mapping, name: &str) -> Option<String> {
    container
        .get("env")?
        .as_sequence()?
        .iter()
        .find(|e| e.get("name").and_then(Value::as_str) == Some(name))?
        .get("value")?
        .as_str()
        .map(str::to_string)
}

/// Which of a pod's containers is the manager: the only one, or the one named `manager`.
fn manager_index(containers: &[Value]) -> Option<usize> {
    let single = containers.len() == 1;
    containers
        .iter()
        .position(|c| single || c.get("name").and_then(Value::as_str) == Some("manager"))
}

fn manager_container(body: &mut Mapping) -> Option<&mut Mapping> {
    let containers =
        get_mut(body, &["spec", "template", "spec", "containers"])?.as_sequence_mut()?;
    let at = manager_index(containers)?;
    containers[at].as_mapping_mut()
}

/// The manager container of a Deployment's body, to read.
fn manager_container_of(body: &Mapping) -> Option<&Mapping> {
    let containers = get(body, &["spec", "template", "spec", "containers"])?.as_sequence()?;
    containers[manager_index(containers)?].as_mapping()
}

/// Whether the render's manager keeps the certificate itself, and where.
pub(super) fn kept(objects: &[Object]) -> Option<Kept> {
    let deployment = objects.iter().find(|o| o.kind == "Deployment")?;
    let container = manager_container_of(&deployment.body)?;
    let secret = env_value(container, "WEBHOOK_CERT_SECRET").filter(|s| !s.is_empty())?;
    let service =
        env_value(container, "WEBHOOK_SERVICE").unwrap_or_else(|| "webhook-service".into());
    let conversion_crds = env_value(container, "WEBHOOK_CONVERSION_CRDS")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect();
    Some(Kept {
        secret,
        service,
        conversion_crds,
    })
}

/// Adds cert-manager's way beside the kept one (see the module's documentation). `namespace`
/// is the render's.
pub(super) fn add_cert_manager_way(objects: &mut Vec<Object>, kept: &Kept, namespace: &str) {
    // config/default's names: kustomize's prefix is what precedes the Service's own name.
    let prefix = kept
        .service
        .strip_suffix("webhook-service")
        .unwrap_or_default()
        .to_string();
    let issuer = format!("{prefix}selfsigned-issuer");
    let certificate = format!("{prefix}serving-cert");
    let service = &kept.service;
    let yaml = format!(
        "apiVersion: cert-manager.io/v1\n\
         kind: Issuer\n\
         metadata:\n  name: {issuer}\n  namespace: {namespace}\n\
         spec:\n  selfSigned: {{}}\n\
         ---\n\
         apiVersion: cert-manager.io/v1\n\
         kind: Certificate\n\
         metadata:\n  name: {certificate}\n  namespace: {namespace}\n\
         spec:\n\
         \x20 dnsNames:\n\
         \x20 - {service}.{namespace}.svc\n\
         \x20 - {service}.{namespace}.svc.cluster.local\n\
         \x20 issuerRef:\n    kind: Issuer\n    name: {issuer}\n\
         \x20 secretName: {secret}\n",
        secret = kept.secret,
    );
    let mut added = super::objects::parse(&yaml).expect("cert-manager's objects are well formed");
    // Labelled as the webhook Service is (kustomize's common labels), keys in kustomize's
    // order.
    let labels = objects
        .iter()
        .find(|o| o.kind == "Service" && o.name == kept.service)
        .and_then(|o| o.body.get("metadata")?.get("labels").cloned());
    if let Some(labels) = labels {
        for object in &mut added {
            if let Some(Value::Mapping(metadata)) = object.body.get_mut("metadata") {
                let mut ordered = Mapping::new();
                ordered.insert(s("labels"), labels.clone());
                ordered.extend(std::mem::take(metadata));
                *metadata = ordered;
            }
        }
    }
    let inject = format!("{namespace}/{certificate}");
    for object in objects.iter_mut() {
        let injected = object.kind.ends_with("WebhookConfiguration")
            || (object.kind == "CustomResourceDefinition"
                && kept.conversion_crds.contains(&object.name));
        if injected && let Some(Value::Mapping(metadata)) = object.body.get_mut("metadata") {
            if !metadata.contains_key("annotations") {
                // First, where kustomize writes it.
                let mut ordered = Mapping::new();
                ordered.insert(s("annotations"), Value::Mapping(Mapping::new()));
                ordered.extend(std::mem::take(metadata));
                *metadata = ordered;
            }
            if let Some(Value::Mapping(annotations)) = metadata.get_mut("annotations") {
                annotations.insert(s(INJECT_CA), s(&inject));
            }
        }
        if object.kind == "Deployment" {
            mount_the_secret(&mut object.body, &kept.secret);
        }
    }
    objects.extend(added);
}

/// The manager reads the certificate from the Secret mounted at controller-runtime's
/// directory, as `manager_webhook_certmanager_patch.yaml` does.
fn mount_the_secret(body: &mut Mapping, secret: &str) {
    if let Some(container) = manager_container(body) {
        let push = |container: &mut Mapping, key: &str, item: Value| {
            if !matches!(container.get(key), Some(Value::Sequence(_))) {
                container.insert(s(key), Value::Sequence(Vec::new()));
            }
            if let Some(Value::Sequence(list)) = container.get_mut(key) {
                list.push(item);
            }
        };
        push(
            container,
            "args",
            s(&format!("--webhook-cert-path={CERT_DIR}")),
        );
        let mut mount = Mapping::new();
        mount.insert(s("mountPath"), s(CERT_DIR));
        mount.insert(s("name"), s(VOLUME));
        mount.insert(s("readOnly"), Value::Bool(true));
        push(container, "volumeMounts", Value::Mapping(mount));
    }
    if let Some(Value::Mapping(pod)) = get_mut(body, &["spec", "template", "spec"]) {
        if !matches!(pod.get("volumes"), Some(Value::Sequence(_))) {
            pod.insert(s("volumes"), Value::Sequence(Vec::new()));
        }
        let mut source = Mapping::new();
        source.insert(s("secretName"), s(secret));
        let mut volume = Mapping::new();
        volume.insert(s("name"), s(VOLUME));
        volume.insert(s("secret"), Value::Mapping(source));
        if let Some(Value::Sequence(volumes)) = pod.get_mut("volumes") {
            volumes.push(Value::Mapping(volume));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::helm::fixture::kept_chart;

    #[test]
    fn a_manager_that_keeps_its_certificate_gets_cert_manager_as_a_switch_off_by_default() {
        let chart = kept_chart();
        let values = &chart.files["values.yaml"];
        assert!(
            values.contains("certManager:\n  enable: false\n"),
            "{values}"
        );
        // cert-manager's objects, added under its switch, for the release's Service name.
        let certificate = &chart.files["templates/cert-manager/demo-serving-cert.yaml"];
        assert!(
            certificate
                .contains("{{- if and .Values.certManager.enable .Values.webhook.enable }}\n"),
            "{certificate}"
        );
        assert!(
            certificate.contains("  - demo-webhook-service.{{ .Release.Namespace }}.svc\n"),
            "{certificate}"
        );
        assert!(certificate.contains("  secretName: webhook-server-cert\n"));
        assert!(
            chart.files["templates/cert-manager/demo-selfsigned-issuer.yaml"]
                .contains("{{- if .Values.certManager.enable }}\n")
        );
        let webhook = &chart.files["templates/webhook/demo-validating-webhook-configuration.yaml"];
        assert!(
            webhook.contains(
                "  {{- if .Values.certManager.enable }}\n  annotations:\n    cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/demo-serving-cert\n  {{- end }}\n"
            ),
            "{webhook}"
        );
        // The manager: its own way when off, cert-manager's mounted Secret when on.
        let manager = &chart.files["templates/manager/demo-controller-manager.yaml"];
        for expected in [
            "        {{- if and .Values.webhook.enable (not .Values.certManager.enable) }}\n        - name: WEBHOOK_CERT_SECRET\n          value: webhook-server-cert\n        {{- end }}\n",
            "        {{- if and .Values.webhook.enable .Values.certManager.enable }}\n        - --webhook-cert-path=/tmp/k8s-webhook-server/serving-certs\n        {{- end }}\n",
            "        {{- if and .Values.webhook.enable .Values.certManager.enable }}\n        - mountPath: /tmp/k8s-webhook-server/serving-certs\n",
            "      {{- if and .Values.webhook.enable .Values.certManager.enable }}\n      - name: webhook-certs\n        secret:\n          secretName: webhook-server-cert\n",
        ] {
            assert!(manager.contains(expected), "{expected}\nnot in\n{manager}");
        }
        // Its RBAC for the Secret and the configurations goes with its own way.
        let role = &chart.files["templates/rbac/demo-webhook-cert-role.yaml"];
        assert!(
            role.starts_with(
                "# Generated by `cargo xtask helm` from config/default: edit that, not this, and run it again.\n{{- if and .Values.webhook.enable (not .Values.certManager.enable) }}\n"
            ),
            "{role}"
        );
    }
}
