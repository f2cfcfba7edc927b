//! operator-gen's CEL checker against the API server: every rule of
//! `testdata/cel/rules.yaml`, on the schema of `testdata/cel/schema.yaml`, put in a CRD and
//! created with a dry run. The API server compiles the rule then; what it accepts, operator-gen
//! must pass, and what it refuses, operator-gen must report.

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
    for case in &cases {
        let answer = crds.create(&dry_run, &crd(&schema, &case.rule)).await;
        // A refusal for the rule's estimated cost means it compiled: the cost is judged
        // apart (operator-gen does not estimate it yet).
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
        let ours = operator_gen::cel::problem(&case.rule, None, false, &typed);
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
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
