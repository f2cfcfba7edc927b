//! The differential suite against the real controller-gen.
//!
//! Every directory `testdata/parity/<case>/` holds one API written twice, by us: in Go with
//! kubebuilder markers (`go/`, a package of the module `testdata/parity/go.mod`) and in Rust
//! with our attributes (`rust/`). `cases_match_controller_gen` runs controller-gen v0.21.0
//! (installed with `go install` into the control-plane cache on first use) on the Go side and
//! operator-gen on the Rust side, parses both outputs and compares the trees, ignoring only
//! the tool-version annotation. A case's `case.yaml` may set generator options and list the
//! deliberate differences (file, path, reason); anything else that differs fails the test
//! with a path-level diff.
//!
//! `fixture_crds_are_enforced_by_the_api_server` applies every CRD the Rust sides produce to
//! the local control plane, then checks that each `invalid/*.yaml` custom resource of a case
//! is rejected with the message its file names, and each `valid/*.yaml` one is accepted.
//!
//! Both need Go or the control plane, so they are `#[ignore]`d for plain `cargo test`;
//! `cargo xtask test` runs them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn parity_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("testdata/parity")
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct CaseConfig {
    /// `crd:maxDescLen`
    #[serde(default)]
    max_desc_len: Option<usize>,
    /// `crd:allowDangerousTypes`
    #[serde(default)]
    allow_dangerous_types: bool,
    /// operator-gen's `embedded-object-meta`: `generate-embedded` is controller-gen's
    /// `crd:generateEmbeddedObjectMeta=true`. Without it, `object`, controller-gen's
    /// default (operator-gen's own default, `full`, is a deliberate difference).
    #[serde(default)]
    embedded_object_meta: Option<String>,
    #[serde(default)]
    differences: Vec<Difference>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Difference {
    file: String,
    path: String,
    reason: String,
}

#[derive(Debug)]
struct Case {
    name: String,
    dir: PathBuf,
    config: CaseConfig,
}

fn cases() -> Vec<Case> {
    let root = parity_root();
    let mut cases: Vec<Case> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("go").is_dir() && p.join("rust").is_dir())
        .map(|dir| {
            let config_path = dir.join("case.yaml");
            let config = if config_path.exists() {
                serde_yaml::from_str(&std::fs::read_to_string(&config_path).unwrap())
                    .unwrap_or_else(|e| panic!("{}: {e}", config_path.display()))
            } else {
                CaseConfig::default()
            };
            Case {
                name: dir.file_name().unwrap().to_string_lossy().into_owned(),
                dir,
                config,
            }
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(!cases.is_empty(), "no cases under {}", root.display());
    cases
}

fn embedded_object_meta(case: &Case) -> operator_gen::EmbeddedObjectMeta {
    let name = case
        .config
        .embedded_object_meta
        .as_deref()
        .unwrap_or("object");
    operator_gen::EmbeddedObjectMeta::from_name(name)
        .unwrap_or_else(|| panic!("case {}: no embeddedObjectMeta {name:?}", case.name))
}

fn options(case: &Case) -> operator_gen::Options {
    operator_gen::Options {
        max_desc_len: case.config.max_desc_len,
        allow_dangerous_types: case.config.allow_dangerous_types,
        embedded_object_meta: embedded_object_meta(case),
        ..Default::default()
    }
}

/// operator-gen's output for the Rust side: file name -> YAML text.
fn operator_gen_output(case: &Case) -> BTreeMap<String, String> {
    let generated = operator_gen::generate(&[case.dir.join("rust")], &options(case))
        .unwrap_or_else(|e| panic!("case {}: operator-gen failed:\n{e}", case.name));
    generated
        .artifacts()
        .into_iter()
        .map(|a| (a.file_name.clone(), a.contents.clone()))
        .collect()
}

/// Generated files: name -> YAML text.
type Files = BTreeMap<String, String>;

/// controller-gen's output for the Go side: file name -> YAML text.
fn controller_gen_output(
    controller_gen: &Path,
    case: &Case,
    out: &Path,
) -> Result<BTreeMap<String, String>, String> {
    let mut crd = String::from("crd");
    let mut crd_opts = Vec::new();
    if let Some(max) = case.config.max_desc_len {
        crd_opts.push(format!("maxDescLen={max}"));
    }
    if case.config.allow_dangerous_types {
        crd_opts.push("allowDangerousTypes=true".into());
    }
    match embedded_object_meta(case) {
        operator_gen::EmbeddedObjectMeta::GenerateEmbedded => {
            crd_opts.push("generateEmbeddedObjectMeta=true".into());
        }
        operator_gen::EmbeddedObjectMeta::Object => {}
        operator_gen::EmbeddedObjectMeta::Full => {
            panic!(
                "case {}: controller-gen has no `full` embedded metadata",
                case.name
            )
        }
    }
    if !crd_opts.is_empty() {
        crd = format!("crd:{}", crd_opts.join(","));
    }
    let output = envtest::components::controller_gen_command(controller_gen, &parity_root())
        .args([
            "rbac:roleName=manager-role".to_string(),
            crd,
            "webhook".to_string(),
            format!("paths=./{}/go/...", case.name),
            format!("output:crd:dir={}", out.join("crd").display()),
            format!("output:rbac:dir={}", out.join("rbac").display()),
            format!("output:webhook:dir={}", out.join("webhook").display()),
        ])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", controller_gen.display()))?;
    if !output.status.success() {
        return Err(format!(
            "controller-gen failed on case {}:\n{}",
            case.name,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let mut files = BTreeMap::new();
    for sub in ["crd", "rbac", "webhook"] {
        let Ok(entries) = std::fs::read_dir(out.join(sub)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            files.insert(
                path.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&path).unwrap(),
            );
        }
    }
    Ok(files)
}

/// The YAML documents of a file as JSON values, numbers normalised (controller-gen writes `1`
/// where a float field holds 1.0) and the tool-version annotations removed.
fn documents(text: &str) -> Vec<Value> {
    serde_yaml::Deserializer::from_str(text)
        .map(|d| {
            let mut v: Value = serde::Deserialize::deserialize(d).unwrap();
            if let Some(annotations) = v
                .get_mut("metadata")
                .and_then(|m| m.get_mut("annotations"))
                .and_then(Value::as_object_mut)
            {
                annotations.remove("controller-gen.kubebuilder.io/version");
                annotations.remove(operator_gen::VERSION_ANNOTATION);
                if annotations.is_empty() {
                    v["metadata"].as_object_mut().unwrap().remove("annotations");
                }
            }
            normalise_numbers(&mut v);
            v
        })
        .filter(|v| !v.is_null())
        .collect()
}

fn normalise_numbers(v: &mut Value) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64()
                && f.fract() == 0.0
                && f.abs() < 9.0e15
            {
                *v = Value::from(f as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalise_numbers),
        Value::Object(map) => map.values_mut().for_each(normalise_numbers),
        _ => {}
    }
}

/// Every path where `ours` and `theirs` differ, as `path: controller-gen X, operator-gen Y`.
fn diff(path: &str, theirs: Option<&Value>, ours: Option<&Value>, out: &mut Vec<(String, String)>) {
    let show = |v: Option<&Value>| match v {
        None => "absent".to_string(),
        Some(v) => {
            let s = serde_json::to_string(v).unwrap();
            if s.chars().count() > 160 {
                format!("{}…", s.chars().take(160).collect::<String>())
            } else {
                s
            }
        }
    };
    match (theirs, ours) {
        (Some(Value::Object(a)), Some(Value::Object(b))) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                let sub = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                diff(&sub, a.get(k), b.get(k), out);
            }
        }
        (Some(Value::Array(a)), Some(Value::Array(b))) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff(&format!("{path}[{i}]"), Some(x), Some(y), out);
            }
        }
        (a, b) if a == b => {}
        (a, b) => out.push((
            path.to_string(),
            format!("controller-gen {}, operator-gen {}", show(a), show(b)),
        )),
    }
}

/// Compares one case; returns the unexplained differences (and the listed differences that
/// no longer occur, which are stale).
fn compare(
    case: &Case,
    theirs: &BTreeMap<String, String>,
    ours: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut problems = Vec::new();
    let mut seen_listed = vec![false; case.config.differences.len()];
    let files: std::collections::BTreeSet<&String> = theirs.keys().chain(ours.keys()).collect();
    for file in files {
        let (a, b) = (theirs.get(file), ours.get(file));
        let (Some(a), Some(b)) = (a, b) else {
            problems.push(format!(
                "{file}: written by {} only",
                if a.is_some() {
                    "controller-gen"
                } else {
                    "operator-gen"
                }
            ));
            continue;
        };
        let (da, db) = (documents(a), documents(b));
        let mut found = Vec::new();
        diff(
            "",
            Some(&Value::Array(da)),
            Some(&Value::Array(db)),
            &mut found,
        );
        for (path, what) in found {
            match case
                .config
                .differences
                .iter()
                .position(|d| d.file == *file && d.path == path)
            {
                Some(i) => seen_listed[i] = true,
                None => problems.push(format!("{file}: {path}: {what}")),
            }
        }
    }
    for (d, seen) in case.config.differences.iter().zip(seen_listed) {
        if !seen {
            problems.push(format!(
                "{}: {}: listed as a deliberate difference ({}) but the outputs agree there",
                d.file, d.path, d.reason
            ));
        }
    }
    problems
}

#[test]
#[ignore = "needs Go to build controller-gen; run by cargo xtask test"]
fn cases_match_controller_gen() {
    let controller_gen = envtest::components::controller_gen().unwrap();
    let cases = cases();
    let scratch = tempfile::tempdir().unwrap();
    // controller-gen loads the Go packages of a case in a couple of seconds; run two at a time.
    let results: Vec<(String, Result<Files, String>)> = std::thread::scope(|s| {
        let mut results = Vec::new();
        for chunk in cases.chunks(2) {
            let handles: Vec<_> = chunk
                .iter()
                .map(|case| {
                    let out = scratch.path().join(&case.name);
                    let cg = &controller_gen;
                    s.spawn(move || (case.name.clone(), controller_gen_output(cg, case, &out)))
                })
                .collect();
            results.extend(handles.into_iter().map(|h| h.join().unwrap()));
        }
        results
    });
    let mut failures = Vec::new();
    let mut compared = 0;
    for (case, (name, theirs)) in cases.iter().zip(results) {
        assert_eq!(case.name, name);
        let theirs = match theirs {
            Ok(t) => t,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let ours = operator_gen_output(case);
        let problems = compare(case, &theirs, &ours);
        compared += theirs.len().max(ours.len());
        if !problems.is_empty() {
            failures.push(format!(
                "case {} differs from controller-gen:\n  {}",
                case.name,
                problems.join("\n  ")
            ));
        }
    }
    eprintln!(
        "parity: {} cases, {compared} files compared with controller-gen v{}",
        cases.len(),
        envtest::components::CONTROLLER_GEN_VERSION
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_tree_diff_names_paths() {
    let theirs: Value = serde_json::json!({"a": {"b": [1, 2], "c": "x"}, "gone": true});
    let ours: Value = serde_json::json!({"a": {"b": [1, 3], "c": "x"}, "new": 1.0});
    let mut out = Vec::new();
    diff("", Some(&theirs), Some(&ours), &mut out);
    let paths: Vec<&str> = out.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(paths, ["a.b[1]", "gone", "new"]);
    assert_eq!(out[0].1, "controller-gen 2, operator-gen 3");
    assert_eq!(out[1].1, "controller-gen true, operator-gen absent");
}

#[test]
fn every_case_has_both_sides_and_a_valid_config() {
    for case in cases() {
        assert!(
            std::fs::read_dir(case.dir.join("go"))
                .unwrap()
                .next()
                .is_some(),
            "{}: empty go/",
            case.name
        );
        // operator-gen must accept every Rust side.
        operator_gen_output(&case);
        for d in &case.config.differences {
            assert!(
                !d.reason.trim().is_empty(),
                "{}: a difference needs a reason",
                case.name
            );
        }
    }
}

/// `testdata/parity/<case>/violations.yaml`: a valid object of one kind and, for each
/// validation marker, a change that breaks it (applied to the object as a JSON merge patch)
/// with a piece of the message the API server must answer with.
#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Violations {
    objects: Vec<ViolationSet>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ViolationSet {
    base: Value,
    /// Rejected on create.
    #[serde(default)]
    create: Vec<Violation>,
    /// Rejected when the (created) base object is updated.
    #[serde(default)]
    update: Vec<Violation>,
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Violation {
    marker: String,
    patch: Value,
    expect: String,
}

fn merge_patch(target: &mut Value, patch: &Value) {
    match (target, patch) {
        (Value::Object(t), Value::Object(p)) => {
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge_patch(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        (t, p) => *t = p.clone(),
    }
}

#[tokio::test]
#[ignore = "needs the local control plane; run by cargo xtask test"]
async fn fixture_crds_are_enforced_by_the_api_server() {
    use kube::api::{Api, DynamicObject, PostParams};
    use kube::discovery::ApiResource;

    let env = envtest::TestEnv::connect().await.unwrap();
    let client = env.client();
    let ns = env.namespace("parity").await.unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for case in cases() {
        let generated = operator_gen::generate(&[case.dir.join("rust")], &options(&case)).unwrap();
        // The API server is the judge of every generated CRD (as k8s-openapi objects, which
        // operator-gen's own types turn into through JSON).
        let crds: Vec<_> = generated
            .crds
            .iter()
            .map(|crd| serde_json::from_value(operator_gen::output::to_json(crd)).unwrap())
            .collect();
        envtest::crds::install(&client, &crds, std::time::Duration::from_secs(60))
            .await
            .unwrap_or_else(|e| panic!("case {}: CRD rejected: {e}", case.name));
        let path = case.dir.join("violations.yaml");
        if !path.exists() {
            continue;
        }
        let violations: Violations = serde_yaml::from_str(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for set in violations.objects {
            let api_version = set.base["apiVersion"].as_str().unwrap().to_string();
            let kind = set.base["kind"].as_str().unwrap().to_string();
            let (group, version) = api_version.split_once('/').unwrap();
            let crd = generated
                .crds
                .iter()
                .find(|c| c.spec.group == group && c.spec.names.kind == kind)
                .unwrap_or_else(|| panic!("{}: no CRD for {api_version} {kind}", path.display()));
            let resource = ApiResource {
                group: group.into(),
                version: version.into(),
                api_version: api_version.clone(),
                kind: kind.clone(),
                plural: crd.spec.names.plural.clone(),
            };
            let api: Api<DynamicObject> = if crd.spec.scope == "Namespaced" {
                Api::namespaced_with(client.clone(), ns.name(), &resource)
            } else {
                Api::all_with(client.clone(), &resource)
            };
            let object = |v: &Value, name: &str| -> DynamicObject {
                let mut v = v.clone();
                v["metadata"]["name"] = Value::from(name);
                serde_json::from_value(v).unwrap()
            };
            let dry_run = PostParams {
                dry_run: true,
                ..Default::default()
            };
            // The base object itself is valid.
            let base_name = envtest::testing::unique_name(&kind.to_lowercase());
            let created = api
                .create(&PostParams::default(), &object(&set.base, &base_name))
                .await;
            let created = match created {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!(
                        "{}: the valid {kind} was rejected: {}",
                        case.name,
                        envtest::crds::describe(&e)
                    ));
                    continue;
                }
            };
            let mut rejected = |v: &Violation, result: Result<DynamicObject, kube::Error>| {
                checked += 1;
                match result {
                    Ok(_) => failures.push(format!(
                        "{}: {kind}: `{}` was accepted ({})",
                        case.name, v.marker, v.patch
                    )),
                    Err(e) => {
                        let message = envtest::crds::describe(&e);
                        if !message.contains(&v.expect) {
                            failures.push(format!(
                                "{}: {kind}: `{}` was rejected, but the message does not contain {:?}: {message}",
                                case.name, v.marker, v.expect
                            ));
                        }
                    }
                }
            };
            for v in &set.create {
                let mut body = set.base.clone();
                merge_patch(&mut body, &v.patch);
                let result = api.create(&dry_run, &object(&body, "violation")).await;
                rejected(v, result);
            }
            for v in &set.update {
                let mut body = serde_json::to_value(&created).unwrap();
                merge_patch(&mut body, &v.patch);
                let result = api
                    .replace(&base_name, &dry_run, &serde_json::from_value(body).unwrap())
                    .await;
                rejected(v, result);
            }
            let _ = api.delete(&base_name, &Default::default()).await;
        }
    }
    eprintln!("parity: {checked} violating custom resources sent to the API server");
    assert!(checked > 0, "no violations.yaml found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `testdata/parity/webhook_errors/<case>/`: one webhook mistake written twice. operator-gen
/// must refuse each at a file position; controller-gen must refuse it too, or write
/// configurations the API server refuses (its silent cases: an unknown failure policy or
/// verb, duplicate names, ...). So no mistake gets past both tools to a cluster.
#[tokio::test]
#[ignore = "needs Go to build controller-gen and the local control plane; run by cargo xtask test"]
async fn webhook_mistakes_are_refused_here_and_by_controller_gen_or_the_api_server() {
    use kube::api::{Api, DynamicObject, PostParams};
    use kube::discovery::ApiResource;

    let controller_gen = envtest::components::controller_gen().unwrap();
    let env = envtest::TestEnv::connect().await.unwrap();
    let client = env.client();
    let root = parity_root().join("webhook_errors");
    let mut names: Vec<String> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 10, "too few cases under {}", root.display());
    let scratch = tempfile::tempdir().unwrap();
    let (mut refused_by_controller_gen, mut refused_by_api_server) = (0, 0);
    let mut failures = Vec::new();
    for name in &names {
        let dir = root.join(name);
        match operator_gen::generate(&[dir.join("rust")], &operator_gen::Options::default()) {
            Ok(_) => failures.push(format!("{name}: operator-gen wrote it")),
            Err(e) => {
                let text = e.to_string();
                if !text.contains("hooks.rs:") {
                    failures.push(format!(
                        "{name}: operator-gen's error has no position: {text}"
                    ));
                }
            }
        }
        let out = scratch.path().join(name);
        let output = envtest::components::controller_gen_command(&controller_gen, &parity_root())
            .args([
                "webhook".to_string(),
                format!("paths=./webhook_errors/{name}/go/..."),
                format!("output:webhook:dir={}", out.display()),
            ])
            .output()
            .unwrap();
        let written = std::fs::read_to_string(out.join("manifests.yaml"));
        if !output.status.success() || written.is_err() {
            refused_by_controller_gen += 1;
            continue;
        }
        // controller-gen wrote it: the API server must refuse at least one object of it.
        let mut refused = false;
        for doc in documents(&written.unwrap()) {
            let kind = doc["kind"].as_str().unwrap().to_string();
            let resource = ApiResource {
                group: "admissionregistration.k8s.io".into(),
                version: "v1".into(),
                api_version: "admissionregistration.k8s.io/v1".into(),
                plural: format!("{}s", kind.to_lowercase()),
                kind,
            };
            let api: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
            let object: DynamicObject = serde_json::from_value(doc).unwrap();
            let dry_run = PostParams {
                dry_run: true,
                ..Default::default()
            };
            if api.create(&dry_run, &object).await.is_err() {
                refused = true;
            }
        }
        if refused {
            refused_by_api_server += 1;
        } else {
            failures.push(format!(
                "{name}: controller-gen wrote configurations the API server accepts, so the case is no mistake"
            ));
        }
    }
    eprintln!(
        "webhook mistakes: {} cases refused by operator-gen; controller-gen refused {refused_by_controller_gen}, the API server refused controller-gen's output of the other {refused_by_api_server}",
        names.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
