//! Value readers of the schema markers: each turns the value written after a key into the
//! typed payload the marker table stores, and refuses at the value's span what no schema
//! could hold (an invalid regular expression, an unknown list type, a CEL rule without
//! `rule`). The table names one reader per marker.

use super::args::{self, Spanned};
use super::payloads::{CelRule, ExternalDocs, ListType, ObjectType};
use serde_json::{Number, Value};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;

type Meta<'m, 'a> = &'m ParseNestedMeta<'a>;

/// The reasons the API server accepts on a CEL rule.
pub const CEL_REASONS: &[&str] = &[
    "FieldValueRequired",
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueDuplicate",
];

/// The types `#[validation(type = "...")]` may name.
const OPENAPI_TYPES: &[&str] = &["integer", "number", "string", "boolean", "array", "object"];

/// The arguments of `cel(...)`.
const CEL_KEYS: &[&str] = &[
    "rule",
    "message",
    "message_expression",
    "reason",
    "field_path",
    "optional_old_self",
];

pub fn number(meta: Meta) -> syn::Result<Number> {
    Ok(args::number(meta)?.value)
}

pub fn unsigned(meta: Meta) -> syn::Result<u64> {
    Ok(args::unsigned(meta)?.value)
}

pub fn flag(meta: Meta) -> syn::Result<bool> {
    Ok(args::flag(meta)?.value)
}

pub fn string(meta: Meta) -> syn::Result<String> {
    Ok(args::string(meta)?.value)
}

pub fn json(meta: Meta) -> syn::Result<Value> {
    Ok(args::json(meta)?.value)
}

/// A flag that only means something when set: `key` alone (or `key = true`).
pub fn set(meta: Meta) -> syn::Result<()> {
    let f = args::flag(meta)?;
    if f.value {
        Ok(())
    } else {
        Err(syn::Error::new(
            f.span,
            "write the flag alone to set it, or leave it out",
        ))
    }
}

pub fn multiple_of(meta: Meta) -> syn::Result<Number> {
    let n = args::number(meta)?;
    if n.value.as_f64().is_some_and(|f| f <= 0.0) {
        return Err(syn::Error::new(
            n.span,
            "multiple_of must be greater than 0",
        ));
    }
    Ok(n.value)
}

pub fn pattern(meta: Meta) -> syn::Result<String> {
    let p = args::string(meta)?;
    if let Err(err) = regex_syntax::Parser::new().parse(&p.value) {
        return Err(syn::Error::new(
            p.span,
            format!(
                "pattern is not a valid regular expression: {}",
                last_line(&err.to_string())
            ),
        ));
    }
    Ok(p.value)
}

/// The last non-blank line of a multi-line message (regex-syntax draws the pattern first).
fn last_line(s: &str) -> String {
    s.lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or(s)
        .trim()
        .trim_start_matches("error: ")
        .to_string()
}

pub fn unique_items(meta: Meta) -> syn::Result<bool> {
    let f = args::flag(meta)?;
    if f.value {
        // controller-gen writes it; the API server then refuses the whole CRD.
        return Err(syn::Error::new(
            f.span,
            "the API server rejects `uniqueItems: true` in CRDs (its cost is quadratic); use #[schema(list_type = \"set\")] for a list of unique scalars, or list_type = \"map\" with list_map_keys for objects",
        ));
    }
    Ok(false)
}

/// `enum = "A;B"` (strings, controller-gen's list form) or `enum = [1, "b", true]`.
pub fn enum_values(meta: Meta) -> syn::Result<Vec<Value>> {
    let v = args::json(meta)?;
    match v.value {
        Value::Array(items) if !items.is_empty() => Ok(items),
        Value::String(list) if !list.trim().is_empty() => Ok(args::split_list(&list)
            .into_iter()
            .map(Value::String)
            .collect()),
        _ => Err(syn::Error::new(
            v.span,
            "enum takes a non-empty list, such as \"Fast;Safe\" or [\"Fast\", \"Safe\"]",
        )),
    }
}

/// `one_of`, `any_of`, `all_of`: a non-empty list of schemas holding value validations only.
pub fn junctor_list(meta: Meta) -> syn::Result<Value> {
    let v = args::json(meta)?;
    match &v.value {
        Value::Array(items) if !items.is_empty() => {
            for item in items {
                junctor_schema(item).map_err(|m| syn::Error::new(v.span, m))?;
            }
            Ok(v.value)
        }
        _ => Err(syn::Error::new(
            v.span,
            "takes a non-empty list of schemas, such as json!([{\"required\": [\"a\"]}, {\"required\": [\"b\"]}])",
        )),
    }
}

/// `not`: one schema holding value validations only.
pub fn junctor(meta: Meta) -> syn::Result<Value> {
    let v = args::json(meta)?;
    junctor_schema(&v.value).map_err(|m| syn::Error::new(v.span, m))?;
    Ok(v.value)
}

/// The schema keys the API server allows inside `oneOf`, `anyOf`, `allOf` and `not` of a
/// structural schema: value validations, and the junctors and structure holding more of them.
const JUNCTOR_KEYS: &[&str] = &[
    "format",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "enum",
    "maxProperties",
    "minProperties",
    "required",
    "items",
    "properties",
    "additionalProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
];

/// Checks one schema inside a junctor: an object of value validations (recursively).
fn junctor_schema(schema: &Value) -> Result<(), String> {
    let Value::Object(map) = schema else {
        return Err(format!(
            "a schema inside a junctor is a JSON object, not {schema}"
        ));
    };
    for (key, value) in map {
        if !JUNCTOR_KEYS.contains(&key.as_str()) {
            return Err(format!(
                "`{key}` is not allowed inside oneOf, anyOf, allOf or not: the API server takes only value validations there (type, description, default and the x-kubernetes- extensions belong to the schema itself)"
            ));
        }
        match key.as_str() {
            "items" | "additionalProperties" if value.is_object() => junctor_schema(value)?,
            "not" => junctor_schema(value)?,
            "properties" => match value {
                Value::Object(props) => {
                    for prop in props.values() {
                        junctor_schema(prop)?;
                    }
                }
                other => return Err(format!("`properties` is an object, not {other}")),
            },
            "allOf" | "anyOf" | "oneOf" => match value {
                Value::Array(items) if !items.is_empty() => {
                    for item in items {
                        junctor_schema(item)?;
                    }
                }
                other => return Err(format!("`{key}` is a non-empty list, not {other}")),
            },
            "required"
                if !value
                    .as_array()
                    .is_some_and(|names| names.iter().all(Value::is_string)) =>
            {
                return Err(format!("`required` is a list of field names, not {value}"));
            }
            _ => {}
        }
    }
    Ok(())
}

pub fn openapi_type(meta: Meta) -> syn::Result<String> {
    let t = args::string(meta)?;
    if !OPENAPI_TYPES.contains(&t.value.as_str()) {
        return Err(syn::Error::new(
            t.span,
            format!(
                "unknown type `{}`; expected one of: {}",
                t.value,
                OPENAPI_TYPES.join(", ")
            ),
        ));
    }
    Ok(t.value)
}

/// `cel(rule = "...", message = "...", message_expression = "...", reason = "...",
/// field_path = "...", optional_old_self)`.
pub fn cel(meta: Meta) -> syn::Result<CelRule> {
    let mut rule = CelRule::default();
    let mut has_rule = false;
    args::group(meta, "validation(cel", CEL_KEYS, |key, meta| {
        match key {
            "rule" => {
                let r = args::string(meta)?;
                if r.value.trim().is_empty() {
                    return Err(syn::Error::new(r.span, "a CEL rule cannot be empty"));
                }
                rule.rule = r.value;
                has_rule = true;
            }
            "message" => rule.message = Some(string(meta)?),
            "message_expression" => rule.message_expression = Some(string(meta)?),
            "reason" => {
                let r = args::string(meta)?;
                if !CEL_REASONS.contains(&r.value.as_str()) {
                    return Err(syn::Error::new(
                        r.span,
                        format!(
                            "unknown reason `{}`; expected one of: {}",
                            r.value,
                            CEL_REASONS.join(", ")
                        ),
                    ));
                }
                rule.reason = Some(r.value);
            }
            "field_path" => {
                let p = args::string(meta)?;
                if !p.value.starts_with('.') {
                    return Err(syn::Error::new(
                        p.span,
                        "field_path is a JSON path relative to the field, starting with `.`, such as \".spec.replicas\"",
                    ));
                }
                rule.field_path = Some(p.value);
            }
            // The last key of CEL_KEYS: `args::nested` passes only those.
            _ => rule.optional_old_self = Some(flag(meta)?),
        }
        Ok(())
    })?;
    if !has_rule {
        return Err(syn::Error::new(
            meta.path.span(),
            "cel(...) needs `rule = \"...\"`",
        ));
    }
    Ok(rule)
}

pub fn list_type(meta: Meta) -> syn::Result<ListType> {
    let s = args::string(meta)?;
    match s.value.as_str() {
        "atomic" => Ok(ListType::Atomic),
        "set" => Ok(ListType::Set),
        "map" => Ok(ListType::Map),
        other => Err(syn::Error::new(
            s.span,
            format!("unknown list_type `{other}`; expected \"atomic\", \"set\" or \"map\""),
        )),
    }
}

pub fn list_map_keys(meta: Meta) -> syn::Result<Vec<String>> {
    let keys = args::string_list(meta)?;
    if keys.value.is_empty() {
        return Err(syn::Error::new(
            keys.span,
            "list_map_keys needs at least one key",
        ));
    }
    Ok(keys.value)
}

pub fn object_type(meta: Meta) -> syn::Result<ObjectType> {
    let s = args::string(meta)?;
    match s.value.as_str() {
        "atomic" => Ok(ObjectType::Atomic),
        "granular" => Ok(ObjectType::Granular),
        other => Err(syn::Error::new(
            s.span,
            format!("unknown value `{other}`; expected \"atomic\" or \"granular\""),
        )),
    }
}

/// `external_docs(url = "https://...", description = "...")`.
pub fn external_docs(meta: Meta) -> syn::Result<ExternalDocs> {
    let (mut url, mut description) = (None, None);
    args::group(
        meta,
        "schema(external_docs",
        &["url", "description"],
        |key, meta| {
            let v = args::string(meta)?;
            if key == "url" {
                url = Some(v);
            } else {
                description = Some(v.value);
            }
            Ok(())
        },
    )?;
    let Some(url) = url else {
        return Err(syn::Error::new(
            meta.path.span(),
            "external_docs(...) needs `url = \"https://...\"`",
        ));
    };
    if !is_absolute_url(&url.value) {
        return Err(syn::Error::new(
            url.span,
            format!(
                "`{}` is not an absolute URL such as \"https://example.com/docs\"",
                url.value
            ),
        ));
    }
    Ok(ExternalDocs {
        url: url.value,
        description,
    })
}

/// What Go's `url.ParseRequestURI` accepts, roughly: `scheme:rest` or an absolute path.
fn is_absolute_url(s: &str) -> bool {
    if s.contains(char::is_whitespace) {
        return false;
    }
    if s.starts_with('/') {
        return true;
    }
    match s.split_once(':') {
        Some((scheme, rest)) => {
            !rest.is_empty()
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

/// The fields a one-of group names (JSON names), at least two, with the value's span.
pub fn one_of_fields(meta: Meta) -> syn::Result<Spanned<Vec<String>>> {
    let fields = args::string_list(meta)?;
    if fields.value.len() < 2 {
        let key = meta.path.get_ident().map(ToString::to_string);
        return Err(syn::Error::new(
            fields.span,
            format!(
                "`{}` names at least two fields",
                key.as_deref().unwrap_or("one_of")
            ),
        ));
    }
    Ok(fields)
}
