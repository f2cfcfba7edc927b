//! `operator-gen types --from-cluster`: the types made from a CRD as the API server serves it
//! equal those made from the file it was installed from, byte for byte below the header.
//!
//! The CRDs are cert-manager's (those the local control plane's tests use) and operator-gen's
//! golden CRDs, which between them hold every marker. It needs the control plane, so it is
//! `#[ignore]`d for plain `cargo test`; `cargo xtask test` runs it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use operator_gen::{ClusterSource, CrdDocument, TypesOptions};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .into()
}

/// The golden CRD files of operator-gen's tests.
fn golden_files() -> Vec<PathBuf> {
    let golden = repo().join("operator-gen/tests/golden");
    let mut files = Vec::new();
    for case in std::fs::read_dir(&golden).unwrap() {
        let expected = case.unwrap().path().join("expected");
        for file in std::fs::read_dir(expected).into_iter().flatten() {
            let file = file.unwrap().path();
            let text = std::fs::read_to_string(&file).unwrap();
            if text.contains("kind: CustomResourceDefinition") {
                files.push(file);
            }
        }
    }
    files.sort();
    files
}

/// The types' files with the header line that says where the CRD came from left out, and the
/// warnings with their place left out.
fn types(docs: &[CrdDocument]) -> (Vec<(PathBuf, String)>, Vec<String>) {
    let options = TypesOptions {
        command: "operator-gen types".into(),
        ..Default::default()
    };
    let types = operator_gen::rust_types(docs, &options).unwrap();
    let files = types
        .files
        .into_iter()
        .map(|(path, text)| {
            let text: Vec<&str> = text
                .lines()
                .filter(|l| !l.starts_with("// from "))
                .collect();
            (path, text.join("\n"))
        })
        .collect();
    let places: Vec<String> = docs
        .iter()
        .map(|doc| match doc.document {
            0 => format!("{}: ", doc.file.display()),
            n => format!("{}: document {n}: ", doc.file.display()),
        })
        .collect();
    let warnings = types
        .warnings
        .iter()
        .map(|w| {
            let place = places.iter().find(|p| w.starts_with(p.as_str()));
            w[place.map_or(0, String::len)..].to_owned()
        })
        .collect();
    (files, warnings)
}

#[test]
#[ignore = "needs the local control plane; run by cargo xtask test"]
fn types_from_the_cluster_equal_types_from_the_file() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let env = runtime.block_on(envtest::TestEnv::connect()).unwrap();
    let client = env.client();

    let mut files: Vec<PathBuf> =
        envtest::crds::read_dir(&envtest::certmanager::crds_dir().unwrap())
            .unwrap()
            .into_iter()
            .map(|(file, _)| file)
            .collect();
    let golden = golden_files();
    assert!(golden.len() >= 8, "golden CRDs: {golden:?}");
    files.extend(golden.iter().cloned());

    let mut golden_crds = Vec::new();
    let mut checked = 0;
    for file in &files {
        let from_file = operator_gen::read_crds(file).unwrap();
        let installed: Vec<CustomResourceDefinition> = from_file
            .iter()
            .map(|doc| serde_json::from_value(doc.raw.clone()).unwrap())
            .collect();
        runtime
            .block_on(envtest::crds::install(
                &client,
                &installed,
                Duration::from_secs(60),
            ))
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        if golden.contains(file) {
            golden_crds.extend(installed);
        }
        let names: Vec<String> = from_file
            .iter()
            .map(|doc| doc.crd.metadata.name.clone().unwrap())
            .collect();
        // Called from inside a runtime too: it runs on a thread of its own.
        let from_cluster = runtime
            .block_on(async {
                operator_gen::read_crds_from_cluster(&names, &ClusterSource::default())
            })
            .unwrap();
        assert_eq!(from_cluster.len(), names.len());
        for (doc, name) in from_cluster.iter().zip(&names) {
            assert_eq!(doc.file, Path::new(&format!("crd/{name}")));
            assert_eq!(doc.document, 0);
            assert!(
                doc.raw.get("status").is_none()
                    && doc.raw["metadata"].get("managedFields").is_none(),
                "{name}: what the API server adds was kept"
            );
        }
        let (want, want_warnings) = types(&from_file);
        let (got, got_warnings) = types(&from_cluster);
        assert_eq!(
            got.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            want.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            "{}: other modules from the cluster",
            file.display()
        );
        for ((path, got), (_, want)) in got.iter().zip(&want) {
            if got != want {
                let diff = similar::TextDiff::from_lines(want.as_str(), got.as_str());
                panic!(
                    "{}: {} differs when read from the cluster (- file, + cluster):\n{}",
                    file.display(),
                    path.display(),
                    diff.unified_diff().context_radius(2)
                );
            }
        }
        assert_eq!(got_warnings, want_warnings, "{}", file.display());
        checked += names.len();
    }
    assert!(checked >= 14, "only {checked} CRDs were compared");

    // Names as kubectl takes them, and the errors.
    let read = |name: &str| {
        operator_gen::read_crds_from_cluster(&[name.to_owned()], &ClusterSource::default())
    };
    let by_short = read("cert").unwrap();
    assert_eq!(
        by_short[0].crd.metadata.name.as_deref(),
        Some("certificates.cert-manager.io")
    );
    let by_kind = read("ClusterIssuer.cert-manager.io").unwrap();
    assert_eq!(
        by_kind[0].crd.metadata.name.as_deref(),
        Some("clusterissuers.cert-manager.io")
    );
    let missing = read("certificats.cert-manager.io").unwrap_err().to_string();
    assert!(
        missing.contains("no CustomResourceDefinition named certificats.cert-manager.io")
            && missing.ends_with("did you mean certificates.cert-manager.io?"),
        "{missing}"
    );
    let bad_context = operator_gen::read_crds_from_cluster(
        &["cert".into()],
        &ClusterSource {
            context: Some("no-such-context".into()),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(bad_context.contains("no-such-context"), "{bad_context}");

    runtime
        .block_on(envtest::crds::uninstall(
            &client,
            &golden_crds,
            Duration::from_secs(60),
        ))
        .unwrap();
}
