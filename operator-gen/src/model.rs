//! What the generators are given: the API as it was read from the sources, in plain data
//! that crosses threads (no syntax trees, no spans). A generator's
//! [`build`](crate::Generator::build) receives the whole [`Api`], with the CRDs that were
//! built when it asks for them (see [`Reads`](crate::generators::Reads)).

use crate::api::apiextensions::v1::CustomResourceDefinition;
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
    pub compat: Vec<crate::gates::compat::Allow>,
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
    /// whose [`Reads::all_crds`](crate::generators::Reads::all_crds) is set, which build after
    /// every CRD is built.
    pub crds: Vec<CustomResourceDefinition>,
}
