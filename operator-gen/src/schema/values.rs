//! Values checked against the schema they sit in: a `default` (which the API server
//! validates when the CRD is created, and refuses the CRD over) and an `example` (which it
//! does not check, but which is a mistake all the same). The rules are the OpenAPI ones the
//! API server applies to custom resources: type, nullable, enum, numeric bounds and
//! multiples, string lengths (in characters) and patterns, list sizes and unique entries of
//! `set` and `map` lists, required and unknown properties, property counts, and the same
//! for every nested value. Not checked: `format` (the API server knows formats that the
//! generator does not) and CEL rules (checking them needs a CEL interpreter; the API server
//! reports a default that breaks one when the CRD is created).

use crate::api::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use serde_json::Value;

use crate::diagnostics::Misfit;

/// The first way `value` breaks `schema`, with where in the value (`.a.b[0]`) when nested.
pub fn check(value: &Value, schema: &JSONSchemaProps) -> Result<(), Misfit> {
    let mut at = String::new();
    check_at(value, schema, &mut at).map_err(|problem| {
        if at.is_empty() {
            problem
        } else {
            problem.prefixed(&format!("at `{at}`: "))
        }
    })
}

fn check_at(value: &Value, schema: &JSONSchemaProps, at: &mut String) -> Result<(), Misfit> {
    if value.is_null() {
        return if schema.nullable == Some(true) {
            Ok(())
        } else {
            Err(Misfit::from("is null, and the field is not nullable"))
        };
    }
    if schema.x_kubernetes_preserve_unknown_fields == Some(true) && schema.type_.is_none() {
        return Ok(());
    }
    type_fits(value, schema)?;
    if let Some(allowed) = &schema.enum_
        && !allowed.iter().any(|a| same(&a.0, value))
    {
        let listed: Vec<String> = allowed.iter().map(|a| a.0.to_string()).collect();
        return Err(Misfit::from(format!(
            "`{value}` is not one of the enum values [{}]",
            listed.join(", ")
        )));
    }
    match value {
        Value::Number(n) => number(n, schema)?,
        Value::String(s) => string(s, schema)?,
        Value::Array(items) => array(items, schema, at)?,
        Value::Object(map) => object(map, schema, at)?,
        _ => {}
    }
    for sub in schema.all_of.iter().flatten() {
        check_at(value, sub, at)?;
    }
    Ok(())
}

/// Whether `value` has the schema's type (an int-or-string takes an integer or a string; a
/// schema without a type takes anything).
pub fn type_fits(value: &Value, schema: &JSONSchemaProps) -> Result<(), Misfit> {
    if schema.x_kubernetes_int_or_string == Some(true) {
        if !(value.is_string() || value.as_i64().is_some() || value.as_u64().is_some()) {
            return Err(Misfit::from(format!(
                "`{value}` is neither an integer nor a string"
            )));
        }
    } else if let Some(ty) = schema.type_.as_deref() {
        let fits = match ty {
            "integer" => value.as_i64().is_some() || value.as_u64().is_some(),
            "number" => value.is_number(),
            "string" => value.is_string(),
            "boolean" => value.is_boolean(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            _ => true,
        };
        if !fits {
            return Err(Misfit::from(format!(
                "`{value}` does not match the field's type `{ty}`"
            )));
        }
    }
    Ok(())
}

/// JSON equality with numbers compared by value (`5` and `5.0` are one number).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        _ => a == b,
    }
}

fn number(n: &serde_json::Number, schema: &JSONSchemaProps) -> Result<(), Misfit> {
    let x = n.as_f64().unwrap_or_default();
    if let Some(min) = schema.minimum {
        if schema.exclusive_minimum == Some(true) && x <= min {
            return Err(Misfit::from(format!(
                "{n} is not greater than the exclusive minimum {min}"
            )));
        }
        if x < min {
            return Err(Misfit::from(format!("{n} is less than the minimum {min}")));
        }
    }
    if let Some(max) = schema.maximum {
        if schema.exclusive_maximum == Some(true) && x >= max {
            return Err(Misfit::from(format!(
                "{n} is not less than the exclusive maximum {max}"
            )));
        }
        if x > max {
            return Err(Misfit::from(format!(
                "{n} is greater than the maximum {max}"
            )));
        }
    }
    if let Some(m) = schema.multiple_of {
        let multiple = match (n.as_i64(), m.fract() == 0.0 && m.abs() < 9.0e15) {
            (Some(i), true) => i % (m as i64) == 0,
            _ => {
                let q = x / m;
                (q - q.round()).abs() < 1e-9
            }
        };
        if !multiple {
            return Err(Misfit::from(format!("{n} is not a multiple of {m}")));
        }
    }
    Ok(())
}

fn string(s: &str, schema: &JSONSchemaProps) -> Result<(), Misfit> {
    let len = s.chars().count() as i64;
    if let Some(min) = schema.min_length
        && len < min
    {
        return Err(Misfit::from(format!(
            "{s:?} is {len} characters long, shorter than the min_length {min}"
        )));
    }
    if let Some(max) = schema.max_length
        && len > max
    {
        return Err(Misfit::from(format!(
            "{s:?} is {len} characters long, longer than the max_length {max}"
        )));
    }
    if let Some(pattern) = &schema.pattern {
        // The pattern was checked when the marker was read; one that the regex engine
        // cannot build is not judged here.
        if let Ok(re) = regex::Regex::new(pattern)
            && !re.is_match(s)
        {
            return Err(Misfit::from(format!(
                "{s:?} does not match the pattern {pattern:?}"
            )));
        }
    }
    Ok(())
}

fn array(items: &[Value], schema: &JSONSchemaProps, at: &mut String) -> Result<(), Misfit> {
    let n = items.len() as i64;
    if let Some(min) = schema.min_items
        && n < min
    {
        return Err(Misfit::from(format!(
            "has {n} items, fewer than the min_items {min}"
        )));
    }
    if let Some(max) = schema.max_items
        && n > max
    {
        return Err(Misfit::from(format!(
            "has {n} items, more than the max_items {max}"
        )));
    }
    match schema.x_kubernetes_list_type.as_deref() {
        Some("set") => {
            for (i, item) in items.iter().enumerate() {
                if items[..i].iter().any(|earlier| same(earlier, item)) {
                    return Err(Misfit::from(format!(
                        "`{item}` is listed twice in a list of list_type \"set\""
                    )));
                }
            }
        }
        Some("map") => {
            let keys = schema.x_kubernetes_list_map_keys.as_deref().unwrap_or(&[]);
            let key_of = |item: &Value| -> Vec<Value> {
                keys.iter()
                    .map(|k| item.get(k).cloned().unwrap_or(Value::Null))
                    .collect()
            };
            for (i, item) in items.iter().enumerate() {
                let key = key_of(item);
                if items[..i].iter().any(|earlier| key_of(earlier) == key) {
                    return Err(Misfit::from(format!(
                        "two entries have the same list_map_keys ({})",
                        keys.join(", ")
                    )));
                }
            }
        }
        _ => {}
    }
    if let Some(JSONSchemaPropsOrArray::Schema(item_schema)) = &schema.items {
        for (i, item) in items.iter().enumerate() {
            let len = at.len();
            at.push_str(&format!("[{i}]"));
            check_at(item, item_schema, at)?;
            at.truncate(len);
        }
    }
    Ok(())
}

fn object(
    map: &serde_json::Map<String, Value>,
    schema: &JSONSchemaProps,
    at: &mut String,
) -> Result<(), Misfit> {
    let n = map.len() as i64;
    if let Some(min) = schema.min_properties
        && n < min
    {
        return Err(Misfit::from(format!(
            "has {n} properties, fewer than the min_properties {min}"
        )));
    }
    if let Some(max) = schema.max_properties
        && n > max
    {
        return Err(Misfit::from(format!(
            "has {n} properties, more than the max_properties {max}"
        )));
    }
    for name in schema.required.iter().flatten() {
        if !map.contains_key(name) {
            return Err(Misfit::from(format!("lacks the required field `{name}`")));
        }
    }
    if schema.x_kubernetes_embedded_resource == Some(true) {
        return Ok(());
    }
    let additional = match &schema.additional_properties {
        Some(JSONSchemaPropsOrBool::Schema(s)) => Some(&**s),
        _ => None,
    };
    let open = schema.x_kubernetes_preserve_unknown_fields == Some(true)
        || matches!(
            schema.additional_properties,
            Some(JSONSchemaPropsOrBool::Bool(true))
        );
    for (name, value) in map {
        let sub = schema
            .properties
            .as_ref()
            .and_then(|p| p.get(name))
            .or(additional);
        let len = at.len();
        at.push('.');
        at.push_str(name);
        match sub {
            Some(sub) => check_at(value, sub, at)?,
            // The API server prunes unknown fields from a default and then refuses it:
            // "must not have unknown fields".
            None if !open => {
                at.truncate(len);
                return Err(Misfit::from(format!(
                    "has the field `{name}`, which the schema does not have"
                )));
            }
            None => {}
        }
        at.truncate(len);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> JSONSchemaProps {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn values_are_judged_as_the_api_server_judges_custom_resources() {
        let s = schema(json!({
            "type": "object",
            "required": ["port"],
            "properties": {
                "port": {"type": "integer", "minimum": 1, "maximum": 65535},
                "step": {"type": "integer", "multipleOf": 5, "maximum": 100, "exclusiveMaximum": true},
                "name": {"type": "string", "maxLength": 3, "pattern": "^[a-z]+$"},
                "mode": {"type": "string", "enum": ["Fast", "Safe"]},
                "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
                "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port"],
                          "items": {"type": "object", "properties": {"port": {"type": "integer"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string", "minLength": 1}},
                "any": {"x-kubernetes-preserve-unknown-fields": true},
                "maybe": {"type": "string", "nullable": true},
                "weight": {"type": "number", "multipleOf": 0.5},
            }
        }));
        let ok = json!({"port": 80, "step": 95, "name": "abc", "mode": "Safe", "tags": ["a", "b"],
            "ports": [{"port": 1}, {"port": 2}], "labels": {"a": "b"}, "any": {"x": [1]},
            "maybe": null, "weight": 1.5});
        assert_eq!(check(&ok, &s), Ok(()));
        let cases = [
            (json!({}), "lacks the required field `port`"),
            (
                json!({"port": 0}),
                "at `.port`: 0 is less than the minimum 1",
            ),
            (
                json!({"port": 1, "step": 100}),
                "at `.step`: 100 is not less than the exclusive maximum 100",
            ),
            (
                json!({"port": 1, "step": 7}),
                "at `.step`: 7 is not a multiple of 5",
            ),
            (
                json!({"port": 1, "name": "abcd"}),
                "at `.name`: \"abcd\" is 4 characters long, longer than the max_length 3",
            ),
            (
                json!({"port": 1, "name": "AB"}),
                "at `.name`: \"AB\" does not match the pattern \"^[a-z]+$\"",
            ),
            (
                json!({"port": 1, "mode": "Slow"}),
                "at `.mode`: `\"Slow\"` is not one of the enum values [\"Fast\", \"Safe\"]",
            ),
            (
                json!({"port": 1, "tags": ["a", "a"]}),
                "at `.tags`: `\"a\"` is listed twice in a list of list_type \"set\"",
            ),
            (
                json!({"port": 1, "ports": [{"port": 1}, {"port": 1}]}),
                "at `.ports`: two entries have the same list_map_keys (port)",
            ),
            (
                json!({"port": 1, "labels": {"a": ""}}),
                "at `.labels.a`: \"\" is 0 characters long, shorter than the min_length 1",
            ),
            (
                json!({"port": 1, "other": 1}),
                "has the field `other`, which the schema does not have",
            ),
            (
                json!({"port": "80"}),
                "at `.port`: `\"80\"` does not match the field's type `integer`",
            ),
            (
                json!({"port": 1, "name": null}),
                "at `.name`: is null, and the field is not nullable",
            ),
            (
                json!({"port": 1, "weight": 1.25}),
                "at `.weight`: 1.25 is not a multiple of 0.5",
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(
                check(&value, &s).map_err(|m| m.message),
                Err(expected.to_string()),
                "{value}"
            );
        }
    }
}
