//! A misspelled marker in a real API is one compile error, at the marker: the memcached
//! operator's API module is built as its own crate with one typo, and the compiler's
//! errors are counted. (Before, the kind's derive repeated the error at the kind's name
//! and emitted no impls, which added dozens of missing-trait errors.)
//!
//! The crate builds in `target/tests/trybuild`, next to the UI tests' dependencies.

use std::process::Command;

mod support;

use operator_gen_conformance::outside;
use support::{case_dependencies, target_dir, workspace_root};

/// Builds memcached's API module with `from` replaced by `to` in `v1alpha1.rs`; returns
/// the compiler's errors as (message, file, line).
fn build_api_with(from: &str, to: &str) -> Vec<(String, String, u64)> {
    build_api(from, to, "")
}

/// [`build_api_with`], with `extra_manifest` added to the crate's Cargo.toml.
fn build_api(from: &str, to: &str, extra_manifest: &str) -> Vec<(String, String, u64)> {
    let root = workspace_root();
    let dir = tempfile::tempdir().unwrap();
    // One package name per case: cargo names a root package's artifacts and fingerprints
    // without its path, so cases built at once under one name took each other's results.
    let name = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        (from, to, extra_manifest).hash(&mut hasher);
        format!("api-case-{:016x}", hasher.finish())
    };
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let deps = case_dependencies(&manifest);
    std::fs::write(
        dir.path().join("Cargo.toml"),
        outside::manifest(&name, &deps, extra_manifest),
    )
    .unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    let api = dir.path().join("src/api");
    std::fs::create_dir_all(&api).unwrap();
    std::fs::write(dir.path().join("src/lib.rs"), "pub mod api;\n").unwrap();
    for entry in std::fs::read_dir(root.join("memcached/src/api")).unwrap() {
        let path = entry.unwrap().path();
        let mut text = std::fs::read_to_string(&path).unwrap();
        if path.ends_with("v1alpha1.rs") {
            assert!(text.contains(from), "{from:?} is in memcached's API");
            text = text.replacen(from, to, 1);
        }
        std::fs::write(api.join(path.file_name().unwrap()), text).unwrap();
    }

    let out = Command::new(env!("CARGO"))
        .args(["build", "--quiet", "--message-format=json"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .unwrap();
    let mut errors = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Ok(msg) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let m = &msg["message"];
        if msg["reason"] != "compiler-message" || m["level"] != "error" {
            continue;
        }
        let text = m["message"].as_str().unwrap_or_default().to_string();
        if text.starts_with("aborting due to") {
            continue;
        }
        let span = &m["spans"][0];
        errors.push((
            text,
            span["file_name"].as_str().unwrap_or_default().to_string(),
            span["line_start"].as_u64().unwrap_or_default(),
        ));
    }
    assert!(
        out.status.success() == errors.is_empty(),
        "cargo {} with {} compiler errors: {}",
        if out.status.success() {
            "succeeded"
        } else {
            "failed"
        },
        errors.len(),
        String::from_utf8_lossy(&out.stderr)
    );
    errors
}

#[test]
fn a_misspelled_marker_in_the_memcached_api_is_one_error_at_the_marker() {
    let errors = build_api_with("#[validation(minimum = 0)]", "#[validation(minimun = 0)]");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let (message, file, line) = &errors[0];
    assert!(
        message.starts_with(
            "unknown argument `minimun` in #[validation(...)]; did you mean `minimum`?"
        ),
        "{message}"
    );
    assert!(file.ends_with("src/api/v1alpha1.rs"), "{file}");
    let source =
        std::fs::read_to_string(workspace_root().join("memcached/src/api/v1alpha1.rs")).unwrap();
    assert!(
        source
            .lines()
            .nth(*line as usize - 1)
            .unwrap()
            .contains("#[validation(minimum = 0)]"),
        "line {line} is the marker's"
    );
}

#[test]
fn a_marker_that_does_not_fit_its_field_is_one_error_at_the_marker() {
    // The schema derive sees the mistake, and so does the generator behind the kind's crd().
    let errors = build_api_with("pub size: i32,", "pub size: String,");
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let (message, file, _) = &errors[0];
    assert_eq!(
        message,
        "`minimum` applies to an integer or number, but this is a string"
    );
    assert!(file.ends_with("src/api/v1alpha1.rs"), "{file}");
}

#[test]
fn the_unchanged_memcached_api_builds_without_errors() {
    let errors = build_api_with("", "");
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn a_float_field_derives_when_the_crate_allows_floats_in_its_manifest() {
    // The kind's crd() runs the generator with the crate's own options, as
    // `cargo xtask manifests` does: floats need the opt-in, and the opt-in works.
    let refused = build_api("pub size: i32,", "pub size: f64,", "");
    assert_eq!(refused.len(), 1, "{refused:#?}");
    assert!(
        refused[0].0.contains("allow-dangerous-types"),
        "{refused:#?}"
    );
    let allowed = build_api(
        "pub size: i32,",
        "pub size: f64,",
        "[package.metadata.operator-gen]\nallow-dangerous-types = true\n",
    );
    assert!(allowed.is_empty(), "{allowed:#?}");
    let typo = build_api(
        "",
        "",
        "[package.metadata.operator-gen]\nallow-dangerous-type = true\n",
    );
    assert_eq!(typo.len(), 1, "{typo:#?}");
    assert!(
        typo[0].0.contains("unknown field `allow-dangerous-type`"),
        "{typo:#?}"
    );
}

/// What a crate that depends on schemars adds to its manifest (the workspace's version, so
/// the build shares its artifacts).
const WITH_SCHEMARS: &str = "[dependencies.schemars]\nversion = \"1\"\n";

#[test]
fn with_schemars_the_api_builds_and_a_typo_is_still_one_error() {
    // The derives now implement JsonSchema too; that adds no error of its own.
    let clean = build_api("", "", WITH_SCHEMARS);
    assert!(clean.is_empty(), "{clean:#?}");
    let typo = build_api(
        "#[validation(minimum = 0)]",
        "#[validation(minimun = 0)]",
        WITH_SCHEMARS,
    );
    assert_eq!(typo.len(), 1, "{typo:#?}");
    assert!(
        typo[0].0.starts_with("unknown argument `minimun`"),
        "{typo:#?}"
    );
    // A problem the kind's CRD reports is not repeated by the spec type's JsonSchema.
    let float = build_api("pub size: i32,", "pub size: f64,", WITH_SCHEMARS);
    assert_eq!(float.len(), 1, "{float:#?}");
    assert!(float[0].0.contains("allow-dangerous-types"), "{float:#?}");
}

#[test]
fn with_schemars_a_schema_type_no_kind_uses_reports_its_own_problem() {
    // No CRD reports this type, so its JsonSchema impl does, once, at the type.
    let errors = build_api(
        "/// MemcachedSpec defines",
        "#[derive(Schema, Serialize, Deserialize)]\npub struct Loose {\n    pub ratio: f64,\n}\n\n/// MemcachedSpec defines",
        WITH_SCHEMARS,
    );
    assert_eq!(errors.len(), 1, "{errors:#?}");
    let (message, file, _) = &errors[0];
    assert!(
        message.starts_with("cannot generate the JSON schema of Loose: ")
            || message.contains("f64"),
        "{message}"
    );
    assert!(message.contains("allow-dangerous-types"), "{message}");
    assert!(file.ends_with("src/api/v1alpha1.rs"), "{file}");
}

#[test]
fn a_type_that_derives_json_schema_itself_keeps_its_own() {
    // Deriving schemars' JsonSchema beside Schema is not a conflicting impl.
    let errors = build_api(
        "#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]\n#[serde(rename_all",
        "#[derive(Schema, Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]\n#[serde(rename_all",
        WITH_SCHEMARS,
    );
    assert!(errors.is_empty(), "{errors:#?}");
}
