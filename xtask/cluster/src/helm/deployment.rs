//! The operator's Deployment, the one object whose template takes most of the values: the
//! replicas, the image, the arguments kubebuilder's switches are about, resources, the
//! certificates' volumes, and the pod's scheduling settings. Its settings in the render are
//! the values' defaults.

use anyhow::{Context as _, Result};
use serde_yaml::{Mapping, Value};

use super::template::{Tpl, get, get_mut, insert_after, s, wrap_items};
use super::values::Defaults;

/// The operator's Deployment: replicas, image, arguments, resources and the certificate
/// volumes from the values; reads their defaults from the render.
pub(super) fn deployment(body: &mut Mapping, tpl: &mut Tpl, defaults: &mut Defaults) -> Result<()> {
    defaults.replicas = get(body, &["spec", "replicas"])
        .and_then(Value::as_i64)
        .unwrap_or(1);
    if let Some(spec) = body.get_mut("spec").and_then(Value::as_mapping_mut) {
        spec.insert(
            s("replicas"),
            s(&tpl.marker("{{ .Values.manager.replicas }}")),
        );
    }
    let pod = get_mut(body, &["spec", "template", "spec"])
        .and_then(Value::as_mapping_mut)
        .context("no spec.template.spec")?;
    let containers = pod
        .get_mut("containers")
        .and_then(Value::as_sequence_mut)
        .context("no containers")?;
    let index = containers
        .iter()
        .position(|c| c.get("name").and_then(Value::as_str) == Some("manager"))
        .or((containers.len() == 1).then_some(0))
        .context("no container named manager (the one config/manager's Deployment has)")?;
    let container = containers[index]
        .as_mapping_mut()
        .context("the manager container is not a mapping")?;

    container.insert(
        s("image"),
        s(&tpl.marker(
            "\"{{ .Values.manager.image.repository }}:{{ .Values.manager.image.tag | default .Chart.AppVersion }}\"",
        )),
    );
    insert_after(
        container,
        "image",
        s("imagePullPolicy"),
        s(&tpl.marker("{{ .Values.manager.image.pullPolicy }}")),
    );

    // A manager that keeps its webhook certificate itself has cert-manager's way beside its
    // own (`certs`): each under its side of the switch.
    let kept = super::certs::env_value(container, "WEBHOOK_CERT_SECRET").is_some();
    let (own_way, files_way) = if kept {
        (super::certs::KEPT, super::certs::ISSUED)
    } else {
        (".Values.webhook.enable", ".Values.webhook.enable")
    };

    // The arguments kubebuilder's switches are about, each in its place under its condition.
    let mut args: Vec<Value> = Vec::new();
    let mut webhook_cert_path = None;
    let mut metrics_cert_path = None;
    let (mut saw_metrics, mut saw_leader) = (false, false);
    defaults.metrics_secure = true;
    defaults.metrics_port = 8443;
    let arg_list: Vec<String> = container
        .get("args")
        .and_then(Value::as_sequence)
        .into_iter()
        .flatten()
        .filter_map(|a| a.as_str().map(str::to_string))
        .collect();
    let metrics_args = |tpl: &mut Tpl, args: &mut Vec<Value>| {
        args.push(s(&tpl.marker("{{- if .Values.metrics.enable }}")));
        args.push(s(
            &tpl.marker("- --metrics-bind-address=:{{ .Values.metrics.port }}")
        ));
        args.push(s(&tpl.marker("{{- if not .Values.metrics.secure }}")));
        args.push(s("--metrics-secure=false"));
        args.push(s(&tpl.marker("{{- end }}")));
        args.push(s(&tpl.marker("{{- end }}")));
    };
    let leader_args = |tpl: &mut Tpl, args: &mut Vec<Value>| {
        args.push(s(&tpl.marker("{{- if .Values.manager.leaderElection }}")));
        args.push(s("--leader-elect"));
        args.push(s(&tpl.marker("{{- end }}")));
    };
    for arg in &arg_list {
        let (flag, value) = arg.split_once('=').unwrap_or((arg.as_str(), ""));
        match flag {
            "--metrics-bind-address" => {
                let port = value.strip_prefix(':').and_then(|p| p.parse::<u16>().ok());
                defaults.metrics = port.is_some_and(|p| p != 0);
                if let Some(p) = port.filter(|p| *p != 0) {
                    defaults.metrics_port = p;
                }
                if !saw_metrics {
                    metrics_args(tpl, &mut args);
                }
                saw_metrics = true;
            }
            "--metrics-secure" => defaults.metrics_secure = value != "false",
            "--leader-elect" => {
                defaults.leader_election = value != "false";
                leader_args(tpl, &mut args);
                saw_leader = true;
            }
            "--webhook-cert-path" => {
                webhook_cert_path = Some(value.to_string());
                args.push(s(&tpl.marker(format!("{{{{- if {files_way} }}}}"))));
                args.push(s(arg));
                args.push(s(&tpl.marker("{{- end }}")));
            }
            "--metrics-cert-path" => {
                metrics_cert_path = Some(value.to_string());
                args.push(s(&tpl.marker(
                    "{{- if and .Values.metrics.enable .Values.certManager.enable }}",
                )));
                args.push(s(arg));
                args.push(s(&tpl.marker("{{- end }}")));
            }
            _ => args.push(s(arg)),
        }
    }
    if !saw_metrics {
        metrics_args(tpl, &mut args);
    }
    if !saw_leader {
        leader_args(tpl, &mut args);
    }
    args.push(s(&tpl.marker(
        "{{- range .Values.manager.args }}\n- {{ . | quote }}\n{{- end }}",
    )));
    container.insert(s("args"), Value::Sequence(args));

    // Environment: the render's (the webhook server's settings under its switch), then the
    // values'.
    let mut env = container
        .get("env")
        .and_then(Value::as_sequence)
        .cloned()
        .unwrap_or_default();
    wrap_items(&mut env, own_way, tpl, |e| {
        e.get("name")
            .and_then(Value::as_str)
            .is_some_and(|n| n.starts_with("WEBHOOK_"))
    });
    env.push(s(&tpl.marker(
        "{{- with .Values.manager.env }}\n{{- toYaml . | nindent {indent} }}\n{{- end }}",
    )));
    container.insert(s("env"), Value::Sequence(env));

    defaults.resources = container
        .get("resources")
        .cloned()
        .unwrap_or(Value::Mapping(Mapping::new()));
    container.insert(
        s("resources"),
        s(&tpl.marker("{{- toYaml .Values.manager.resources | nindent {indent2} }}")),
    );
    if let Some(Value::Sequence(ports)) = container.get_mut("ports") {
        wrap_items(ports, ".Values.webhook.enable", tpl, |p| {
            p.get("name").and_then(Value::as_str) == Some("webhook-server")
        });
    }

    // The certificates' volumes go with what uses them.
    let mut volume_conditions: Vec<(String, &str)> = Vec::new();
    if let Some(Value::Sequence(mounts)) = container.get_mut("volumeMounts") {
        for (path, cond) in [
            (&webhook_cert_path, files_way),
            (
                &metrics_cert_path,
                "and .Values.metrics.enable .Values.certManager.enable",
            ),
        ] {
            let Some(path) = path else { continue };
            for m in mounts.iter() {
                if m.get("mountPath").and_then(Value::as_str) == Some(path.as_str())
                    && let Some(name) = m.get("name").and_then(Value::as_str)
                {
                    volume_conditions.push((name.to_string(), cond));
                }
            }
            wrap_items(mounts, cond, tpl, |m| {
                m.get("mountPath").and_then(Value::as_str) == Some(path.as_str())
            });
        }
    }
    if let Some(Value::Sequence(volumes)) = pod.get_mut("volumes") {
        for (name, cond) in &volume_conditions {
            wrap_items(volumes, cond, tpl, |v| {
                v.get("name").and_then(Value::as_str) == Some(name.as_str())
            });
        }
    }
    for key in [
        "imagePullSecrets",
        "nodeSelector",
        "affinity",
        "tolerations",
    ] {
        pod.insert(
            tpl.key(format!(
                "{{{{- with .Values.manager.{key} }}}}\n{key}: {{{{- toYaml . | nindent {{indent2}} }}}}\n{{{{- end }}}}"
            )),
            Value::Null,
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::helm::fixture::chart;

    #[test]
    fn the_deployment_takes_the_values() {
        let chart = chart();
        let manager = &chart.files["templates/manager/demo-controller-manager.yaml"];
        for expected in [
            "  replicas: {{ .Values.manager.replicas }}\n",
            "        image: \"{{ .Values.manager.image.repository }}:{{ .Values.manager.image.tag | default .Chart.AppVersion }}\"\n",
            "        imagePullPolicy: {{ .Values.manager.image.pullPolicy }}\n",
            "        {{- if .Values.metrics.enable }}\n        - --metrics-bind-address=:{{ .Values.metrics.port }}\n        {{- if not .Values.metrics.secure }}\n        - --metrics-secure=false\n        {{- end }}\n        {{- end }}\n        {{- if .Values.manager.leaderElection }}\n        - --leader-elect\n        {{- end }}\n        - --health-probe-bind-address=:8081\n        {{- if .Values.webhook.enable }}\n        - --webhook-cert-path=/tmp/k8s-webhook-server/serving-certs\n        {{- end }}\n        {{- range .Values.manager.args }}\n        - {{ . | quote }}\n        {{- end }}\n",
            "        resources: {{- toYaml .Values.manager.resources | nindent 10 }}\n",
            "        {{- if .Values.webhook.enable }}\n        - containerPort: 9443\n",
            "      {{- if .Values.webhook.enable }}\n      - name: webhook-certs\n",
            "      {{- with .Values.manager.tolerations }}\n      tolerations: {{- toYaml . | nindent 8 }}\n      {{- end }}\n",
            "    {{- include \"demo-operator.labels\" . | nindent 4 }}\n    control-plane: controller-manager\n",
        ] {
            assert!(manager.contains(expected), "{expected}\nnot in\n{manager}");
        }
    }
}
