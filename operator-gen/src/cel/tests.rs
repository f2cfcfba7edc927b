//! Rules the API server compiles, and rules it refuses (`testdata/cel/rules.yaml`), on a
//! schema with a field of each kind. `conformance/tests/cel.rs` puts the same rules to the
//! API server itself.

use super::*;

fn schema() -> JSONSchemaProps {
    serde_yaml::from_str(include_str!("../../../testdata/cel/schema.yaml")).unwrap()
}

#[derive(serde::Deserialize)]
struct Case {
    rule: String,
    compiles: bool,
    #[serde(default)]
    problem: String,
}

#[test]
fn each_rule_gets_the_verdict_the_api_server_gives() {
    let cases: Vec<Case> =
        serde_yaml::from_str(include_str!("../../../testdata/cel/rules.yaml")).unwrap();
    let schema = schema();
    let mut wrong = Vec::new();
    for c in &cases {
        let got = problem(&c.rule, None, false, &schema);
        match (&got, c.compiles) {
            (None, true) => {}
            (Some(p), false) if p.contains(&c.problem) => {}
            _ => wrong.push(format!(
                "{}\n  got      {got:?}\n  expected {}",
                c.rule,
                if c.compiles {
                    "no problem".to_string()
                } else {
                    c.problem.clone()
                }
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn message_expressions_must_be_strings() {
    let s = schema();
    assert_eq!(
        problem(
            "true",
            Some("'size is ' + string(self.spec.size)"),
            false,
            &s
        ),
        None
    );
    let got = problem("true", Some("self.spec.size"), false, &s).unwrap();
    assert!(got.contains("it must be a string"), "{got}");
}

#[test]
fn optional_old_self_is_an_optional() {
    let s = schema();
    assert_eq!(
        problem(
            "!oldSelf.hasValue() || oldSelf.value() == self",
            None,
            true,
            &s
        ),
        None
    );
}

#[test]
fn escaped_property_names_read_back() {
    assert_eq!(
        check::property_of_cel("a__dash__b__dot__c__slash__d"),
        "a-b.c/d"
    );
    assert_eq!(check::property_of_cel("__namespace__"), "namespace");
    assert_eq!(check::property_of_cel("x__underscores__y"), "x__y");
}
