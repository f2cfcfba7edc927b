//! controller-gen parity: the memcached API written in Go (testdata/parity/memcached/go) and
//! run through controller-gen v0.21.0 must give the same YAML trees as operator-gen on the
//! Rust API (memcached/src), apart from the tool-version annotation. Byte equality is
//! checked too, since operator-gen lays YAML out the way controller-gen does.

use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn without_version_annotation(mut v: serde_yaml::Value) -> serde_yaml::Value {
    if let Some(annotations) = v
        .get_mut("metadata")
        .and_then(|m| m.get_mut("annotations"))
        .and_then(|a| a.as_mapping_mut())
    {
        annotations.remove("controller-gen.kubebuilder.io/version");
        annotations.remove(operator_gen::crd::VERSION_ANNOTATION);
    }
    v
}

fn documents(text: &str) -> Vec<serde_yaml::Value> {
    serde_yaml::Deserializer::from_str(text)
        .map(|d| without_version_annotation(serde::Deserialize::deserialize(d).unwrap()))
        .collect()
}

#[test]
fn memcached_matches_controller_gen() {
    let root = workspace();
    let generated = operator_gen::generate(
        &[root.join("memcached/src")],
        &operator_gen::Options::default(),
    )
    .unwrap();
    let artifacts = generated.artifacts();
    let expected_dir = root.join("testdata/parity/memcached/expected");
    for name in ["cache.example.com_memcacheds.yaml", "role.yaml"] {
        let expected = std::fs::read_to_string(expected_dir.join(name)).unwrap();
        let ours = &artifacts
            .iter()
            .find(|a| a.file_name == name)
            .unwrap_or_else(|| panic!("{name} not generated"))
            .contents;
        assert_eq!(
            documents(ours),
            documents(&expected),
            "{name}: YAML trees differ from controller-gen's"
        );
        let normalise = |s: &str| {
            s.lines()
                .filter(|l| {
                    !l.contains("controller-gen.kubebuilder.io/version")
                        && !l.contains(operator_gen::crd::VERSION_ANNOTATION)
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(
            normalise(ours),
            normalise(&expected),
            "{name}: bytes differ from controller-gen's layout"
        );
    }
}
