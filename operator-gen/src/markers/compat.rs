//! `#[compat(allow = "<check>", path = "...", reason = "...")]` and what it may name: the
//! checks of the compatibility gate, each with the name an allow uses, one line on what it
//! catches and how the migration mode sorts its findings. The table is here, below the
//! marker grammar, so that the grammar (and the derive, at compile time) knows the names;
//! the gate (`gates/compat.rs`) imports it and finds the changes.

use std::fmt;

use proc_macro2::Span;

use super::COMPAT;
use super::args::{self, MetaSource, parse_args, require};
use crate::diagnostics::Diagnostics;

/// How a check's findings are sorted in the migration mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sorting {
    /// [`Group::Loss`](crate::compat::Group::Loss) (a warning of the check: [`Group::Notice`](crate::compat::Group::Notice)).
    Loss,
    /// Always [`Group::Stricter`](crate::compat::Group::Stricter) (where a finding of the check is not, the code that makes
    /// it says why, next to the push).
    Stricter,
    /// [`Group::Stricter`](crate::compat::Group::Stricter) when the baseline had no constraint of the kind on the node (the
    /// other tool did not write what the Rust type or its markers carry: serde refused those
    /// values on read anyway); [`Group::Loss`](crate::compat::Group::Loss) when it replaces one the baseline had (the
    /// two disagree on a value clients were admitted with).
    StricterWhenAdded,
    /// Always a warning, and [`Group::Notice`](crate::compat::Group::Notice).
    Notice,
}

impl Sorting {
    /// How the reference names it.
    pub fn describe(self) -> &'static str {
        match self {
            Sorting::Loss => "loss",
            Sorting::Stricter => "stricter",
            Sorting::StricterWhenAdded => "stricter when added, loss when changed",
            Sorting::Notice => "warning",
        }
    }
}

macro_rules! checks {
    ($($variant:ident = $name:literal: $help:literal => $sorting:ident,)*) => {
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

            /// Which group of the migration mode its findings go to.
            pub fn sorting(self) -> Sorting {
                match self {
                    $(Check::$variant => Sorting::$sorting,)*
                }
            }
        }
    };
}

// The group of each check in the migration mode, and why. A warning (a finding that passes
// in every mode) is listed apart from both groups, whatever its check.
checks! {
    // Deleting the CRD deletes every object of the kind.
    KindRemoved = "kind-removed": "A CRD of the baseline is no longer generated." => Loss,
    // The API server refuses the update; clients' URLs change.
    ScopeChanged = "scope-changed": "The scope moved between Namespaced and Cluster." => Loss,
    // Clients, kubectl and RBAC rules address the kind by these names.
    NamesChanged = "names-changed": "The kind, list kind or singular changed, or a short name or category went." => Loss,
    // Objects stored at it can no longer be read; its clients get 404.
    VersionRemoved = "version-removed": "A version of the baseline is gone from the CRD." => Loss,
    // Its clients get 404.
    VersionUnserved = "version-unserved": "A served version is no longer served." => Loss,
    // Objects stored at the old version are read as the new one by relabelling.
    StorageMoved = "storage-moved": "The storage version moved to a version with another schema, with no conversion webhook." => Loss,
    // Writes to /status or /scale get 404.
    SubresourceRemoved = "subresource-removed": "The status or scale subresource went, or its paths changed." => Loss,
    // The API server prunes the field from stored objects and requests; a field of a
    // Kubernetes type too, when its object's schema went to a bare `type: object`.
    FieldRemoved = "field-removed": "A field (property, list items or map values) is gone, or an object's properties went, leaving a bare `type: object` that prunes everything in it." => Loss,
    // Stored values of the old type fail every write. Except a string that became
    // int-or-string with a pattern (k8s-openapi's Quantity, which schemars 0.8 wrote as a
    // string): every quantity still passes, numbers too; only strings that are no quantity
    // are refused, as the API server's own Quantity fields refuse them.
    TypeChanged = "type-changed": "A field's type changed (int-or-string and embedded-resource included)." => Loss,
    // A format the baseline did not have (or one the API server does not check, such as
    // schemars' `uint32`) is the Rust type's width; a different checked format refuses values
    // the old one admitted.
    FormatChanged = "format-changed": "A format was added to a field or changed." => StricterWhenAdded,
    // An enum on a free string is a Rust enum's: serde refused other values already. Values
    // taken out of an enum were admitted, and stored objects may hold them.
    EnumNarrowed = "enum-narrowed": "An enum was added to a field, or values were taken out of one." => StricterWhenAdded,
    // Looser, not stricter: a warning in every mode.
    EnumExtended = "enum-extended": "Values were added to an enum (a warning: clients that match every value meet new ones)." => Notice,
    // A bound where the baseline had none is the Rust type's (an integer's width, a u32's
    // minimum 0) or its markers'; a bound the baseline had, made stricter, refuses values it
    // admitted.
    BoundTightened = "bound-tightened": "A minimum, maximum, length, item or property count, multipleOf or exclusive bound was added or made stricter." => StricterWhenAdded,
    // Objects stored without the field fail every write, and clients that leave it out are
    // refused (with a default it is a warning).
    RequiredAdded = "required-added": "A field became required (a warning when it has a default)." => Loss,
    // As format-changed: a new pattern is the Rust type's (a Quantity's, a marker's); a
    // changed one may refuse what the old admitted (which one accepts more is not judged).
    PatternChanged = "pattern-changed": "A pattern was added or changed." => StricterWhenAdded,
    // The API server drops a null sent for a field or map value that is not nullable and
    // admits the object (a null already stored reads as absent): for a Rust Option, absent
    // and null are the same None, so it is a warning. Except list items: a list holding a
    // null is refused, an error and a loss (conformance/tests/compat.rs holds this to the
    // API server).
    NullableRemoved = "nullable-removed": "`nullable: true` went: a null sent for the field is dropped and the object admitted (a warning); a null in a list is refused." => Stricter,
    // A default changed or removed changes what objects created without the field hold
    // (added: a warning).
    DefaultChanged = "default-changed": "A default changed or went (added: a warning)." => Loss,
    // A list type where the baseline had none (atomic) is the Rust type's or the Kubernetes
    // type's own (a set, a list keyed by name): it refuses duplicates, which the type does not
    // hold. A list type the baseline had, changed, changes how stored lists merge.
    ListTypeChanged = "list-type-changed": "`x-kubernetes-list-type` or its map keys changed." => StricterWhenAdded,
    // As list-type-changed: `atomic` on a Kubernetes type (a LocalObjectReference's) where
    // the baseline wrote none is upstream's; a map type the baseline had, changed, makes
    // appliers replace or merge what other managers own.
    MapTypeChanged = "map-type-changed": "`x-kubernetes-map-type` changed." => StricterWhenAdded,
    // Unknown fields kept so far are pruned.
    PreserveUnknownRemoved = "preserve-unknown-removed": "`x-kubernetes-preserve-unknown-fields` went: unknown fields stored so far are pruned." => Loss,
    // A rule on a node the baseline had no rule on is a marker's (kube-derive wrote the
    // same rules from `#[x_kube(validation)]`); a changed rule may refuse what the old one
    // admitted.
    RuleAdded = "rule-added": "A CEL rule (x-kubernetes-validations) was added or its expression changed." => StricterWhenAdded,
    // An object written at one version is read at the other as it is.
    VersionsDiverge = "versions-diverge": "Versions served together without a conversion webhook no longer agree." => Loss,
    // Applying the CRD switches the strategy to None: objects stored at another version are
    // served relabelled, unconverted.
    ConversionDropped = "conversion-dropped": "The baseline converts between versions with a webhook (`spec.conversion.strategy: Webhook`) and the new CRD declares none." => Loss,
}

impl Check {
    /// The check called `name`.
    pub fn from_name(name: &str) -> Option<Check> {
        Check::ALL.iter().copied().find(|c| c.name() == name)
    }

    /// Its group in the migration mode, for the reference: its [`Sorting`], and the
    /// findings the code sorts otherwise (see the table's comments).
    pub fn migration_group(self) -> &'static str {
        match self {
            Check::TypeChanged => {
                "loss; a string that became int-or-string with a pattern (a Quantity): stricter"
            }
            Check::NullableRemoved => "stricter; a list's items: loss",
            other => other.sorting().describe(),
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `#[compat(allow = "field-removed", path = ".spec.old", reason = "...")]` on a root kind:
/// a change the compatibility gate reports that the author accepts, with why. Repeatable.
#[derive(Debug, Clone)]
pub struct CompatMarker<S = Span> {
    /// The check whose finding is accepted.
    pub allow: Check,
    /// A JSON path in this version's schema; the allow covers it and everything below.
    pub path: Option<String>,
    /// Why the change is accepted: printed with the finding.
    pub reason: String,
    /// Where the marker is.
    pub span: S,
}

impl CompatMarker {
    /// The same marker, placed by `f`.
    pub fn map_spans<T>(self, f: &mut impl FnMut(Span) -> T) -> CompatMarker<T> {
        CompatMarker {
            allow: self.allow,
            path: self.path,
            reason: self.reason,
            span: f(self.span),
        }
    }
}

const COMPAT_KEYS: &[&str] = &["allow", "path", "reason"];

/// Reads a `#[compat(...)]` marker; problems go to `diags`.
pub fn parse_compat(source: MetaSource<'_>, diags: &mut Diagnostics) -> Option<CompatMarker> {
    let (mut allow, mut path, mut reason) = (None, None, None);
    let clean = parse_args(source, COMPAT, COMPAT_KEYS, diags, |key, meta| {
        match key {
            "allow" => {
                let a = args::string(meta)?;
                allow = Some(Check::from_name(&a.value).ok_or_else(|| {
                    let names = Check::ALL.iter().map(|c| c.name());
                    let suggestion = names
                        .clone()
                        .map(|n| (strsim::jaro_winkler(&a.value, n), n))
                        .filter(|(score, _)| *score > 0.8)
                        .max_by(|x, y| x.0.total_cmp(&y.0))
                        .map(|(_, n)| format!("; did you mean `{n}`?"))
                        .unwrap_or_default();
                    syn::Error::new(
                        a.span,
                        format!(
                            "unknown compatibility check `{}`{suggestion} (the checks: {})",
                            a.value,
                            names.collect::<Vec<_>>().join(", ")
                        ),
                    )
                })?);
            }
            "path" => {
                let p = args::string(meta)?;
                if !p.value.starts_with('.') {
                    return Err(syn::Error::new(
                        p.span,
                        "path is a JSON path in the version's schema, starting with `.` (\".spec.size\", \".spec.items[*].name\")",
                    ));
                }
                path = Some(p.value);
            }
            "reason" => {
                let r = args::string(meta)?;
                if r.value.trim().is_empty() {
                    return Err(syn::Error::new(
                        r.span,
                        "say why the change is safe: the gate prints the reason where it would have failed",
                    ));
                }
                reason = Some(r.value);
            }
            _ => unreachable!(),
        }
        Ok(())
    });
    if !clean {
        return None;
    }
    let allow = require(allow, source, COMPAT, "allow", diags);
    let reason = require(reason, source, COMPAT, "reason", diags);
    Some(CompatMarker {
        allow: allow?,
        path,
        reason: reason?,
        span: source.span(),
    })
}
