//! `schemars::JsonSchema`, as the derives implement it, is the schema the CRD carries, for
//! every parity case: each case's Rust side is built as a crate that depends on schemars
//! (its types also derive serde's traits, which the fixtures leave out since the generator
//! does not need them), and a test inside it compares, for each kind, `json_schema()` of
//! the kind with its version's `openAPIV3Schema` in `crd()`, and the spec and status types'
//! own schemas with the CRD's `spec` and `status` properties (but for the description,
//! which the field's doc comment sets in the CRD). The memcached case is the workspace's
//! memcached crate, whose `tests/crd.rs` does the same.
//!
//! The cases are the members of one cargo workspace, built by one `cargo test` in
//! `target/tests/trybuild`, next to the UI tests' dependencies.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

mod support;

use operator_gen_conformance::outside::{PROFILES, dependency_line};
use support::{case_dependencies, target_dir, workspace_root};

/// A kind of a case: its path, and the paths of the types of its `spec` and `status`
/// (inside an `Option`) where the field carries no markers of its own (so the type's
/// schema is the CRD's property).
struct Kind {
    path: String,
    spec: Option<String>,
    status: Option<String>,
}

/// The kinds `text` declares (module `module`).
fn kinds(module: &str, text: &str) -> Vec<Kind> {
    let file = syn::parse_file(text).unwrap();
    let derives_kind = |attrs: &[syn::Attribute]| {
        attrs.iter().any(|a| {
            a.path().is_ident("derive")
                && a.meta.to_token_stream_string().contains("CustomResource")
        })
    };
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) if derives_kind(&s.attrs) => Some(s),
            _ => None,
        })
        .map(|s| {
            let plain = |name: &str| {
                let field = s.fields.iter().find(|f| {
                    f.ident.as_ref().is_some_and(|i| i == name)
                        && !f
                            .attrs
                            .iter()
                            .any(|a| a.path().is_ident("validation") || a.path().is_ident("schema"))
                })?;
                let syn::Type::Path(p) = &field.ty else {
                    return None;
                };
                let last = p.path.segments.last()?;
                let ident = match &last.arguments {
                    syn::PathArguments::None => &last.ident,
                    syn::PathArguments::AngleBracketed(a) if last.ident == "Option" => {
                        match a.args.first()? {
                            syn::GenericArgument::Type(syn::Type::Path(inner)) => {
                                inner.path.get_ident()?
                            }
                            _ => return None,
                        }
                    }
                    _ => return None,
                };
                Some(format!("crate::{module}::{ident}"))
            };
            Kind {
                path: format!("crate::{module}::{}", s.ident),
                spec: plain("spec"),
                status: plain("status"),
            }
        })
        .collect()
}

trait TokensText {
    fn to_token_stream_string(&self) -> String;
}

impl TokensText for syn::Meta {
    fn to_token_stream_string(&self) -> String {
        quote::ToTokens::to_token_stream(self).to_string()
    }
}

/// `text` with serde's derives added beside each `#[derive(Schema`, and `Default` on the
/// structs a `#[serde(default)]` field holds.
fn add_derives(text: &str) -> String {
    let file = syn::parse_file(text).unwrap();
    let mut defaulted = std::collections::BTreeSet::new();
    for item in &file.items {
        let syn::Item::Struct(s) = item else { continue };
        for field in &s.fields {
            let default = field.attrs.iter().any(|a| {
                a.path().is_ident("serde") && a.meta.to_token_stream_string().contains("default")
            });
            if let (true, syn::Type::Path(p)) = (default, &field.ty) {
                defaulted.insert(p.path.segments.last().unwrap().ident.to_string());
            }
        }
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[derive(Schema") {
        let item = &rest[at..];
        let name = item
            .split_once("pub struct ")
            .map(|(_, after)| after.split(|c: char| !c.is_alphanumeric()).next().unwrap());
        out.push_str(&rest[..at]);
        out.push_str("#[derive(::serde::Serialize, ::serde::Deserialize, ");
        if name.is_some_and(|n| defaulted.contains(n))
            && item.find("pub struct") < item.find("pub enum").or(Some(usize::MAX))
        {
            out.push_str("::core::default::Default, ");
        }
        rest = &rest[at + "#[derive(".len()..];
    }
    out.push_str(rest);
    out
}

/// The checks of one case crate, as Rust source.
const CHECKS: &str = r#"
#[cfg(test)]
mod json_schema_check {
    use schemars::JsonSchema;
    use serde_json::Value;

    /// Numbers as f64: `crd()` goes through k8s-openapi's f64 fields, the impls do not.
    fn norm(v: Value) -> Value {
        match v {
            Value::Number(n) => serde_json::json!(n.as_f64().unwrap()),
            Value::Array(a) => Value::Array(a.into_iter().map(norm).collect()),
            Value::Object(m) => Value::Object(m.into_iter().map(|(k, v)| (k, norm(v))).collect()),
            other => other,
        }
    }

    fn own<T: JsonSchema>() -> Value {
        norm(T::json_schema(&mut schemars::SchemaGenerator::default()).to_value())
    }

    fn without_description(mut v: Value) -> Value {
        v.as_object_mut().unwrap().remove("description");
        v
    }

    /// The kind's `openAPIV3Schema`, or its own schema for a version the CRD skips.
    pub fn root<K>() -> Value
    where
        K: JsonSchema + kube::CustomResourceExt + kube::Resource<DynamicType = ()>,
    {
        let crd = norm(serde_json::to_value(K::crd()).unwrap());
        let version = K::version(&());
        crd["spec"]["versions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == *version)
            .map_or_else(own::<K>, |v| v["schema"]["openAPIV3Schema"].clone())
    }

    /// The paths where `a` and `b` differ, with both values.
    fn diff(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for key in x.keys().chain(y.keys().filter(|k| !x.contains_key(*k))) {
                    let null = Value::Null;
                    diff(&format!("{path}.{key}"), x.get(key).unwrap_or(&null), y.get(key).unwrap_or(&null), out);
                }
            }
            _ if a != b => out.push(format!("{path}: {a} != {b}")),
            _ => {}
        }
    }

    fn same(what: &str, a: &Value, b: &Value) {
        let mut out = Vec::new();
        diff("", a, b, &mut out);
        assert!(out.is_empty(), "{what}: JsonSchema != CRD at\n{}", out.join("\n"));
    }

    pub fn kind<K>()
    where
        K: JsonSchema + kube::CustomResourceExt + kube::Resource<DynamicType = ()>,
    {
        let own = own::<K>();
        same(std::any::type_name::<K>(), &own, &root::<K>());
        for property in ["apiVersion", "kind", "metadata"] {
            assert!(own["properties"][property].is_object(), "{own}");
        }
    }

    pub fn field<K, T: JsonSchema>(name: &str)
    where
        K: JsonSchema + kube::CustomResourceExt + kube::Resource<DynamicType = ()>,
    {
        same(
            &format!("{}.{name}", std::any::type_name::<K>()),
            &without_description(own::<T>()),
            &without_description(root::<K>()["properties"][name].clone()),
        );
    }

    #[test]
    fn json_schema_is_the_schema_the_crd_carries() {
        __CALLS__
    }
}
"#;

/// Writes the case crate for `case` (its `rust/` directory) under `dir`; returns its
/// package name, or `None` for a case without kinds.
fn write_case(dir: &Path, case: &Path, deps: &str) -> Option<String> {
    let name = case.file_name().unwrap().to_str().unwrap().to_string();
    let package = format!("json-schema-case-{}", name.replace('_', "-"));
    let src = dir.join(&name).join("src");
    std::fs::create_dir_all(&src).unwrap();
    let mut modules = String::new();
    let mut calls = String::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(case.join("rust"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for file in files {
        let module = file.file_stem().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&file).unwrap();
        for kind in kinds(&module, &text) {
            let path = &kind.path;
            writeln!(calls, "super::json_schema_check::kind::<{path}>();").unwrap();
            for (name, ty) in [("spec", &kind.spec), ("status", &kind.status)] {
                if let Some(ty) = ty {
                    writeln!(
                        calls,
                        "super::json_schema_check::field::<{path}, {ty}>({name:?});"
                    )
                    .unwrap();
                }
            }
        }
        // The fixtures are read by the generator only: give their types the serde traits
        // a kind's fields need (and structs `Default`, for `#[serde(default)]` fields),
        // and the derives' names.
        let text = add_derives(&text);
        // After the file's inner doc comment, which must come first.
        let doc_end = text
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .map(|l| l.len() + 1)
            .sum::<usize>();
        let (doc, rest) = text.split_at(doc_end);
        std::fs::write(
            src.join(file.file_name().unwrap()),
            format!("{doc}use operator_derive::{{CustomResource, Schema, rbac}};\n{rest}"),
        )
        .unwrap();
        writeln!(
            modules,
            "#[allow(dead_code, unused_imports)]\npub mod {module};"
        )
        .unwrap();
    }
    if calls.is_empty() {
        std::fs::remove_dir_all(dir.join(&name)).unwrap();
        return None;
    }
    std::fs::write(
        src.join("lib.rs"),
        format!("{modules}{}", CHECKS.replace("__CALLS__", &calls)),
    )
    .unwrap();
    // The case's generator options, as its case.yaml gives them to both tools.
    let config = std::fs::read_to_string(case.join("case.yaml")).unwrap_or_default();
    let mut metadata = String::new();
    for line in config.lines() {
        if let Some(v) = line.strip_prefix("allowDangerousTypes:") {
            writeln!(metadata, "allow-dangerous-types = {}", v.trim()).unwrap();
        }
        if let Some(v) = line.strip_prefix("maxDescLen:") {
            writeln!(metadata, "max-desc-len = {}", v.trim()).unwrap();
        }
    }
    std::fs::write(
        dir.join(&name).join("Cargo.toml"),
        format!(
            "[package]\nname = \"{package}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
             [package.metadata.operator-gen]\n{metadata}\n[dependencies]\n{deps}\n"
        ),
    )
    .unwrap();
    Some(name)
}

#[test]
fn every_parity_case_implements_json_schema_as_its_crd() {
    let root = workspace_root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let deps = case_dependencies(&manifest)
        .into_iter()
        .chain([dependency_line(&manifest, "schemars")])
        .collect::<Vec<_>>()
        .join("\n");
    let dir = tempfile::tempdir().unwrap();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(root.join("testdata/parity"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("rust").is_dir() && !p.ends_with("memcached"))
        .collect();
    cases.sort();
    let members: Vec<String> = cases
        .iter()
        .filter_map(|case| write_case(dir.path(), case, &deps))
        .collect();
    assert!(members.len() >= 8, "{members:?}");
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!("[workspace]\nresolver = \"3\"\nmembers = {members:?}\n\n{PROFILES}"),
    )
    .unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();

    let out = Command::new(env!("CARGO"))
        .args(["test", "--workspace", "--quiet", "--lib", "--no-fail-fast"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", target_dir())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the cases did not build or pass:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // One passing check per case: none was left out.
    assert_eq!(
        stdout.matches("test result: ok. 1 passed").count(),
        members.len(),
        "{stdout}"
    );
}
