//! Size budgets of a CRD. `kubectl apply` (client-side) keeps the whole object as JSON in the
//! `kubectl.kubernetes.io/last-applied-configuration` annotation, and the API server refuses
//! annotations over 256 KiB in total ("metadata.annotations: Too long"); etcd refuses a
//! request over 1.5 MiB by default, so no API server can store a CRD that large. [`check`]
//! measures a CRD as compact JSON (what both limits count) and, over a budget, names the
//! biggest parts of its schema and what to do.

use std::fmt;

use serde_json::Value;

use crate::gates::compat::Severity;

/// What `kubectl apply` (client-side) can apply: the API server's limit on all annotations.
pub const CLIENT_SIDE_APPLY: usize = 256 * 1024;
/// What etcd accepts in one request by default (`--max-request-bytes`).
pub const STORED: usize = 1536 * 1024;

/// A CRD over a budget.
#[derive(Debug, Clone, PartialEq)]
pub struct Oversize {
    /// The CRD's name (`<plural>.<group>`).
    pub crd: String,
    /// Its file (kubebuilder's layout).
    pub file: String,
    /// Its size as compact JSON.
    pub bytes: usize,
    /// Over [`STORED`]: an error; over [`CLIENT_SIDE_APPLY`]: a warning.
    pub severity: Severity,
    /// The bytes of all its descriptions.
    pub descriptions: usize,
    /// The deepest schema nodes holding at least an eighth of it: (version and JSON path,
    /// bytes), biggest first.
    pub biggest: Vec<(String, usize)>,
    /// The field of `spec` or `status` (or another top-level field) holding the most, when it
    /// holds a quarter or more: where `#[schema(skip_descriptions)]` goes.
    pub heaviest_field: Option<(String, usize)>,
}

fn json_len(v: &Value) -> usize {
    serde_json::to_vec(v).map_or(0, |b| b.len())
}

/// The bytes of every `description` below `v`, with their keys and quotes.
fn description_bytes(v: &Value) -> usize {
    match v {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| match (k.as_str(), v) {
                ("description", Value::String(_)) => json_len(v) + "\"description\":,".len(),
                _ => description_bytes(v),
            })
            .sum(),
        Value::Array(items) => items.iter().map(description_bytes).sum(),
        _ => 0,
    }
}

/// Walks the schema nodes below `node` (properties, items, map values), collecting the
/// deepest ones of at least `floor` bytes into `out`; says whether `node` had such a child.
fn deepest(node: &Value, path: &str, floor: usize, out: &mut Vec<(String, usize)>) -> bool {
    let mut children: Vec<(String, &Value)> = Vec::new();
    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        for (name, child) in props {
            children.push((format!("{path}.{name}"), child));
        }
    }
    if let Some(items) = node.get("items") {
        children.push((format!("{path}[*]"), items));
    }
    if let Some(values) = node.get("additionalProperties").filter(|v| v.is_object()) {
        children.push((format!("{path}[*]"), values));
    }
    let mut found = false;
    for (child_path, child) in children {
        let size = json_len(child);
        if size < floor {
            continue;
        }
        found = true;
        if !deepest(child, &child_path, floor, out) {
            out.push((child_path, size));
        }
    }
    found
}

/// The CRD `crd` (as JSON), when it is over a budget.
pub fn check(crd: &Value) -> Option<Oversize> {
    let bytes = json_len(crd);
    if bytes <= CLIENT_SIDE_APPLY {
        return None;
    }
    let name = crd
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let group = crd
        .pointer("/spec/group")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let plural = crd
        .pointer("/spec/names/plural")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let mut biggest = Vec::new();
    let mut heaviest_field: Option<(String, usize)> = None;
    for v in crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let version = v.get("name").and_then(Value::as_str).unwrap_or_default();
        if let Some(schema) = v.pointer("/schema/openAPIV3Schema") {
            for (top, node) in schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                for (field, child) in node
                    .get("properties")
                    .and_then(Value::as_object)
                    .into_iter()
                    .flatten()
                {
                    let size = json_len(child);
                    if size >= bytes / 4 && heaviest_field.as_ref().is_none_or(|(_, s)| size > *s) {
                        heaviest_field = Some((format!(".{top}.{field}"), size));
                    }
                }
            }
            let mut found = Vec::new();
            deepest(schema, "", bytes / 8, &mut found);
            biggest.extend(
                found
                    .into_iter()
                    .map(|(path, size)| (format!("{version} {path}"), size)),
            );
        }
    }
    biggest.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    biggest.truncate(4);
    Some(Oversize {
        crd: name,
        file: format!("config/crd/bases/{group}_{plural}.yaml"),
        bytes,
        severity: if bytes > STORED {
            Severity::Error
        } else {
            Severity::Warning
        },
        descriptions: description_bytes(crd),
        biggest,
        heaviest_field,
    })
}

fn kib(bytes: usize) -> String {
    format!("{:.0} KiB", bytes as f64 / 1024.0)
}

impl fmt::Display for Oversize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let percent = |n: usize| n * 100 / self.bytes.max(1);
        match self.severity {
            Severity::Error => write!(
                f,
                "error: {}: {} is {} as JSON, over the {} etcd stores in one request by default: no API server can keep it",
                self.file,
                self.crd,
                kib(self.bytes),
                kib(STORED)
            )?,
            Severity::Warning => write!(
                f,
                "warning: {}: {} is {} as JSON, over the {} of annotations the API server allows: `kubectl apply` (client-side) cannot apply it (\"metadata.annotations: Too long\"); `kubectl apply --server-side`, `cargo xtask install` and `deploy` can",
                self.file,
                self.crd,
                kib(self.bytes),
                kib(CLIENT_SIDE_APPLY)
            )?,
        }
        write!(
            f,
            "\n  descriptions: {} ({}%)",
            kib(self.descriptions),
            percent(self.descriptions)
        )?;
        if let Some((path, size)) = &self.heaviest_field {
            write!(f, "\n  {path}: {} ({}%)", kib(*size), percent(*size))?;
        }
        for (path, size) in &self.biggest {
            write!(f, "\n  {path}: {} ({}%)", kib(*size), percent(*size))?;
        }
        write!(
            f,
            "\n  to shrink it: `max-desc-len = 0` (or a length) in [package.metadata.operator-gen] shortens every description"
        )?;
        if let Some((field, _)) = &self.heaviest_field {
            write!(
                f,
                "; #[schema(skip_descriptions)] on the field at {field} (or on the field below it that holds an embedded Kubernetes type) drops the descriptions below it only"
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn crd(description: &str, copies: usize) -> Value {
        let props: serde_json::Map<String, Value> = (0..copies)
            .map(|i| {
                (
                    format!("f{i}"),
                    json!({"type": "string", "description": description}),
                )
            })
            .collect();
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "bigs.x.example.com"},
            "spec": {"group": "x.example.com", "names": {"plural": "bigs", "kind": "Big"},
                "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {
                        "small": {"type": "string"},
                        "template": {"type": "object", "properties": props}
                    }}
                }}}}]}
        })
    }

    #[test]
    fn under_the_budget_nothing_is_said() {
        assert_eq!(check(&crd("short", 10)), None);
    }

    #[test]
    fn over_client_side_apply_warns_and_names_the_biggest_part_and_the_fixes() {
        let big = check(&crd(&"d".repeat(1000), 300)).unwrap();
        assert_eq!(big.severity, Severity::Warning);
        assert_eq!(big.biggest[0].0, "v1 .spec.template");
        assert_eq!(big.heaviest_field.as_ref().unwrap().0, ".spec.template");
        let text = big.to_string();
        assert!(
            text.starts_with(
                "warning: config/crd/bases/x.example.com_bigs.yaml: bigs.x.example.com is "
            ),
            "{text}"
        );
        assert!(
            text.contains("`kubectl apply` (client-side) cannot apply it"),
            "{text}"
        );
        assert!(text.contains("descriptions: "), "{text}");
        assert!(text.contains("max-desc-len = 0"), "{text}");
        assert!(
            text.contains("#[schema(skip_descriptions)] on the field at .spec.template"),
            "{text}"
        );
    }

    #[test]
    fn over_what_etcd_stores_is_an_error() {
        let big = check(&crd(&"d".repeat(1000), 1700)).unwrap();
        assert_eq!(big.severity, Severity::Error);
        assert!(big.to_string().contains("no API server can keep it"));
    }
}
