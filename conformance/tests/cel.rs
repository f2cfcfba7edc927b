//! operator-gen's CEL checker against the API server: every rule of
//! `testdata/cel/rules.yaml`, on the schema of `testdata/cel/schema.yaml`, put in a CRD and
//! created with a dry run. The API server compiles the rule then; what it accepts, operator-gen
//! must pass, and what it refuses, operator-gen must report; a rule it refuses for its
//! estimated cost, operator-gen must estimate over the budget by the same printed factor.

use std::path::{Path, PathBuf};

use envtest::TestEnv;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kube::api::PostParams;
use serde::Deserialize;
use serde_json::{Value, json};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/cel")
}

#[derive(Deserialize)]
struct Case {
    rule: String,
    compiles: bool,
}

/// The factor the API server printed when it refused a CRD for a rule's estimated cost.
fn refused_for_cost<T>(answer: &Result<T, kube::Error>) -> Option<String> {
    match answer {
        Err(kube::Error::Api(e)) if e.message.contains("estimated rule cost") => e
            .message
            .split("by factor of ")
            .nth(1)
            .and_then(|rest| rest.split(" (").next())
            .map(str::to_string),
        _ => None,
    }
}

fn crd(schema: &Value, rule: &str) -> CustomResourceDefinition {
    let mut schema = schema.clone();
    schema["x-kubernetes-validations"] = json!([{ "rule": rule }]);
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "rules.cel.example.com"},
        "spec": {
            "group": "cel.example.com",
            "names": {"kind": "Rule", "listKind": "RuleList", "plural": "rules", "singular": "rule"},
            "scope": "Namespaced",
            "versions": [{"name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": schema}}],
        }
    }))
    .unwrap()
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn the_api_server_agrees_with_each_verdict() {
    let env = TestEnv::connect().await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let schema: Value =
        serde_yaml::from_str(&std::fs::read_to_string(testdata().join("schema.yaml")).unwrap())
            .unwrap();
    let typed: operator_gen::api::apiextensions::v1::JSONSchemaProps =
        serde_json::from_value(schema.clone()).unwrap();
    let cases: Vec<Case> =
        serde_yaml::from_str(&std::fs::read_to_string(testdata().join("rules.yaml")).unwrap())
            .unwrap();
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let mut wrong = Vec::new();
    let (mut accepted, mut refused) = (0, 0);
    let mut too_costly = Vec::new();
    let mut estimates = Vec::new();
    for case in &cases {
        let answer = crds.create(&dry_run, &crd(&schema, &case.rule)).await;
        // A refusal for the rule's estimated cost means it compiled: the cost is compared
        // apart, factor for factor.
        let api_server_compiles = match &answer {
            Ok(_) => true,
            Err(kube::Error::Api(e))
                if e.code == 422 && e.message.contains("estimated rule cost") =>
            {
                too_costly.push(case.rule.clone());
                true
            }
            Err(kube::Error::Api(e)) if e.code == 422 => false,
            Err(e) => panic!("{}: {e}", case.rule),
        };
        if api_server_compiles {
            accepted += 1;
        } else {
            refused += 1;
        }
        let ours = operator_gen::internals::cel::problem(&case.rule, None, false, &typed);
        // The cost: the API server's factor in its refusal, operator-gen's estimate (the
        // rules sit on the root, so they run once).
        let theirs = refused_for_cost(&answer);
        let estimated =
            operator_gen::internals::cel::compile(&case.rule, None, false, &typed, true)
                .ok()
                .map(|c| c.cost)
                .filter(|c| *c > operator_gen::internals::cel::cost::RULE_LIMIT)
                .map(|c| {
                    operator_gen::internals::cel::cost::factor_text(
                        c,
                        operator_gen::internals::cel::cost::RULE_LIMIT,
                    )
                });
        if theirs.is_some() || estimated.is_some() {
            estimates.push(format!(
                "{}: API server {theirs:?}, operator-gen {estimated:?}",
                case.rule
            ));
        }
        if theirs != estimated {
            wrong.push(format!(
                "{}: the API server refuses it for cost at {theirs:?}, operator-gen estimates {estimated:?}",
                case.rule
            ));
        }
        if api_server_compiles != case.compiles || ours.is_none() != api_server_compiles {
            wrong.push(format!(
                "{}\n  API server: {}\n  operator-gen: {ours:?}\n  rules.yaml says compiles: {}",
                case.rule,
                match &answer {
                    Ok(_) => "compiles".to_string(),
                    Err(e) => e.to_string(),
                },
                case.compiles
            ));
        }
    }
    eprintln!(
        "{} rules: the API server compiled {accepted} ({} of them refused for their estimated cost: {too_costly:?}), refused {refused}",
        cases.len(),
        too_costly.len()
    );
    for e in &estimates {
        eprintln!("  {e}");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// One shape of rule placement for the cost comparison: a rule on the items of a list
/// (`spec.items`), whose items are objects with a string `name`, with or without bounds.
struct Shape {
    what: &'static str,
    /// The rule, on the list's items (an object) or on `name` (`on_name`).
    rule: &'static str,
    on_name: bool,
    max_items: Option<i64>,
    max_length: Option<i64>,
    /// A map list keyed by `name` (rules on oldSelf need one).
    map_list: bool,
}

fn shaped(shape: &Shape) -> Value {
    let mut name = json!({"type": "string"});
    if let Some(l) = shape.max_length {
        name["maxLength"] = json!(l);
    }
    let mut item = json!({"type": "object", "required": ["name"], "properties": {
        "name": name, "a": {"type": "string"}, "b": {"type": "string"}}});
    let rule = json!([{ "rule": shape.rule }]);
    if shape.on_name {
        item["properties"]["name"]["x-kubernetes-validations"] = rule;
    } else {
        item["x-kubernetes-validations"] = rule;
    }
    let mut list = json!({"type": "array", "items": item});
    if let Some(n) = shape.max_items {
        list["maxItems"] = json!(n);
    }
    if shape.map_list {
        list["x-kubernetes-list-type"] = json!("map");
        list["x-kubernetes-list-map-keys"] = json!(["name"]);
    }
    json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {"items": list}}}})
}

/// operator-gen's verdict on the rule of `shape`: the factor it is over the budget by, if it is.
fn our_factor(schema: &Value) -> Option<String> {
    let typed: operator_gen::api::apiextensions::v1::JSONSchemaProps =
        serde_json::from_value(schema.clone()).unwrap();
    // The estimate through the library call the generator makes, times the node's
    // cardinality as the generator counts it.
    let list = &typed.properties.as_ref()?["spec"].properties.as_ref()?["items"];
    let item = match list.items.as_ref()? {
        operator_gen::api::apiextensions::v1::JSONSchemaPropsOrArray::Schema(s) => s,
        _ => return None,
    };
    let (node, rules) = match &item.x_kubernetes_validations {
        Some(r) => (&**item, r),
        None => {
            let name = &item.properties.as_ref()?["name"];
            (name, name.x_kubernetes_validations.as_ref()?)
        }
    };
    let rule = &rules[0].rule;
    let compiled = operator_gen::internals::cel::compile(rule, None, false, node, false).unwrap();
    let times = match list.max_items {
        Some(n) => n as u64,
        None => operator_gen::internals::cel::cost::fallback_cardinality(node),
    };
    let spent = compiled.cost.saturating_mul(times);
    (spent > operator_gen::internals::cel::cost::RULE_LIMIT).then(|| {
        operator_gen::internals::cel::cost::factor_text(
            spent,
            operator_gen::internals::cel::cost::RULE_LIMIT,
        )
    })
}

#[tokio::test]
#[ignore = "needs the control plane: run by `cargo xtask test`"]
async fn the_api_server_agrees_with_each_cost_estimate() {
    let env = TestEnv::connect().await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let one_of = "[has(self.a),has(self.b)].filter(x,x==true).size() == 1";
    let shapes = [
        Shape {
            what: "immutable string, unbounded",
            rule: "self == oldSelf",
            on_name: true,
            max_items: None,
            max_length: None,
            map_list: true,
        },
        Shape {
            what: "immutable string, 31 items",
            rule: "self == oldSelf",
            on_name: true,
            max_items: Some(31),
            max_length: None,
            map_list: true,
        },
        Shape {
            what: "immutable string, 32 items",
            rule: "self == oldSelf",
            on_name: true,
            max_items: Some(32),
            max_length: None,
            map_list: true,
        },
        Shape {
            what: "immutable string of 17",
            rule: "self == oldSelf",
            on_name: true,
            max_items: None,
            max_length: Some(17),
            map_list: true,
        },
        Shape {
            what: "immutable string of 18",
            rule: "self == oldSelf",
            on_name: true,
            max_items: None,
            max_length: Some(18),
            map_list: true,
        },
        Shape {
            what: "immutable string of 63",
            rule: "self == oldSelf",
            on_name: true,
            max_items: None,
            max_length: Some(63),
            map_list: true,
        },
        Shape {
            what: "one-of, unbounded",
            rule: one_of,
            on_name: false,
            max_items: None,
            max_length: None,
            map_list: false,
        },
        Shape {
            what: "one-of, 100 items",
            rule: one_of,
            on_name: false,
            max_items: Some(100),
            max_length: None,
            map_list: false,
        },
        Shape {
            what: "prefix of a string of 63",
            rule: "self.startsWith('x')",
            on_name: true,
            max_items: None,
            max_length: Some(63),
            map_list: false,
        },
        Shape {
            what: "regex on a string of 63",
            rule: "self.matches('^[a-z]+$')",
            on_name: true,
            max_items: None,
            max_length: Some(63),
            map_list: false,
        },
        Shape {
            what: "regex on a string of 63, 1000 items",
            rule: "self.matches('^[a-z]+$')",
            on_name: true,
            max_items: Some(1000),
            max_length: Some(63),
            map_list: false,
        },
        Shape {
            what: "size of an unbounded string",
            rule: "self.size() < 64",
            on_name: true,
            max_items: None,
            max_length: None,
            map_list: false,
        },
        Shape {
            what: "lower-case of an unbounded string",
            rule: "self.lowerAscii() == self",
            on_name: true,
            max_items: Some(10),
            max_length: None,
            map_list: false,
        },
        Shape {
            what: "has on the item",
            rule: "has(self.a) || has(self.b)",
            on_name: false,
            max_items: None,
            max_length: None,
            map_list: false,
        },
    ];
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    let mut wrong = Vec::new();
    for shape in &shapes {
        let schema = shaped(shape);
        let mut crd = crd(&schema, "true");
        crd.spec.versions[0]
            .schema
            .as_mut()
            .unwrap()
            .open_api_v3_schema
            .as_mut()
            .unwrap()
            .x_kubernetes_validations = None;
        let answer = crds.create(&dry_run, &crd).await;
        if let Err(e) = &answer
            && refused_for_cost(&answer).is_none()
        {
            panic!("{}: {e}", shape.what);
        }
        let theirs = refused_for_cost(&answer);
        let ours = our_factor(&schema);
        eprintln!(
            "  {}: API server {theirs:?}, operator-gen {ours:?}",
            shape.what
        );
        if theirs != ours {
            wrong.push(format!(
                "{}: API server {theirs:?}, operator-gen {ours:?}",
                shape.what
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
