//! What the other crates of this workspace take from operator-gen's stages: **not a stable
//! API**, and no part of the library's own (that is at the crate root, in
//! [`api`](crate::api), [`output`](crate::output), [`compat`](crate::compat),
//! [`size`](crate::size) and [`diagnostics`](crate::diagnostics)).
//!
//! The stages are private modules; this one re-exports the pieces other crates reuse, so
//! that what leaves the crate that way is in one place:
//! - operator-derive, at compile time: the marker grammar ([`markers`]), which the derives
//!   check their helper attributes with, so that what compiles is what the generator reads;
//!   serde's reading of a type ([`serde_attrs`]); finding and parsing the crate's files
//!   ([`source`]); and the schema of single types for its `JsonSchema` impls
//!   ([`type_schemas`]).
//! - the conformance tests, which hold the CEL checker and cost estimate ([`cel`]) to the
//!   API server's;
//! - cargo-operator and the xtask, which check names with the grammar's DNS rules, and the
//!   repository's known-types refresh ([`known_types`]).
//!
//! Those crates are released with operator-gen and require exactly its version (`=x.y.z`
//! in the workspace's `Cargo.toml`), so anything here may change in any release; code
//! outside the workspace should not use it.

/// The marker grammar (`src/markers.rs`, `src/markers/`), whole: the derives parse their
/// helper attributes with it.
pub mod markers {
    pub use crate::markers::*;
}

/// serde's reading of a type, through `serde_derive_internals` (`src/serde_attrs.rs`).
pub mod serde_attrs {
    pub use crate::serde_attrs::*;
}

/// Finding and parsing a crate's Rust files (`src/source.rs`).
pub mod source {
    pub use crate::source::{MAX_NESTING, TypeItem, check_nesting, parse_items, rust_files};
}

/// The schema of each type that derives `Schema`, on its own (`src/type_schemas.rs`).
pub mod type_schemas {
    pub use crate::type_schemas::{TypeSchema, derives, type_schemas};
}

/// The CEL checker and the API server's cost estimate (`src/cel.rs`, `src/cel/`).
pub mod cel {
    pub use crate::cel::{Compiled, compile, cost, problem};
}

/// The schemas of Kubernetes types operator-gen knows (`src/known_types.rs`).
pub mod known_types {
    pub use crate::known_types::fingerprint;
}
