//! Markers onto schemas: each value constraint and schema property written into the
//! schema it sits on, after checking that it fits that schema's type; immutability and
//! one-of groups as CEL rules; the field names those rules use, escaped for CEL.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    ExternalDocumentation, JSON, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
    ValidationRule,
};

use super::SchemaBuilder;
use crate::markers::{CelRule, FieldMarkers, OneOf, SchemaProp, Spanned, Validation};
use crate::source::SourceFile;

impl<'a> SchemaBuilder<'a, '_> {
    /// Applies field or type markers to `schema`, checking that each fits.
    pub(super) fn apply_markers(
        &mut self,
        file: &'a SourceFile,
        schema: &mut JSONSchemaProps,
        markers: &FieldMarkers,
    ) {
        for p in &markers.schema {
            if let Err(msg) = apply_schema_prop(schema, &p.value) {
                self.error(file, p.span, msg);
            }
        }
        // A `type` override goes first, so the other constraints are checked against it.
        let (types, others): (Vec<_>, Vec<_>) = markers
            .validations
            .iter()
            .partition(|v| matches!(v.value, Validation::Type(_)));
        for v in types.into_iter().chain(others) {
            if let Err(msg) = apply_validation(schema, v) {
                self.error(file, v.span, msg);
            }
        }
        if markers.immutable.is_some() {
            push_rule(
                schema,
                &CelRule {
                    rule: "self == oldSelf".into(),
                    message: Some("field is immutable".into()),
                    ..Default::default()
                },
            );
        }
        let mut groups: Vec<&Spanned<(OneOf, Vec<String>)>> = markers.one_of.iter().collect();
        groups.sort_by_key(|g| g.value.0);
        for group in groups {
            let (kind, fields) = &group.value;
            for f in fields {
                if !schema
                    .properties
                    .as_ref()
                    .is_some_and(|p| p.contains_key(f))
                {
                    self.error(
                        file,
                        group.span,
                        format!(
                            "`{}` names `{f}`, which is not a field of this struct (JSON names, after serde renames)",
                            kind.key()
                        ),
                    );
                }
            }
            push_rule(schema, &kind.rule(fields));
        }
        if !markers.items.is_empty() || !markers.items_schema.is_empty() {
            match &mut schema.items {
                Some(JSONSchemaPropsOrArray::Schema(items)) => {
                    // The flags go first: int_or_string widens what the value constraints
                    // may apply to, as on a field.
                    for p in &markers.items_schema {
                        if let Err(msg) = apply_schema_prop(items, &p.value) {
                            self.error(file, p.span, format!("items: {msg}"));
                        }
                    }
                    for v in &markers.items {
                        if let Err(msg) = apply_validation(items, v) {
                            self.error(file, v.span, format!("items: {msg}"));
                        }
                    }
                }
                _ => {
                    let span = markers
                        .items
                        .first()
                        .map_or_else(|| markers.items_schema[0].span, |v| v.span);
                    self.error(
                        file,
                        span,
                        "`items(...)` applies to arrays (Vec, sets, fixed arrays)",
                    );
                }
            }
        }
        // Defaults must satisfy the schema's type.
        if let Some(default) = markers.schema.iter().find_map(|p| match &p.value {
            SchemaProp::Default(v) => Some((v, p.span)),
            _ => None,
        }) && let Err(msg) = check_value_type(default.0, schema)
        {
            self.error(file, default.1, format!("default {msg}"));
        }
    }
}

/// Checks that a JSON value fits the schema's type.
fn check_value_type(value: &serde_json::Value, schema: &JSONSchemaProps) -> Result<(), String> {
    use serde_json::Value;
    let Some(ty) = schema.type_.as_deref() else {
        return Ok(());
    };
    let ok = match (ty, value) {
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
        ("number", Value::Number(_)) => true,
        ("string", Value::String(_)) => true,
        ("boolean", Value::Bool(_)) => true,
        ("array", Value::Array(_)) => true,
        ("object", Value::Object(_)) => true,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "value `{value}` does not match the field's type `{ty}`"
        ))
    }
}

fn apply_schema_prop(schema: &mut JSONSchemaProps, prop: &SchemaProp) -> Result<(), String> {
    prop.check_applies(schema.type_.as_deref())?;
    match prop {
        SchemaProp::Default(v) => schema.default = Some(JSON(v.clone())),
        SchemaProp::Example(v) => schema.example = Some(JSON(v.clone())),
        SchemaProp::Nullable => schema.nullable = Some(true),
        SchemaProp::Title(t) => schema.title = Some(t.clone()),
        SchemaProp::ListType(t) => schema.x_kubernetes_list_type = Some(t.as_str().into()),
        SchemaProp::ListMapKeys(keys) => schema.x_kubernetes_list_map_keys = Some(keys.clone()),
        SchemaProp::MapType(t) | SchemaProp::StructType(t) => {
            schema.x_kubernetes_map_type = Some(t.as_str().into())
        }
        SchemaProp::PreserveUnknownFields => {
            schema.x_kubernetes_preserve_unknown_fields = Some(true)
        }
        SchemaProp::EmbeddedResource => schema.x_kubernetes_embedded_resource = Some(true),
        SchemaProp::IntOrString => {
            schema.x_kubernetes_int_or_string = Some(true);
            if schema.any_of.is_none() && schema.type_.is_none() {
                schema.any_of = Some(vec![
                    JSONSchemaProps {
                        type_: Some("integer".into()),
                        ..Default::default()
                    },
                    JSONSchemaProps {
                        type_: Some("string".into()),
                        ..Default::default()
                    },
                ]);
            }
        }
        // Both act on the whole field schema, so struct_schema applies them itself.
        SchemaProp::Schemaless | SchemaProp::SkipDescriptions => {}
        SchemaProp::ExternalDocs(docs) => {
            schema.external_docs = Some(ExternalDocumentation {
                url: Some(docs.url.clone()),
                description: docs.description.clone(),
            })
        }
    }
    Ok(())
}

/// `skip_descriptions`: drops the descriptions below the field (its own stays), through
/// properties, list items and map values.
pub(super) fn clear_nested_descriptions(schema: &mut JSONSchemaProps) {
    fn clear(schema: &mut JSONSchemaProps) {
        schema.description = None;
        clear_nested_descriptions(schema);
    }
    for property in schema.properties.iter_mut().flat_map(|p| p.values_mut()) {
        clear(property);
    }
    match &mut schema.items {
        Some(JSONSchemaPropsOrArray::Schema(items)) => clear(items),
        Some(JSONSchemaPropsOrArray::Schemas(list)) => list.iter_mut().for_each(clear),
        None => {}
    }
    if let Some(JSONSchemaPropsOrBool::Schema(values)) = &mut schema.additional_properties {
        clear(values);
    }
}

pub(super) fn push_rule(schema: &mut JSONSchemaProps, rule: &CelRule) {
    schema
        .x_kubernetes_validations
        .get_or_insert_with(Vec::new)
        .push(ValidationRule {
            rule: rule.rule.clone(),
            message: rule.message.clone(),
            message_expression: rule.message_expression.clone(),
            reason: rule.reason.clone(),
            field_path: rule.field_path.clone(),
            optional_old_self: rule.optional_old_self,
        });
}

fn apply_validation(schema: &mut JSONSchemaProps, v: &Spanned<Validation>) -> Result<(), String> {
    v.value.check_applies(
        schema.type_.as_deref(),
        schema.x_kubernetes_int_or_string == Some(true),
    )?;
    let f = |n: &serde_json::Number| n.as_f64().unwrap_or_default();
    match &v.value {
        Validation::Minimum(n) => schema.minimum = Some(f(n)),
        Validation::Maximum(n) => schema.maximum = Some(f(n)),
        // `false` is the default; controller-gen leaves it out, and so do we.
        Validation::ExclusiveMinimum(b) => schema.exclusive_minimum = b.then_some(true),
        Validation::ExclusiveMaximum(b) => schema.exclusive_maximum = b.then_some(true),
        Validation::MultipleOf(n) => schema.multiple_of = Some(f(n)),
        Validation::MinLength(n) => schema.min_length = Some(*n as i64),
        Validation::MaxLength(n) => schema.max_length = Some(*n as i64),
        Validation::Pattern(p) => schema.pattern = Some(p.clone()),
        Validation::MinItems(n) => schema.min_items = Some(*n as i64),
        Validation::MaxItems(n) => schema.max_items = Some(*n as i64),
        Validation::UniqueItems(b) => schema.unique_items = b.then_some(true),
        Validation::MinProperties(n) => schema.min_properties = Some(*n as i64),
        Validation::MaxProperties(n) => schema.max_properties = Some(*n as i64),
        Validation::Enum(values) => {
            for value in values {
                check_value_type(value, schema).map_err(|m| format!("enum {m}"))?;
            }
            schema.enum_ = Some(values.iter().cloned().map(JSON).collect());
        }
        Validation::Format(fmt) => schema.format = Some(fmt.clone()),
        Validation::Type(t) => schema.type_ = Some(t.clone()),
        Validation::Cel(rule) => push_rule(schema, rule),
    }
    Ok(())
}

/// A property name as CEL in the API server spells it: names that are not identifiers, or
/// are CEL keywords, are escaped (`__dash__`, `__dot__`, `__slash__`, `__underscores__`,
/// `__namespace__`, ...).
pub(super) fn cel_field(name: &str) -> String {
    const RESERVED: &[&str] = &[
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ];
    if RESERVED.contains(&name) {
        return format!("__{name}__");
    }
    name.replace("__", "__underscores__")
        .replace('.', "__dot__")
        .replace('-', "__dash__")
        .replace('/', "__slash__")
}
