//! `operator-gen types` on CRDs nobody here wrote: the corpus of `testdata/crd-corpus/
//! corpus.yaml` (CRDs of real projects, from their Go modules at pinned versions).
//!
//! For each project the test generates the Rust types as `operator-gen types --from-crd`
//! does (rustfmt'd), then:
//! - **the round trip**: operator-gen reads the types back and the CRDs it writes are
//!   compared with the originals property by property ([`operator_gen::differences`]). Every
//!   difference must be listed in the corpus file with its reason, and every listed one must
//!   still occur;
//! - **the compile**: all the projects' types are one crate, built with `#![deny(warnings)]`;
//! - **the wire**: every example object the module ships for a corpus kind (the directories
//!   the corpus names) is read into its generated type and written back, and must come back
//!   the same JSON (fields that are `null` in the YAML count as absent, as the API server
//!   stores them; numbers compare as numbers).
//!
//! It prints a table per project (CRDs, properties kept, examples read back). Needs Go and
//! the module proxy, so it is `#[ignore]`d for plain `cargo test`; `cargo xtask test` runs it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use operator_gen::{CrdDocument, Options, TypesOptions, differences, read_crds, rust_types};
use operator_gen_conformance::outside::{self, workspace_root};
use serde::Deserialize as _;
use serde_json::Value;

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Corpus {
    projects: Vec<Project>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Project {
    name: String,
    module: String,
    version: String,
    crds: Vec<String>,
    #[serde(default)]
    examples: Vec<String>,
    #[serde(default)]
    differences: Vec<Difference>,
    /// Example objects (`file` relative to the module, `document` from 1) that do not come
    /// back the same, each with the reason.
    #[serde(default)]
    examples_differ: Vec<ExampleDifference>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Difference {
    /// The CRD's name (`certificates.cert-manager.io`), or `*` for every CRD of the project.
    crd: String,
    /// The start of the difference's JSON path; `*` stands for any text
    /// (`.spec.versions[*].schema`).
    path: String,
    reason: String,
}

impl Difference {
    fn matches(&self, crd: &str, difference: &str) -> bool {
        (self.crd == "*" || self.crd == crd) && starts_like(difference, &self.path)
    }
}

/// Whether `text` starts with `pattern`, where `*` in the pattern stands for any text.
fn starts_like(text: &str, pattern: &str) -> bool {
    match pattern.split_once('*') {
        None => text.starts_with(pattern),
        Some((head, rest)) => {
            text.starts_with(head)
                && (head.len()..=text.len())
                    .any(|i| text.is_char_boundary(i) && starts_like(&text[i..], rest))
        }
    }
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ExampleDifference {
    file: String,
    document: usize,
    reason: String,
}

/// The Rust module of a project (`cert-manager` -> `cert_manager`).
fn module_name(project: &str) -> String {
    project.replace(['-', '.'], "_")
}

/// The YAML and YML files at `path` (a file, or a directory walked in name order).
fn yaml_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for entry in entries {
            yaml_files(&entry, out);
        }
    } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
        out.push(path.to_path_buf());
    }
}

/// `value` as the API server stores it under `schema`: the fields the schema does not declare
/// pruned (unless it preserves unknown fields), `null` fields dropped and the defaults of
/// absent fields filled in, recursively. The
/// root's `apiVersion`, `kind` and `metadata` are the server's own and kept.
fn pruned(value: &Value, schema: &Value, defaults: bool) -> Value {
    let preserve = schema["x-kubernetes-preserve-unknown-fields"] == Value::Bool(true);
    let embedded = schema["x-kubernetes-embedded-resource"] == Value::Bool(true);
    match value {
        Value::Object(map) => {
            let props = schema["properties"].as_object();
            let additional = &schema["additionalProperties"];
            let mut out = serde_json::Map::new();
            // The API server fills in the defaults of absent fields.
            for (key, s) in props.into_iter().flatten().filter(|_| defaults) {
                if let Some(default) = s.get("default")
                    && map.get(key).is_none_or(Value::is_null)
                {
                    out.insert(key.clone(), pruned(default, s, defaults));
                }
            }
            for (key, v) in map {
                if v.is_null() {
                    continue;
                }
                if let Some(s) = props.and_then(|p| p.get(key)) {
                    out.insert(key.clone(), pruned(v, s, defaults));
                } else if additional.is_object() {
                    out.insert(key.clone(), pruned(v, additional, defaults));
                } else if preserve
                    || additional == &Value::Bool(true)
                    || (embedded && matches!(key.as_str(), "apiVersion" | "kind" | "metadata"))
                {
                    out.insert(key.clone(), operator_gen_conformance::without_nulls(v));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| pruned(item, &schema["items"], defaults))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Why the API server would refuse `value` (as stored, see [`stored`]) under `schema`: the
/// checks of its schema validation that decide whether a typed reader can read it at all
/// (JSON types, `required` fields, `enum` values), the first few. Patterns, bounds and CEL
/// rules are left out: the generated types do not enforce them either.
fn refusals(value: &Value, schema: &Value, path: &str, out: &mut Vec<String>) {
    if out.len() >= 3 || schema.is_null() {
        return;
    }
    let int_or_string = schema["x-kubernetes-int-or-string"] == Value::Bool(true);
    let fits = match (schema["type"].as_str(), value) {
        _ if int_or_string => value.is_string() || value.is_i64() || value.is_u64(),
        (None, _) => true,
        (Some("object"), Value::Object(_))
        | (Some("array"), Value::Array(_))
        | (Some("string"), Value::String(_))
        | (Some("boolean"), Value::Bool(_))
        | (Some("number"), Value::Number(_)) => true,
        (Some("integer"), Value::Number(n)) => n.is_i64() || n.is_u64(),
        _ => false,
    };
    if !fits {
        out.push(format!("{path}: {value} is not of type {}", schema["type"]));
        return;
    }
    if let Some(values) = schema["enum"].as_array()
        && !values.contains(value)
    {
        out.push(format!("{path}: {value} is not one of {}", schema["enum"]));
    }
    match value {
        Value::Object(map) => {
            for name in schema["required"].as_array().into_iter().flatten() {
                if let Some(name) = name.as_str()
                    && !map.contains_key(name)
                {
                    out.push(format!("{path}.{name}: required, absent"));
                }
            }
            for (key, v) in map {
                if let Some(s) = schema["properties"].get(key) {
                    refusals(v, s, &format!("{path}.{key}"), out);
                } else if schema["additionalProperties"].is_object() {
                    refusals(
                        v,
                        &schema["additionalProperties"],
                        &format!("{path}.{key}"),
                        out,
                    );
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                refusals(item, &schema["items"], &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// An example object as the API server would store it: pruned under its kind's schema,
/// its root's `apiVersion`, `kind` and `metadata` kept.
fn stored(object: &Value, schema: &Value) -> Value {
    kept(object, schema, true)
}

/// `object` with the fields the API server prunes under `schema` dropped (and, with
/// `defaults`, the defaults of absent fields filled in); the root's own fields kept.
fn kept(object: &Value, schema: &Value, defaults: bool) -> Value {
    let mut out = pruned(object, schema, defaults);
    if let (Value::Object(out), Value::Object(original)) = (&mut out, object) {
        for key in ["apiVersion", "kind", "metadata"] {
            if let Some(v) = original.get(key).filter(|v| !v.is_null()) {
                out.insert(key.to_string(), operator_gen_conformance::without_nulls(v));
            }
        }
    }
    out
}

/// Where two JSON values differ (numbers compared as numbers), the first few.
fn json_differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    if out.len() >= 5 {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                let at = format!("{path}.{key}");
                match (x.get(key), y.get(key)) {
                    (Some(p), Some(q)) => json_differences(p, q, &at, out),
                    (Some(p), None) => out.push(format!("{at}: {p} is not written back")),
                    (None, Some(q)) => {
                        out.push(format!("{at}: written back as {q}, absent before"))
                    }
                    (None, None) => {}
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                json_differences(p, q, &format!("{path}[{i}]"), out);
            }
        }
        (Value::Number(x), Value::Number(y)) if x.as_f64() == y.as_f64() => {}
        _ if a == b => {}
        _ => out.push(format!("{path}: {a} written back as {b}")),
    }
}

struct Kind {
    api_version: String,
    kind: String,
    /// The root type's path in the corpus crate.
    rust: String,
    /// The version's schema as the CRD has it.
    schema: Value,
}

struct Example {
    /// `file` (relative to the module) and document number.
    place: (String, usize),
    /// The object as the API server would store it (see [`stored`]).
    stored: Value,
    api_version: String,
    kind: String,
    /// Whether the schema prunes fields of the example (which the API server would drop).
    pruned: bool,
    /// Why the API server would refuse the example (empty if it would not).
    refused: Vec<String>,
}

#[derive(Default)]
struct Tally {
    crds: usize,
    versions: usize,
    properties: usize,
    differing: usize,
    listed: usize,
    examples: usize,
    examples_equal: usize,
    examples_pruned: usize,
    /// Examples the API server would refuse (checked for the record, not read).
    examples_refused: usize,
}

/// One project: its types written below `src`, the round trip checked. Returns its kinds,
/// its examples and its tally; problems go to `failures`.
fn project_types(
    project: &Project,
    src: &Path,
    failures: &mut Vec<String>,
) -> (Vec<Kind>, Vec<Example>, Tally, std::time::Duration) {
    let module_dir = envtest::gomod::download(&project.module, &project.version)
        .unwrap_or_else(|e| panic!("{}: {e}", project.name));
    let mut docs: Vec<CrdDocument> = Vec::new();
    for path in &project.crds {
        let found =
            read_crds(&module_dir.join(path)).unwrap_or_else(|e| panic!("{}: {e}", project.name));
        docs.extend(found);
    }
    let options = TypesOptions {
        command: format!(
            "operator-gen types --from-crd {}@{}/{}",
            project.module,
            project.version,
            project.crds.join(",")
        ),
        ..TypesOptions::default()
    };
    let started = std::time::Instant::now();
    let types = rust_types(&docs, &options).unwrap_or_else(|e| panic!("{}: {e}", project.name));
    let mut files = Vec::new();
    for (path, text) in &types.files {
        let text = match operator_gen::rustfmt(text) {
            Some(Ok(formatted)) => formatted,
            Some(Err(e)) => panic!("{}: {}: rustfmt fails: {e}", project.name, path.display()),
            None => panic!("rustfmt is needed (rustup component add rustfmt)"),
        };
        files.push((path.clone(), text));
    }
    let generation = started.elapsed();
    let dir = src.join(module_name(&project.name));
    for (path, text) in &files {
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
    }
    // The project's `mod.rs` is the crate's `<project>.rs`.
    std::fs::rename(
        dir.join("mod.rs"),
        src.join(format!("{}.rs", module_name(&project.name))),
    )
    .unwrap();

    // The round trip.
    let generated = operator_gen::crds(
        std::slice::from_ref(&dir),
        &Options {
            allow_dangerous_types: types.floats,
            ..Options::default()
        },
    )
    .unwrap_or_else(|e| panic!("{}: operator-gen refuses the types: {e}", project.name));
    let mut tally = Tally::default();
    let mut used = vec![false; project.differences.len()];
    let mut kinds = Vec::new();
    for doc in &docs {
        let spec = &doc.crd.spec;
        let name = doc.crd.metadata.name.clone().unwrap_or_default();
        tally.crds += 1;
        tally.versions += spec.versions.len();
        tally.properties += operator_gen::count_properties(&doc.raw);
        let Some(crd) = generated
            .iter()
            .find(|c| c.spec.group == spec.group && c.spec.names.kind == spec.names.kind)
        else {
            failures.push(format!("{}: {name}: no CRD generated", project.name));
            continue;
        };
        let mut differing = BTreeSet::new();
        for d in differences(&doc.raw, &serde_json::to_value(crd).unwrap()) {
            differing.insert(operator_gen::property_of(&d));
            match project
                .differences
                .iter()
                .position(|x| x.matches(&name, &d))
            {
                Some(i) => {
                    used[i] = true;
                    tally.listed += 1;
                }
                None => failures.push(format!("{}: {name}: {d}", project.name)),
            }
        }
        tally.differing += differing.len();
        for version in &spec.versions {
            let rel = operator_gen::kind_module(&spec.group, &version.name, &spec.names.kind);
            let modules: Vec<String> = rel
                .with_extension("")
                .iter()
                .map(|c| c.to_string_lossy().into_owned())
                .collect();
            let schema = doc.raw["spec"]["versions"]
                .as_array()
                .and_then(|vs| vs.iter().find(|v| v["name"] == version.name.as_str()))
                .map(|v| v["schema"]["openAPIV3Schema"].clone())
                .unwrap_or(Value::Null);
            kinds.push(Kind {
                schema,
                api_version: format!("{}/{}", spec.group, version.name),
                kind: spec.names.kind.clone(),
                rust: format!(
                    "crd_corpus::{}::{}::{}",
                    module_name(&project.name),
                    modules.join("::"),
                    spec.names.kind
                ),
            });
        }
    }
    for (difference, used) in project.differences.iter().zip(used) {
        if !used {
            failures.push(format!(
                "{}: {}: {}: listed ({}) but no longer differs",
                project.name, difference.crd, difference.path, difference.reason
            ));
        }
    }

    // The examples of the corpus's kinds.
    let known: BTreeMap<(&str, &str), &Value> = kinds
        .iter()
        .map(|k| ((k.api_version.as_str(), k.kind.as_str()), &k.schema))
        .collect();
    let mut examples = Vec::new();
    let mut paths = Vec::new();
    for path in &project.examples {
        yaml_files(&module_dir.join(path), &mut paths);
    }
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let file = path
            .strip_prefix(&module_dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        // Files that are no YAML as they stand (templates) hold no example.
        for (i, document) in serde_yaml::Deserializer::from_str(&text).enumerate() {
            let Ok(object) = Value::deserialize(document) else {
                break;
            };
            let (Some(api_version), Some(kind)) = (
                object.get("apiVersion").and_then(Value::as_str),
                object.get("kind").and_then(Value::as_str),
            ) else {
                continue;
            };
            if let Some(schema) = known.get(&(api_version, kind)) {
                examples.push(Example {
                    stored: stored(&object, schema),
                    place: (file.clone(), i + 1),
                    api_version: api_version.to_string(),
                    kind: kind.to_string(),
                    pruned: kept(&object, schema, false)
                        != operator_gen_conformance::without_nulls(&object),
                    refused: {
                        let mut out = Vec::new();
                        let stored = stored(&object, schema);
                        let meta = &stored["metadata"];
                        if !meta["name"].is_string() && !meta["generateName"].is_string() {
                            out.push(".metadata.name: required, absent".to_string());
                        }
                        refusals(&stored, schema, "", &mut out);
                        out
                    },
                });
            }
        }
    }
    tally.examples = examples.len();
    tally.examples_pruned = examples.iter().filter(|e| e.pruned).count();
    (kinds, examples, tally, generation)
}

/// The crate's manifest, `main.rs` (the wire reader) and build; the reader's path.
fn build_crate(dir: &Path, modules: &[String], kinds: &[&Kind], all: usize) -> PathBuf {
    let root = workspace_root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    // The crates the derive tests build start from the same dependencies and profiles, and
    // share their builds in the same target directory.
    std::fs::write(
        dir.join("Cargo.toml"),
        outside::manifest(
            "crd-corpus",
            &outside::shared_dependencies(&manifest),
            "[package.metadata.operator-gen]\nallow-dangerous-types = true\n",
        ),
    )
    .unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let mut lib = String::from(
        "//! The Rust types `operator-gen types` generates from the CRD corpus.\n#![deny(warnings)]\n\n",
    );
    for m in modules {
        let _ = writeln!(lib, "pub mod {m};");
    }
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    let mut main = String::from(
        "//! Reads `apiVersion<TAB>kind<TAB>object` lines; answers `ok<TAB>the object as the \
         generated type writes it back` or `err<TAB>serde's message`.\n#![deny(warnings)]\n\n\
         fn check<T: serde::de::DeserializeOwned + serde::Serialize>(object: serde_json::Value) -> String {\n\
         match serde_json::from_value::<T>(object) {\n\
         Ok(v) => match serde_json::to_string(&v) {\n\
         Ok(written) => format!(\"ok\\t{written}\"),\n\
         Err(e) => format!(\"err\\tread, but cannot be written back: {e}\"),\n},\n\
         Err(e) => format!(\"err\\t{e}\"),\n}\n}\n\n\
         fn main() {\n\
         for line in std::io::stdin().lines() {\n\
         let line = line.unwrap();\n\
         let mut parts = line.splitn(3, '\\t');\n\
         let (api_version, kind, object) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());\n\
         let object: serde_json::Value = serde_json::from_str(object).unwrap();\n\
         let answer = match (api_version, kind) {\n",
    );
    for k in kinds {
        let _ = writeln!(
            main,
            "({:?}, {:?}) => check::<{}>(object),",
            k.api_version, k.kind, k.rust
        );
    }
    main.push_str(
        "_ => \"err\\tnot a corpus kind\".to_string(),\n};\nprintln!(\"{answer}\");\n}\n}\n",
    );
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    let target = outside::target_dir();
    let started = std::time::Instant::now();
    let out = Command::new(env!("CARGO"))
        .args(["build", "--quiet"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the corpus's types do not compile (or warn):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "the corpus crate ({all} kinds, a reader of the {} with examples) built in {:.1?}",
        kinds.len(),
        started.elapsed()
    );
    target.join("debug/crd-corpus")
}

/// What the reader makes of each example.
fn read_back(reader: &Path, examples: &[&Example]) -> Vec<Result<Value, String>> {
    let lines: Vec<String> = examples
        .iter()
        .map(|e| format!("{}\t{}\t{}", e.api_version, e.kind, e.stored))
        .collect();
    operator_gen_conformance::read_through(reader, &lines)
}

#[test]
fn patterns_match_as_documented() {
    assert!(starts_like(
        ".spec.versions[3].schema.x: y",
        ".spec.versions[*].schema.x"
    ));
    assert!(starts_like(".a.b", ".a"));
    assert!(!starts_like(
        ".spec.versions[3].other",
        ".spec.versions[*].schema"
    ));
    assert!(starts_like(".a.b.c", "*.c"));
}

#[test]
fn examples_the_api_server_would_refuse_are_told_apart() {
    let schema = serde_json::json!({
        "type": "object",
        "required": ["spec"],
        "properties": {"spec": {
            "type": "object",
            "required": ["selector"],
            "properties": {
                "selector": {"type": "object"},
                "mode": {"type": "string", "enum": ["a", "b"], "default": "a"},
                "list": {"type": "array", "items": {"type": "integer"}},
            },
        }},
    });
    let check = |object: Value| {
        let mut out = Vec::new();
        refusals(&stored(&object, &schema), &schema, "", &mut out);
        out
    };
    assert!(check(serde_json::json!({"spec": {"selector": {}}})).is_empty());
    assert_eq!(
        check(serde_json::json!({"spec": {"mode": "a"}})),
        [".spec.selector: required, absent"]
    );
    assert_eq!(
        check(serde_json::json!({"spec": {"selector": {}, "mode": "c"}})),
        [r#".spec.mode: "c" is not one of ["a","b"]"#]
    );
    assert_eq!(
        check(serde_json::json!({"spec": {"selector": {}, "list": {"x": 1}}})),
        [r#".spec.list: {} is not of type "array""#]
    );
    // Stored as the API server stores it: the default filled in, unknown fields pruned.
    assert_eq!(
        stored(
            &serde_json::json!({"spec": {"selector": {}, "other": 1}}),
            &schema
        ),
        serde_json::json!({"spec": {"selector": {}, "mode": "a"}})
    );
}

#[test]
#[ignore = "needs Go and the Go module proxy: cargo xtask test runs it"]
fn the_corpus_round_trips_compiles_and_reads_its_examples() {
    let root = workspace_root();
    let path = root.join("testdata/crd-corpus/corpus.yaml");
    let corpus: Corpus = serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let dir = root.join("target/tests/crd-corpus");
    let src = dir.join("src");
    if src.exists() {
        std::fs::remove_dir_all(&src).unwrap();
    }
    std::fs::create_dir_all(&src).unwrap();

    let mut failures = Vec::new();
    let mut all_kinds = Vec::new();
    let mut per_project = Vec::new();
    let mut generation = std::time::Duration::ZERO;
    for project in &corpus.projects {
        let (kinds, examples, tally, took) = project_types(project, &src, &mut failures);
        generation += took;
        all_kinds.extend(kinds);
        per_project.push((project, examples, tally));
    }
    let modules: Vec<String> = corpus
        .projects
        .iter()
        .map(|p| module_name(&p.name))
        .collect();
    // The reader dispatches to the kinds with examples to read: the library holds them all.
    let read: BTreeSet<(&str, &str)> = per_project
        .iter()
        .flat_map(|(_, examples, _)| examples)
        .filter(|e| e.refused.is_empty())
        .map(|e| (e.api_version.as_str(), e.kind.as_str()))
        .collect();
    let with_examples: Vec<&Kind> = all_kinds
        .iter()
        .filter(|k| read.contains(&(k.api_version.as_str(), k.kind.as_str())))
        .collect();
    let reader = build_crate(&dir, &modules, &with_examples, all_kinds.len());

    let mut table = String::from(
        "| project | version | CRDs | versions | properties | identical | listed differences | examples read back equal | examples the API server would refuse | examples with fields the schema prunes |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut total = Tally::default();
    for (project, examples, tally) in &mut per_project {
        let refs: Vec<&Example> = examples.iter().collect();
        let answers = read_back(&reader, &refs);
        let mut used = vec![false; project.examples_differ.len()];
        for (example, answer) in examples.iter().zip(answers) {
            if !example.refused.is_empty() {
                tally.examples_refused += 1;
                eprintln!(
                    "{}: {} (document {}): {} {}: the API server would refuse it ({}), so it is not held against the types",
                    project.name,
                    example.place.0,
                    example.place.1,
                    example.api_version,
                    example.kind,
                    example.refused.join("; ")
                );
                continue;
            }
            let problem = match answer {
                Ok(written) => {
                    let mut found = Vec::new();
                    json_differences(&example.stored, &written, "", &mut found);
                    (!found.is_empty()).then(|| found.join("; "))
                }
                Err(e) => Some(format!("not read: {e}")),
            };
            match problem {
                None => tally.examples_equal += 1,
                Some(problem) => match project
                    .examples_differ
                    .iter()
                    .position(|x| x.file == example.place.0 && x.document == example.place.1)
                {
                    Some(i) => used[i] = true,
                    None => failures.push(format!(
                        "{}: {} (document {}): {} {}: {problem}",
                        project.name,
                        example.place.0,
                        example.place.1,
                        example.api_version,
                        example.kind
                    )),
                },
            }
        }
        for (x, used) in project.examples_differ.iter().zip(used) {
            if !used {
                failures.push(format!(
                    "{}: {} (document {}): listed ({}) but comes back equal",
                    project.name, x.file, x.document, x.reason
                ));
            }
        }
        let identical = tally.properties - tally.differing;
        let _ = writeln!(
            table,
            "| {} | {} | {} | {} | {} | {} ({:.2} %) | {} | {} of {} | {} | {} |",
            project.name,
            project.version,
            tally.crds,
            tally.versions,
            tally.properties,
            identical,
            100.0 * identical as f64 / tally.properties.max(1) as f64,
            tally.listed,
            tally.examples_equal,
            tally.examples - tally.examples_refused,
            tally.examples_refused,
            tally.examples_pruned
        );
        total.crds += tally.crds;
        total.versions += tally.versions;
        total.properties += tally.properties;
        total.differing += tally.differing;
        total.listed += tally.listed;
        total.examples += tally.examples;
        total.examples_equal += tally.examples_equal;
        total.examples_pruned += tally.examples_pruned;
        total.examples_refused += tally.examples_refused;
    }
    let identical = total.properties - total.differing;
    let _ = writeln!(
        table,
        "| all | | {} | {} | {} | {} ({:.2} %) | {} | {} of {} | {} | {} |",
        total.crds,
        total.versions,
        total.properties,
        identical,
        100.0 * identical as f64 / total.properties.max(1) as f64,
        total.listed,
        total.examples_equal,
        total.examples - total.examples_refused,
        total.examples_refused,
        total.examples_pruned
    );
    eprintln!("{table}\ntypes generated (and rustfmt'd) in {generation:.1?} in this test's build");
    std::fs::write(dir.join("table.md"), &table).unwrap();
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        total.crds >= 60 && corpus.projects.len() >= 6,
        "the corpus must hold at least 60 CRDs of at least 6 projects"
    );
}
