//! The compatibility gate on the change pairs of `testdata/compat/cases.yaml`: each pair's
//! findings are exactly the ones the case expects, and (with `--ignored`) crdify, built
//! from its Go module on first use, flags nothing on those pairs that the gate does not.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use operator_gen::compat::{self, BaselineCrd, Check, Finding, NewCrd, Severity};
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
        _ => None,
    }
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
            let matched = ours.iter().any(|f| {
                same(f.check)
                    && (version == "*" || f.version.as_deref().unwrap_or("-") == version)
                    && (path == "-" || f.path == *path || f.path.starts_with(path.as_str()))
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
