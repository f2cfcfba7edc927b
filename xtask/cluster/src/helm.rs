//! `cargo xtask helm [--check]`: a Helm chart made from the rendered `config/default`, the
//! same objects `cargo xtask deploy` applies, for those who ship operators with Helm (what
//! kubebuilder's `helm/v2-alpha` plugin does for a Go project).
//!
//! The chart (`dist/chart` by default) is generated, like the files under `config/`: every run
//! writes it anew, and `--check` writes nothing and fails with a diff when the committed chart
//! is not what the render gives. Its parts:
//!
//! - `Chart.yaml`: the project's name, the operator package's version as the chart's version
//!   and appVersion.
//! - `values.yaml`: the render's settings as defaults: the image (`cargo xtask image`'s
//!   reference, `<project-name>:<version>`), replicas, resources, leader election, metrics
//!   (on or off, secure or not, the port), webhooks on or off, cert-manager on or off, the
//!   CRDs (installed, kept on uninstall), the CRDs' admin/editor/viewer roles.
//! - `templates/`, one file per object, grouped by what it is for (`crd/`, `rbac/`,
//!   `manager/`, `metrics/`, `webhook/`, `cert-manager/`): the rendered objects with the
//!   release's namespace wherever the render had its own, the values where the render had
//!   their defaults, and conditions around what a switch turns off. The CRDs carry
//!   `helm.sh/resource-policy: keep` (while `crd.keep`), so `helm uninstall` leaves them and
//!   the custom resources stored under them.
//!
//! The render's Namespace is not in the chart: Helm installs into a namespace that exists
//! (`--create-namespace` makes a plain one); label it as config/default's Namespace is
//! labelled (the restricted Pod Security Standard) yourself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context as _, Result, bail};
use clap::Args;
use serde::Deserialize as _;
use serde_yaml::{Mapping, Value};

/// Where `cargo xtask helm` writes the chart, relative to the project root.
pub const CHART_DIR: &str = "dist/chart";

/// `cargo xtask helm` arguments.
#[derive(Args, Debug, Clone)]
pub struct HelmArgs {
    /// Write nothing; exit 1 with a diff when the chart is stale.
    #[arg(long)]
    pub check: bool,
    /// The kustomize directory the chart is made from, relative to the project root.
    #[arg(long, value_name = "DIR", default_value = "config/default")]
    pub config: PathBuf,
    /// Where the chart goes, relative to the project root.
    #[arg(long, value_name = "DIR", default_value = CHART_DIR)]
    pub out: PathBuf,
}

/// A generated chart: each file's path under the chart's directory and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chart {
    pub files: BTreeMap<String, String>,
}

/// What the project is called and which version it is (`Chart.yaml`, the image's default).
#[derive(Debug, Clone)]
pub struct ChartMeta {
    /// PROJECT.toml's `project-name`: the chart's name and the image's repository.
    pub name: String,
    /// The operator package's version: the chart's version and appVersion, the image's tag.
    pub version: String,
    /// The kustomize directory, for the generated files' headers and messages.
    pub source: String,
}

/// Renders `config` (relative to `root`) with kustomize and makes the chart of it.
pub fn generate(root: &Path, config: &Path) -> Result<Chart> {
    let dir = root.join(config);
    if !["kustomization.yaml", "kustomization.yml", "Kustomization"]
        .iter()
        .any(|k| dir.join(k).is_file())
    {
        bail!(
            "{} has no kustomization.yaml: the chart is made from a kustomize directory of the \
             project (config/default, which `cargo xtask deploy` applies)",
            dir.display()
        );
    }
    let reference = crate::image::default_reference(root)?;
    let (name, version) = reference
        .rsplit_once(':')
        .with_context(|| format!("the image reference {reference} has no tag"))?;
    eprintln!("==> kustomize build {}", config.display());
    let yaml = envtest::kustomize::build(&dir)?;
    let meta = ChartMeta {
        name: name.to_string(),
        version: version.to_string(),
        source: config.display().to_string(),
    };
    chart_from_render(&yaml, &meta).with_context(|| {
        format!(
            "making a chart of what kustomize rendered from {}",
            dir.display()
        )
    })
}

/// `cargo xtask helm [--check]`.
pub fn command(args: &HelmArgs) -> Result<ExitCode> {
    let root = operator_xtask::root();
    let chart = generate(&root, &args.config)?;
    let out = root.join(&args.out);
    if args.check {
        let drift = compare(&chart, &out, &args.out)?;
        if drift.is_empty() {
            eprintln!(
                "{} is up to date ({} files)",
                args.out.display(),
                chart.files.len()
            );
            return Ok(ExitCode::SUCCESS);
        }
        for d in &drift {
            eprintln!("{d}");
        }
        eprintln!(
            "the chart is stale: run `cargo xtask helm` and commit {}",
            args.out.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    write(&chart, &out)?;
    eprintln!("wrote {} ({} files)", args.out.display(), chart.files.len());
    Ok(ExitCode::SUCCESS)
}

/// How the chart at `dir` differs from `chart`: files changed, missing, or no longer
/// generated; each with `shown` (the chart's directory as the user names it) in its path.
pub fn compare(
    chart: &Chart,
    dir: &Path,
    shown: &Path,
) -> Result<Vec<operator_gen::output::Drift>> {
    use operator_gen::output::Drift;
    let mut drift = Vec::new();
    let on_disk = files_under(dir)?;
    for (path, generated) in &chart.files {
        let shown_path = shown.join(path);
        match on_disk.get(path) {
            None => drift.push(Drift::Missing { path: shown_path }),
            Some(committed) if committed != generated => drift.push(Drift::Changed {
                path: shown_path,
                committed: committed.clone(),
                generated: generated.clone(),
            }),
            Some(_) => {}
        }
    }
    for path in on_disk.keys().filter(|p| !chart.files.contains_key(*p)) {
        drift.push(Drift::Stale {
            path: shown.join(path),
        });
    }
    Ok(drift)
}

/// Every file under `dir` (none when it does not exist), by its path relative to `dir`.
fn files_under(dir: &Path) -> Result<BTreeMap<String, String>> {
    fn walk(dir: &Path, rel: &str, out: &mut BTreeMap<String, String>) -> Result<()> {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && rel.is_empty() => {
                return Ok(());
            }
            Err(e) => return Err(e).with_context(|| format!("reading {}", dir.display())),
        };
        for entry in entries {
            let entry = entry.with_context(|| format!("reading {}", dir.display()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if entry.path().is_dir() {
                walk(&entry.path(), &path, out)?;
            } else {
                let text = std::fs::read_to_string(entry.path())
                    .with_context(|| format!("reading {}", entry.path().display()))?;
                out.insert(path, text);
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    walk(dir, "", &mut out)?;
    Ok(out)
}

/// Writes the chart to `dir`, replacing what was there: the whole chart goes to a directory
/// beside it first and is renamed into place, so a failure leaves the old chart whole.
pub fn write(chart: &Chart, dir: &Path) -> Result<()> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    let name = dir
        .file_name()
        .with_context(|| format!("{} names no directory", dir.display()))?
        .to_string_lossy()
        .into_owned();
    let staging = tempfile::Builder::new()
        .prefix(&format!(".{name}.partial-"))
        .tempdir_in(parent)
        .with_context(|| format!("making a staging directory in {}", parent.display()))?;
    for (path, text) in &chart.files {
        let file = staging.path().join(path);
        if let Some(d) = file.parent() {
            std::fs::create_dir_all(d).with_context(|| format!("creating {}", d.display()))?;
        }
        std::fs::write(&file, text).with_context(|| format!("writing {}", file.display()))?;
    }
    let staged = staging.keep();
    // Directories from tempfile are 0700; a chart is as readable as the rest of the tree.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("setting the mode of {}", staged.display()))?;
    }
    let old = parent.join(format!(".{name}.old-{}", std::process::id()));
    let had_old = dir.exists();
    if had_old {
        std::fs::rename(dir, &old).with_context(|| format!("moving {} aside", dir.display()))?;
    }
    if let Err(e) = std::fs::rename(&staged, dir) {
        if had_old {
            let _ = std::fs::rename(&old, dir);
        }
        let _ = std::fs::remove_dir_all(&staged);
        return Err(e).with_context(|| format!("moving the new chart to {}", dir.display()));
    }
    if had_old {
        std::fs::remove_dir_all(&old)
            .with_context(|| format!("removing the old chart at {}", old.display()))?;
    }
    Ok(())
}

/// One object of the render.
struct Object {
    kind: String,
    name: String,
    body: Mapping,
}

/// Parses kustomize's output: each document a mapping with apiVersion, kind and metadata.name.
fn parse(yaml: &str) -> Result<Vec<Object>> {
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

/// Template text with placeholders: a marker (`__HELM_<n>__`) stands where a template
/// directive goes, so that the objects can be written as YAML first. A marker alone on its
/// line (a mapping key with no value, or a list item) becomes the directive's lines; one
/// inside a line is replaced by the directive. `{indent}` in a directive is the line's
/// indentation, `{indent2}` two more.
#[derive(Default)]
struct Tpl {
    directives: Vec<String>,
}

impl Tpl {
    fn marker(&mut self, directive: impl Into<String>) -> String {
        self.directives.push(directive.into());
        format!("__HELM_{}__", self.directives.len() - 1)
    }

    /// A mapping key that stands for its directive's lines.
    fn key(&mut self, directive: impl Into<String>) -> Value {
        Value::String(self.marker(directive))
    }

    /// The text of `value`, markers replaced, `{{` of the objects' own text escaped.
    fn render(&self, value: &Value) -> Result<String> {
        let yaml = serde_yaml::to_string(value).context("writing a template")?;
        let yaml = yaml.replace("{{", "{{ \"{{\" }}");
        let mut out = String::new();
        for line in yaml.lines() {
            let body = line.trim_start();
            let indent = line.len() - body.len();
            let alone = body
                .strip_suffix(": null")
                .or_else(|| body.strip_prefix("- "))
                .and_then(|m| {
                    let (n, end, start) = self.index(m)?;
                    (start == 0 && end == m.len()).then_some(n)
                });
            let fill = |d: &str| {
                d.replace("{indent}", &indent.to_string())
                    .replace("{indent2}", &(indent + 2).to_string())
            };
            match alone {
                Some(n) => {
                    for l in fill(&self.directives[n]).lines() {
                        out.push_str(&" ".repeat(indent));
                        out.push_str(l);
                        out.push('\n');
                    }
                }
                None => {
                    let mut rest = line;
                    while let Some((n, end, start)) = self.index(rest) {
                        out.push_str(&rest[..start]);
                        out.push_str(&fill(&self.directives[n]));
                        rest = &rest[end..];
                    }
                    out.push_str(rest);
                    out.push('\n');
                }
            }
        }
        if out.contains("__HELM_") {
            bail!("a placeholder was left in a template (an object's text has `__HELM_`)");
        }
        Ok(out)
    }

    /// The first marker in `s`: its number, where it ends and where it starts.
    fn index(&self, s: &str) -> Option<(usize, usize, usize)> {
        let mut from = 0;
        while let Some(at) = s[from..].find("__HELM_") {
            let start = from + at;
            let digits = &s[start + 7..];
            let len = digits.chars().take_while(char::is_ascii_digit).count();
            if len > 0 && digits[len..].starts_with("__") {
                let n: usize = digits[..len].parse().ok()?;
                if n < self.directives.len() {
                    return Some((n, start + 7 + len + 2, start));
                }
            }
            from = start + 7;
        }
        None
    }
}

fn s(v: &str) -> Value {
    Value::String(v.to_string())
}

fn get<'a>(m: &'a Mapping, path: &[&str]) -> Option<&'a Value> {
    let mut v = m.get(path[0])?;
    for k in &path[1..] {
        v = v.get(*k)?;
    }
    Some(v)
}

fn get_mut<'a>(m: &'a mut Mapping, path: &[&str]) -> Option<&'a mut Value> {
    let mut v = m.get_mut(path[0])?;
    for k in &path[1..] {
        v = v.get_mut(*k)?;
    }
    Some(v)
}

/// `map` with `key` between an `if` and its `end` (kept in its place).
fn wrap_key(map: &mut Mapping, key: &str, condition: &str, tpl: &mut Tpl) {
    if !map.contains_key(key) {
        return;
    }
    let old = std::mem::take(map);
    for (k, v) in old {
        if k.as_str() == Some(key) {
            map.insert(tpl.key(format!("{{{{- if {condition} }}}}")), Value::Null);
            map.insert(k, v);
            map.insert(tpl.key("{{- end }}"), Value::Null);
        } else {
            map.insert(k, v);
        }
    }
}

/// `map` with `key: value` after `after` (at the end when there is no `after`).
fn insert_after(map: &mut Mapping, after: &str, key: Value, value: Value) {
    if !map.contains_key(after) {
        map.insert(key, value);
        return;
    }
    let old = std::mem::take(map);
    let mut pending = Some((key, value));
    for (k, v) in old {
        let here = k.as_str() == Some(after);
        map.insert(k, v);
        if here && let Some((k, v)) = pending.take() {
            map.insert(k, v);
        }
    }
}

/// Items of `list` between an `if` and its `end` where `pick` says so.
fn wrap_items(
    list: &mut Vec<Value>,
    condition: &str,
    tpl: &mut Tpl,
    pick: impl Fn(&Value) -> bool,
) {
    let old = std::mem::take(list);
    for item in old {
        if pick(&item) {
            list.push(s(&tpl.marker(format!("{{{{- if {condition} }}}}"))));
            list.push(item);
            list.push(s(&tpl.marker("{{- end }}")));
        } else {
            list.push(item);
        }
    }
}

/// The settings of the render that become values.yaml's defaults.
#[derive(Debug, Default)]
struct Defaults {
    replicas: i64,
    resources: Value,
    leader_election: bool,
    metrics: bool,
    metrics_port: u16,
    metrics_secure: bool,
    webhook: bool,
    cert_manager: bool,
    rbac_helpers: bool,
    prometheus: Option<bool>,
    network_policy: Option<bool>,
}

/// The condition an object is installed under (none: always).
fn condition(object: &Object) -> Option<&'static str> {
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
fn group(object: &Object) -> &'static str {
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

const INJECT_CA: &str = "cert-manager.io/inject-ca-from";
/// Labels the chart's helper sets on every object (the render's values of them are dropped).
const CHART_LABELS: &[&str] = &[
    "app.kubernetes.io/managed-by",
    "app.kubernetes.io/instance",
    "helm.sh/chart",
];

/// Makes the chart of a render.
pub fn chart_from_render(yaml: &str, meta: &ChartMeta) -> Result<Chart> {
    let objects = parse(yaml)?;
    let namespace = objects
        .iter()
        .find(|o| o.kind == "Namespace")
        .map(|o| o.name.clone())
        .or_else(|| {
            objects.iter().find_map(|o| {
                get(&o.body, &["metadata", "namespace"])
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
        });
    let deployments: Vec<&Object> = objects.iter().filter(|o| o.kind == "Deployment").collect();
    if deployments.len() != 1 {
        bail!(
            "{} renders {} Deployments; the chart templates the operator's one Deployment",
            meta.source,
            deployments.len()
        );
    }
    let mut defaults = Defaults {
        webhook: objects
            .iter()
            .any(|o| o.kind.ends_with("WebhookConfiguration")),
        cert_manager: objects
            .iter()
            .any(|o| matches!(o.kind.as_str(), "Issuer" | "ClusterIssuer" | "Certificate")),
        rbac_helpers: objects
            .iter()
            .any(|o| condition(o) == Some(".Values.rbacHelpers.enable")),
        prometheus: objects
            .iter()
            .any(|o| o.kind == "ServiceMonitor")
            .then_some(true),
        network_policy: objects
            .iter()
            .any(|o| o.kind == "NetworkPolicy")
            .then_some(true),
        ..Default::default()
    };
    let labels_helper = format!("{}.labels", meta.name);
    let header = format!(
        "# Generated by `cargo xtask helm` from {}: edit that, not this, and run it again.\n",
        meta.source
    );
    let mut files = BTreeMap::new();
    for object in &objects {
        if object.kind == "Namespace" {
            continue;
        }
        let mut tpl = Tpl::default();
        let ns_marker = tpl.marker("{{ .Release.Namespace }}");
        let mut body = object.body.clone();
        if let Some(ns) = &namespace {
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
                && let Some(ns) = &namespace
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
            deployment(&mut body, &mut tpl, &mut defaults)
                .with_context(|| format!("templating deployment {}", object.name))?;
        }
        if object.kind == "Service" && group(object) == "metrics" {
            metrics_service(&mut body, &mut tpl);
        }
        let text = tpl
            .render(&Value::Mapping(body))
            .with_context(|| format!("{} {}", object.kind, object.name))?;
        let text = match condition(object) {
            Some(c) => format!("{header}{{{{- if {c} }}}}\n{text}{{{{- end }}}}\n"),
            None => format!("{header}{text}"),
        };
        let dir = group(object);
        let mut path = format!("templates/{dir}/{}.yaml", object.name);
        if files.contains_key(&path) {
            path = format!(
                "templates/{dir}/{}-{}.yaml",
                object.name,
                object.kind.to_lowercase()
            );
        }
        files.insert(path, text);
    }
    files.insert("Chart.yaml".into(), chart_yaml(meta));
    files.insert("values.yaml".into(), values_yaml(meta, &defaults)?);
    files.insert(
        "templates/_helpers.tpl".into(),
        helpers(meta, &labels_helper),
    );
    files.insert(
        ".helmignore".into(),
        "# Patterns helm package leaves out.\n.*.swp\n*~\n".into(),
    );
    Ok(Chart { files })
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

/// The operator's Deployment: replicas, image, arguments, resources and the certificate
/// volumes from the values; reads their defaults from the render.
fn deployment(body: &mut Mapping, tpl: &mut Tpl, defaults: &mut Defaults) -> Result<()> {
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
                args.push(s(&tpl.marker("{{- if .Values.webhook.enable }}")));
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

    // Environment: the render's, then the values'.
    let mut env = container
        .get("env")
        .and_then(Value::as_sequence)
        .cloned()
        .unwrap_or_default();
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
            (&webhook_cert_path, ".Values.webhook.enable"),
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

fn chart_yaml(meta: &ChartMeta) -> String {
    format!(
        "# Generated by `cargo xtask helm` from {source}.\n\
         apiVersion: v2\n\
         name: {name}\n\
         description: The operator {name}, as {source} deploys it.\n\
         type: application\n\
         version: {version}\n\
         appVersion: \"{version}\"\n",
        name = meta.name,
        version = meta.version,
        source = meta.source,
    )
}

fn helpers(meta: &ChartMeta, labels_helper: &str) -> String {
    format!(
        "{{{{/* Generated by `cargo xtask helm` from {source}. */}}}}\n\
         \n\
         {{{{/* The labels every object of the chart carries. */}}}}\n\
         {{{{- define \"{labels_helper}\" -}}}}\n\
         app.kubernetes.io/managed-by: {{{{ .Release.Service }}}}\n\
         app.kubernetes.io/instance: {{{{ .Release.Name }}}}\n\
         helm.sh/chart: {{{{ printf \"%s-%s\" .Chart.Name .Chart.Version | replace \"+\" \"_\" | trunc 63 | trimSuffix \"-\" }}}}\n\
         {{{{- end }}}}\n",
        source = meta.source
    )
}

fn values_yaml(meta: &ChartMeta, d: &Defaults) -> Result<String> {
    let mut resources = serde_yaml::to_string(&d.resources).context("writing the resources")?;
    if resources.trim() == "{}" {
        resources = " {}\n".to_string();
    } else {
        resources = format!(
            "\n{}",
            resources
                .lines()
                .map(|l| format!("    {l}\n"))
                .collect::<String>()
        );
    }
    let mut out = format!(
        "# Generated by `cargo xtask helm` from {source}: the defaults are the render's. Set\n\
         # yours with `--set` or `-f my-values.yaml` rather than here (the next run rewrites this).\n\
         \n\
         # The operator's Deployment.\n\
         manager:\n\
         \x20 image:\n\
         \x20   # `cargo xtask image` builds {name}:<version>; push it and name it here.\n\
         \x20   repository: {name}\n\
         \x20   # Empty: the chart's appVersion (the operator package's version).\n\
         \x20   tag: \"\"\n\
         \x20   pullPolicy: IfNotPresent\n\
         \x20 replicas: {replicas}\n\
         \x20 # --leader-elect: one replica works at a time, the others wait on a Lease.\n\
         \x20 leaderElection: {leader}\n\
         \x20 resources:{resources}\
         \x20 # More arguments for the operator (`--log-format=text`, ...).\n\
         \x20 args: []\n\
         \x20 # More environment variables, as a container's `env` list.\n\
         \x20 env: []\n\
         \x20 imagePullSecrets: []\n\
         \x20 nodeSelector: {{}}\n\
         \x20 affinity: {{}}\n\
         \x20 tolerations: []\n\
         \n\
         # The CustomResourceDefinitions.\n\
         crd:\n\
         \x20 enable: true\n\
         \x20 # helm.sh/resource-policy: keep, so that `helm uninstall` leaves the CRDs, and with them\n\
         \x20 # every custom resource (delete them yourself when you mean to).\n\
         \x20 keep: true\n\
         \n\
         # The admin, editor and viewer ClusterRoles of each kind, for granting to people.\n\
         rbacHelpers:\n\
         \x20 enable: {rbac_helpers}\n\
         \n\
         # /metrics, its Service and the roles that guard it.\n\
         metrics:\n\
         \x20 enable: {metrics}\n\
         \x20 # HTTPS, callers' tokens reviewed by the API server; false serves plain HTTP to anyone.\n\
         \x20 secure: {secure}\n\
         \x20 port: {port}\n\
         \n\
         # The admission webhooks: their configurations, Service and the server's certificate\n\
         # volume. Off, an operator that serves webhooks needs its certificate some other way.\n\
         webhook:\n\
         \x20 enable: {webhook}\n\
         \n\
         # cert-manager (installed in the cluster) issues the webhook server's certificate and\n\
         # injects its CA into the webhook configurations. Off, create the Secret\n\
         # webhook-server-cert and set the configurations' caBundle yourself.\n\
         certManager:\n\
         \x20 enable: {cert_manager}\n",
        source = meta.source,
        name = meta.name,
        replicas = d.replicas,
        leader = d.leader_election,
        metrics = d.metrics,
        secure = d.metrics_secure,
        port = d.metrics_port,
        webhook = d.webhook,
        cert_manager = d.cert_manager,
        rbac_helpers = d.rbac_helpers,
    );
    if let Some(on) = d.prometheus {
        out.push_str(&format!(
            "\n# A ServiceMonitor for the Prometheus Operator (its CRDs must be installed).\nprometheus:\n  enable: {on}\n"
        ));
    }
    if let Some(on) = d.network_policy {
        out.push_str(&format!(
            "\n# NetworkPolicies letting only labelled namespaces reach metrics and webhooks.\nnetworkPolicy:\n  enable: {on}\n"
        ));
    }
    Ok(out)
}

/// Runs helm (built on first use) with `args`, returning its standard output; an error with
/// its standard error when it fails.
pub fn helm(args: &[&str]) -> Result<String> {
    let exe = envtest::helm()?;
    let out = Command::new(&exe)
        .args(args)
        .output()
        .with_context(|| format!("running {}", exe.display()))?;
    if !out.status.success() {
        bail!(
            "helm {} failed ({}):\n{}{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `cargo xtask test`'s chart step: `cargo xtask helm --check`, then `helm lint` and `helm
/// template` of the chart with its defaults and with every switch off. Nothing when the
/// project has no chart (no `dist/chart/Chart.yaml`).
pub fn test_chart(root: &Path) -> Result<()> {
    let dir = root.join(CHART_DIR);
    if !dir.join("Chart.yaml").is_file() {
        eprintln!("==> helm: no {CHART_DIR}/Chart.yaml, no chart to check");
        return Ok(());
    }
    eprintln!("==> cargo xtask helm --check");
    let chart = generate(root, Path::new("config/default"))?;
    let drift = compare(&chart, &dir, Path::new(CHART_DIR))?;
    if !drift.is_empty() {
        for d in &drift {
            eprintln!("{d}");
        }
        bail!("{CHART_DIR} is stale: run `cargo xtask helm`, then test again");
    }
    let path = dir.to_string_lossy().into_owned();
    eprintln!(
        "==> helm lint {CHART_DIR} (helm v{})",
        envtest::helm::HELM_VERSION
    );
    eprint!("{}", helm(&["lint", "--strict", &path])?);
    for set in [None, Some(SWITCHES_OFF)] {
        eprintln!(
            "==> helm template {CHART_DIR}{}",
            set.map(|s| format!(" --set {s}")).unwrap_or_default()
        );
        let mut args = vec![
            "template",
            "check",
            path.as_str(),
            "--namespace",
            "check-ns",
        ];
        if let Some(set) = set {
            args.extend(["--set", set]);
        }
        let text = helm(&args)?;
        let count = parse(&text)
            .with_context(|| format!("reading what helm template {CHART_DIR} rendered"))?
            .len();
        eprintln!("    {count} objects");
    }
    Ok(())
}

/// Every switch of values.yaml off.
pub const SWITCHES_OFF: &str = "metrics.enable=false,webhook.enable=false,certManager.enable=false,crd.enable=false,rbacHelpers.enable=false,manager.leaderElection=false";

#[cfg(test)]
mod tests {
    use super::*;

    /// A render shaped like kubebuilder's config/default, small.
    const RENDER: &str = "\
apiVersion: v1
kind: Namespace
metadata:
  labels:
    app.kubernetes.io/managed-by: kustomize
    pod-security.kubernetes.io/enforce: restricted
  name: demo-system
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: 'Templates like {{ .Name }} are text here.'
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: demo-controller-manager
  namespace: demo-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: demo-manager-rolebinding
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: demo-manager-role}
subjects:
- kind: ServiceAccount
  name: demo-controller-manager
  namespace: demo-system
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: demo-metrics-auth-role
rules: []
---
apiVersion: v1
kind: Service
metadata:
  name: demo-controller-manager-metrics-service
  namespace: demo-system
spec:
  ports:
  - {name: https, port: 8443, protocol: TCP, targetPort: 8443}
  selector: {control-plane: controller-manager}
---
apiVersion: v1
kind: Service
metadata:
  name: demo-webhook-service
  namespace: demo-system
spec:
  ports:
  - {port: 443, protocol: TCP, targetPort: 9443}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  labels: {app.kubernetes.io/managed-by: kustomize, control-plane: controller-manager}
  name: demo-controller-manager
  namespace: demo-system
spec:
  replicas: 1
  selector:
    matchLabels: {control-plane: controller-manager}
  template:
    metadata:
      labels: {control-plane: controller-manager}
    spec:
      containers:
      - args:
        - --metrics-bind-address=:8443
        - --leader-elect
        - --health-probe-bind-address=:8081
        - --webhook-cert-path=/tmp/k8s-webhook-server/serving-certs
        command: [/manager]
        image: controller:latest
        name: manager
        ports:
        - {containerPort: 9443, name: webhook-server, protocol: TCP}
        resources:
          limits: {cpu: 500m, memory: 128Mi}
        volumeMounts:
        - {mountPath: /tmp/k8s-webhook-server/serving-certs, name: webhook-certs, readOnly: true}
      serviceAccountName: demo-controller-manager
      volumes:
      - name: webhook-certs
        secret: {secretName: webhook-server-cert}
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: demo-serving-cert
  namespace: demo-system
spec:
  dnsNames:
  - demo-webhook-service.demo-system.svc
  issuerRef: {kind: Issuer, name: demo-selfsigned-issuer}
  secretName: webhook-server-cert
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: demo-selfsigned-issuer
  namespace: demo-system
spec:
  selfSigned: {}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  annotations:
    cert-manager.io/inject-ca-from: demo-system/demo-serving-cert
  name: demo-validating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service: {name: demo-webhook-service, namespace: demo-system, path: /validate}
  name: vwidget.kb.io
  sideEffects: None
";

    fn meta() -> ChartMeta {
        ChartMeta {
            name: "demo-operator".into(),
            version: "1.2.3".into(),
            source: "config/default".into(),
        }
    }

    fn chart() -> Chart {
        chart_from_render(RENDER, &meta()).unwrap()
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

    #[test]
    fn the_deployment_takes_the_values_and_values_yaml_has_the_render_s_defaults() {
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
        let values = &chart.files["values.yaml"];
        for expected in [
            "  repository: demo-operator\n",
            "  replicas: 1\n",
            "  leaderElection: true\n",
            "  resources:\n    limits:\n      cpu: 500m\n      memory: 128Mi\n",
            "metrics:\n  enable: true\n  # HTTPS",
            "  secure: true\n  port: 8443\n",
            "webhook:\n  enable: true\n",
            "certManager:\n  enable: true\n",
        ] {
            assert!(values.contains(expected), "{expected}\nnot in\n{values}");
        }
        assert!(chart.files["Chart.yaml"].contains("version: 1.2.3\nappVersion: \"1.2.3\"\n"));
    }

    #[test]
    fn a_bad_render_is_refused_with_what_is_wrong() {
        let err = |yaml: &str| format!("{:#}", chart_from_render(yaml, &meta()).unwrap_err());
        assert!(
            err("kind: ConfigMap\nmetadata: {name: x}\n")
                .contains("document 1 (ConfigMap) has no apiVersion")
        );
        assert!(
            err("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n").contains("has no metadata.name")
        );
        assert!(err("- a\n").contains("document 1 is not a Kubernetes object"));
        assert!(err("a: [\n").contains("document 1"));
        assert!(err("---\n").contains("no objects"));
        assert!(
            err("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
                .contains("renders 0 Deployments")
        );
    }

    /// `cargo xtask test`'s chart step passes on this repository's committed chart (with the
    /// real kustomize and helm), and says so when a project has no chart.
    #[test]
    #[ignore = "builds kustomize and helm from their Go modules on first use; run by cargo xtask test"]
    fn the_test_step_checks_lints_and_renders_the_committed_chart() {
        test_chart(&operator_xtask::root()).unwrap();
        let empty = tempfile::tempdir().unwrap();
        test_chart(empty.path()).unwrap();
    }

    /// `--check` finds a changed, a missing and an extra file; writing replaces the chart.
    #[test]
    fn the_check_catches_a_stale_chart() {
        let chart = chart();
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("dist/chart");
        write(&chart, &out).unwrap();
        assert!(
            compare(&chart, &out, Path::new("dist/chart"))
                .unwrap()
                .is_empty()
        );

        let values = out.join("values.yaml");
        let edited = std::fs::read_to_string(&values)
            .unwrap()
            .replace("replicas: 1", "replicas: 3");
        std::fs::write(&values, edited).unwrap();
        std::fs::remove_file(out.join("templates/crd/widgets.example.com.yaml")).unwrap();
        std::fs::write(out.join("templates/extra.yaml"), "kind: X\n").unwrap();
        let drift: Vec<String> = compare(&chart, &out, Path::new("dist/chart"))
            .unwrap()
            .iter()
            .map(|d| d.to_string())
            .collect();
        assert_eq!(drift.len(), 3, "{drift:#?}");
        assert!(
            drift[0].starts_with("dist/chart/templates/crd/widgets.example.com.yaml is missing")
        );
        assert!(
            drift[1].starts_with("dist/chart/values.yaml is stale:"),
            "{}",
            drift[1]
        );
        assert!(
            drift[1].contains("-  replicas: 3\n+  replicas: 1\n"),
            "{}",
            drift[1]
        );
        assert!(drift[2].starts_with("dist/chart/templates/extra.yaml is no longer generated"));

        write(&chart, &out).unwrap();
        assert!(
            compare(&chart, &out, Path::new("dist/chart"))
                .unwrap()
                .is_empty()
        );
        let left: Vec<_> = std::fs::read_dir(dir.path().join("dist"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["chart"], "staging or old directories left behind");
    }
}
