//! `cargo xtask known-types`: regenerates operator-gen's table of Kubernetes type schemas
//! (`operator-gen/src/known_types.json`) from controller-gen.
//!
//! operator-gen reads sources without Go, so the schemas controller-gen derives from the Go
//! sources of `k8s.io/api` and its sibling modules (their doc comments as descriptions, their
//! `+listType`, `+kubebuilder` and `+required` markers) are kept as data. This command lists
//! every type of the k8s-openapi crate the workspace pins (its sources in cargo's registry),
//! writes a throwaway Go package with one kind per Go package of those types whose spec has
//! one field per type, runs controller-gen on it, and stores each field's schema under the
//! Rust path of its k8s-openapi type.
//!
//! controller-gen writes every use of a type in full, so a Deployment carries a whole
//! PodSpec. The table stores each type once: a subschema whose properties are those of
//! another type of the table becomes `{"$ref": "<that type's path>"}` plus the keys in which
//! the subschema differs from the type's own schema (its field's description, mostly).
//! Expanding the references (operator-gen does, on lookup) gives controller-gen's output
//! again, exactly; this command checks that before it writes the file.
//!
//! The parity case `embedded` compares a selection of these types with the live
//! controller-gen, so a stale table fails `cargo xtask test`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use serde_json::{Map, Value};

use operator_xtask::root;

/// A type of k8s-openapi and the Go type it was generated from.
#[derive(Debug, Clone)]
struct KubeType {
    /// `k8s_openapi::api::apps::v1::Deployment`
    rust: String,
    /// `k8s.io/api/apps/v1`
    go_package: String,
    /// `Deployment`
    go_name: String,
    /// The other types of k8s-openapi its source names (`k8s_openapi::...` paths).
    uses: BTreeSet<String>,
}

/// The Go modules besides k8s.io/api and k8s.io/apimachinery (which the parity module
/// already requires) that k8s-openapi's types come from, at the parity module's version.
const EXTRA_MODULES: &[&str] = &["k8s.io/apiextensions-apiserver", "k8s.io/kube-aggregator"];

/// The groups of k8s-openapi's modules whose types the table covers.
const MODULE_ROOTS: &[&str] = &[
    "api",
    "apimachinery",
    "apiextensions_apiserver",
    "kube_aggregator",
];

/// Where the sources of the k8s-openapi release the workspace resolves are, and the
/// Kubernetes version feature it is built with (`v1_36`).
fn k8s_openapi_source() -> Result<(PathBuf, String)> {
    let output = std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
        .current_dir(root())
        .args(["metadata", "--format-version", "1", "--locked"])
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        bail!(
            "cargo metadata failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let metadata: Value = serde_json::from_slice(&output.stdout)?;
    let package = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "k8s-openapi")
        .context("the workspace does not depend on k8s-openapi")?;
    let manifest = PathBuf::from(
        package["manifest_path"]
            .as_str()
            .context("k8s-openapi has no manifest path")?,
    );
    let id = &package["id"];
    let features = metadata["resolve"]["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|n| &n["id"] == id)
        .and_then(|n| n["features"].as_array())
        .context("k8s-openapi is not in cargo metadata's resolve graph")?;
    let version = features
        .iter()
        .filter_map(Value::as_str)
        .find(|f| f.starts_with("v1_"))
        .context("k8s-openapi is built without a Kubernetes version feature")?;
    let dir = manifest
        .parent()
        .context("k8s-openapi's manifest has no directory")?
        .join("src")
        .join(version);
    Ok((dir, version.to_string()))
}

/// Types by their Rust path, each with the reason it is not in the table.
type Excluded = Vec<(String, String)>;

/// Every type k8s-openapi declares under [`MODULE_ROOTS`] in `dir` (one per file, each file
/// headed by the OpenAPI definition it was generated from), and the ones skipped with why.
fn k8s_openapi_types(dir: &Path) -> Result<(Vec<KubeType>, Excluded)> {
    let mut files = Vec::new();
    for module in MODULE_ROOTS {
        collect_rs(&dir.join(module), &mut files)?;
    }
    files.sort();
    let mut types = Vec::new();
    let mut skipped = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file)?;
        let Some(definition) = text
            .lines()
            .find_map(|l| l.strip_prefix("// Generated from definition "))
        else {
            continue;
        };
        let Some((keyword_rest, name)) = text.lines().find_map(|l| {
            let rest = l
                .strip_prefix("pub struct ")
                .or_else(|| l.strip_prefix("pub enum "))?;
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            Some((rest[name.len()..].to_string(), name))
        }) else {
            continue;
        };
        let module = file
            .parent()
            .and_then(|p| p.strip_prefix(dir).ok())
            .context("a file outside the crate")?;
        let rust = format!(
            "k8s_openapi::{}::{name}",
            module
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("::")
        );
        if keyword_rest.starts_with('<') {
            skipped.push((
                rust,
                "generic over the object it carries; the Go type holds a RawExtension".into(),
            ));
            continue;
        }
        let (go_package, go_name) = go_type(definition.trim())
            .with_context(|| format!("{}: definition {definition}", file.display()))?;
        if go_name != name {
            bail!("{rust} was generated from {definition}, which names another type");
        }
        let uses = text
            .match_indices("crate::")
            .map(|(at, _)| {
                let path: String = text[at + "crate::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                format!("k8s_openapi::{}", path.trim_end_matches(':'))
            })
            .filter(|p| p != &rust)
            .collect();
        types.push(KubeType {
            rust,
            go_package,
            go_name,
            uses,
        });
    }
    Ok((types, skipped))
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.is_dir() {
            collect_rs(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "mod.rs")
        {
            out.push(path);
        }
    }
    Ok(())
}

/// The Go package and type of an OpenAPI definition name:
/// `io.k8s.api.apps.v1.Deployment` is `k8s.io/api/apps/v1` `Deployment`,
/// `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON` is
/// `k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1` `JSON`.
fn go_type(definition: &str) -> Result<(String, String)> {
    let rest = definition
        .strip_prefix("io.k8s.")
        .context("not a Kubernetes definition")?;
    let (package, name) = rest.rsplit_once('.').context("no type name")?;
    Ok((format!("k8s.io/{}", package.replace('.', "/")), name.into()))
}

/// The Go identifier a package is imported as in the generated source.
fn go_alias(package: &str) -> String {
    package
        .trim_start_matches("k8s.io/")
        .replace(['/', '.', '-'], "_")
}

/// The generated package: one kind per Go package, its spec one optional field per type,
/// named after the type. Returns the source and, per kind, its package.
fn go_source(types: &[KubeType]) -> (String, BTreeMap<String, String>) {
    let mut packages: BTreeMap<&str, Vec<&KubeType>> = BTreeMap::new();
    for t in types {
        packages.entry(&t.go_package).or_default().push(t);
    }
    let meta = "k8s.io/apimachinery/pkg/apis/meta/v1";
    let mut src = String::from(
        "// Package v1 is generated by `cargo xtask known-types` and deleted after use.\n\
         // +groupName=known.operator-rs.dev\npackage v1\n\nimport (\n",
    );
    let imports: BTreeSet<&str> = packages.keys().copied().chain([meta]).collect();
    for package in &imports {
        src.push_str(&format!("\t{} \"{package}\"\n", go_alias(package)));
    }
    src.push_str(")\n");
    let mut kinds = BTreeMap::new();
    for (n, (package, members)) in packages.iter().enumerate() {
        let kind = format!("Known{n:03}");
        let alias = go_alias(package);
        src.push_str(&format!("\ntype {kind}Spec struct {{\n"));
        for t in members {
            src.push_str(&format!(
                "\t// +optional\n\t{name} *{alias}.{name} `json:\"{name},omitempty\"`\n",
                name = t.go_name
            ));
        }
        src.push_str(&format!(
            "}}\n\n// +kubebuilder:object:root=true\n// +kubebuilder:resource:scope=Cluster\n\
             type {kind} struct {{\n\t{m}.TypeMeta `json:\",inline\"`\n\t{m}.ObjectMeta `json:\"metadata,omitempty\"`\n\n\
             \tSpec {kind}Spec `json:\"spec,omitempty\"`\n}}\n",
            m = go_alias(meta)
        ));
        kinds.insert(kind, package.to_string());
    }
    (src, kinds)
}

/// The parity module's `go.mod` as a module of its own that also requires
/// [`EXTRA_MODULES`] at the version it requires k8s.io/api at.
fn go_mod(parity: &Path) -> Result<String> {
    let text = std::fs::read_to_string(parity.join("go.mod"))?;
    let version = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("k8s.io/api "))
        .context("testdata/parity/go.mod does not require k8s.io/api")?
        .trim()
        .to_string();
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("module ") {
            out.push_str("module example.com/knowntypes\n");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out.push_str("\nrequire (\n");
    for module in EXTRA_MODULES {
        out.push_str(&format!("\t{module} {version}\n"));
    }
    out.push_str(")\n");
    Ok(out)
}

pub fn known_types() -> Result<()> {
    let (source_dir, version) = k8s_openapi_source()?;
    let (types, skipped) = k8s_openapi_types(&source_dir)?;
    eprintln!(
        "k8s-openapi {version}: {} types in {}, {} skipped",
        types.len(),
        source_dir.display(),
        skipped.len()
    );
    let controller_gen = envtest::components::controller_gen()
        .context("installing controller-gen to read the Kubernetes types")?;
    let parity = root().join("testdata/parity");
    let work = tempfile::tempdir()?;
    std::fs::write(work.path().join("go.mod"), go_mod(&parity)?)?;
    if parity.join("go.sum").exists() {
        std::fs::copy(parity.join("go.sum"), work.path().join("go.sum"))?;
    }
    let package_dir = work.path().join("known/v1");
    std::fs::create_dir_all(&package_dir)?;

    // controller-gen stops at the first package it cannot render; the types it names are
    // left out and it runs again.
    let mut remaining = types.clone();
    let mut left_out: Excluded = Vec::new();
    let out = tempfile::tempdir()?;
    let fields = loop {
        let (src, kinds) = go_source(&remaining);
        std::fs::write(package_dir.join("types.go"), &src)?;
        for entry in std::fs::read_dir(out.path())? {
            std::fs::remove_file(entry?.path())?;
        }
        let output = envtest::components::controller_gen_command(&controller_gen, work.path())
            .args([
                "crd:allowDangerousTypes=true".to_string(),
                "paths=./known/...".into(),
                format!("output:crd:dir={}", out.path().display()),
            ])
            .output()
            .context("running controller-gen")?;
        if output.status.success() {
            break read_fields(out.path(), &kinds, &remaining)?;
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let mut failing = failing_types(&stderr, &src, &remaining)?;
        if failing.is_empty() {
            bail!("controller-gen failed on the generated package:\n{stderr}");
        }
        // And every type that holds one of them.
        loop {
            let more: Vec<(String, String)> = remaining
                .iter()
                .filter(|t| !failing.contains_key(&t.rust))
                .filter_map(|t| {
                    let bad = t.uses.iter().find(|u| failing.contains_key(*u))?;
                    Some((t.rust.clone(), format!("holds {bad}")))
                })
                .collect();
            if more.is_empty() {
                break;
            }
            failing.extend(more);
        }
        for (t, why) in failing {
            eprintln!("controller-gen cannot render {t}: {why}");
            remaining.retain(|r| r.rust != t);
            left_out.push((t, why));
        }
    };

    let table = compress(&fields);
    for (key, full) in &fields {
        let expanded = expand(&table, key);
        if &expanded != full {
            bail!("{key}: the compact table does not expand to controller-gen's schema");
        }
    }
    let mut floats: Vec<&str> = fields
        .iter()
        .filter(|(_, s)| has_number(s))
        .map(|(k, _)| k.as_str())
        .collect();
    floats.sort_unstable();

    // One entry a line: the file is data, but its diffs stay readable per type.
    let mut text = String::from("{\n");
    for (n, (key, schema)) in table.iter().enumerate() {
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
    // What operator-gen's tests check its expansion against: a fingerprint of each type's
    // schema as controller-gen wrote it.
    let mut sums = String::from(
        "# The FNV-1a fingerprint of each type's schema as controller-gen writes it (keys sorted,\n\
         # numbers as f64), for operator-gen's tests. Generated by `cargo xtask known-types`.\n",
    );
    for (key, schema) in &fields {
        sums.push_str(&format!(
            "{key} {:016x}\n",
            operator_gen::internals::known_types::fingerprint(schema)
        ));
    }
    std::fs::write(root().join("operator-gen/src/known_types.sums"), sums)?;
    let full_size: usize = fields
        .values()
        .map(|s| serde_json::to_string(s).map_or(0, |t| t.len()))
        .sum();
    for (t, why) in &skipped {
        eprintln!("skipped {t}: {why}");
    }
    for (t, why) in &left_out {
        eprintln!("left out {t}: {why}");
    }
    eprintln!(
        "types with float fields (need allow-dangerous-types): {}",
        if floats.is_empty() {
            "none".to_string()
        } else {
            floats.join(", ")
        }
    );
    eprintln!(
        "wrote {} ({} types, {} bytes; {} bytes expanded)",
        target.display(),
        table.len(),
        std::fs::metadata(&target)?.len(),
        full_size
    );
    Ok(())
}

/// The types an error of controller-gen points at, with the message: the Go type whose
/// declaration holds the line it names (in the module cache or the generated source).
fn failing_types(stderr: &str, src: &str, types: &[KubeType]) -> Result<BTreeMap<String, String>> {
    let mut found = BTreeMap::new();
    for err in stderr.lines() {
        // `<file>.go:<line>:<column>: <message>`
        let Some((file, rest)) = err.split_once(".go:") else {
            continue;
        };
        let Some((line, message)) = rest
            .split_once(':')
            .and_then(|(line, rest)| Some((line.parse::<usize>().ok()?, rest.split_once(": ")?.1)))
        else {
            continue;
        };
        let file = format!("{file}.go");
        let (text, package) = if file.ends_with("known/v1/types.go") {
            // A field of the generated spec: the type is its second word.
            let field = src.lines().nth(line.wrapping_sub(1)).unwrap_or("");
            let ty = field.split_whitespace().nth(1).unwrap_or("");
            let Some((alias, name)) = ty.trim_start_matches('*').split_once('.') else {
                bail!("controller-gen: {err}");
            };
            if let Some(t) = types
                .iter()
                .find(|t| t.go_name == name && go_alias(&t.go_package) == alias)
            {
                found.insert(t.rust.clone(), message.trim().to_string());
            }
            continue;
        } else {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("controller-gen names {file}"))?;
            // `<modcache>/k8s.io/api@v0.36.0/core/v1/types.go`: the package is the module
            // without its version, then the directory.
            let at = file.find("/k8s.io/").context("an error outside k8s.io")?;
            let dir = &file[at + 1..file.rfind('/').unwrap_or(file.len())];
            let package = match dir.split_once('@') {
                Some((module, rest)) => format!(
                    "{module}{}",
                    rest.split_once('/')
                        .map_or(String::new(), |(_, d)| format!("/{d}"))
                ),
                None => dir.to_string(),
            };
            (text, package)
        };
        let Some(name) = text
            .lines()
            .take(line)
            .filter_map(|l| l.strip_prefix("type "))
            .last()
            .and_then(|l| l.split_whitespace().next())
        else {
            bail!("controller-gen: {err} (outside any type)");
        };
        let Some(t) = types
            .iter()
            .find(|t| t.go_name == name && t.go_package == package)
        else {
            bail!("controller-gen: {err} (in {package}.{name}, not a type of the table)");
        };
        found
            .entry(t.rust.clone())
            .or_insert_with(|| message.trim().to_string());
    }
    Ok(found)
}

/// Each type's schema from controller-gen's CRDs: the spec field named after it.
fn read_fields(
    dir: &Path,
    kinds: &BTreeMap<String, String>,
    types: &[KubeType],
) -> Result<BTreeMap<String, Value>> {
    let by_go: HashMap<(&str, &str), &str> = types
        .iter()
        .map(|t| ((t.go_package.as_str(), t.go_name.as_str()), t.rust.as_str()))
        .collect();
    let mut fields = BTreeMap::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let crd: Value = serde_yaml::from_str(&std::fs::read_to_string(&path)?)
            .with_context(|| format!("parsing {}", path.display()))?;
        let kind = crd
            .pointer("/spec/names/kind")
            .and_then(Value::as_str)
            .with_context(|| format!("{}: no kind", path.display()))?;
        let package = kinds
            .get(kind)
            .with_context(|| format!("{}: unexpected kind {kind}", path.display()))?;
        let Some(Value::Object(props)) = crd
            .pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties")
            .cloned()
        else {
            bail!("{}: no spec properties", path.display());
        };
        for (name, schema) in props {
            let rust = by_go
                .get(&(package.as_str(), name.as_str()))
                .with_context(|| format!("{kind}: unexpected field {name}"))?;
            fields.insert(rust.to_string(), schema);
        }
    }
    let missing: Vec<&str> = types
        .iter()
        .filter(|t| !fields.contains_key(&t.rust))
        .map(|t| t.rust.as_str())
        .collect();
    if !missing.is_empty() {
        bail!("controller-gen wrote no schema for {}", missing.join(", "));
    }
    Ok(fields)
}

/// Whether a schema has a float (`type: number`) anywhere.
fn has_number(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            map.get("type").is_some_and(|t| t == "number") || map.values().any(has_number)
        }
        Value::Array(items) => items.iter().any(has_number),
        _ => false,
    }
}

/// The table with each type's schema stored once: every subschema (below the top) whose
/// `properties` equal those of another type's schema, and that has every key that schema
/// has, becomes a reference to that type plus the keys whose values differ.
fn compress(fields: &BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    // Types by their properties, as text; several types may share them (the same struct
    // in two API versions): the candidates are tried in the order of `rank`.
    let mut by_properties: HashMap<String, Vec<&str>> = HashMap::new();
    for (key, schema) in fields {
        if let Some(props) = schema
            .get("properties")
            .filter(|p| p.as_object().is_some_and(|o| !o.is_empty()))
        {
            by_properties
                .entry(props.to_string())
                .or_default()
                .push(key);
        }
    }
    fields
        .iter()
        .map(|(key, schema)| {
            let mut compact = schema.clone();
            if let Value::Object(map) = &mut compact {
                for value in map.values_mut() {
                    replace_nested(value, key, fields, &by_properties);
                }
            }
            (key.clone(), compact)
        })
        .collect()
}

/// The module of a table key (`k8s_openapi::api::apps::v1`).
fn module_of(key: &str) -> &str {
    key.rsplit_once("::").map_or("", |(m, _)| m)
}

fn replace_nested(
    value: &mut Value,
    owner: &str,
    fields: &BTreeMap<String, Value>,
    by_properties: &HashMap<String, Vec<&str>>,
) {
    match value {
        Value::Object(map) => {
            if let Some(reference) = reference_for(map, owner, fields, by_properties) {
                *value = reference;
                return;
            }
            for v in map.values_mut() {
                replace_nested(v, owner, fields, by_properties);
            }
        }
        Value::Array(items) => {
            for v in items {
                replace_nested(v, owner, fields, by_properties);
            }
        }
        _ => {}
    }
}

/// The reference that replaces the subschema `map`, if a type of the table has its
/// properties. Among several such types: one whose schema differs from `map` in the fewest
/// keys, then one in the module of the type being stored, then the first by path.
fn reference_for(
    map: &Map<String, Value>,
    owner: &str,
    fields: &BTreeMap<String, Value>,
    by_properties: &HashMap<String, Vec<&str>>,
) -> Option<Value> {
    let props = map.get("properties")?;
    let candidates = by_properties.get(&props.to_string())?;
    let mut best: Option<(usize, bool, &str, Map<String, Value>)> = None;
    for &candidate in candidates {
        if candidate == owner {
            continue;
        }
        let Some(Value::Object(target)) = fields.get(candidate) else {
            continue;
        };
        if !target.keys().all(|k| map.contains_key(k)) {
            continue;
        }
        let mut reference = Map::new();
        reference.insert("$ref".into(), Value::String(candidate.into()));
        for (k, v) in map {
            if target.get(k) != Some(v) {
                reference.insert(k.clone(), v.clone());
            }
        }
        let rank = (
            reference.len(),
            module_of(candidate) != module_of(owner),
            candidate,
        );
        if best
            .as_ref()
            .is_none_or(|(n, other_module, name, _)| rank < (*n, *other_module, *name))
        {
            best = Some((rank.0, rank.1, rank.2, reference));
        }
    }
    best.map(|(_, _, _, reference)| Value::Object(reference))
}

/// The full schema of `key` from the compact table (as operator-gen expands it).
fn expand(table: &BTreeMap<String, Value>, key: &str) -> Value {
    let mut value = table[key].clone();
    expand_value(table, &mut value);
    value
}

fn expand_value(table: &BTreeMap<String, Value>, value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.remove("$ref") {
                let mut full = expand(table, &target);
                if let Value::Object(full_map) = &mut full {
                    for (k, v) in std::mem::take(map) {
                        full_map.insert(k, v);
                    }
                }
                *value = full;
                return;
            }
            for v in map.values_mut() {
                expand_value(table, v);
            }
        }
        Value::Array(items) => {
            for v in items {
                expand_value(table, v);
            }
        }
        _ => {}
    }
}
