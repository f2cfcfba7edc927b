//! The CRD generator: each CRD rendered to its file on the thread that built it.

use crate::Options;
use crate::api::apiextensions::v1::CustomResourceDefinition;
use crate::render::crd_yaml;

use super::{Artifact, ArtifactKind, Generator, Reads};

/// The CRD generator: root kinds to `crd/bases/<group>_<plural>.yaml`, each CRD rendered on
/// the thread that built it.
#[derive(Debug)]
pub struct CrdGenerator;

impl Generator for CrdGenerator {
    fn name(&self) -> &'static str {
        "crd"
    }

    fn help(&self) -> &'static str {
        "CustomResourceDefinitions from #[resource] kinds, into crd/bases/<group>_<plural>.yaml"
    }

    fn dir(&self) -> &'static str {
        "crd/bases"
    }

    /// `crd/bases` holds only generated files (kubebuilder's `kustomization.yaml` is one
    /// level up), so every YAML file directly in it is this generator's.
    fn owns(&self, path: &str) -> bool {
        path.ends_with(".yaml") && !path.contains('/')
    }

    fn reads(&self) -> Reads {
        Reads {
            each_crd: true,
            ..Default::default()
        }
    }

    fn crd_files(&self, crd: &CustomResourceDefinition, _options: &Options) -> Vec<Artifact> {
        vec![crd_artifact(crd)]
    }
}

/// The file name of a CRD: `<group>_<plural>.yaml`.
pub fn crd_file_name(crd: &CustomResourceDefinition) -> String {
    format!("{}_{}.yaml", crd.spec.group, crd.spec.names.plural)
}

/// The file of one CRD.
pub fn crd_artifact(crd: &CustomResourceDefinition) -> Artifact {
    Artifact {
        kind: ArtifactKind::CRD,
        file_name: crd_file_name(crd),
        contents: crd_yaml(crd),
    }
}
