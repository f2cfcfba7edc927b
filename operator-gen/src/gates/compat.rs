//! The compatibility gate: what changed between a baseline CRD (the committed file, a git
//! ref's, or a live cluster's) and the one generated now, and which of those changes break
//! objects already stored or the clients that read and write them.
//!
//! [`compare`] walks two CRDs side by side: the CRD itself (kind removed, scope, names,
//! versions removed or no longer served, the storage version moved, subresources), then each
//! version present in both, schema node by schema node (fields removed, types, formats,
//! enums, bounds, `required`, patterns, `nullable`, defaults, list and map types, the
//! `x-kubernetes-*` extensions and CEL rules). Versions that are served together without a
//! conversion webhook must also agree with each other, since the API server converts
//! between them by relabelling; only disagreements the baseline did not already have count.
//!
//! Every [`Finding`] names the CRD, the version and the JSON path (`.spec.items[*].name`; a
//! map's values too are `[*]`, as crdify writes them), what changed, why it breaks and the way through. A finding is
//! waived by an [`Allow`]: `#[compat(allow = "<check>", path = "...", reason = "...")]` on a
//! root kind; [`Report::apply`] marks the findings it covers and lists the allows that
//! covered nothing.
//!
//! [`Mode::Migration`] (`--migrating`) is for a move from another tool (kube-derive's
//! schemars, a hand-written CRD): the same findings, sorted by [`Group`] into those that lose
//! data or refuse what the old CRD admitted, which fail the run unless allowed, and those that
//! are stricter as the Rust type is, which are shown and pass. Each check's group is in the
//! table below, with why.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value;

use crate::api::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps, ValidationRule,
};
use crate::place::Location;

pub use crate::markers::compat::{Check, Sorting};
pub use crate::model::Allow;

/// How bad a change is: an error fails the gate unless an allow covers it; a warning is
/// printed and passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Fails the gate unless an allow covers it.
    Error,
    /// Printed; the gate passes.
    Warning,
}

/// Where the migration mode lists a finding: with the losses, with what is stricter as the
/// Rust type is, or with the other warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Group {
    /// Loses data the API server stored, or refuses what the old CRD admitted: the migration
    /// mode fails on it unless an allow covers it.
    Loss,
    /// Stricter, as the Rust type is: the new CRD refuses (or drops, as a null) only what the
    /// old one admitted and the Rust type does not hold. Shown, never refused, in the
    /// migration mode.
    Stricter,
    /// Neither: a warning of a check that would otherwise be a loss (a default added, a short
    /// name gone), which passes in every mode.
    Notice,
}

impl Group {
    /// How the migration report heads the group.
    pub fn title(self) -> &'static str {
        match self {
            Group::Loss => "lose data or refuse what was admitted",
            Group::Stricter => "stricter, as the Rust type is",
            Group::Notice => "other warnings",
        }
    }
}

/// The group of a finding of `check` with `severity`, of a constraint the baseline did not
/// have at all (`added`) or not.
fn group_of(check: Check, severity: Severity, added: bool) -> Group {
    let group = match check.sorting() {
        Sorting::Loss => Group::Loss,
        Sorting::Stricter => Group::Stricter,
        Sorting::StricterWhenAdded if added => Group::Stricter,
        Sorting::StricterWhenAdded => Group::Loss,
        Sorting::Notice => Group::Notice,
    };
    match (group, severity) {
        (Group::Loss, Severity::Warning) => Group::Notice,
        (group, _) => group,
    }
}

/// The reference table of the checks, for the book (docs/src/reference/generated-files.md) (`tests/readme.rs` keeps it current).
pub fn reference_markdown() -> String {
    let mut out = String::from("| check | what it catches | `--migrating` |\n|---|---|---|\n");
    for c in Check::ALL {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            c.name(),
            c.help(),
            c.migration_group()
        ));
    }
    out
}

/// One change between the baseline and the new CRD.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The CRD's name (`<plural>.<group>`).
    pub crd: String,
    /// The CRD's file (kubebuilder's `config/crd/bases/<group>_<plural>.yaml`).
    pub file: String,
    /// The version; `None` for a change of the CRD as a whole.
    pub version: Option<String>,
    /// The JSON path in that version's schema (`.spec.size`); empty for the CRD or version.
    pub path: String,
    /// Which check found it.
    pub check: Check,
    /// Whether it fails the gate.
    pub severity: Severity,
    /// What changed: "maximum lowered from 10 to 5".
    pub what: String,
    /// Why it breaks stored objects or clients.
    pub why: String,
    /// The way through.
    pub way: String,
    /// The reason of the allow that covers it, with where that allow is written.
    pub allowed: Option<(String, Option<Location>)>,
    /// Its group in the migration mode.
    pub group: Group,
}

impl Finding {
    #[allow(clippy::too_many_arguments)]
    fn new(
        crd: &str,
        file: &str,
        version: Option<&str>,
        path: &str,
        check: Check,
        severity: Severity,
        what: String,
        why: &str,
        way: &str,
    ) -> Finding {
        Finding {
            crd: crd.to_string(),
            file: file.to_string(),
            version: version.map(str::to_string),
            path: path.to_string(),
            check,
            severity,
            what,
            why: why.to_string(),
            way: way.to_string(),
            allowed: None,
            group: group_of(check, severity, false),
        }
    }

    /// Sorts it as a constraint the baseline did not have at all (`added`) or one that
    /// replaces the baseline's, as its check's [`Sorting`] says.
    fn added(&mut self, added: bool) -> &mut Finding {
        self.group = group_of(self.check, self.severity, added);
        self
    }

    /// An error the gate fails on: not a warning, not allowed.
    pub fn fails(&self) -> bool {
        self.severity == Severity::Error && self.allowed.is_none()
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match (&self.allowed, self.severity) {
            (Some(_), _) => "allowed",
            (None, Severity::Error) => "error",
            (None, Severity::Warning) => "warning",
        };
        write!(f, "{level}[{}]: {}: {}", self.check, self.file, self.crd)?;
        if let Some(v) = &self.version {
            write!(f, " {v}")?;
        }
        if !self.path.is_empty() {
            write!(f, " {}", self.path)?;
        }
        write!(f, ": {}", self.what)?;
        match &self.allowed {
            Some((reason, at)) => {
                write!(f, "\n  allowed: {reason}")?;
                if let Some(at) = at {
                    write!(f, " ({}:{})", at.file.display(), at.line)?;
                }
            }
            None => {
                write!(f, "\n  why: {}\n  way through: {}", self.why, self.way)?;
                if self.severity == Severity::Error {
                    write!(
                        f,
                        "\n  or allow it: #[compat(allow = \"{}\"{}, reason = \"...\")] on the root kind{}",
                        self.check,
                        if self.path.is_empty() {
                            String::new()
                        } else {
                            format!(", path = \"{}\"", self.path)
                        },
                        self.version
                            .as_deref()
                            .map(|v| format!(" of {v}"))
                            .unwrap_or_default()
                    )?;
                }
            }
        }
        Ok(())
    }
}

impl Allow {
    fn covers(&self, f: &Finding, versions: &BTreeSet<String>) -> bool {
        if self.check != f.check || self.crd != f.crd {
            return false;
        }
        let version_ok = match &f.version {
            None => true,
            Some(v) if v == &self.version => true,
            // A version that no longer has a root kind to carry the allow.
            Some(v) => !versions.contains(v),
        };
        version_ok
            && match &self.path {
                None => true,
                Some(p) => under(&f.path, p),
            }
    }
}

/// Whether `path` is `prefix` or below it.
fn under(path: &str, prefix: &str) -> bool {
    let prefix = prefix.trim_end_matches('.');
    path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
        || prefix.is_empty()
}

/// A CRD as a baseline holds it: the definition, and what only a live cluster knows.
#[derive(Debug, Clone)]
pub struct BaselineCrd {
    /// The definition.
    pub crd: CustomResourceDefinition,
    /// `status.storedVersions`, when the baseline is a live cluster.
    pub stored_versions: Option<Vec<String>>,
    /// Whether `spec.conversion.strategy` is `Webhook`.
    pub conversion_webhook: bool,
}

impl BaselineCrd {
    /// Reads one CRD document (a file's, or the API server's), keeping its status's stored
    /// versions and its conversion strategy.
    pub fn from_value(value: Value) -> Result<BaselineCrd, String> {
        let stored_versions = value
            .pointer("/status/storedVersions")
            .and_then(Value::as_array)
            .map(|vs| {
                vs.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            });
        let conversion_webhook = value
            .pointer("/spec/conversion/strategy")
            .and_then(Value::as_str)
            == Some("Webhook");
        let crd: CustomResourceDefinition = serde_json::from_value(value)
            .map_err(|e| format!("not a CustomResourceDefinition: {e}"))?;
        Ok(BaselineCrd {
            crd,
            stored_versions,
            conversion_webhook,
        })
    }
}

/// The CRDs of a YAML stream (a file, `git show`'s output, `kubectl get crd -o yaml`):
/// every `CustomResourceDefinition` document, and those of a `List`'s items. `origin`
/// names the stream in errors.
#[cfg(feature = "yaml-baseline")]
pub fn read_baseline(text: &str, origin: &str) -> Result<Vec<BaselineCrd>, String> {
    use serde::Deserialize as _;
    let mut out = Vec::new();
    for (i, doc) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let value = Value::deserialize(doc)
            .map_err(|e| format!("{origin}: document {} is not YAML: {e}", i + 1))?;
        let items = match value.get("kind").and_then(Value::as_str) {
            Some("CustomResourceDefinition") => vec![value],
            Some("List") | Some("CustomResourceDefinitionList") => value
                .get("items")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        for item in items {
            out.push(
                BaselineCrd::from_value(item)
                    .map_err(|e| format!("{origin}: document {}: {e}", i + 1))?,
            );
        }
    }
    Ok(out)
}

/// A CRD as generated now, with whether a conversion webhook serves it.
#[derive(Debug, Clone, Copy)]
pub struct NewCrd<'a> {
    /// The definition.
    pub crd: &'a CustomResourceDefinition,
    /// Whether a conversion webhook serves it (`PROJECT.toml`'s `conversion`), so that versions
    /// with different schemas may be stored.
    pub conversion_webhook: bool,
}

/// Where kubebuilder's layout keeps the CRD: `config/crd/bases/<group>_<plural>.yaml`.
pub fn crd_file(crd: &CustomResourceDefinition) -> String {
    format!(
        "config/crd/bases/{}_{}.yaml",
        crd.spec.group, crd.spec.names.plural
    )
}

fn crd_name(crd: &CustomResourceDefinition) -> String {
    crd.metadata
        .name
        .clone()
        .unwrap_or_else(|| format!("{}.{}", crd.spec.names.plural, crd.spec.group))
}

/// Every finding between the baseline's CRDs and the new ones (matched by name). CRDs only
/// in the new set are new kinds, which break nothing.
pub fn compare_all(old: &[BaselineCrd], new: &[NewCrd<'_>]) -> Vec<Finding> {
    let mut findings = Vec::new();
    for o in old {
        let name = crd_name(&o.crd);
        match new.iter().find(|n| crd_name(n.crd) == name) {
            Some(n) => findings.extend(compare(o, *n)),
            None => findings.push(Finding::new(
                &name,
                &crd_file(&o.crd),
                None,
                "",
                Check::KindRemoved,
                Severity::Error,
                format!(
                    "the CRD is no longer generated (no #[resource] declares kind {} in group {})",
                    o.crd.spec.names.kind, o.crd.spec.group
                ),
                "deleting a CRD deletes every object of it in the cluster, and clients of the kind get 404",
                "keep the kind until its objects are migrated away; then allow the removal with a reason",
            )),
        }
    }
    findings
}

/// The findings between one baseline CRD and its new version.
pub fn compare(old: &BaselineCrd, new: NewCrd<'_>) -> Vec<Finding> {
    let mut c = Comparison {
        crd: crd_name(new.crd),
        file: crd_file(new.crd),
        findings: Vec::new(),
    };
    c.crd_level(old, new);
    for nv in &new.crd.spec.versions {
        if let Some(ov) = old.crd.spec.versions.iter().find(|v| v.name == nv.name) {
            c.version(ov, nv);
        }
    }
    if !new.conversion_webhook {
        c.served_together(&old.crd, new.crd);
    }
    c.findings
}

struct Comparison {
    crd: String,
    file: String,
    findings: Vec<Finding>,
}

/// Said of every validation that the API server ratchets (KEP-4008, on by default since
/// Kubernetes 1.30).
const RATCHET: &str = "objects already stored keep passing updates that leave this value as it is (validation ratcheting, Kubernetes 1.30+), but every create and every write of this value must pass";

const NEW_VERSION: &str = "add the change in a new version with a conversion webhook (cargo operator create webhook --conversion), keeping this version as it is";

impl Comparison {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        version: Option<&str>,
        path: &str,
        check: Check,
        severity: Severity,
        what: String,
        why: &str,
        way: &str,
    ) {
        let f = Finding::new(
            &self.crd, &self.file, version, path, check, severity, what, why, way,
        );
        self.findings.push(f);
    }

    fn crd_level(&mut self, old: &BaselineCrd, new: NewCrd<'_>) {
        let (o, n) = (&old.crd.spec, &new.crd.spec);
        if o.scope != n.scope {
            self.push(
                None,
                "",
                Check::ScopeChanged,
                Severity::Error,
                format!("scope changed from {} to {}", o.scope, n.scope),
                "the API server refuses a scope change of an existing CRD (spec.scope is immutable), and every client's URLs change",
                "a new kind (or group) with the new scope, and a migration of the objects",
            );
        }
        let (on, nn) = (&o.names, &n.names);
        let mut renamed = Vec::new();
        if on.kind != nn.kind {
            renamed.push(format!("kind {} → {}", on.kind, nn.kind));
        }
        if on.list_kind.is_some() && on.list_kind != nn.list_kind {
            renamed.push(format!(
                "listKind {} → {}",
                on.list_kind.as_deref().unwrap_or("-"),
                nn.list_kind.as_deref().unwrap_or("(default)")
            ));
        }
        if on.singular.is_some() && on.singular != nn.singular {
            renamed.push(format!(
                "singular {} → {}",
                on.singular.as_deref().unwrap_or("-"),
                nn.singular.as_deref().unwrap_or("(default)")
            ));
        }
        if !renamed.is_empty() {
            self.push(
                None,
                "",
                Check::NamesChanged,
                Severity::Error,
                format!("names changed: {}", renamed.join(", ")),
                "clients address the kind by these names: typed clients, kubectl and RBAC rules stop matching",
                "keep the names; a new name is a new kind",
            );
        }
        let gone = |old: &Option<Vec<String>>, new: &Option<Vec<String>>| -> Vec<String> {
            let new: BTreeSet<&String> = new.iter().flatten().collect();
            old.iter()
                .flatten()
                .filter(|s| !new.contains(s))
                .cloned()
                .collect()
        };
        let short = gone(&on.short_names, &nn.short_names);
        let categories = gone(&on.categories, &nn.categories);
        if !short.is_empty() || !categories.is_empty() {
            let mut what = Vec::new();
            if !short.is_empty() {
                what.push(format!("short names removed: {}", short.join(", ")));
            }
            if !categories.is_empty() {
                what.push(format!("categories removed: {}", categories.join(", ")));
            }
            self.push(
                None,
                "",
                Check::NamesChanged,
                Severity::Warning,
                what.join("; "),
                "scripts that use `kubectl get <short name>` or a category stop finding the kind",
                "keep the old short names beside new ones",
            );
        }

        let stored: Vec<String> = match &old.stored_versions {
            Some(s) => s.clone(),
            None => o
                .versions
                .iter()
                .filter(|v| v.storage)
                .map(|v| v.name.clone())
                .collect(),
        };
        let live = old.stored_versions.is_some();
        for ov in &o.versions {
            match n.versions.iter().find(|v| v.name == ov.name) {
                None if stored.contains(&ov.name) => self.push(
                    Some(&ov.name),
                    "",
                    Check::VersionRemoved,
                    Severity::Error,
                    format!("version {} removed while objects are stored in it", ov.name),
                    if live {
                        "it is in the CRD's status.storedVersions: the API server refuses the update (or, once forced, cannot read the objects stored at it)"
                    } else {
                        "it is the baseline's storage version, so objects are stored at it: the API server cannot read them back once it is gone"
                    },
                    "keep it (unserved if need be) until a storage migration has rewritten every object and status.storedVersions no longer lists it",
                ),
                None if ov.served => self.push(
                    Some(&ov.name),
                    "",
                    Check::VersionRemoved,
                    Severity::Error,
                    format!("served version {} removed", ov.name),
                    "clients that use it get 404",
                    "deprecate it first (#[resource(..., deprecated = \"...\")]) for a release, then stop serving it (served = false), then remove it",
                ),
                None => {}
                Some(nv) => {
                    if ov.served && !nv.served {
                        let deprecated = ov.deprecated == Some(true);
                        self.push(
                            Some(&ov.name),
                            "",
                            Check::VersionUnserved,
                            if deprecated {
                                Severity::Warning
                            } else {
                                Severity::Error
                            },
                            format!("version {} is no longer served", ov.name),
                            if deprecated {
                                "it was deprecated in the baseline, so its clients were warned, but they get 404 now"
                            } else {
                                "its clients get 404, and it was not deprecated in the baseline to warn them"
                            },
                            "deprecate it for a release first (#[resource(..., deprecated = \"...\")])",
                        );
                    }
                    self.subresources(ov, nv);
                }
            }
        }

        let old_storage = o.versions.iter().find(|v| v.storage);
        let new_storage = n.versions.iter().find(|v| v.storage);
        if let (Some(os), Some(ns)) = (old_storage, new_storage)
            && os.name != ns.name
            && !new.conversion_webhook
            && schema_of(os) != schema_of(ns)
        {
            self.push(
                Some(&ns.name),
                "",
                Check::StorageMoved,
                Severity::Error,
                format!(
                    "storage moved from {} to {}, whose schema differs, with no conversion webhook",
                    os.name, ns.name
                ),
                "without a conversion webhook the API server reads objects stored at the old version as the new one by changing apiVersion only, so fields that differ are lost or invalid",
                "add a conversion webhook (cargo operator create webhook --conversion) before moving storage",
            );
        }

        if old.conversion_webhook && !new.conversion_webhook {
            let several = o.versions.len() > 1 || n.versions.len() > 1;
            self.push(
                None,
                "",
                Check::ConversionDropped,
                if several {
                    Severity::Error
                } else {
                    Severity::Warning
                },
                "the baseline's conversion strategy is Webhook; the new CRD declares no conversion webhook, so applying it sets the strategy to None".into(),
                if several {
                    "without the webhook the API server serves an object stored at one version at another by changing apiVersion only: fields that differ between the versions are lost or invalid, and clients of each version read the other's shape"
                } else {
                    "with one version nothing is converted today, but a version added later would be served unconverted"
                },
                "declare the conversion webhook: in a project, `webhooks = { conversion = true, spokes = [\"<other versions>\"] }` on the hub version's [[resource]] in PROJECT.toml (`cargo operator create webhook --conversion --spoke <version>` writes it, with the config/crd/patches file that sets the strategy); with operator-gen, `--converted <plural>.<group>`",
            );
        }
    }

    fn subresources(
        &mut self,
        ov: &CustomResourceDefinitionVersion,
        nv: &CustomResourceDefinitionVersion,
    ) {
        let (os, ns) = (ov.subresources.as_ref(), nv.subresources.as_ref());
        let had_status = os.is_some_and(|s| s.status.is_some());
        let has_status = ns.is_some_and(|s| s.status.is_some());
        if had_status && !has_status {
            self.push(
                Some(&nv.name),
                "",
                Check::SubresourceRemoved,
                Severity::Error,
                "the status subresource was removed".into(),
                "controllers that write /status get 404, and status written through the main resource is no longer ignored there",
                "keep #[subresource(status)]",
            );
        }
        let old_scale = os.and_then(|s| s.scale.as_ref());
        let new_scale = ns.and_then(|s| s.scale.as_ref());
        if let Some(o) = old_scale
            && new_scale != Some(o)
        {
            self.push(
                Some(&nv.name),
                "",
                Check::SubresourceRemoved,
                Severity::Error,
                match new_scale {
                    None => "the scale subresource was removed".into(),
                    Some(n) => format!(
                        "the scale subresource's paths changed ({} → {})",
                        o.spec_replicas_path, n.spec_replicas_path
                    ),
                },
                "`kubectl scale` and HorizontalPodAutoscalers that target the kind fail or scale another field",
                "keep the scale subresource as it is",
            );
        }
    }

    fn version(
        &mut self,
        ov: &CustomResourceDefinitionVersion,
        nv: &CustomResourceDefinitionVersion,
    ) {
        let (Some(os), Some(ns)) = (schema_of(ov), schema_of(nv)) else {
            return;
        };
        let mut walk = Walk::new(&self.crd, &self.file, &nv.name);
        walk.node("", Step::Root, os, ns);
        self.findings.extend(walk.finish());
    }

    /// Served versions of a CRD without a conversion webhook: each older one against each
    /// newer one, reporting what the new CRD has that the baseline did not.
    fn served_together(&mut self, old: &CustomResourceDefinition, new: &CustomResourceDefinition) {
        let before: BTreeSet<(String, String, Check, String)> = pair_findings(&self.crd, old)
            .into_iter()
            .map(|(pair, f)| (pair, f.path, f.check, f.what))
            .collect();
        for (pair, f) in pair_findings(&self.crd, new) {
            if f.severity != Severity::Error
                || before.contains(&(pair.clone(), f.path.clone(), f.check, f.what.clone()))
            {
                continue;
            }
            self.push(
                f.version.as_deref(),
                &f.path,
                Check::VersionsDiverge,
                Severity::Error,
                format!("{pair}: {}", f.what),
                "the versions are served together with no conversion webhook, so the API server converts between them by relabelling: an object written at one is read at the other as it is",
                "add a conversion webhook (cargo operator create webhook --conversion), or make the versions agree",
            );
        }
    }
}

/// The schema comparisons of each (older, newer) pair of served versions of `crd`, with
/// the pair's name ("v1alpha1 → v1").
fn pair_findings(crd_name: &str, crd: &CustomResourceDefinition) -> Vec<(String, Finding)> {
    let mut served: Vec<&CustomResourceDefinitionVersion> =
        crd.spec.versions.iter().filter(|v| v.served).collect();
    served.sort_by_key(|v| version_order(&v.name));
    let mut out = Vec::new();
    for (i, a) in served.iter().enumerate() {
        for b in &served[i + 1..] {
            let (Some(sa), Some(sb)) = (schema_of(a), schema_of(b)) else {
                continue;
            };
            let mut walk = Walk::new(crd_name, "", &b.name);
            walk.node("", Step::Root, sa, sb);
            let pair = format!("{} → {}", a.name, b.name);
            out.extend(walk.findings.into_iter().map(|f| (pair.clone(), f)));
        }
    }
    out
}

/// Kubernetes' version order: v1alpha1 < v1beta1 < v1 < v2alpha1 < v2; names of another
/// form after those, by name.
fn version_order(name: &str) -> (u8, u64, u8, u64, String) {
    let parsed = name.strip_prefix('v').and_then(|rest| {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let major: u64 = rest[..digits].parse().ok()?;
        let rest = &rest[digits..];
        if rest.is_empty() {
            return Some((major, 2, 0));
        }
        for (word, rank) in [("alpha", 0), ("beta", 1)] {
            if let Some(n) = rest.strip_prefix(word) {
                return Some((major, rank, n.parse().ok()?));
            }
        }
        None
    });
    match parsed {
        Some((major, rank, minor)) => (0, major, rank, minor, String::new()),
        None => (1, 0, 0, 0, name.to_string()),
    }
}

fn schema_of(v: &CustomResourceDefinitionVersion) -> Option<&JSONSchemaProps> {
    v.schema.as_ref()?.open_api_v3_schema.as_ref()
}

struct Walk<'a> {
    crd: &'a str,
    file: &'a str,
    version: &'a str,
    findings: Vec<Finding>,
    /// For each finding, the Kubernetes type it is inside, if any.
    inside: Vec<Option<Inside>>,
    /// The nodes from the root down to the one compared now.
    frames: Vec<Frame<'a>>,
}

/// How a schema node is reached from its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step<'a> {
    Root,
    Property(&'a str),
    /// A list's items.
    Items,
    /// A map's values (additionalProperties).
    Values,
}

/// A node being compared: how it was reached, and its old and new schemas.
struct Frame<'a> {
    step: Step<'a>,
    old: &'a JSONSchemaProps,
    new: &'a JSONSchemaProps,
}

/// A finding's place inside a Kubernetes type, whose fields come from k8s-openapi (through
/// operator-gen's table of Kubernetes types), not from the user's code: "keep the field"
/// cannot be done there.
///
/// Found from the schemas, since a finding knows no Rust types: an `ObjectMeta` below the
/// root is a property named `metadata` (not the root's) whose old schema has only
/// ObjectMeta's fields, or none; another Kubernetes type is a node whose new properties are
/// exactly those of one of [`EMBEDDED_KUBERNETES_TYPES`] as operator-gen writes it (a
/// finding below it is inside it too). A Kubernetes type outside that list, or one with
/// fewer than three fields, is not recognized, and gets the advice of a field of one's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inside {
    /// An `ObjectMeta` below the root (a template's metadata); `full` when the new CRD
    /// gives it every field ObjectMeta has.
    Meta { full: bool },
    /// One of [`EMBEDDED_KUBERNETES_TYPES`], by name.
    Type(&'static str),
}

/// The Kubernetes types CRDs commonly hold, by their k8s-openapi module and name: a node
/// with exactly the properties of one of these is taken for it (see [`Inside`]). Each has
/// three fields or more, and fields no other of them has all of (`SecretKeySelector` and
/// `ConfigMapKeySelector` share theirs, so neither is here: what is below them is inside
/// the `EnvVarSource` that holds them).
const EMBEDDED_KUBERNETES_TYPES: &[(&str, &str)] = &[
    ("api::core::v1", "PodSpec"),
    ("api::core::v1", "Container"),
    ("api::core::v1", "EphemeralContainer"),
    ("api::core::v1", "Volume"),
    ("api::core::v1", "VolumeMount"),
    ("api::core::v1", "EnvVar"),
    ("api::core::v1", "EnvVarSource"),
    ("api::core::v1", "EnvFromSource"),
    ("api::core::v1", "ResourceRequirements"),
    ("api::core::v1", "SecurityContext"),
    ("api::core::v1", "PodSecurityContext"),
    ("api::core::v1", "Probe"),
    ("api::core::v1", "Lifecycle"),
    ("api::core::v1", "ContainerPort"),
    ("api::core::v1", "Affinity"),
    ("api::core::v1", "PodAffinityTerm"),
    ("api::core::v1", "Toleration"),
    ("api::core::v1", "TopologySpreadConstraint"),
    ("api::core::v1", "PersistentVolumeClaimSpec"),
    ("api::core::v1", "ServiceSpec"),
    ("api::core::v1", "ServicePort"),
    ("api::core::v1", "ObjectReference"),
    ("api::core::v1", "KeyToPath"),
    ("api::core::v1", "HTTPGetAction"),
    ("api::core::v1", "SecretVolumeSource"),
    ("api::core::v1", "ConfigMapVolumeSource"),
    ("api::apps::v1", "DeploymentSpec"),
    ("api::apps::v1", "StatefulSetSpec"),
    ("api::apps::v1", "DaemonSetSpec"),
    ("api::batch::v1", "JobSpec"),
    ("api::batch::v1", "CronJobSpec"),
    ("api::networking::v1", "IngressSpec"),
    ("api::networking::v1", "NetworkPolicySpec"),
    ("api::policy::v1", "PodDisruptionBudgetSpec"),
    ("api::autoscaling::v2", "HorizontalPodAutoscalerSpec"),
    ("apimachinery::pkg::apis::meta::v1", "OwnerReference"),
    (
        "apimachinery::pkg::apis::meta::v1",
        "LabelSelectorRequirement",
    ),
    ("apimachinery::pkg::apis::meta::v1", "ManagedFieldsEntry"),
];

/// The property names of [`EMBEDDED_KUBERNETES_TYPES`] with three or more, as operator-gen
/// writes them, each with its type's name: built on first use.
fn kubernetes_type_shapes() -> &'static BTreeMap<Vec<String>, &'static str> {
    static SHAPES: std::sync::OnceLock<BTreeMap<Vec<String>, &'static str>> =
        std::sync::OnceLock::new();
    SHAPES.get_or_init(|| {
        let mut shapes = BTreeMap::new();
        for (module, name) in EMBEDDED_KUBERNETES_TYPES {
            let path: Vec<String> = std::iter::once("k8s_openapi")
                .chain(module.split("::"))
                .chain([*name])
                .map(str::to_string)
                .collect();
            let Some(schema) =
                crate::known_types::schema_for_path(&path, crate::EmbeddedObjectMeta::default())
            else {
                continue;
            };
            let keys: Vec<String> = schema
                .properties
                .iter()
                .flatten()
                .map(|(k, _)| k.clone())
                .collect();
            if keys.len() >= 3 {
                shapes.entry(keys).or_insert(*name);
            }
        }
        shapes
    })
}

/// The Kubernetes type (of [`EMBEDDED_KUBERNETES_TYPES`]) whose properties `s` has.
fn kubernetes_type(s: &JSONSchemaProps) -> Option<&'static str> {
    let props = s.properties.as_ref()?;
    if props.len() < 3 {
        return None;
    }
    let keys: Vec<String> = props.keys().cloned().collect();
    kubernetes_type_shapes().get(&keys).copied()
}

/// Whether `name` is a field of an ObjectMeta: of k8s-openapi's (the fields the generator's
/// full embedded shape declares), or `clusterName`, which older versions had.
fn object_meta_field(name: &str) -> bool {
    static FIELDS: std::sync::OnceLock<BTreeSet<String>> = std::sync::OnceLock::new();
    name == "clusterName"
        || FIELDS
            .get_or_init(|| {
                crate::known_types::EmbeddedObjectMeta::Full
                    .schema()
                    .properties
                    .unwrap_or_default()
                    .into_keys()
                    .collect()
            })
            .contains(name)
}

/// Whether `s` is an ObjectMeta's schema as some tool writes it: only ObjectMeta's fields,
/// or a bare object.
fn object_meta_like(s: &JSONSchemaProps) -> bool {
    match &s.properties {
        Some(props) if !props.is_empty() => props.keys().all(|k| object_meta_field(k)),
        _ => values(s).is_none(),
    }
}

/// Integer formats schemars writes that the API server does not check (it checks `int32`
/// and `int64`; `uint32` admits -5): they constrained nothing.
fn checked_format(format: &str) -> bool {
    !matches!(
        format,
        "int8" | "int16" | "int128" | "uint" | "uint8" | "uint16" | "uint32" | "uint64" | "uint128"
    )
}

/// The effective type of a schema node, as clients see it.
fn type_of(s: &JSONSchemaProps) -> String {
    if s.x_kubernetes_int_or_string == Some(true) {
        return "int-or-string".into();
    }
    if s.x_kubernetes_embedded_resource == Some(true) {
        return "embedded object".into();
    }
    s.type_.clone().unwrap_or_else(|| "any".into())
}

fn json(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

impl<'a> Walk<'a> {
    fn new(crd: &'a str, file: &'a str, version: &'a str) -> Walk<'a> {
        Walk {
            crd,
            file,
            version,
            findings: Vec::new(),
            inside: Vec::new(),
            frames: Vec::new(),
        }
    }

    /// The findings, with the way through of those that lose data inside a Kubernetes type
    /// made one the user can take.
    fn finish(self) -> Vec<Finding> {
        let mut findings = self.findings;
        for (f, inside) in findings.iter_mut().zip(self.inside) {
            if let Some(inside) = inside
                && f.group == Group::Loss
            {
                f.way = kubernetes_way(inside);
            }
        }
        findings
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        path: &str,
        check: Check,
        severity: Severity,
        what: String,
        why: &str,
        way: &str,
    ) -> &mut Finding {
        let f = Finding::new(
            self.crd,
            self.file,
            Some(self.version),
            path,
            check,
            severity,
            what,
            why,
            way,
        );
        let inside = self.inside_kubernetes(path);
        self.inside.push(inside);
        self.findings.push(f);
        self.findings.last_mut().expect("a finding was just pushed")
    }

    /// Whether a finding at `path` (the node compared now, or a child of it that is gone) is
    /// inside a Kubernetes type (see [`Inside`]).
    fn inside_kubernetes(&self, path: &str) -> Option<Inside> {
        // An ObjectMeta below the root: a frame `metadata` under the root's children, or
        // the finding's own node when it is a `metadata` that went.
        let meta_frame = self.frames.iter().enumerate().find(|(i, f)| {
            *i >= 2 && f.step == Step::Property("metadata") && object_meta_like(f.old)
        });
        if let Some((_, frame)) = meta_frame {
            let full = frame
                .new
                .properties
                .as_ref()
                .is_some_and(|p| p.contains_key("ownerReferences"));
            return Some(Inside::Meta { full });
        }
        if let Some(top) = self.frames.last()
            && self.frames.len() >= 2
            && path.ends_with(".metadata")
            && top
                .old
                .properties
                .as_ref()
                .and_then(|p| p.get("metadata"))
                .is_some_and(object_meta_like)
        {
            return Some(Inside::Meta { full: false });
        }
        self.frames
            .iter()
            .rev()
            .find_map(|f| kubernetes_type(f.new))
            .map(Inside::Type)
    }

    /// Compares the node at `path` (reached from its parent by `step`) and everything
    /// below it.
    fn node(&mut self, path: &str, step: Step<'a>, o: &'a JSONSchemaProps, n: &'a JSONSchemaProps) {
        self.frames.push(Frame {
            step,
            old: o,
            new: n,
        });
        self.compare(path, step, o, n);
        self.frames.pop();
    }

    fn compare(
        &mut self,
        path: &str,
        step: Step<'a>,
        o: &'a JSONSchemaProps,
        n: &'a JSONSchemaProps,
    ) {
        let (ot, nt) = (type_of(o), type_of(n));
        if ot != nt {
            let widened = ot == "integer" && nt == "number";
            // k8s-openapi's Quantity as schemars 0.8 wrote it (a string), now int-or-string
            // with the quantity pattern: every quantity still passes, and numbers too.
            let quantity = ot == "string" && nt == "int-or-string" && n.pattern.is_some();
            let f = self.push(
                path,
                Check::TypeChanged,
                Severity::Error,
                format!("type changed from {ot} to {nt}"),
                if widened {
                    "stored values still validate, but clients decoding an integer meet fractions"
                } else if quantity {
                    "numbers are admitted now, and strings only when they match the pattern (a quantity, as the API server's own Quantity fields take); typed clients that decode the field as a string meet numbers"
                } else {
                    "stored values of the old type no longer validate, and clients decode the field as the old type"
                },
                NEW_VERSION,
            );
            if quantity {
                // Stricter only in what serde's Quantity holds: no quantity is refused.
                f.group = Group::Stricter;
            }
            // Below a type change, everything differs; the type change says it.
            return;
        }
        // `int64` on an integer names the width the API server stores every integer in:
        // it narrows nothing (a bare `type: integer`, Go's `int`, holds the same values).
        let int64_added =
            nt == "integer" && o.format.is_none() && n.format.as_deref() == Some("int64");
        if !int64_added {
            self.added_or_changed(path, Check::FormatChanged, "format", &o.format, &n.format);
        }
        self.enumeration(path, o, n);
        self.bounds(path, o, n);
        self.added_or_changed(
            path,
            Check::PatternChanged,
            "pattern",
            &o.pattern,
            &n.pattern,
        );
        if o.nullable == Some(true) && n.nullable != Some(true) {
            // What the API server does with a null (conformance/tests/compat.rs holds it to
            // this): it drops one sent for a property or a map value that is not nullable
            // before it validates, and admits the object; a null already stored reads as
            // absent. A null in a list is refused.
            if step == Step::Items {
                self.push(
                    path,
                    Check::NullableRemoved,
                    Severity::Error,
                    "nullable: true removed from the list's items".into(),
                    "a list holding a null is refused (\"must be of type ...\") on create and on every write that changes the list; lists stored with a null keep passing writes that leave them as they are (validation ratcheting)",
                    "keep the items nullable (an Option in the list: Vec<Option<T>>) if clients send nulls in it",
                )
                .group = Group::Loss;
            } else {
                self.push(
                    path,
                    Check::NullableRemoved,
                    Severity::Warning,
                    "nullable: true removed".into(),
                    "the API server drops a null sent for it and admits the object (the field is left out, or gets its default; a required field's null is refused as missing), and a null already stored reads as the field left out",
                    "nothing to do if null and absent mean the same to clients (they are the same None to a Rust Option); if a client tells them apart, keep it nullable with #[schema(nullable)]",
                );
            }
        }
        self.default(path, o, n);
        self.list_and_map_types(path, o, n);
        if o.x_kubernetes_preserve_unknown_fields == Some(true)
            && n.x_kubernetes_preserve_unknown_fields != Some(true)
        {
            self.push(
                path,
                Check::PreserveUnknownRemoved,
                Severity::Error,
                "x-kubernetes-preserve-unknown-fields removed".into(),
                "fields the schema does not declare were kept until now; the API server prunes them from stored objects on their next write and drops them from requests",
                "declare every field clients use before dropping it, or keep it",
            );
        }
        self.rules(path, o, n);
        self.required(path, o, n);
        self.children(path, o, n);
    }

    /// A string constraint (a pattern, a format) that is new or different: validation
    /// narrows (whether the new one accepts more is not judged); one that went loosens.
    fn added_or_changed(
        &mut self,
        path: &str,
        check: Check,
        what: &str,
        old: &Option<String>,
        new: &Option<String>,
    ) {
        if old == new {
            return;
        }
        if let Some(n) = new {
            // A format the API server does not check constrained nothing before.
            let added = match old {
                None => true,
                Some(o) => check == Check::FormatChanged && !checked_format(o),
            };
            self.push(
                path,
                check,
                Severity::Error,
                match old {
                    None => format!("{what} {n:?} added"),
                    Some(o) => format!("{what} changed from {o:?} to {n:?}"),
                },
                RATCHET,
                NEW_VERSION,
            )
            .added(added);
        }
    }

    fn enumeration(&mut self, path: &str, o: &JSONSchemaProps, n: &JSONSchemaProps) {
        let set =
            |e: &Option<Vec<crate::api::apiextensions::v1::JSON>>| -> Option<BTreeSet<String>> {
                e.as_ref().map(|v| v.iter().map(|j| json(&j.0)).collect())
            };
        match (set(&o.enum_), set(&n.enum_)) {
            (None, Some(new)) => {
                self.push(
                    path,
                    Check::EnumNarrowed,
                    Severity::Error,
                    format!("enum added: {}", list(&new)),
                    RATCHET,
                    NEW_VERSION,
                )
                .added(true);
            }
            (Some(_), None) => {
                self.push(
                    path,
                    Check::EnumExtended,
                    Severity::Warning,
                    "enum constraint removed: any value is allowed now".into(),
                    "clients that handle every value of the enum meet values they do not know",
                    "make sure the operator's clients accept unknown values",
                );
            }
            (Some(old), Some(new)) => {
                let removed: BTreeSet<_> = old.difference(&new).cloned().collect();
                let added: BTreeSet<_> = new.difference(&old).cloned().collect();
                if !removed.is_empty() {
                    self.push(
                        path,
                        Check::EnumNarrowed,
                        Severity::Error,
                        format!("enum values removed: {}", list(&removed)),
                        RATCHET,
                        NEW_VERSION,
                    );
                }
                if !added.is_empty() {
                    self.push(
                        path,
                        Check::EnumExtended,
                        Severity::Warning,
                        format!("enum values added: {}", list(&added)),
                        "clients that handle every value of the enum meet values they do not know",
                        "make sure the operator's clients accept unknown values",
                    );
                }
            }
            _ => {}
        }
    }

    fn bounds(&mut self, path: &str, o: &JSONSchemaProps, n: &JSONSchemaProps) {
        let mut tightened = Vec::new();
        let count = |x: Option<i64>| x.map(|x| x as f64);
        // (name, old, new, whether it is an upper bound)
        let limits = [
            ("maximum", o.maximum, n.maximum, true),
            ("maxLength", count(o.max_length), count(n.max_length), true),
            ("maxItems", count(o.max_items), count(n.max_items), true),
            (
                "maxProperties",
                count(o.max_properties),
                count(n.max_properties),
                true,
            ),
            ("minimum", o.minimum, n.minimum, false),
            ("minLength", count(o.min_length), count(n.min_length), false),
            ("minItems", count(o.min_items), count(n.min_items), false),
            (
                "minProperties",
                count(o.min_properties),
                count(n.min_properties),
                false,
            ),
        ];
        // Whether every bound is one the baseline had none of (see `Sorting`).
        let mut all_added = true;
        for (name, old, new, upper) in limits {
            match (old, new) {
                (None, Some(n)) => tightened.push(format!("{name} {} added", num(n))),
                (Some(o), Some(n)) if (upper && n < o) || (!upper && n > o) => {
                    all_added = false;
                    tightened.push(format!(
                        "{name} {} from {} to {}",
                        if upper { "lowered" } else { "raised" },
                        num(o),
                        num(n)
                    ))
                }
                _ => {}
            }
        }
        if o.exclusive_maximum != Some(true) && n.exclusive_maximum == Some(true) {
            all_added &= o.maximum.is_none();
            tightened.push("exclusiveMaximum set".into());
        }
        if o.exclusive_minimum != Some(true) && n.exclusive_minimum == Some(true) {
            all_added &= o.minimum.is_none();
            tightened.push("exclusiveMinimum set".into());
        }
        match (o.multiple_of, n.multiple_of) {
            (None, Some(m)) => tightened.push(format!("multipleOf {} added", num(m))),
            // Still loose only when every multiple of the new one was one of the old.
            (Some(om), Some(m)) if (om / m).fract() != 0.0 => {
                all_added = false;
                tightened.push(format!("multipleOf changed from {} to {}", num(om), num(m)))
            }
            _ => {}
        }
        if o.unique_items != Some(true) && n.unique_items == Some(true) {
            tightened.push("uniqueItems set".into());
        }
        if !tightened.is_empty() {
            self.push(
                path,
                Check::BoundTightened,
                Severity::Error,
                tightened.join(", "),
                RATCHET,
                NEW_VERSION,
            )
            .added(all_added);
        }
    }

    fn default(&mut self, path: &str, o: &JSONSchemaProps, n: &JSONSchemaProps) {
        let (severity, what, why, way) = match (&o.default, &n.default) {
            (Some(od), Some(nd)) if od.0 != nd.0 => (
                Severity::Error,
                format!("default changed from {} to {}", json(&od.0), json(&nd.0)),
                "objects stored without the field read the new default, and objects created without it behave differently from before",
                NEW_VERSION,
            ),
            (Some(od), None) => (
                Severity::Error,
                format!("default {} removed", json(&od.0)),
                "objects created without the field no longer get the value clients and the operator relied on",
                NEW_VERSION,
            ),
            (None, Some(nd)) => (
                Severity::Warning,
                format!("default {} added", json(&nd.0)),
                "objects stored without the field now read with the default (the API server defaults on read)",
                "make sure the default means what leaving the field out meant",
            ),
            _ => return,
        };
        self.push(path, Check::DefaultChanged, severity, what, why, way);
    }

    fn list_and_map_types(&mut self, path: &str, o: &JSONSchemaProps, n: &JSONSchemaProps) {
        let lt = |s: &JSONSchemaProps| {
            let t = s
                .x_kubernetes_list_type
                .clone()
                .unwrap_or_else(|| "atomic".into());
            match &s.x_kubernetes_list_map_keys {
                Some(keys) if t == "map" => format!("map (keys {})", keys.join(", ")),
                _ => t,
            }
        };
        if ot_is(o, "array") && ot_is(n, "array") && lt(o) != lt(n) {
            self.push(
                path,
                Check::ListTypeChanged,
                Severity::Error,
                format!("x-kubernetes-list-type changed from {} to {}", lt(o), lt(n)),
                "server-side apply merges the list differently: field managers' ownership changes, and stored lists may no longer validate (duplicates in a set or map)",
                NEW_VERSION,
            )
            .added(o.x_kubernetes_list_type.is_none());
        }
        let mt = |s: &JSONSchemaProps| {
            s.x_kubernetes_map_type
                .clone()
                .unwrap_or_else(|| "granular".into())
        };
        if ot_is(o, "object") && ot_is(n, "object") && mt(o) != mt(n) {
            self.push(
                path,
                Check::MapTypeChanged,
                Severity::Error,
                format!("x-kubernetes-map-type changed from {} to {}", mt(o), mt(n)),
                "server-side apply merges the object differently: appliers replace or merge what other managers own",
                NEW_VERSION,
            )
            .added(o.x_kubernetes_map_type.is_none());
        }
    }

    fn rules(&mut self, path: &str, o: &JSONSchemaProps, n: &JSONSchemaProps) {
        let old: Vec<&ValidationRule> = o.x_kubernetes_validations.iter().flatten().collect();
        for rule in n.x_kubernetes_validations.iter().flatten() {
            // Only the expression (and whether oldSelf is optional) changes what passes;
            // messages and reasons do not.
            if old
                .iter()
                .any(|r| r.rule == rule.rule && r.optional_old_self == rule.optional_old_self)
            {
                continue;
            }
            let transition = rule.rule.contains("oldSelf");
            self.push(
                path,
                Check::RuleAdded,
                Severity::Error,
                format!("CEL rule added or changed: {}", rule.rule),
                if transition {
                    "a transition rule (it reads oldSelf) is not ratcheted: every update that changes this value must pass it"
                } else {
                    RATCHET
                },
                NEW_VERSION,
            )
            .added(old.is_empty());
        }
    }

    fn required(&mut self, path: &str, o: &JSONSchemaProps, n: &JSONSchemaProps) {
        let old: BTreeSet<&String> = o.required.iter().flatten().collect();
        for name in n.required.iter().flatten() {
            if old.contains(name) {
                continue;
            }
            let child = format!("{path}.{name}");
            let defaulted = n
                .properties
                .as_ref()
                .and_then(|p| p.get(name))
                .is_some_and(|p| p.default.is_some());
            if defaulted {
                self.push(
                    &child,
                    Check::RequiredAdded,
                    Severity::Warning,
                    "became required (with a default)".into(),
                    "the API server fills the default in where the field is missing, so stored objects and clients that leave it out still pass",
                    "nothing to do, if the default is what leaving the field out meant",
                );
            } else {
                self.push(
                    &child,
                    Check::RequiredAdded,
                    Severity::Error,
                    "became required".into(),
                    "objects stored without it fail every update (required is not ratcheted), and clients that leave it out are refused",
                    "give it a default (#[schema(default = ...)]), or add it in a new version with a conversion webhook",
                );
            }
        }
    }

    fn children(&mut self, path: &str, o: &'a JSONSchemaProps, n: &'a JSONSchemaProps) {
        static EMPTY: BTreeMap<String, JSONSchemaProps> = BTreeMap::new();
        let op = o.properties.as_ref().unwrap_or(&EMPTY);
        let np = n.properties.as_ref().unwrap_or(&EMPTY);
        let kept = n.x_kubernetes_preserve_unknown_fields == Some(true);
        if op.len() > 1 && np.is_empty() && values(n).is_none() {
            // Every property went (an embedded ObjectMeta written as controller-gen's bare
            // `type: object`): one finding for the object, not one per field.
            let names: Vec<&str> = op.keys().map(String::as_str).collect();
            let shown = if names.len() > 8 {
                format!("{}, and {} more", names[..8].join(", "), names.len() - 8)
            } else {
                names.join(", ")
            };
            self.push(
                path,
                Check::FieldRemoved,
                Severity::Error,
                format!(
                    "its properties were removed ({shown}): the schema is a bare `type: object`"
                ),
                if kept {
                    "it preserves unknown fields, so stored values stay, but they are no longer validated and typed clients lose them"
                } else {
                    "the API server prunes everything in it from stored objects on their next write and from every request: it is stored as {}"
                },
                "declare the object's fields again (or, for a free-form object, keep what clients write with #[schema(preserve_unknown_fields)])",
            );
            return;
        }
        for (name, os) in op {
            let child = format!("{path}.{name}");
            match np.get(name) {
                Some(ns) => self.node(&child, Step::Property(name), os, ns),
                None => {
                    self.push(
                        &child,
                        Check::FieldRemoved,
                        Severity::Error,
                        "field removed".into(),
                        if kept {
                            "the parent preserves unknown fields, so stored values stay, but they are no longer validated and typed clients lose the field"
                        } else {
                            "the API server prunes it from stored objects on their next write, and clients that set it get an unknown-field error or warning"
                        },
                        "keep the field (deprecated in its doc comment) until a new version drops it with a conversion webhook",
                    );
                }
            }
        }
        match (items(o), items(n)) {
            (Some(oi), Some(ni)) => self.node(&format!("{path}[*]"), Step::Items, oi, ni),
            (Some(_), None) if ot_is(n, "array") => {
                self.push(
                    &format!("{path}[*]"),
                    Check::FieldRemoved,
                    Severity::Error,
                    "the schema of the list's items was removed".into(),
                    "the items are no longer described: stored values are pruned",
                    NEW_VERSION,
                );
            }
            _ => {}
        }
        match (values(o), values(n)) {
            (Some(ov), Some(nv)) => self.node(&format!("{path}[*]"), Step::Values, ov, nv),
            (Some(_), None) => {
                self.push(
                    &format!("{path}[*]"),
                    Check::FieldRemoved,
                    Severity::Error,
                    "the map's value schema (additionalProperties) was removed".into(),
                    "the map's entries are no longer allowed: they are pruned from stored objects on their next write",
                    NEW_VERSION,
                );
            }
            _ => {}
        }
    }
}

/// The way through for a finding that loses data inside a Kubernetes type: its fields are
/// k8s-openapi's, not the user's, so "keep the field" cannot be done. (An error's report
/// adds the `#[compat(allow = ...)]` that allows it.)
fn kubernetes_way(inside: Inside) -> String {
    match inside {
        Inside::Meta { full: false } => "this is an ObjectMeta below the root (a template's metadata), whose fields are k8s-openapi's, not your code's: `embedded-object-meta = \"full\"` in [package.metadata.operator-gen] (the default; `--embedded-object-meta full` for operator-gen) gives it every field ObjectMeta has, so nothing in it is pruned: remove the setting that chose `object` or `generate-embedded`; allow the change only if pruning it is meant".into(),
        Inside::Meta { full: true } => "this is an ObjectMeta below the root, which has every field of ObjectMeta in operator-gen's table of Kubernetes types already: the baseline was made with another Kubernetes release's ObjectMeta (another k8s-openapi `v1_*` feature), and an operator built with the table's release cannot read the field either; once no stored object needs it, allow the change, naming the release that dropped it".into(),
        Inside::Type(name) => format!(
            "this is a field of the Kubernetes type {name}, whose schema comes from operator-gen's table of Kubernetes types (k8s-openapi's, of one Kubernetes release), not from your code: the baseline was made with another release's {name} (another k8s-openapi `v1_*` feature). Build the operator with the k8s-openapi feature of the table's release (the book's Types and serde chapter names it), so that it reads what the CRD keeps; once no stored object needs the old field, allow the change, naming the release that changed it"
        ),
    }
}

fn ot_is(s: &JSONSchemaProps, t: &str) -> bool {
    s.type_.as_deref() == Some(t)
}

fn items(s: &JSONSchemaProps) -> Option<&JSONSchemaProps> {
    s.items_schema()
}

fn values(s: &JSONSchemaProps) -> Option<&JSONSchemaProps> {
    s.values_schema()
}

fn list(values: &BTreeSet<String>) -> String {
    values.iter().cloned().collect::<Vec<_>>().join(", ")
}

/// The whole gate on a generator run: the generated CRDs (`converted` says which a
/// conversion webhook serves) against `baseline`, with the run's `#[compat]` allows applied.
pub fn check(
    generated: &crate::Generated,
    baseline: &[BaselineCrd],
    converted: impl Fn(&CustomResourceDefinition) -> bool,
) -> Report {
    let new: Vec<NewCrd<'_>> = generated
        .crds
        .iter()
        .map(|crd| NewCrd {
            crd,
            conversion_webhook: converted(crd),
        })
        .collect();
    let versions: BTreeMap<String, BTreeSet<String>> = generated
        .crds
        .iter()
        .map(|c| {
            (
                crd_name(c),
                c.spec.versions.iter().map(|v| v.name.clone()).collect(),
            )
        })
        .collect();
    Report::apply(compare_all(baseline, &new), &generated.compat, &versions)
}

/// The gate's verdict: every finding, with the allows applied, and the allows that covered
/// nothing.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Every finding, errors first.
    pub findings: Vec<Finding>,
    /// Allows that match no finding: stale once the baseline holds the change.
    pub unused: Vec<Allow>,
}

impl Report {
    /// Applies `allows` to `findings`. `versions` are the (CRD name, version) pairs the new
    /// CRDs have, to tell a gone version (covered by an allow on any version) from a live one.
    pub fn apply(
        mut findings: Vec<Finding>,
        allows: &[Allow],
        versions: &BTreeMap<String, BTreeSet<String>>,
    ) -> Report {
        let none = BTreeSet::new();
        let mut used = vec![false; allows.len()];
        for f in &mut findings {
            let live = versions.get(&f.crd).unwrap_or(&none);
            if let Some((i, a)) = allows.iter().enumerate().find(|(_, a)| a.covers(f, live)) {
                used[i] = true;
                if f.severity == Severity::Error {
                    f.allowed = Some((a.reason.clone(), a.at.clone()));
                }
            }
        }
        findings.sort_by(|a, b| {
            (&a.crd, &a.version, &a.path, a.check).cmp(&(&b.crd, &b.version, &b.path, b.check))
        });
        let unused = allows
            .iter()
            .zip(used)
            .filter(|(_, u)| !u)
            .map(|(a, _)| a.clone())
            .collect();
        Report { findings, unused }
    }

    /// Whether an error is left that no allow covers.
    pub fn fails(&self) -> bool {
        self.findings.iter().any(Finding::fails)
    }

    /// How many findings fail the gate.
    pub fn errors(&self) -> usize {
        self.findings.iter().filter(|f| f.fails()).count()
    }

    /// Whether the gate fails in `mode`: in the migration mode, only on a loss that no allow
    /// covers.
    pub fn fails_in(&self, mode: Mode) -> bool {
        self.errors_in(mode) > 0
    }

    /// How many findings fail the gate in `mode`.
    pub fn errors_in(&self, mode: Mode) -> usize {
        self.findings
            .iter()
            .filter(|f| f.fails() && (mode == Mode::Release || f.group == Group::Loss))
            .count()
    }

    /// The findings of `group` in the migration mode's sense (a loss is an error; see
    /// [`Group`]).
    pub fn in_group(&self, group: Group) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(move |f| f.group == group)
    }

    /// The report as `mode` prints it.
    pub fn render(&self, mode: Mode) -> String {
        match mode {
            Mode::Release => self.to_string(),
            Mode::Migration => Migration(self).to_string(),
        }
    }

    /// The last line of a run that `mode` fails: how many changes against `against` (the
    /// baseline, as messages name it) fail it, and what they do.
    pub fn verdict(&self, mode: Mode, against: &str) -> String {
        mode.verdict(self.errors_in(mode), against)
    }
}

impl Mode {
    /// The last line of a run this mode fails: `n` changes against `against` (the baseline,
    /// as messages name it) fail it, and what they do.
    pub fn verdict(self, n: usize, against: &str) -> String {
        let s = if n == 1 { "" } else { "s" };
        match self {
            Mode::Release => {
                format!("{n} change{s} against {against} can break stored objects or clients")
            }
            Mode::Migration => format!(
                "{n} change{s} against {against} {}",
                if n == 1 {
                    "loses data or refuses what was admitted"
                } else {
                    "lose data or refuse what was admitted"
                }
            ),
        }
    }
}

/// How the gate judges the changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// A release against the last one: every error fails, unless allowed.
    #[default]
    Release,
    /// A move from another tool (`--migrating`): the findings sorted by [`Group`]; only
    /// losses fail, unless allowed, and what is stricter as the Rust type is is shown.
    Migration,
}

/// How many paths of one check the migration report lists before it summarizes.
const LISTED: usize = 5;

/// The report in the migration mode: a header with the counts, the losses in full, then
/// the stricter findings by check (summarized when there are many), then other warnings.
struct Migration<'r>(&'r Report);

impl fmt::Display for Migration<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let report = self.0;
        let losses: Vec<&Finding> = report.in_group(Group::Loss).collect();
        let stricter: Vec<&Finding> = report.in_group(Group::Stricter).collect();
        let notices: Vec<&Finding> = report.in_group(Group::Notice).collect();
        let allowed = losses.iter().filter(|l| l.allowed.is_some()).count();
        write!(
            f,
            "migration check: {} change{} {}",
            losses.len(),
            if losses.len() == 1 { "" } else { "s" },
            if losses.len() == 1 {
                "loses data or refuses what was admitted"
            } else {
                Group::Loss.title()
            }
        )?;
        if allowed > 0 {
            write!(f, " ({allowed} allowed)")?;
        }
        write!(
            f,
            "; {} {}",
            stricter.len(),
            if stricter.len() == 1 {
                "is stricter, as the Rust type is"
            } else {
                "are stricter, as the Rust type is"
            }
        )?;
        if !notices.is_empty() {
            write!(
                f,
                "; {} other warning{}",
                notices.len(),
                if notices.len() == 1 { "" } else { "s" }
            )?;
        }
        writeln!(f)?;
        if !losses.is_empty() {
            writeln!(
                f,
                "\n== {} {} (each fails the check unless allowed) ==",
                losses.len(),
                Group::Loss.title()
            )?;
            for l in &losses {
                writeln!(f, "{l}")?;
            }
        }
        if !stricter.is_empty() {
            writeln!(
                f,
                "\n== {} {} (shown, not refused) ==",
                stricter.len(),
                Group::Stricter.title()
            )?;
            let mut by_check: BTreeMap<Check, Vec<&Finding>> = BTreeMap::new();
            for s in &stricter {
                by_check.entry(s.check).or_default().push(s);
            }
            for (check, found) in by_check {
                let place = |s: &Finding| {
                    format!(
                        "{} {} {}",
                        s.crd,
                        s.version.as_deref().unwrap_or("-"),
                        if s.path.is_empty() { "-" } else { &s.path }
                    )
                };
                writeln!(f, "{check}: {}", found.len())?;
                if found.len() <= LISTED {
                    for s in &found {
                        writeln!(f, "  {}: {}", place(s), s.what)?;
                    }
                } else {
                    for s in &found[..LISTED - 2] {
                        writeln!(f, "  {}: {}", place(s), s.what)?;
                    }
                    writeln!(
                        f,
                        "  ... and {} more (every finding: run without --migrating)",
                        found.len() - (LISTED - 2)
                    )?;
                }
                writeln!(f, "  why: {}", found[0].why)?;
            }
        }
        if !notices.is_empty() {
            writeln!(f, "\n== {} {} ==", notices.len(), Group::Notice.title())?;
            for n in &notices {
                writeln!(f, "{n}")?;
            }
        }
        for a in &report.unused {
            write_unused(f, a)?;
        }
        Ok(())
    }
}

/// The warning for an allow that covered nothing.
fn write_unused(f: &mut fmt::Formatter<'_>, a: &Allow) -> fmt::Result {
    write!(
        f,
        "warning: #[compat(allow = \"{}\"{})] on {} {} covers no change against the baseline; remove it once the baseline holds the change",
        a.check,
        a.path
            .as_deref()
            .map(|p| format!(", path = \"{p}\""))
            .unwrap_or_default(),
        a.crd,
        a.version
    )?;
    if let Some(at) = &a.at {
        write!(f, " ({}:{})", at.file.display(), at.line)?;
    }
    writeln!(f)
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for finding in &self.findings {
            writeln!(f, "{finding}")?;
        }
        for a in &self.unused {
            write_unused(f, a)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
