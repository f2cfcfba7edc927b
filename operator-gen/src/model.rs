//! What the generators are given: the API as it was read from the sources, in plain data
//! that crosses threads (no syntax trees, no spans). A generator's
//! [`build`](crate::Generator::build) receives the whole [`Api`], with the CRDs that were
//! built when it asks for them (see [`Reads`](crate::generator::Reads)).

use std::fmt;
use std::path::PathBuf;

use crate::api::apiextensions::v1::CustomResourceDefinition;
use crate::markers::{RbacMarker, Scope, WebhookConfigurationMarker, WebhookMarker};
use crate::source::SourceFile;
use crate::{LocatedError, Origin};

mod types;
pub use types::*;

/// A place in a source file: where a marker or a declaration was written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Location {
    /// The file, as given to the generator.
    pub file: PathBuf,
    /// 1-based.
    pub line: usize,
    /// 1-based, in characters.
    pub column: usize,
    /// The source line, for the excerpt under a message.
    pub snippet: Option<String>,
    /// 0-based character range on `snippet` to underline.
    pub highlight: (usize, usize),
}

impl Location {
    /// Where `span` is in `file`.
    pub(crate) fn of(file: &SourceFile, span: proc_macro2::Span) -> Self {
        let loc = Loc::of(0, span);
        Self::at(&file.path, file.line(loc.line as usize), loc)
    }

    /// `loc` in the file at `path`, whose line `loc.line` is `line_text`.
    pub(crate) fn at(path: &std::path::Path, line_text: Option<&str>, loc: Loc) -> Self {
        let (line, column) = (loc.line as usize, loc.column as usize);
        let end_col = if loc.end_line == loc.line {
            (loc.end_column as usize).max(column + 1)
        } else {
            usize::MAX
        };
        let snippet = line_text.map(str::to_string);
        let width = snippet.as_ref().map_or(0, |s| s.chars().count());
        Self {
            file: path.to_path_buf(),
            line,
            column: column + 1,
            highlight: (column, end_col.min(width.max(column + 1))),
            snippet,
        }
    }

    /// A problem found here by a generator: what it says is wrong with the sources at
    /// this place.
    pub fn error(&self, message: impl Into<String>) -> LocatedError {
        LocatedError::new(self.clone(), message.into(), Origin::Source)
    }
}

/// `file:line:column`, as compilers print a place.
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// A value read from the sources, with where it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub at: Location,
}

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
    pub compat: Vec<crate::compat::Allow>,
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
    /// whose [`Reads::all_crds`](crate::generator::Reads::all_crds) is set, which build after
    /// every CRD is built.
    pub crds: Vec<CustomResourceDefinition>,
}
