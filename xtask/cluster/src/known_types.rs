//! `cargo xtask known-types`: regenerates operator-gen's table of Kubernetes type schemas
//! (`operator-gen/src/known_types.json`) from controller-gen.
//!
//! operator-gen reads sources without Go, so the schemas controller-gen derives from the Go
//! sources of `k8s.io/api` (their doc comments as descriptions, their `+listType`,
//! `+kubebuilder` and `+required` markers) are kept as data. The `Known` kind of the parity
//! case `embedded` has one field per type, named after it; this command runs controller-gen
//! on that case and stores each field's schema under the Rust path of its k8s-openapi type.
//! The parity suite compares the same case's output with operator-gen's, so a stale table
//! fails `cargo xtask test`.

use anyhow::{Context as _, Result, bail};
use serde_json::Value;

use operator_xtask::root;

/// Types of the table that are not in `k8s_openapi::api::core::v1`.
const OTHER_MODULES: &[(&str, &str)] = &[
    (
        "LabelSelector",
        "k8s_openapi::apimachinery::pkg::apis::meta::v1",
    ),
    ("JobTemplateSpec", "k8s_openapi::api::batch::v1"),
];

/// The kinds of the `embedded` case whose spec fields make the table.
const TABLE_KINDS: &[&str] = &["knowns", "knownbatches"];

/// The Rust path of the k8s-openapi type a field of `KnownSpec` is named after.
fn rust_path(json_name: &str) -> String {
    let mut chars = json_name.chars();
    let type_name: String = chars
        .next()
        .map(|c| c.to_ascii_uppercase())
        .into_iter()
        .chain(chars)
        .collect();
    let module = OTHER_MODULES
        .iter()
        .find(|(name, _)| *name == type_name)
        .map_or("k8s_openapi::api::core::v1", |(_, m)| m);
    format!("{module}::{type_name}")
}

pub fn known_types() -> Result<()> {
    let controller_gen = envtest::components::controller_gen()
        .context("installing controller-gen to read the Kubernetes types")?;
    let parity = root().join("testdata/parity");
    let out = tempfile::tempdir()?;
    let output = envtest::components::controller_gen_command(&controller_gen, &parity)
        .args([
            "crd".to_string(),
            "paths=./embedded/go/...".into(),
            format!("output:crd:dir={}", out.path().display()),
        ])
        .output()
        .context("running controller-gen")?;
    if !output.status.success() {
        bail!(
            "controller-gen failed on testdata/parity/embedded:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let mut fields = serde_json::Map::new();
    for plural in TABLE_KINDS {
        let crd_path = out
            .path()
            .join(format!("embedded.parity.example.com_{plural}.yaml"));
        let crd: Value = serde_yaml::from_str(
            &std::fs::read_to_string(&crd_path)
                .with_context(|| format!("controller-gen wrote no {}", crd_path.display()))?,
        )?;
        let Some(Value::Object(props)) = crd
            .pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties")
            .cloned()
        else {
            bail!("{}: no spec properties", crd_path.display());
        };
        fields.extend(props);
    }
    let mut fields: Vec<(String, Value)> = fields
        .into_iter()
        .map(|(json_name, schema)| (rust_path(&json_name), schema))
        .collect();
    fields.sort_by(|a, b| a.0.cmp(&b.0));
    // One entry a line: the file is data, but its diffs stay readable per type.
    let mut text = String::from("{\n");
    for (n, (key, schema)) in fields.iter().enumerate() {
        if n > 0 {
            text.push_str(",\n");
        }
        text.push_str(&serde_json::to_string(key)?);
        text.push_str(": ");
        text.push_str(&serde_json::to_string(schema)?);
    }
    text.push_str("\n}\n");
    let target = root().join("operator-gen/src/known_types.json");
    std::fs::write(&target, text)?;
    eprintln!(
        "wrote {} ({} types, {} bytes)",
        target.display(),
        fields.len(),
        std::fs::metadata(&target)?.len()
    );
    Ok(())
}
