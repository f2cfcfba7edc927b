//! controller-gen's flattening of a field's own schema (its markers and docs) with the
//! schema of the named type it refers to.

use crate::api::apiextensions::v1::JSONSchemaProps;

use super::rules::{visit_rules, visit_rules_mut};

/// Flattens the schema of a field (`field`: its own markers and docs) with the schema of its
/// named type (`ty`) the way controller-gen's flattener does: the field's title,
/// description, example and external docs win when it has them; the type's enum wins; properties
/// and additional properties merge; required lists concatenate; the field's
/// preserve-unknown-fields and map type win; CEL rules are the field's followed by the
/// type's; any other property set differently on both moves into `allOf: [type's, field's]`.
///
/// The merge runs on the schemas' JSON form, which holds every property by its wire name;
/// reading the result back can fail only through a bug here, and then says so instead of
/// giving an empty schema.
pub fn merge_field_over_type(
    field: JSONSchemaProps,
    ty: JSONSchemaProps,
) -> Result<JSONSchemaProps, serde_json::Error> {
    let to_map = |s: JSONSchemaProps| -> Result<serde_json::Map<String, serde_json::Value>, _> {
        serde_json::from_value(serde_json::to_value(s)?)
    };
    // JSON drops the rules' marks (they are not part of the object): kept aside by rule
    // and put back after the merge.
    let mut marks = std::collections::HashMap::new();
    for s in [&field, &ty] {
        visit_rules(s, &mut |r| {
            if let Some(mark) = r.mark {
                marks.entry(r.rule.clone()).or_insert(mark);
            }
        });
    }
    let (mut dst, mut src) = (to_map(ty)?, to_map(field)?);
    let docs: Vec<(String, serde_json::Value)> =
        ["title", "description", "example", "externalDocs"]
            .into_iter()
            .filter_map(|k| src.remove(k).map(|v| (k.to_string(), v)))
            .collect();
    flatten_into(&mut dst, src);
    dst.extend(docs);
    let mut merged: JSONSchemaProps = serde_json::from_value(serde_json::Value::Object(dst))?;
    if !marks.is_empty() {
        visit_rules_mut(&mut merged, &mut |r| {
            if r.mark.is_none() {
                r.mark = marks.get(&r.rule).copied();
            }
        });
    }
    Ok(merged)
}

fn flatten_into(
    dst: &mut serde_json::Map<String, serde_json::Value>,
    mut src: serde_json::Map<String, serde_json::Value>,
) {
    use serde_json::Value;
    if let Some(Value::Array(all_of)) = src.remove("allOf") {
        for branch in all_of {
            if let Value::Object(branch) = branch {
                flatten_into(dst, branch);
            }
        }
    }
    let (mut dst_rest, mut src_rest) = (serde_json::Map::new(), serde_json::Map::new());
    for (key, value) in src {
        match key.as_str() {
            "title" | "description" | "example" | "externalDocs" => continue,
            "enum" => {
                dst.entry(key).or_insert(value);
                continue;
            }
            _ => {}
        }
        let Some(existing) = dst.get_mut(&key) else {
            dst.insert(key, value);
            continue;
        };
        if *existing == value {
            continue;
        }
        match key.as_str() {
            "properties" => {
                if let (Value::Object(d), Value::Object(s)) = (existing, value) {
                    for (name, prop) in s {
                        match d.get_mut(&name) {
                            Some(Value::Object(dp)) => {
                                if let Value::Object(sp) = prop {
                                    flatten_into(dp, sp);
                                }
                            }
                            _ => {
                                d.insert(name, prop);
                            }
                        }
                    }
                }
            }
            "required" => {
                if let (Value::Array(d), Value::Array(s)) = (existing, value) {
                    d.extend(s);
                }
            }
            "type" => {}
            "additionalProperties" => {
                if let (Value::Object(d), Value::Object(s)) = (existing, value) {
                    flatten_into(d, s);
                }
            }
            "x-kubernetes-preserve-unknown-fields" | "x-kubernetes-map-type" => *existing = value,
            "x-kubernetes-validations" => {
                if let (Value::Array(d), Value::Array(mut s)) = (existing.take(), value) {
                    s.extend(d);
                    *existing = Value::Array(s);
                }
            }
            _ => {
                if let Some(old) = dst.remove(&key) {
                    dst_rest.insert(key.clone(), old);
                }
                src_rest.insert(key, value);
            }
        }
    }
    if !src_rest.is_empty() {
        let all_of = dst
            .entry("allOf")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = all_of {
            list.push(Value::Object(dst_rest));
            list.push(Value::Object(src_rest));
        }
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Value, json};

    /// Schemas as controller-gen's flattener meets them: a type, docs, value constraints,
    /// nested properties with required lists, maps, CEL rules, topology flags.
    fn schema() -> impl Strategy<Value = Value> {
        let leaf = schema_fields(Just(None::<Value>).boxed());
        leaf.prop_recursive(3, 24, 4, |inner| {
            schema_fields(inner.prop_map(Some).boxed())
        })
    }

    fn schema_fields(child: BoxedStrategy<Option<Value>>) -> impl Strategy<Value = Value> {
        let names = prop::sample::subsequence(vec!["a", "b", "c", "d"], 0..4);
        (
            prop::option::of(prop::sample::select(vec!["object", "string", "integer"])),
            prop::option::of("[a-z ]{0,8}"),
            prop::option::of("[a-z ]{0,8}"),
            prop::option::of(0i64..4),
            prop::option::of(0i64..4),
            prop::option::of(prop::collection::vec("[a-z]{1,3}", 1..3)),
            (names, prop::collection::vec(child.clone(), 4)),
            prop::option::of(prop::collection::vec("self[.a-z]{0,4}", 1..3)),
            prop::option::of(prop::sample::select(vec!["atomic", "granular"])),
            prop::option::of(Just(true)),
            prop::option::of(child),
        )
            .prop_map(
                |(
                    ty,
                    desc,
                    title,
                    min,
                    max_len,
                    en,
                    (props, children),
                    rules,
                    map_type,
                    pres,
                    extra,
                )| {
                    let mut s = serde_json::Map::new();
                    let mut put = |k: &str, v: Option<Value>| {
                        if let Some(v) = v {
                            s.insert(k.into(), v);
                        }
                    };
                    put("type", ty.map(Value::from));
                    put("description", desc.map(Value::from));
                    put("title", title.map(Value::from));
                    put("minimum", min.map(Value::from));
                    put("maxLength", max_len.map(Value::from));
                    put("enum", en.map(|e| json!(e)));
                    let mut properties = serde_json::Map::new();
                    for (name, child) in props.iter().zip(children) {
                        properties.insert(
                            name.to_string(),
                            child.unwrap_or_else(|| json!({"type": "string"})),
                        );
                    }
                    if !properties.is_empty() {
                        let required: Vec<&str> = props.iter().step_by(2).copied().collect();
                        put("required", Some(json!(required)));
                        put("properties", Some(Value::Object(properties)));
                    }
                    put(
                        "x-kubernetes-validations",
                        rules.map(|r| {
                            json!(
                                r.iter()
                                    .map(|rule| json!({"rule": rule}))
                                    .collect::<Vec<_>>()
                            )
                        }),
                    );
                    put("x-kubernetes-map-type", map_type.map(Value::from));
                    put(
                        "x-kubernetes-preserve-unknown-fields",
                        pres.map(Value::from),
                    );
                    put("additionalProperties", extra.flatten());
                    Value::Object(s)
                },
            )
    }

    fn props(v: Value) -> JSONSchemaProps {
        serde_json::from_value(v).expect("the strategy writes schemas")
    }

    fn names(s: &JSONSchemaProps) -> Vec<String> {
        s.properties
            .iter()
            .flat_map(|p| p.keys().cloned())
            .collect()
    }

    fn rules(s: &JSONSchemaProps) -> Vec<String> {
        s.x_kubernetes_validations
            .iter()
            .flatten()
            .map(|r| r.rule.clone())
            .collect()
    }

    proptest! {
        #![proptest_config(crate::test_cases(1000))]

        #[test]
        fn flattening_keeps_everything_both_sides_say(field in schema(), ty in schema()) {
            let (field, ty) = (props(field), props(ty));
            let merged = merge_field_over_type(field.clone(), ty.clone())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            // Every property of either side is there.
            for name in names(&ty).into_iter().chain(names(&field)) {
                prop_assert!(names(&merged).contains(&name), "{name} lost");
            }
            // Every required name of either side is there.
            for name in ty.required.iter().chain(field.required.iter()).flatten() {
                prop_assert!(merged.required.iter().flatten().any(|r| r == name), "required {name} lost");
            }
            // CEL rules: the field's, then the type's (once when both say the same).
            let (f, t, m) = (rules(&field), rules(&ty), rules(&merged));
            if f == t || t.is_empty() {
                prop_assert_eq!(&m, &f);
            } else if f.is_empty() {
                prop_assert_eq!(&m, &t);
            } else {
                prop_assert_eq!(m, [f, t].concat());
            }
            // The field's docs win.
            prop_assert_eq!(merged.description.clone(), field.description.or(ty.description));
            prop_assert_eq!(merged.title.clone(), field.title.or(ty.title));
            // A constraint both set differently is kept twice, in allOf, so both hold.
            for (key, fv, tv) in [
                ("minimum", field.minimum, ty.minimum),
                ("maxLength", field.max_length.map(|v| v as f64), ty.max_length.map(|v| v as f64)),
            ] {
                let all_of: Vec<Value> = merged.all_of.iter().flatten()
                    .map(|s| serde_json::to_value(s).unwrap()).collect();
                let top = serde_json::to_value(&merged).unwrap()[key].as_f64();
                match (fv, tv) {
                    (Some(a), Some(b)) if a != b => {
                        prop_assert_eq!(top, None);
                        prop_assert!(all_of.iter().any(|s| s[key].as_f64() == Some(a)), "{key} {a} lost");
                        prop_assert!(all_of.iter().any(|s| s[key].as_f64() == Some(b)), "{key} {b} lost");
                    }
                    (a, b) => prop_assert_eq!(top, a.or(b)),
                }
            }
        }

        #[test]
        fn a_field_without_markers_is_its_type(ty in schema()) {
            let ty = props(ty);
            let merged = merge_field_over_type(JSONSchemaProps::default(), ty.clone())
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(merged, ty);
        }
    }
}
