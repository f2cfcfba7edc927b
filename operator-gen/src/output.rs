//! What a caller needs to handle the generated files, in one place: the files themselves
//! ([`Artifact`]), how they are rendered ([`to_json`], [`crd_yaml`]) and where they go
//! ([`write_all`], [`check`], [`recover`] on a [`Layout`]). The stages that make them are
//! private; this module only re-exports, and nothing inside the crate imports it.

pub use crate::generators::crd::{CrdGenerator, crd_artifact, crd_file_name};
pub use crate::generators::rbac::ROLE_FILE;
pub use crate::generators::{Artifact, ArtifactKind, path_problem};
pub use crate::render::{crd_yaml, to_json};
pub use crate::sink::{Drift, Layout, check, recover, write_all};
pub use crate::threads::parallel_map;
