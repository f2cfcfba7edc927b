//! The round trip of `operator-gen types`: every CustomResourceDefinition in this repository
//! (outside `target/`) becomes Rust types, operator-gen generates the CRD from those types
//! as `operator-gen crd --paths` does, and the two CRDs are compared property by property
//! (descriptions after whitespace normalisation, the tools' version annotations left out).
//! Every difference must be one of [`EXPECTED`], each with its reason; an expected
//! difference that no longer occurs fails the test too, so the list stays honest.
//!
//! The generated files are also checked as sources: each parses, and (where rustfmt can be
//! run, as the CLI runs it) rustfmt's output is a fixed point of rustfmt and round-trips the
//! same way.
#![cfg(feature = "types-from-crd")]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use operator_gen::{CrdDocument, Options, TypesOptions, crds_in, differences, rust_types, rustfmt};

/// Differences that remain, each `(file, path prefix, reason)`: the file as a path from
/// the repository root, the difference's JSON path as it starts.
const EXPECTED: &[(&str, &str, &str)] = &[
    (
        "testdata/compat/base.yaml",
        ".spec.versions[0].schema.openAPIV3Schema.properties.apiVersion.description",
        "a hand-written CRD without the standard description: operator-gen always writes it",
    ),
    (
        "testdata/compat/base.yaml",
        ".spec.versions[0].schema.openAPIV3Schema.properties.kind.description",
        "a hand-written CRD without the standard description: operator-gen always writes it",
    ),
    (
        "testdata/compat/base.yaml",
        ".spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.replicas.anyOf",
        "`x-kubernetes-int-or-string` without the `anyOf` controller-gen writes beside it: \
         operator-gen's int_or_string marker always writes both",
    ),
    (
        "testdata/types_from_crd/widgets.example.com.yaml",
        ".spec.versions[2].subresources",
        "hand-written: print columns without `subresources: {}`, which controller-gen and \
         operator-gen write for such a version (the types' header says so)",
    ),
    (
        "testdata/types_from_crd/edges.x.io.yaml",
        ".spec.versions[0].schema.openAPIV3Schema.properties.apiVersion.description",
        "without the standard description: operator-gen always writes it",
    ),
    (
        "testdata/types_from_crd/edges.x.io.yaml",
        ".spec.versions[0].schema.openAPIV3Schema.properties.kind.description",
        "without the standard description: operator-gen always writes it",
    ),
    (
        "testdata/types_from_crd/edges.x.io.yaml",
        ".spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.notes.description",
        "lines starting with `TODO` and `---`, which the doc comment reading drops (as \
         controller-gen drops them from Go comments)",
    ),
    (
        "testdata/types_from_crd/edges.x.io.yaml",
        ".spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.nums.items.default",
        "a default on list items: no marker sets one there",
    ),
];

/// Files that mention `kind: CustomResourceDefinition` but are not CRDs operator-gen can
/// read as they stand, with the reason.
const NOT_READ: &[(&str, &str)] = &[
    (
        "dist/chart/templates/crd/memcacheds.cache.example.com.yaml",
        "a Helm template ({{ ... }}), YAML only once rendered",
    ),
    (
        "cargo-operator/templates/webhook/config/crd/webhook_in.yaml",
        "a scaffolding template ({{ ... }}) of a kustomize patch",
    ),
    (
        "cargo-operator/templates/webhook/config/default/crd_ca_target.yaml",
        "a scaffolding template of kustomize replacements, which names the kind",
    ),
    (
        "examples/conversion/config/crd/patches/webhook_in_backups.yaml",
        "a kustomize patch: a CRD without group, names or schema",
    ),
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// The YAML files of the repository that mention a CRD, relative to the root.
fn crd_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') && name != "node_modules" {
                    walk(&path, root, out);
                }
            } else if (name.ends_with(".yaml") || name.ends_with(".yml"))
                && std::fs::read_to_string(&path)
                    .is_ok_and(|t| t.contains("kind: CustomResourceDefinition"))
            {
                out.push(path.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let root = repo_root();
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out
}

/// The number of properties (schema nodes under `properties`) in a CRD's schemas.
fn count_properties(v: &serde_json::Value) -> usize {
    match v {
        serde_json::Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                let own = if k == "properties" {
                    v.as_object().map_or(0, |p| p.len())
                } else {
                    0
                };
                own + count_properties(v)
            })
            .sum(),
        serde_json::Value::Array(items) => items.iter().map(count_properties).sum(),
        _ => 0,
    }
}

/// The property a difference's path is in: the path up to its last `properties.<name>`
/// (or the whole path when it is outside the schema).
fn property_of(path: &str) -> String {
    match path.rfind(".properties.") {
        Some(i) => {
            let rest = &path[i + ".properties.".len()..];
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            path[..i + ".properties.".len() + end].to_string()
        }
        None => path.to_string(),
    }
}

struct Outcome {
    differences: Vec<String>,
    properties: usize,
}

/// One CRD through types and back.
fn round_trip(doc: &CrdDocument, formatted: bool) -> Result<Outcome, String> {
    let types = rust_types(std::slice::from_ref(doc), &TypesOptions::default())
        .map_err(|e| e.to_string())?;
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in &types.files {
        syn::parse_file(text).map_err(|e| format!("{}: does not parse: {e}", path.display()))?;
        let text = if formatted {
            match rustfmt(text).expect("rustfmt was found before") {
                Ok(once) => {
                    let twice = rustfmt(&once).unwrap().map_err(|e| e.to_string())?;
                    if twice != once {
                        return Err(format!(
                            "{}: rustfmt's output is not stable",
                            path.display()
                        ));
                    }
                    once
                }
                Err(e) => return Err(format!("{}: rustfmt fails: {e}", path.display())),
            }
        } else {
            text.clone()
        };
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
    }
    let options = Options {
        allow_dangerous_types: types.floats,
        ..Options::default()
    };
    let crds = operator_gen::crds(&[dir.path().to_path_buf()], &options)
        .map_err(|e| format!("operator-gen refuses the types: {e}"))?;
    let name = doc.crd.metadata.name.clone();
    let generated = crds
        .iter()
        .find(|c| {
            c.spec.names.kind == doc.crd.spec.names.kind && c.spec.group == doc.crd.spec.group
        })
        .ok_or_else(|| format!("no CRD {name:?} generated"))?;
    let generated = serde_json::to_value(generated).unwrap();
    Ok(Outcome {
        differences: differences(&doc.raw, &generated),
        properties: count_properties(&doc.raw),
    })
}

#[test]
fn every_crd_of_the_repository_round_trips() {
    let formatted = rustfmt("fn main() {}\n").is_some();
    let root = repo_root();
    let files = crd_files();
    assert!(files.len() >= 10, "found only {files:?}");
    let mut report = String::new();
    let mut expected_seen: BTreeSet<usize> = BTreeSet::new();
    let (mut crds, mut exact, mut properties, mut differing) = (0, 0, 0, BTreeSet::new());
    let mut skipped = Vec::new();
    for rel in &files {
        let shown = rel.to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(root.join(rel)).unwrap();
        let docs = match crds_in(&text, rel) {
            Ok(docs) => docs,
            Err(e) => {
                if !NOT_READ.iter().any(|(f, _)| *f == shown) {
                    report.push_str(&format!("\n{shown}: cannot be read: {e}"));
                }
                skipped.push(shown);
                continue;
            }
        };
        if docs.is_empty() {
            skipped.push(shown);
            continue;
        }
        if docs
            .iter()
            .all(|d| d.crd.spec.versions.iter().all(|v| v.schema.is_none()))
        {
            // A patch (webhook conversion, CA injection): no schema to make types of.
            skipped.push(shown);
            continue;
        }
        for doc in &docs {
            crds += 1;
            let outcome = match round_trip(doc, formatted) {
                Ok(o) => o,
                Err(e) => {
                    report.push_str(&format!("\n{shown}: {e}"));
                    continue;
                }
            };
            properties += outcome.properties;
            let mut unexpected = Vec::new();
            for d in &outcome.differences {
                differing.insert(format!("{shown}:{}", property_of(d)));
                match EXPECTED
                    .iter()
                    .position(|(f, p, _)| *f == shown && d.starts_with(p))
                {
                    Some(i) => {
                        expected_seen.insert(i);
                    }
                    None => unexpected.push(d.clone()),
                }
            }
            if outcome.differences.is_empty() {
                exact += 1;
            }
            for d in unexpected {
                report.push_str(&format!("\n{shown}: {d}"));
            }
        }
    }
    for (i, (file, path, reason)) in EXPECTED.iter().enumerate() {
        if !expected_seen.contains(&i) {
            report.push_str(&format!(
                "\nexpected difference no longer found (remove it): {file}: {path} ({reason})"
            ));
        }
    }
    eprintln!(
        "types round trip: {crds} CRDs from {} files ({} skipped: {skipped:?}), {exact} exact; {properties} properties, {} with a difference; rustfmt {}",
        files.len(),
        skipped.len(),
        differing.len(),
        if formatted {
            "checked"
        } else {
            "not found, not checked"
        }
    );
    assert!(report.is_empty(), "the round trip differs:{report}");
}

/// The inputs of the generated types that `operator-derive-tests` compiles with the real
/// derives and k8s-openapi (`derive-tests/src/types_from_crd`, checked by `derive-tests/tests/types_from_crd.rs`).
const COMPILED: &[&str] = &[
    "config/crd/bases/cache.example.com_memcacheds.yaml",
    "examples/cronjob/config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml",
    "testdata/types_from_crd/widgets.example.com.yaml",
];

/// Where they are kept.
const COMPILED_DIR: &str = "derive-tests/src/types_from_crd";

/// The types of [`COMPILED`] are what `operator-gen types` makes of them today (formatted by
/// rustfmt, as the CLI writes them); `UPDATE_GOLDEN=1` rewrites them.
#[test]
fn the_compiled_types_are_up_to_date() {
    if rustfmt("fn main() {}\n").is_none() {
        eprintln!("rustfmt not found: the compiled types are not checked");
        return;
    }
    let root = repo_root();
    let mut docs = Vec::new();
    for file in COMPILED {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        docs.extend(crds_in(&text, Path::new(file)).unwrap());
    }
    let options = TypesOptions {
        command: "UPDATE_GOLDEN=1 cargo test -p operator-gen --test types_from_crd".into(),
        ..TypesOptions::default()
    };
    let types = rust_types(&docs, &options).unwrap();
    let dir = root.join(COMPILED_DIR);
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    if update {
        let _ = std::fs::remove_dir_all(&dir);
    }
    let mut stale = Vec::new();
    for (path, text) in &types.files {
        let text = rustfmt(text).unwrap().unwrap();
        let file = dir.join(path);
        if update {
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, &text).unwrap();
        } else if std::fs::read_to_string(&file).ok().as_deref() != Some(text.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "{COMPILED_DIR} is stale ({stale:?}); refresh with UPDATE_GOLDEN=1 cargo test -p operator-gen --test types_from_crd"
    );
}

/// What the types cannot say is warned about, each at its path: the differences
/// [`EXPECTED`] lists for the edge cases are all announced.
#[test]
fn what_the_types_cannot_say_is_warned_about() {
    let file = "testdata/types_from_crd/edges.x.io.yaml";
    let text = std::fs::read_to_string(repo_root().join(file)).unwrap();
    let docs = crds_in(&text, Path::new(file)).unwrap();
    let types = rust_types(&docs, &TypesOptions::default()).unwrap();
    let warnings = types.warnings.join("\n");
    for expected in [
        "Edge v1: .apiVersion: operator-gen writes its own schema",
        "Edge v1: .kind: operator-gen writes its own schema",
        "Edge v1: EdgeSpec.notes: a description line starting with `TODO`",
        "Edge v1: EdgeSpec.notes: a description line starting with `---`",
        "Edge v1: .spec.nums[*]: a default inside a list or map (3) is not expressed",
    ] {
        assert!(
            warnings.contains(expected),
            "{expected}\nnot in:\n{warnings}"
        );
    }
    assert_eq!(types.warnings.len(), 5, "{warnings}");
    let module = &types
        .files
        .iter()
        .find(|(p, _)| p.ends_with("edge.rs"))
        .unwrap()
        .1;
    assert!(
        module.contains("// - .spec.nums[*]: a default inside a list or map"),
        "{module}"
    );
}

/// The round trip over any directory of CRDs (`TYPES_CORPUS=<dir>`), reported and not
/// judged: for measuring on CRDs outside the repository.
/// `TYPES_CORPUS=~/go/pkg/mod cargo test -p operator-gen --test types_from_crd corpus -- --ignored --nocapture`
#[test]
#[ignore = "needs TYPES_CORPUS, a directory of CRDs; reports, does not judge"]
fn corpus() {
    let Some(dir) = std::env::var_os("TYPES_CORPUS") else {
        eprintln!("set TYPES_CORPUS to a directory of CRD YAML files");
        return;
    };
    let dir = PathBuf::from(dir);
    let mut files = Vec::new();
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml")
                && std::fs::read_to_string(&path)
                    .is_ok_and(|t| t.contains("kind: CustomResourceDefinition"))
            {
                out.push(path);
            }
        }
    }
    walk(&dir, &mut files);
    let formatted = rustfmt("fn main() {}\n").is_some();
    let started = std::time::Instant::now();
    let (mut crds, mut exact, mut properties, mut differing, mut failed, mut unread) =
        (0, 0, 0, 0, 0, 0);
    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
    for file in &files {
        let shown = file
            .strip_prefix(&dir)
            .unwrap_or(file)
            .display()
            .to_string();
        let text = std::fs::read_to_string(file).unwrap();
        let docs = match crds_in(&text, file) {
            Ok(docs) => docs,
            Err(e) => {
                unread += 1;
                eprintln!("{shown}: not read: {e}");
                continue;
            }
        };
        for doc in docs {
            if doc.crd.spec.versions.iter().all(|v| v.schema.is_none()) {
                continue;
            }
            crds += 1;
            match round_trip(&doc, formatted) {
                Ok(outcome) => {
                    properties += outcome.properties;
                    let props: BTreeSet<String> =
                        outcome.differences.iter().map(|d| property_of(d)).collect();
                    differing += props.len();
                    if outcome.differences.is_empty() {
                        exact += 1;
                    } else {
                        eprintln!("{shown}: {} differences", outcome.differences.len());
                        for d in &outcome.differences {
                            eprintln!("    {d}");
                            // The kind of difference: the last key of its path.
                            let key = d
                                .split(':')
                                .next()
                                .unwrap_or("")
                                .rsplit('.')
                                .next()
                                .unwrap_or("")
                                .to_string();
                            *kinds.entry(key).or_default() += 1;
                        }
                    }
                }
                Err(e) => {
                    failed += 1;
                    eprintln!("{shown}: failed: {}", e.lines().next().unwrap_or(""));
                }
            }
        }
    }
    eprintln!(
        "corpus: {} files, {unread} not read; {crds} CRDs: {exact} exact, {failed} failed; {properties} properties, {differing} with a difference; by last key: {kinds:?}; {:.1?}",
        files.len(),
        started.elapsed()
    );
}
