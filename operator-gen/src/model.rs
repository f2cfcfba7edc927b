//! What the generators are given: the API as it was read from the sources, in plain data
//! that crosses threads (no syntax trees, no spans). A generator's
//! [`build`](crate::Generator::build) receives the whole [`Api`], with the CRDs that were
//! built when it asks for them: what it asks for is its [`Reads`], which also tells the
//! lowering what to read at all. The declared types, lowered for schema building, are in
//! `model/types.rs`; a root kind's `#[compat]` allows, for the compatibility gate, are
//! [`Allow`]s.

use crate::api::apiextensions::v1::CustomResourceDefinition;
use crate::markers::compat::Check;
use crate::markers::{RbacMarker, Scope, WebhookConfigurationMarker, WebhookMarker};
use crate::place::{Located, Location};

mod types;
pub use types::*;

/// One version of a root kind: a struct with a `#[resource]` marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kind {
    /// The API group.
    pub group: String,
    /// The version.
    pub version: String,
    /// The kind.
    pub kind: String,
    /// The plural its CRD is named by (given, or made from the kind as controller-gen does).
    pub plural: String,
    /// Given, or the kind in lower case.
    pub singular: String,
    /// Short names for kubectl.
    pub shortnames: Vec<String>,
    /// Categories (`all`).
    pub categories: Vec<String>,
    /// Namespaced or cluster-wide.
    pub scope: Scope,
    /// The Rust path of the struct (`api::v1::Memcached`), from the crate root.
    pub rust_path: String,
    /// Where its `#[resource]` marker is.
    pub at: Location,
    /// Its `#[compat(allow = ...)]` markers, for the compatibility gate.
    pub compat: Vec<Allow>,
}

impl Kind {
    /// The name of its CRD: `<plural>.<group>`.
    pub fn crd_name(&self) -> String {
        format!("{}.{}", self.plural, self.group)
    }
}

/// The API the sources declare, as the generators that ran asked for it: each list holds
/// what was read, in input order (files in the order they were found, items in source
/// order), and is empty when no generator that ran reads it.
#[derive(Debug, Clone, Default)]
pub struct Api {
    /// Every `#[resource]` struct (one per version of a kind).
    pub kinds: Vec<Kind>,
    /// Every `#[rbac]` marker.
    pub rbac: Vec<Located<RbacMarker>>,
    /// Every `#[webhook]` marker.
    pub webhooks: Vec<Located<WebhookMarker>>,
    /// Every `#[webhook_configuration]` marker.
    pub webhook_configurations: Vec<Located<WebhookConfigurationMarker>>,
    /// The CRDs, one per (group, kind), sorted by group and kind; filled for the generators
    /// whose [`Reads::all_crds`] is set, which build after
    /// every CRD is built.
    pub crds: Vec<CustomResourceDefinition>,
}

/// What of the API a generator reads. The pipeline reads only what the generators that run
/// ask for: without a generator that reads kinds or CRDs, no kind is even looked at, and
/// the markers nobody reads are not checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reads {
    /// [`Api::kinds`]: the `#[resource]` structs.
    pub kinds: bool,
    /// [`Api::rbac`]: the `#[rbac]` markers.
    pub rbac: bool,
    /// [`Api::webhooks`] and [`Api::webhook_configurations`].
    pub webhooks: bool,
    /// Each CRD as soon as it is built, through [`Generator::crd_files`](crate::Generator::crd_files), on the thread
    /// that built it: the CRD is dropped right after, so a large API never holds all of
    /// them.
    pub each_crd: bool,
    /// Every CRD at once, in [`Api::crds`]: [`Generator::build`](crate::Generator::build) then runs after all of
    /// them are built, and they are kept in memory until it has.
    pub all_crds: bool,
}

impl Reads {
    /// The union of what `self` and `other` read.
    pub fn and(self, other: Reads) -> Reads {
        Reads {
            kinds: self.kinds || other.kinds,
            rbac: self.rbac || other.rbac,
            webhooks: self.webhooks || other.webhooks,
            each_crd: self.each_crd || other.each_crd,
            all_crds: self.all_crds || other.all_crds,
        }
    }

    /// Whether the CRDs must be built.
    pub fn crds(self) -> bool {
        self.each_crd || self.all_crds
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
