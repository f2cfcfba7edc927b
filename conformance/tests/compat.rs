//! The compatibility gate on the change pairs of `testdata/compat/cases.yaml`: each pair's
//! findings are exactly the ones the case expects, and (with `--ignored`) crdify, built
//! from its Go module on first use, flags nothing on those pairs that the gate does not.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use operator_gen::compat::{self, BaselineCrd, Check, Finding, Group, NewCrd, Severity};
use serde::Deserialize;
use serde_json::{Map, Value};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/compat")
}

#[derive(Debug, Deserialize)]
struct Case {
    name: String,
    #[serde(default)]
    old: Vec<Value>,
    #[serde(default)]
    new: Vec<Value>,
    expect: Vec<String>,
    /// The findings' groups in the migration mode: "<loss|stricter|notice> <check> <path>".
    sorted: Option<Vec<String>>,
    /// Words every finding's way through holds.
    way: Option<String>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(testdata().join("cases.yaml")).unwrap();
    serde_yaml::from_str(&text).unwrap()
}

fn base() -> Value {
    let text = std::fs::read_to_string(testdata().join("base.yaml")).unwrap();
    serde_yaml::from_str(&text).unwrap()
}

/// RFC 7386: `patch` merged into `target`, `null` deleting.
fn merge(target: &mut Value, patch: &Value) {
    match patch {
        Value::Object(p) => {
            if !target.is_object() {
                *target = Value::Object(Map::new());
            }
            let t = target.as_object_mut().unwrap();
            for (k, v) in p {
                if v.is_null() {
                    t.remove(k);
                } else {
                    merge(t.entry(k.clone()).or_insert(Value::Null), v);
                }
            }
        }
        other => *target = other.clone(),
    }
}

/// The steps of a schema path: property names, and `*` for items or map values.
fn steps(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in path.trim_start_matches('.').split('.') {
        let (name, stars) = match part.find('[') {
            Some(i) => (&part[..i], part[i..].matches("[*]").count()),
            None => (part, 0),
        };
        if !name.is_empty() {
            out.push(name.to_string());
        }
        out.extend(std::iter::repeat_n("*".to_string(), stars));
    }
    out
}

/// The schema node at `steps` below `schema`.
fn node<'a>(schema: &'a mut Value, steps: &[String]) -> &'a mut Value {
    let mut at = schema;
    for step in steps {
        at = if step == "*" {
            if at.get("items").is_some() {
                &mut at["items"]
            } else {
                &mut at["additionalProperties"]
            }
        } else {
            &mut at["properties"][step]
        };
    }
    at
}

fn versions(crd: &mut Value) -> &mut Vec<Value> {
    crd["spec"]["versions"].as_array_mut().unwrap()
}

/// Applies the edits of one side to a copy of the base; `None` when the CRD is dropped.
fn side(base: &Value, edits: &[Value]) -> Option<Value> {
    let mut crd = base.clone();
    for edit in edits {
        let e = edit.as_object().unwrap();
        if e.contains_key("drop_crd") {
            return None;
        } else if let Some(patch) = e.get("crd") {
            merge(&mut crd, patch);
        } else if let Some(status) = e.get("status") {
            crd["status"] = status.clone();
        } else if let Some(from) = e.get("copy_version") {
            let mut copy = versions(&mut crd)
                .iter()
                .find(|v| &v["name"] == from)
                .unwrap()
                .clone();
            copy["name"] = e["to"].clone();
            if let Some(set) = e.get("set") {
                merge(&mut copy, set);
            }
            versions(&mut crd).push(copy);
        } else if let Some(name) = e.get("version") {
            let v = versions(&mut crd)
                .iter_mut()
                .find(|v| &v["name"] == name)
                .unwrap();
            merge(v, &e["set"]);
        } else if let Some(name) = e.get("remove_version") {
            versions(&mut crd).retain(|v| &v["name"] != name);
        } else if let Some(path) = e.get("at").and_then(Value::as_str) {
            let only = e.get("in").and_then(Value::as_str);
            let steps = steps(path);
            for v in versions(&mut crd) {
                if only.is_some_and(|o| v["name"] != o) {
                    continue;
                }
                let schema = &mut v["schema"]["openAPIV3Schema"];
                if let Some(set) = e.get("set") {
                    merge(node(schema, &steps), set);
                } else if let Some(add) = e.get("add") {
                    *node(schema, &steps) = add.clone();
                } else if e.contains_key("remove") {
                    let (last, parent) = steps.split_last().unwrap();
                    let parent = node(schema, parent);
                    parent["properties"].as_object_mut().unwrap().remove(last);
                    if let Some(req) = parent.get_mut("required").and_then(Value::as_array_mut) {
                        req.retain(|r| r != last);
                    }
                } else {
                    panic!("edit at {path} says neither set, add nor remove");
                }
            }
        } else {
            panic!("unknown edit {edit}");
        }
    }
    Some(crd)
}

struct Pair {
    old: Value,
    new: Option<Value>,
}

fn pair(case: &Case) -> Pair {
    let base = base();
    Pair {
        old: side(&base, &case.old).expect("the old side keeps its CRD"),
        new: side(&base, &case.new),
    }
}

/// The gate's findings on a pair, as "<level> <check> <version> <path>".
fn findings(pair: &Pair) -> Vec<Finding> {
    let old = BaselineCrd::from_value(pair.old.clone()).unwrap();
    let new = pair
        .new
        .clone()
        .map(|n| BaselineCrd::from_value(n).unwrap());
    let new: Vec<NewCrd<'_>> = new
        .iter()
        .map(|n| NewCrd {
            crd: &n.crd,
            conversion_webhook: n.conversion_webhook,
        })
        .collect();
    compat::compare_all(&[old], &new)
}

/// A finding's group in the migration mode, as "<loss|stricter|notice> <check> <path>".
fn sorted_line(f: &Finding) -> String {
    format!(
        "{} {} {}",
        match f.group {
            Group::Loss => "loss",
            Group::Stricter => "stricter",
            Group::Notice => "notice",
        },
        f.check,
        if f.path.is_empty() { "-" } else { &f.path }
    )
}

fn line(f: &Finding) -> String {
    format!(
        "{} {} {} {}",
        match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        f.check,
        f.version.as_deref().unwrap_or("-"),
        if f.path.is_empty() { "-" } else { &f.path }
    )
}

#[test]
fn every_change_pair_gets_the_findings_it_expects() {
    let cases = cases();
    assert!(cases.len() >= 60, "the corpus has {} pairs", cases.len());
    let mut wrong = Vec::new();
    for case in &cases {
        let found = findings(&pair(case));
        let mut got: Vec<String> = found.iter().map(line).collect();
        got.sort();
        let mut want = case.expect.clone();
        want.sort();
        if got != want {
            wrong.push(format!(
                "{}:\n  expected {want:?}\n  found    {got:?}\n{}",
                case.name,
                found
                    .iter()
                    .map(|f| format!("    {f}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
        }
        if let Some(sorted) = &case.sorted {
            let mut got: Vec<String> = found.iter().map(sorted_line).collect();
            got.sort();
            let mut want = sorted.clone();
            want.sort();
            if got != want {
                wrong.push(format!(
                    "{} (migration groups):\n  expected {want:?}\n  found    {got:?}",
                    case.name
                ));
            }
        }
        if let Some(way) = &case.way {
            for f in &found {
                if !f.way.contains(way.as_str()) {
                    wrong.push(format!(
                        "{}: the way through of {} does not say {way:?}:\n    {f}",
                        case.name,
                        line(f)
                    ));
                }
            }
        }
        // Every finding explains itself.
        for f in &found {
            assert!(
                !f.what.is_empty() && !f.why.is_empty() && !f.way.is_empty(),
                "{f:?}"
            );
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Every check is exercised by some pair.
    let seen: std::collections::BTreeSet<String> = cases
        .iter()
        .flat_map(|c| c.expect.iter())
        .map(|e| e.split(' ').nth(1).unwrap().to_string())
        .collect();
    for check in Check::ALL {
        assert!(seen.contains(check.name()), "no pair expects {check}");
    }
}

/// What crdify reports on a pair: (check, version, path) in the gate's terms, or the
/// crdify validation name when it has no counterpart ("description", "unhandled").
fn crdify_flags(exe: &Path, dir: &Path, pair: &Pair) -> Vec<(String, String, String)> {
    let old = dir.join("old.yaml");
    let new = dir.join("new.yaml");
    std::fs::write(&old, serde_yaml::to_string(&pair.old).unwrap()).unwrap();
    std::fs::write(
        &new,
        serde_yaml::to_string(pair.new.as_ref().unwrap()).unwrap(),
    )
    .unwrap();
    let out = std::process::Command::new(exe)
        .arg(format!("file://{}", old.display()))
        .arg(format!("file://{}", new.display()))
        .args(["-o", "json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let start = stdout.find('{').unwrap_or_else(|| {
        panic!(
            "crdify printed no JSON: {stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let report: Value = serde_json::from_str(&stdout[start..]).unwrap();
    let mut flags = Vec::new();
    let flagged = |r: &Value| {
        r["errors"].as_array().is_some_and(|e| !e.is_empty())
            || r["warnings"].as_array().is_some_and(|w| !w.is_empty())
    };
    for r in report["crdValidation"].as_array().into_iter().flatten() {
        if !flagged(r) {
            continue;
        }
        let name = r["name"].as_str().unwrap();
        for e in r["errors"].as_array().into_iter().flatten() {
            let e = e.as_str().unwrap();
            let (check, version, path) = match name {
                // "removed field : v1.^.spec.ratio"
                "existingFieldRemoval" => {
                    let at = e.rsplit(" : ").next().unwrap();
                    let (v, p) = at.split_once(".^").unwrap();
                    ("field-removed", v.to_string(), p.to_string())
                }
                "scope" => ("scope-changed", "-".into(), "-".into()),
                "storedVersionRemoval" => ("version-removed", "*".into(), "-".into()),
                other => panic!("unknown crdify CRD validation {other}: {e}"),
            };
            flags.push((check.to_string(), version, path));
        }
    }
    for (key, served) in [
        ("sameVersionValidation", false),
        ("servedVersionValidation", true),
    ] {
        for (version, props) in report[key].as_object().into_iter().flatten() {
            for (prop, results) in props.as_object().unwrap() {
                for r in results.as_array().unwrap() {
                    if !flagged(r) {
                        continue;
                    }
                    let name = r["name"].as_str().unwrap();
                    let text = r.to_string();
                    let check = match name {
                        "type" => "type-changed",
                        "enum" if text.contains("values added") => "enum-extended",
                        "enum" => "enum-narrowed",
                        "maximum" | "maxItems" | "maxLength" | "maxProperties" | "minimum"
                        | "minItems" | "minLength" | "minProperties" => "bound-tightened",
                        "required" => "required-added",
                        "default" => "default-changed",
                        other => other,
                    };
                    let (check, version) = if served {
                        // "v1 -> v2": the gate names the newer version.
                        let newer = version.rsplit(" -> ").next().unwrap().to_string();
                        let check = if matches!(check, "description" | "unhandled") {
                            check
                        } else {
                            "versions-diverge"
                        };
                        (check.to_string(), newer)
                    } else {
                        (check.to_string(), version.clone())
                    };
                    flags.push((check, version, prop.trim_start_matches('^').to_string()));
                }
            }
        }
    }
    flags.sort();
    flags.dedup();
    flags
}

/// crdify's flags that the gate judges differently, on purpose.
fn judged_differently(flag: &(String, String, String), pair: &Pair) -> Option<&'static str> {
    match flag.0.as_str() {
        "description" => Some("a description is documentation: no object or client breaks"),
        "unhandled" => {
            Some("crdify has no check for it; the case's expectation is the gate's judgment")
        }
        "versions-diverge"
            if pair.new.as_ref().is_some_and(|n| {
                n.pointer("/spec/conversion/strategy") == Some(&Value::from("Webhook"))
            }) =>
        {
            Some("a conversion webhook converts between the versions, so they may differ")
        }
        "type-changed" if int_or_string_on_both_sides(pair, &flag.2) => Some(
            "int-or-string on both sides: `x-kubernetes-int-or-string: true` alone (schemars' Quantity) and with the anyOf that spells it out admit the same values",
        ),
        _ => None,
    }
}

/// Whether the schema node at `path` is int-or-string in both of the pair's v1.
fn int_or_string_on_both_sides(pair: &Pair, path: &str) -> bool {
    let steps = steps(path);
    let int_or_string = |crd: &Value| {
        let mut crd = crd.clone();
        let schema = &mut versions(&mut crd)[0]["schema"]["openAPIV3Schema"];
        node(schema, &steps)["x-kubernetes-int-or-string"] == Value::Bool(true)
    };
    int_or_string(&pair.old) && pair.new.as_ref().is_some_and(int_or_string)
}

#[test]
#[ignore = "builds crdify with Go on first use; `cargo xtask test` runs it"]
fn crdify_flags_nothing_the_gate_misses() {
    let exe = envtest::components::crdify().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut missed = Vec::new();
    let mut table: BTreeMap<&'static str, usize> = BTreeMap::new();
    let cases = cases();
    for case in &cases {
        let pair = pair(case);
        if pair.new.is_none() {
            // crdify compares two CRDs; a kind that is gone is the gate's own check.
            *table
                .entry("kind removed (crdify has no counterpart)")
                .or_default() += 1;
            continue;
        }
        let ours = findings(&pair);
        let flags = crdify_flags(&exe, dir.path(), &pair);
        if flags.is_empty() {
            *table
                .entry(if ours.is_empty() {
                    "both silent"
                } else {
                    "only the gate reports"
                })
                .or_default() += 1;
        }
        let mut agreed = true;
        for flag in &flags {
            if let Some(why) = judged_differently(flag, &pair) {
                eprintln!(
                    "{}: crdify {:?}, judged: {why}; the gate: {:?}",
                    case.name,
                    flag,
                    ours.iter().map(line).collect::<Vec<_>>()
                );
                *table
                    .entry(if flag.0 == "unhandled" {
                        "crdify: unhandled"
                    } else {
                        "crdify flags, judged not breaking"
                    })
                    .or_default() += 1;
                continue;
            }
            let (check, version, path) = flag;
            // crdify reads a removed field as its type changing to none, and a removed
            // enum as its values removed; the gate names those field-removed and
            // enum-extended.
            let same = |ours: Check| {
                ours.name() == check
                    || (check == "type-changed" && ours == Check::FieldRemoved)
                    || (check == "enum-narrowed" && ours == Check::EnumExtended)
            };
            // An object whose every property went is one finding at the object; crdify
            // names each field.
            let below = |f: &Finding| {
                f.check == Check::FieldRemoved
                    && path
                        .strip_prefix(f.path.as_str())
                        .is_some_and(|rest| rest.starts_with('.'))
            };
            let matched = ours.iter().any(|f| {
                same(f.check)
                    && (version == "*" || f.version.as_deref().unwrap_or("-") == version)
                    && (path == "-"
                        || f.path == *path
                        || f.path.starts_with(path.as_str())
                        || below(f))
            });
            if !matched {
                agreed = false;
                missed.push(format!(
                    "{}: crdify flags {flag:?}; the gate found {:?}",
                    case.name,
                    ours.iter().map(line).collect::<Vec<_>>()
                ));
            }
        }
        if !flags.is_empty() && agreed {
            *table.entry("crdify flags, the gate too").or_default() += 1;
        }
    }
    eprintln!("{} pairs:", cases.len());
    for (what, n) in &table {
        eprintln!("  {what}: {n}");
    }
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// The API types of an operator moved from kube-derive, as operator-gen reads them.
const MOVED_API: &str = r#"
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Cache runs a cache.
#[derive(CustomResource)]
#[resource(group = "cache.example.com", version = "v1", kind = "Cache", namespaced)]
#[subresource(status)]
pub struct Cache {
    pub metadata: ObjectMeta,
    pub spec: CacheSpec,
    pub status: Option<CacheStatus>,
}

/// CacheSpec is what the cache should be.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct CacheSpec {
    /// Replicas is how many pods run.
    pub replicas: i32,
    /// Port the cache listens on.
    pub port: u16,
    /// Shards of the key space.
    pub shards: u32,
    /// Memory of each pod.
    pub memory: Quantity,
    /// CPU of each pod.
    pub cpu: Quantity,
    /// Limit of each pod's memory.
    pub limit: Option<Quantity>,
    /// Note for humans.
    pub note: Option<String>,
    /// Labels of the pods.
    pub labels: Option<BTreeMap<String, String>>,
    /// Template of the pods.
    pub template: Option<PodTemplateSpec>,
    /// ServiceAccount is made from this.
    pub service_account: Option<AccountTemplate>,
}

/// AccountTemplate is what the operator makes service accounts from.
#[derive(Schema)]
pub struct AccountTemplate {
    /// Metadata of the service account.
    pub metadata: Option<ObjectMeta>,
}

/// CacheStatus is what the cache is.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct CacheStatus {
    /// Ready says the pods serve.
    pub ready: Option<bool>,
    /// ObservedGeneration is the generation the status is of.
    pub observed_generation: Option<i64>,
}
"#;

/// The CRD kube-derive wrote for the same kind, by hand, as kube-derive with schemars 1
/// writes one: `nullable: true` on every `Option`, schemars' integer formats (`uint16`,
/// `uint32`, which the API server does not check) with `minimum: 0`, k8s-openapi's Quantity
/// as `x-kubernetes-int-or-string` without a pattern (`cpu` as schemars 0.8 wrote it, a
/// string), the template's and the service account's ObjectMeta with their fields, and no
/// list or map types in Kubernetes types. Two fields are gone from the Rust types since:
/// `spec.legacy`, of the operator's own, and `debug` in the template's containers, which
/// the Kubernetes version the old CRD was made with had.
const KUBE_DERIVE_CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: caches.cache.example.com
spec:
  group: cache.example.com
  names:
    categories: []
    kind: Cache
    plural: caches
    shortNames: []
    singular: cache
  scope: Namespaced
  versions:
  - additionalPrinterColumns: []
    name: v1
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        title: Cache
        type: object
        required: [spec]
        properties:
          spec:
            type: object
            required: [cpu, memory, port, replicas, shards]
            properties:
              replicas: {type: integer, format: int32}
              port: {type: integer, format: uint16, minimum: 0}
              shards: {type: integer, format: uint32, minimum: 0}
              memory: {x-kubernetes-int-or-string: true}
              cpu: {type: string}
              limit: {x-kubernetes-int-or-string: true, nullable: true}
              note: {type: string, nullable: true}
              legacy: {type: string, nullable: true}
              labels:
                type: object
                nullable: true
                additionalProperties: {type: string}
              template:
                type: object
                nullable: true
                properties:
                  metadata:
                    type: object
                    nullable: true
                    properties:
                      name: {type: string, nullable: true}
                      generateName: {type: string, nullable: true}
                      namespace: {type: string, nullable: true}
                      labels: {type: object, nullable: true, additionalProperties: {type: string}}
                      annotations: {type: object, nullable: true, additionalProperties: {type: string}}
                      finalizers: {type: array, nullable: true, items: {type: string}}
                  spec:
                    type: object
                    nullable: true
                    required: [containers]
                    properties:
                      containers:
                        type: array
                        items:
                          type: object
                          required: [name]
                          properties:
                            name: {type: string}
                            image: {type: string, nullable: true}
                            debug: {type: boolean, nullable: true}
              serviceAccount:
                type: object
                nullable: true
                properties:
                  metadata:
                    type: object
                    nullable: true
                    properties:
                      name: {type: string, nullable: true}
                      labels: {type: object, nullable: true, additionalProperties: {type: string}}
                      annotations: {type: object, nullable: true, additionalProperties: {type: string}}
          status:
            type: object
            nullable: true
            properties:
              ready: {type: boolean, nullable: true}
              observedGeneration: {type: integer, format: int64, nullable: true}
"#;

/// The migration check of the moved operator with `meta` as its embedded ObjectMeta shape.
fn migration_report(meta: operator_gen::EmbeddedObjectMeta) -> compat::Report {
    migration_report_of(MOVED_API, meta)
}

/// The migration check of `api` (the moved operator's, edited) against the kube-derive CRD.
fn migration_report_of(api: &str, meta: operator_gen::EmbeddedObjectMeta) -> compat::Report {
    let generated = operator_gen::generate_from_texts(
        Path::new("/moved/src"),
        vec![(PathBuf::from("/moved/src/lib.rs"), api.to_string())],
        &operator_gen::Options {
            embedded_object_meta: meta,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("operator-gen refused the moved API:\n{e}"));
    let baseline = BaselineCrd::from_value(serde_yaml::from_str(KUBE_DERIVE_CRD).unwrap()).unwrap();
    compat::check(&generated, &[baseline], |_| false)
}

/// (check, path) of each finding of `group`.
fn group_of(report: &compat::Report, group: Group) -> Vec<(String, String)> {
    let mut found: Vec<(String, String)> = report
        .in_group(group)
        .map(|f| (f.check.to_string(), f.path.clone()))
        .collect();
    found.sort();
    found
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut list: Vec<(String, String)> = list
        .iter()
        .map(|(c, p)| (c.to_string(), p.to_string()))
        .collect();
    list.sort();
    list
}

/// What a move from kube-derive makes stricter as the Rust type is, whatever the shape of
/// the embedded ObjectMeta: the Quantity that was a string, schemars' unsigned formats and
/// the bounds of the widths, the Quantity pattern, the containers keyed by name as
/// Kubernetes keys them, and the nulls the API server now drops.
fn stricter_as_the_rust_type_is(nulls_below_metadata: &[&str]) -> Vec<(String, String)> {
    let mut expected = vec![
        ("type-changed", ".spec.cpu"),
        ("format-changed", ".spec.shards"),
        ("bound-tightened", ".spec.port"),
        ("bound-tightened", ".spec.shards"),
        ("pattern-changed", ".spec.memory"),
        ("pattern-changed", ".spec.limit"),
        ("list-type-changed", ".spec.template.spec.containers"),
    ];
    for path in [
        ".spec.labels",
        ".spec.limit",
        ".spec.note",
        ".spec.serviceAccount",
        ".spec.serviceAccount.metadata",
        ".spec.template",
        ".spec.template.metadata",
        ".spec.template.spec",
        ".spec.template.spec.containers[*].image",
        ".status",
        ".status.observedGeneration",
        ".status.ready",
    ]
    .into_iter()
    .chain(nulls_below_metadata.iter().copied())
    {
        expected.push(("nullable-removed", path));
    }
    pairs(&expected)
}

/// The acceptance test of the migration mode: a kube-derive CRD (nullables, Quantity, an
/// embedded ObjectMeta with its fields, schemars' unsigned formats) against what operator-gen
/// makes of the same Rust types. The losses and the stricter changes are counted apart, each
/// path in its group, the losses first.
#[test]
fn a_move_from_kube_derive_counts_losses_apart_from_what_is_stricter() {
    use compat::Mode;
    use operator_gen::EmbeddedObjectMeta;

    // controller-gen's shape for the embedded metadata (what the user of the issue had):
    // both ObjectMetas lose every field, beside the operator's own field and the
    // container's field that the Rust types no longer have.
    let report = migration_report(EmbeddedObjectMeta::Object);
    let losses = [
        ("field-removed", ".spec.legacy"),
        ("field-removed", ".spec.serviceAccount.metadata"),
        ("field-removed", ".spec.template.metadata"),
        ("field-removed", ".spec.template.spec.containers[*].debug"),
    ];
    assert_eq!(group_of(&report, Group::Loss), pairs(&losses));
    let stricter = stricter_as_the_rust_type_is(&[]);
    assert_eq!(group_of(&report, Group::Stricter), stricter);
    assert_eq!(stricter.len(), 19);
    assert_eq!(report.in_group(Group::Notice).count(), 0);
    // Only the losses fail the migration check; a release check fails on the stricter
    // errors too (7 of them: the nulls are warnings in every mode).
    assert_eq!(report.errors_in(Mode::Migration), 4);
    assert_eq!(report.errors_in(Mode::Release), 4 + 7);

    let text = report.render(Mode::Migration);
    assert!(
        text.starts_with("migration check: 4 changes lose data or refuse what was admitted; 19 are stricter, as the Rust type is\n"),
        "{text}"
    );
    let losses_at = text
        .find("== 4 lose data or refuse what was admitted")
        .unwrap();
    let stricter_at = text.find("== 19 stricter, as the Rust type is").unwrap();
    assert!(losses_at < stricter_at, "{text}");
    // Many of one check are summarized: 12 nulls, three shown.
    assert!(text.contains("nullable-removed: 12\n"), "{text}");
    assert!(text.contains("  ... and 9 more"), "{text}");
    // The way through fits where the field comes from.
    let way = |path: &str| {
        report
            .findings
            .iter()
            .find(|f| f.path == path && f.group == Group::Loss)
            .map(|f| f.way.clone())
            .unwrap()
    };
    assert!(way(".spec.legacy").starts_with("keep the field"));
    for meta in [".spec.template.metadata", ".spec.serviceAccount.metadata"] {
        assert!(
            way(meta)
                .contains("`embedded-object-meta = \"full\"` in [package.metadata.operator-gen]"),
            "{}",
            way(meta)
        );
    }
    let debug = way(".spec.template.spec.containers[*].debug");
    assert!(
        debug.starts_with("this is a field of the Kubernetes type Container")
            && !debug.contains("keep the field"),
        "{debug}"
    );
    assert!(
        report.verdict(Mode::Migration, "kube-derive.yaml")
            == "4 changes against kube-derive.yaml lose data or refuse what was admitted"
    );

    // operator-gen's default shape keeps every field of both ObjectMetas: two losses left,
    // and the nulls of their fields are dropped now, stricter.
    let report = migration_report(EmbeddedObjectMeta::Full);
    assert_eq!(
        group_of(&report, Group::Loss),
        pairs(&[losses[0], losses[3]])
    );
    let below = [
        ".spec.serviceAccount.metadata.annotations",
        ".spec.serviceAccount.metadata.labels",
        ".spec.serviceAccount.metadata.name",
        ".spec.template.metadata.annotations",
        ".spec.template.metadata.finalizers",
        ".spec.template.metadata.generateName",
        ".spec.template.metadata.labels",
        ".spec.template.metadata.name",
        ".spec.template.metadata.namespace",
    ];
    assert_eq!(
        group_of(&report, Group::Stricter),
        stricter_as_the_rust_type_is(&below)
    );
    assert_eq!(report.errors_in(Mode::Migration), 2);
}

/// Allowing the losses passes the migration check, while the stricter changes are still
/// shown; the same allows leave a release check failing on those.
#[test]
fn allowed_losses_pass_the_migration_check_and_stricter_changes_are_still_shown() {
    use compat::Mode;
    let report = migration_report_of(
        &MOVED_API.replace(
            "pub struct Cache {",
            "#[compat(allow = \"field-removed\", path = \".spec.legacy\", reason = \"no release wrote it\")]\n#[compat(allow = \"field-removed\", path = \".spec.template.spec.containers\", reason = \"gone from Kubernetes\")]\npub struct Cache {",
        ),
        operator_gen::EmbeddedObjectMeta::Full,
    );
    assert!(
        !report.fails_in(Mode::Migration),
        "{}",
        report.render(Mode::Migration)
    );
    assert!(report.fails_in(Mode::Release));
    let text = report.render(Mode::Migration);
    assert!(
        text.starts_with("migration check: 2 changes lose data or refuse what was admitted (2 allowed); 28 are stricter, as the Rust type is\n"),
        "{text}"
    );
    assert!(text.contains("allowed: no release wrote it"), "{text}");
}

/// A CRD of one kind, `Probe`, in `group`, whose spec is `spec`.
fn probe_crd(group: &str, spec: Value) -> Value {
    serde_json::json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("probes.{group}")},
        "spec": {
            "group": group,
            "names": {"kind": "Probe", "listKind": "ProbeList", "plural": "probes", "singular": "probe"},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "properties": {
                        "apiVersion": {"type": "string"},
                        "kind": {"type": "string"},
                        "metadata": {"type": "object"},
                        "spec": spec,
                    }
                }}
            }]
        }
    })
}

/// The spec of the probe kind: a field, a map's values and a list's items that are nullable
/// or not, a required field and a defaulted one.
fn probe_spec(nullable: bool) -> Value {
    serde_json::json!({
        "type": "object",
        "required": ["needed"],
        "properties": {
            "needed": {"type": "string"},
            "note": {"type": "string", "nullable": nullable},
            "labels": {"type": "object", "additionalProperties": {"type": "string", "nullable": nullable}},
            "tags": {"type": "array", "items": {"type": "string", "nullable": nullable}},
            "defaulted": {"type": "string", "default": "d"},
            "keep": {"type": "string"},
        }
    })
}

/// What `nullable-removed` says is what the API server (the local control plane's) does:
/// a null sent for a field or a map value that is not nullable is dropped and the object
/// admitted, so the gate calls it a warning, stricter as the Rust type is; a null in a list
/// is refused, an error and a loss; a required field's null is refused as missing; and a
/// null stored while the field was nullable reads as the field left out once it is not.
#[tokio::test]
#[ignore = "needs the local control plane; run by cargo xtask test"]
async fn nullable_removed_says_what_the_api_server_does_with_a_null() {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
    use kube::discovery::ApiResource;
    use serde_json::json;
    use std::time::Duration;

    // The gate's findings on the same pair of CRDs.
    let group = "nulls.compat.example.com";
    let old = BaselineCrd::from_value(probe_crd(group, probe_spec(true))).unwrap();
    let new = BaselineCrd::from_value(probe_crd(group, probe_spec(false))).unwrap();
    let findings = compat::compare(
        &old,
        NewCrd {
            crd: &new.crd,
            conversion_webhook: false,
        },
    );
    let finding = |path: &str| {
        findings
            .iter()
            .find(|f| f.path == path && f.check == Check::NullableRemoved)
            .unwrap_or_else(|| panic!("no nullable-removed at {path}: {findings:?}"))
    };
    for path in [".spec.note", ".spec.labels[*]"] {
        let f = finding(path);
        assert_eq!((f.severity, f.group), (Severity::Warning, Group::Stricter));
        assert!(
            f.why
                .starts_with("the API server drops a null sent for it and admits the object"),
            "{f}"
        );
        assert!(
            f.why
                .contains("a null already stored reads as the field left out"),
            "{f}"
        );
    }
    let items = finding(".spec.tags[*]");
    assert_eq!(
        (items.severity, items.group),
        (Severity::Error, Group::Loss)
    );
    assert!(
        items.why.starts_with("a list holding a null is refused"),
        "{items}"
    );

    // What the API server does.
    let env = envtest::TestEnv::connect().await.unwrap();
    let client = env.client();
    let ns = env.namespace("compat-nulls").await.unwrap();
    let install = |crd: Value| {
        let client = client.clone();
        async move {
            let crd: CustomResourceDefinition = serde_json::from_value(crd).unwrap();
            envtest::crds::install(&client, std::slice::from_ref(&crd), Duration::from_secs(60))
                .await
                .unwrap();
            crd
        }
    };
    let resource = ApiResource {
        group: group.into(),
        version: "v1".into(),
        api_version: format!("{group}/v1"),
        kind: "Probe".into(),
        plural: "probes".into(),
    };
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns.name(), &resource);
    let object = |name: &str, spec: Value| -> DynamicObject {
        serde_json::from_value(json!({
            "apiVersion": format!("{group}/v1"),
            "kind": "Probe",
            "metadata": {"name": name},
            "spec": spec,
        }))
        .unwrap()
    };
    let create = |name: &'static str, spec: Value| {
        let api = api.clone();
        let object = object(name, spec);
        async move {
            // An Established CRD's endpoint can take a moment to be served.
            for _ in 0..100 {
                match api.create(&PostParams::default(), &object).await {
                    Err(kube::Error::Api(status)) if status.code == 404 => {
                        tokio::time::sleep(Duration::from_millis(100)).await
                    }
                    other => return other.map(|o| o.data["spec"].clone()),
                }
            }
            panic!("the probes endpoint was never served")
        }
    };

    // Nulls stored while the fields were nullable.
    install(probe_crd(group, probe_spec(true))).await;
    let stored = create(
        "stored",
        json!({"needed": "x", "note": null, "labels": {"a": null}, "tags": ["a", null]}),
    )
    .await
    .unwrap();
    assert_eq!(stored["note"], Value::Null);
    assert_eq!(stored["labels"], json!({"a": null}));

    let crd = install(probe_crd(group, probe_spec(false))).await;
    // Sent now: the nulls of the field and the map value are dropped, the object admitted;
    // a null for a defaulted field gets the default.
    let mut admitted = None;
    for _ in 0..100 {
        let spec = create(
            "sent",
            json!({"needed": "x", "note": null, "labels": {"a": null, "b": "y"}, "defaulted": null}),
        )
        .await
        .unwrap();
        if spec.get("note").is_some() {
            // The API server still validates with the nullable schema: try again.
            api.delete("sent", &Default::default()).await.unwrap();
            tokio::time::sleep(Duration::from_millis(200)).await;
            continue;
        }
        admitted = Some(spec);
        break;
    }
    assert_eq!(
        admitted.expect("the new schema was never served"),
        json!({"needed": "x", "labels": {"b": "y"}, "defaulted": "d"})
    );
    // A null in a list is refused.
    let refused = create("list", json!({"needed": "x", "tags": ["a", null]}))
        .await
        .unwrap_err();
    let message = envtest::crds::describe(&refused);
    assert!(message.contains("spec.tags[1]"), "{message}");
    // A required field's null is refused as missing.
    let refused = create("required", json!({"needed": null}))
        .await
        .unwrap_err();
    let message = envtest::crds::describe(&refused);
    assert!(message.contains("spec.needed: Required value"), "{message}");
    // What was stored reads without its nulls (the list's stays, as it was admitted), and a
    // write that leaves the list as it is still passes.
    let read = api.get("stored").await.unwrap().data["spec"].clone();
    assert_eq!(
        read,
        json!({"needed": "x", "labels": {}, "tags": ["a", null], "defaulted": "d"})
    );
    let written = api
        .patch(
            "stored",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"keep": "y"}})),
        )
        .await
        .unwrap();
    assert_eq!(written.data["spec"]["tags"], json!(["a", null]));

    let _ = envtest::crds::uninstall(&client, &[crd], Duration::from_secs(60)).await;
}
