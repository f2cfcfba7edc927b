//! Generators as plugins (controller-tools' `genall.Generator`): each one names itself,
//! owns some files under the config root, collects its facts from every parsed file on the
//! thread that parsed it, and builds its files from the facts of all files on the calling
//! thread. Adding one is a module implementing [`Generator`] and its line in [`GENERATORS`];
//! the command line, the sink and `cargo xtask manifests` take their lists from there.
//!
//! The CRD generator is the pipeline's own: its schemas are built on the workers that hold
//! the syntax trees (see `pipeline`), so it declares its files here and collects nothing.

use std::any::Any;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use crate::diagnostics::Diagnostics;
use crate::output::Artifact;
use crate::source::SourceFile;
use crate::{LocatedError, Options};

/// What a generator keeps of one file: anything that may cross threads.
pub type Facts = Box<dyn Any + Send>;

/// One kind of output.
pub trait Generator: Sync {
    /// Its name on the command line (`operator-gen rbac`).
    fn name(&self) -> &'static str;

    /// One line for `--help`.
    fn help(&self) -> &'static str;

    /// Its directory under the config root, as kubebuilder lays it out.
    fn dir(&self) -> &'static str;

    /// Whether `file_name` in [`dir`](Self::dir) is this generator's to replace or prune;
    /// hand-written files beside it are never touched.
    fn owns(&self, file_name: &str) -> bool;

    /// The facts of one parsed file, or `None` when it has nothing for this generator.
    /// Mistakes in the markers go to `diags`, at their spans.
    fn collect(&self, _file: &SourceFile, _diags: &mut Diagnostics) -> Option<Facts> {
        None
    }

    /// The files, from the facts of every file in input order (each is what this
    /// generator's [`collect`](Self::collect) returned).
    fn build(
        &self,
        _facts: Vec<Facts>,
        _options: &Options,
    ) -> Result<Vec<Artifact>, Vec<LocatedError>> {
        Ok(Vec::new())
    }
}

/// Every generator, in the order their files are listed and written.
pub static GENERATORS: &[&dyn Generator] = &[
    &crate::crd::CrdGenerator,
    &crate::rbac::RbacGenerator,
    &crate::webhook::WebhookGenerator,
];

/// A registered generator, as artifacts and the sink name it: compared by name.
#[derive(Clone, Copy)]
pub struct ArtifactKind(&'static dyn Generator);

impl ArtifactKind {
    /// The CRD generator.
    pub const CRD: ArtifactKind = ArtifactKind(&crate::crd::CrdGenerator);
    /// The RBAC generator.
    pub const RBAC: ArtifactKind = ArtifactKind(&crate::rbac::RbacGenerator);
    /// The webhook generator.
    pub const WEBHOOK: ArtifactKind = ArtifactKind(&crate::webhook::WebhookGenerator);

    /// Every generator, in the order of [`GENERATORS`].
    pub fn all() -> Vec<ArtifactKind> {
        GENERATORS.iter().map(|g| ArtifactKind(*g)).collect()
    }

    /// The generator called `name` on the command line.
    pub fn named(name: &str) -> Option<ArtifactKind> {
        GENERATORS
            .iter()
            .find(|g| g.name() == name)
            .map(|g| ArtifactKind(*g))
    }

    pub fn generator(self) -> &'static dyn Generator {
        self.0
    }

    pub fn name(self) -> &'static str {
        self.0.name()
    }

    pub fn dir(self) -> &'static str {
        self.0.dir()
    }

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
    /// Registration order.
    fn cmp(&self, other: &Self) -> Ordering {
        let position = |k: &ArtifactKind| GENERATORS.iter().position(|g| g.name() == k.name());
        position(self).cmp(&position(other))
    }
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
