//! Generators as plugins (controller-tools' `genall.Generator`): each one names itself,
//! owns some files under the config root, says what of the API it reads ([`Reads`]), and
//! builds its files from the whole [`Api`] (the kinds, the item markers and, when it asks,
//! the CRDs that were built). Adding one is a module implementing [`Generator`] and its
//! line in [`GENERATORS`]; the command line, the sink and `cargo xtask manifests` take their
//! lists from there. A generator outside this crate runs through
//! [`generate_using`](crate::generate_using).
//!
//! A generator may write a tree: its file names are paths under its [`dir`](Generator::dir)
//! (`stubs/cache.example.com/memcacheds.rs`), and the sink prunes the ones it no longer
//! makes, in subdirectories too.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use crate::api::apiextensions::v1::CustomResourceDefinition;
use crate::model::{Api, Reads};
use crate::{LocatedError, Options};

pub mod crd;
pub mod rbac;
pub mod webhook;

/// One kind of output.
pub trait Generator: Sync {
    /// Its name on the command line (`operator-gen rbac`).
    fn name(&self) -> &'static str;

    /// One line for `--help`.
    fn help(&self) -> &'static str;

    /// Its directory under the config root, as kubebuilder lays it out.
    fn dir(&self) -> &'static str;

    /// Whether the file at `path` (relative to [`dir`](Self::dir), `/`-separated) is this
    /// generator's to replace or prune; hand-written files beside it are never touched.
    fn owns(&self, path: &str) -> bool;

    /// What it reads of the API.
    fn reads(&self) -> Reads;

    /// Its files for one CRD, when [`Reads::each_crd`] is set; called once per CRD, on the
    /// thread that built it, with `max_desc_len` already applied.
    fn crd_files(&self, _crd: &CustomResourceDefinition, _options: &Options) -> Vec<Artifact> {
        Vec::new()
    }

    /// Its files from the whole API (see [`Api`] for what each list holds). Problems are
    /// reported at the places in the sources that cause them
    /// ([`Location::error`](crate::place::Location::error)).
    fn build(&self, _api: &Api, _options: &Options) -> Result<Vec<Artifact>, Vec<LocatedError>> {
        Ok(Vec::new())
    }
}

/// Every generator, in the order their files are listed and written.
pub static GENERATORS: &[&dyn Generator] = &[
    &crd::CrdGenerator,
    &rbac::RbacGenerator,
    &webhook::WebhookGenerator,
];

/// A registered generator, as artifacts and the sink name it: compared by name.
#[derive(Clone, Copy)]
pub struct ArtifactKind(&'static dyn Generator);

impl ArtifactKind {
    /// The CRD generator.
    pub const CRD: ArtifactKind = ArtifactKind(&crd::CrdGenerator);
    /// The RBAC generator.
    pub const RBAC: ArtifactKind = ArtifactKind(&rbac::RbacGenerator);
    /// The webhook generator.
    pub const WEBHOOK: ArtifactKind = ArtifactKind(&webhook::WebhookGenerator);

    /// Every generator, in the order of [`GENERATORS`].
    pub fn all() -> Vec<ArtifactKind> {
        GENERATORS.iter().map(|g| ArtifactKind(*g)).collect()
    }

    /// Any generator, registered or not (one of your own, for
    /// [`generate_using`](crate::generate_using) and the sink).
    pub fn of(generator: &'static dyn Generator) -> Self {
        ArtifactKind(generator)
    }

    /// The generator called `name` on the command line.
    pub fn named(name: &str) -> Option<ArtifactKind> {
        GENERATORS
            .iter()
            .find(|g| g.name() == name)
            .map(|g| ArtifactKind(*g))
    }

    /// The generator that makes this kind of file.
    pub fn generator(self) -> &'static dyn Generator {
        self.0
    }

    /// The generator's name (`crd`, `rbac`, `webhook`).
    pub fn name(self) -> &'static str {
        self.0.name()
    }

    /// The directory under `config/` that its files go in.
    pub fn dir(self) -> &'static str {
        self.0.dir()
    }

    /// Whether `file_name` (relative to that directory) is a file the generator makes.
    pub fn owns(self, file_name: &str) -> bool {
        self.0.owns(file_name)
    }
}

impl fmt::Debug for ArtifactKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl PartialEq for ArtifactKind {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for ArtifactKind {}

impl Hash for ArtifactKind {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl PartialOrd for ArtifactKind {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ArtifactKind {
    /// Registration order; generators not in [`GENERATORS`] after them, by name.
    fn cmp(&self, other: &Self) -> Ordering {
        let position = |k: &ArtifactKind| {
            GENERATORS
                .iter()
                .position(|g| g.name() == k.name())
                .unwrap_or(usize::MAX)
        };
        (position(self), self.name()).cmp(&(position(other), other.name()))
    }
}

/// One generated file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifact {
    /// Which generator made it.
    pub kind: ArtifactKind,
    /// The file's name, relative to the generator's directory.
    pub file_name: String,
    /// What the file holds.
    pub contents: String,
}

/// Why `path` cannot be a generator's file name, if it cannot: it must be a relative path
/// of plain names (`crd/x.yaml` under a generator's directory), none of them hidden (the
/// sink's staging and backup files are hidden) or `.`/`..`.
pub fn path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("is empty");
    }
    if path.starts_with('/') || path.contains('\\') {
        return Some("is not a relative path with `/` between its parts");
    }
    for part in path.split('/') {
        if part.is_empty() {
            return Some("has an empty part (`//` or a trailing `/`)");
        }
        if part.starts_with('.') {
            return Some("has a part that starts with `.` (hidden, `.` or `..`)");
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_directories_are_unique() {
        for (i, a) in GENERATORS.iter().enumerate() {
            for b in &GENERATORS[i + 1..] {
                assert_ne!(a.name(), b.name());
            }
            assert_eq!(
                ArtifactKind::named(a.name()).map(ArtifactKind::name),
                Some(a.name())
            );
        }
        assert!(ArtifactKind::named("nope").is_none());
        assert!(ArtifactKind::CRD < ArtifactKind::RBAC);
        assert!(ArtifactKind::RBAC < ArtifactKind::WEBHOOK);
    }
}
