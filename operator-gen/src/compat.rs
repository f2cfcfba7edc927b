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

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value;

use crate::api::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps, ValidationRule,
};
use crate::model::Location;

/// How bad a change is: an error fails the gate unless an allow covers it; a warning is
/// printed and passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Fails the gate unless an allow covers it.
    Error,
    /// Printed; the gate passes.
    Warning,
}

macro_rules! checks {
    ($($variant:ident = $name:literal: $help:literal,)*) => {
        /// The kinds of change the gate knows, each with the name an allow uses.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Check {
            $(#[doc = $help] $variant,)*
        }

        impl Check {
            /// Every check, in the order the reference lists them.
            pub const ALL: &'static [Check] = &[$(Check::$variant,)*];

            /// The name `#[compat(allow = "...")]` uses.
            pub fn name(self) -> &'static str {
                match self {
                    $(Check::$variant => $name,)*
                }
            }

            /// One line on what it catches, for the reference.
            pub fn help(self) -> &'static str {
                match self {
                    $(Check::$variant => $help,)*
                }
            }
        }
    };
}

checks! {
    KindRemoved = "kind-removed": "A CRD of the baseline is no longer generated.",
    ScopeChanged = "scope-changed": "The scope moved between Namespaced and Cluster.",
    NamesChanged = "names-changed": "The kind, list kind or singular changed, or a short name or category went.",
    VersionRemoved = "version-removed": "A version of the baseline is gone from the CRD.",
    VersionUnserved = "version-unserved": "A served version is no longer served.",
    StorageMoved = "storage-moved": "The storage version moved to a version with another schema, with no conversion webhook.",
    SubresourceRemoved = "subresource-removed": "The status or scale subresource went, or its paths changed.",
    FieldRemoved = "field-removed": "A field (property, list items or map values) is gone.",
    TypeChanged = "type-changed": "A field's type changed (int-or-string and embedded-resource included).",
    FormatChanged = "format-changed": "A format was added to a field or changed.",
    EnumNarrowed = "enum-narrowed": "An enum was added to a field, or values were taken out of one.",
    EnumExtended = "enum-extended": "Values were added to an enum (a warning: clients that match every value meet new ones).",
    BoundTightened = "bound-tightened": "A minimum, maximum, length, item or property count, multipleOf or exclusive bound was added or made stricter.",
    RequiredAdded = "required-added": "A field became required (a warning when it has a default).",
    PatternChanged = "pattern-changed": "A pattern was added or changed.",
    NullableRemoved = "nullable-removed": "`nullable: true` went.",
    DefaultChanged = "default-changed": "A default changed or went (added: a warning).",
    ListTypeChanged = "list-type-changed": "`x-kubernetes-list-type` or its map keys changed.",
    MapTypeChanged = "map-type-changed": "`x-kubernetes-map-type` changed.",
    PreserveUnknownRemoved = "preserve-unknown-removed": "`x-kubernetes-preserve-unknown-fields` went: unknown fields stored so far are pruned.",
    RuleAdded = "rule-added": "A CEL rule (x-kubernetes-validations) was added or its expression changed.",
    VersionsDiverge = "versions-diverge": "Versions served together without a conversion webhook no longer agree.",
}

impl Check {
    /// The check called `name`.
    pub fn from_name(name: &str) -> Option<Check> {
        Check::ALL.iter().copied().find(|c| c.name() == name)
    }
}

/// The reference table of the checks, for the book (docs/src/reference/generated-files.md) (`tests/readme.rs` keeps it current).
pub fn reference_markdown() -> String {
    let mut out = String::from("| check | what it catches |\n|---|---|\n");
    for c in Check::ALL {
        out.push_str(&format!("| `{}` | {} |\n", c.name(), c.help()));
    }
    out
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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
        }
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

/// `#[compat(allow = "...", path = "...", reason = "...")]` on a root kind: the findings of
/// one check on that kind that the author accepts, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Allow {
    /// The CRD's name (`<plural>.<group>`).
    pub crd: String,
    /// The version whose root kind carries it; a CRD-wide finding (no version, or a version
    /// that is gone) is covered by an allow on any version.
    pub version: String,
    /// The check whose findings it accepts.
    pub check: Check,
    /// Covers this path and everything under it; `None` covers the whole version.
    pub path: Option<String>,
    /// Why: printed with what it covers.
    pub reason: String,
    /// Where the `#[compat]` marker is, when it comes from the sources.
    pub at: Option<Location>,
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
        let mut walk = Walk {
            version: &nv.name,
            findings: Vec::new(),
            crd: &self.crd,
            file: &self.file,
        };
        walk.node("", os, ns);
        self.findings.extend(walk.findings);
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
            let mut walk = Walk {
                version: &b.name,
                findings: Vec::new(),
                crd: crd_name,
                file: "",
            };
            walk.node("", sa, sb);
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

impl Walk<'_> {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        path: &str,
        check: Check,
        severity: Severity,
        what: String,
        why: &str,
        way: &str,
    ) {
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
        self.findings.push(f);
    }

    /// Compares the node at `path` and everything below it.
    fn node(&mut self, path: &str, o: &JSONSchemaProps, n: &JSONSchemaProps) {
        let (ot, nt) = (type_of(o), type_of(n));
        if ot != nt {
            let widened = ot == "integer" && nt == "number";
            self.push(
                path,
                Check::TypeChanged,
                Severity::Error,
                format!("type changed from {ot} to {nt}"),
                if widened {
                    "stored values still validate, but clients decoding an integer meet fractions"
                } else {
                    "stored values of the old type no longer validate, and clients decode the field as the old type"
                },
                NEW_VERSION,
            );
            // Below a type change, everything differs; the type change says it.
            return;
        }
        self.added_or_changed(path, Check::FormatChanged, "format", &o.format, &n.format);
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
            self.push(
                path,
                Check::NullableRemoved,
                Severity::Error,
                "nullable: true removed".into(),
                "stored nulls are dropped on the next write and clients that send null are refused",
                NEW_VERSION,
            );
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
            );
        }
    }

    fn enumeration(&mut self, path: &str, o: &JSONSchemaProps, n: &JSONSchemaProps) {
        let set =
            |e: &Option<Vec<crate::api::apiextensions::v1::JSON>>| -> Option<BTreeSet<String>> {
                e.as_ref().map(|v| v.iter().map(|j| json(&j.0)).collect())
            };
        match (set(&o.enum_), set(&n.enum_)) {
            (None, Some(new)) => self.push(
                path,
                Check::EnumNarrowed,
                Severity::Error,
                format!("enum added: {}", list(&new)),
                RATCHET,
                NEW_VERSION,
            ),
            (Some(_), None) => self.push(
                path,
                Check::EnumExtended,
                Severity::Warning,
                "enum constraint removed: any value is allowed now".into(),
                "clients that handle every value of the enum meet values they do not know",
                "make sure the operator's clients accept unknown values",
            ),
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
        for (name, old, new, upper) in limits {
            match (old, new) {
                (None, Some(n)) => tightened.push(format!("{name} {} added", num(n))),
                (Some(o), Some(n)) if (upper && n < o) || (!upper && n > o) => {
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
            tightened.push("exclusiveMaximum set".into());
        }
        if o.exclusive_minimum != Some(true) && n.exclusive_minimum == Some(true) {
            tightened.push("exclusiveMinimum set".into());
        }
        match (o.multiple_of, n.multiple_of) {
            (None, Some(m)) => tightened.push(format!("multipleOf {} added", num(m))),
            // Still loose only when every multiple of the new one was one of the old.
            (Some(om), Some(m)) if (om / m).fract() != 0.0 => {
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
            );
        }
    }

    fn default(&mut self, path: &str, o: &JSONSchemaProps, n: &JSONSchemaProps) {
        match (&o.default, &n.default) {
            (Some(od), Some(nd)) if od.0 != nd.0 => self.push(
                path,
                Check::DefaultChanged,
                Severity::Error,
                format!("default changed from {} to {}", json(&od.0), json(&nd.0)),
                "objects stored without the field read the new default, and objects created without it behave differently from before",
                NEW_VERSION,
            ),
            (Some(od), None) => self.push(
                path,
                Check::DefaultChanged,
                Severity::Error,
                format!("default {} removed", json(&od.0)),
                "objects created without the field no longer get the value clients and the operator relied on",
                NEW_VERSION,
            ),
            (None, Some(nd)) => self.push(
                path,
                Check::DefaultChanged,
                Severity::Warning,
                format!("default {} added", json(&nd.0)),
                "objects stored without the field now read with the default (the API server defaults on read)",
                "make sure the default means what leaving the field out meant",
            ),
            _ => {}
        }
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
            );
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
            );
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
            );
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

    fn children(&mut self, path: &str, o: &JSONSchemaProps, n: &JSONSchemaProps) {
        let empty = BTreeMap::new();
        let op = o.properties.as_ref().unwrap_or(&empty);
        let np = n.properties.as_ref().unwrap_or(&empty);
        for (name, os) in op {
            let child = format!("{path}.{name}");
            match np.get(name) {
                Some(ns) => self.node(&child, os, ns),
                None => {
                    let kept = n.x_kubernetes_preserve_unknown_fields == Some(true);
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
            (Some(oi), Some(ni)) => self.node(&format!("{path}[*]"), oi, ni),
            (Some(_), None) if ot_is(n, "array") => self.push(
                &format!("{path}[*]"),
                Check::FieldRemoved,
                Severity::Error,
                "the schema of the list's items was removed".into(),
                "the items are no longer described: stored values are pruned",
                NEW_VERSION,
            ),
            _ => {}
        }
        match (values(o), values(n)) {
            (Some(ov), Some(nv)) => self.node(&format!("{path}[*]"), ov, nv),
            (Some(_), None) => self.push(
                &format!("{path}[*]"),
                Check::FieldRemoved,
                Severity::Error,
                "the map's value schema (additionalProperties) was removed".into(),
                "the map's entries are no longer allowed: they are pruned from stored objects on their next write",
                NEW_VERSION,
            ),
            _ => {}
        }
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
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for finding in &self.findings {
            writeln!(f, "{finding}")?;
        }
        for a in &self.unused {
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
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
