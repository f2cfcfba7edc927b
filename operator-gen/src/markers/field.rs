//! Schema markers, written on fields and on types: `#[validation(...)]` for the
//! `+kubebuilder:validation:*` constraints and `#[schema(...)]` for everything else that
//! shapes a field's schema (defaults, list and map topology, nullability, ...).

use super::args::{self, MetaSource, Spanned, parse_args};
use super::{SCHEMA, VALIDATION, marker_name};
use crate::diagnostics::Diagnostics;
use proc_macro2::Span;
use serde_json::{Number, Value};

/// One value constraint (`+kubebuilder:validation:<Name>`).
#[derive(Debug, Clone, PartialEq)]
pub enum Validation {
    Minimum(Number),
    Maximum(Number),
    ExclusiveMinimum(bool),
    ExclusiveMaximum(bool),
    MultipleOf(Number),
    MinLength(u64),
    MaxLength(u64),
    Pattern(String),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems(bool),
    MinProperties(u64),
    MaxProperties(u64),
    Enum(Vec<Value>),
    Format(String),
    Type(String),
    /// `+kubebuilder:validation:XValidation`: a CEL rule.
    Cel(CelRule),
}

/// A CEL validation rule (`x-kubernetes-validations` entry).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CelRule {
    pub rule: String,
    pub message: Option<String>,
    pub message_expression: Option<String>,
    pub reason: Option<String>,
    pub field_path: Option<String>,
    pub optional_old_self: Option<bool>,
}

/// The reasons the API server accepts on a CEL rule.
pub const CEL_REASONS: &[&str] = &[
    "FieldValueRequired",
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueDuplicate",
];

/// Which one-of constraint a type-level group states
/// (`+kubebuilder:validation:{AtMostOneOf,ExactlyOneOf,AtLeastOneOf}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OneOf {
    AtMost,
    Exactly,
    AtLeast,
}

impl OneOf {
    pub fn key(self) -> &'static str {
        match self {
            OneOf::AtMost => "at_most_one_of",
            OneOf::Exactly => "exactly_one_of",
            OneOf::AtLeast => "at_least_one_of",
        }
    }

    /// The CEL rule and message controller-gen writes for the group `fields` (JSON names).
    pub fn rule(self, fields: &[String]) -> CelRule {
        let count = format!(
            "[{}].filter(x,x==true).size()",
            fields
                .iter()
                .map(|f| format!("has(self.{f})"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let list = format!("[{}]", fields.join(" "));
        let (rule, message) = match self {
            OneOf::AtMost => (
                format!("{count} <= 1"),
                format!("at most one of the fields in {list} may be set"),
            ),
            OneOf::Exactly => (
                format!("{count} == 1"),
                format!("exactly one of the fields in {list} must be set"),
            ),
            OneOf::AtLeast => (
                format!("{count} >= 1"),
                format!("at least one of the fields in {list} must be set"),
            ),
        };
        CelRule {
            rule,
            message: Some(message),
            ..Default::default()
        }
    }
}

const OPENAPI_TYPES: &[&str] = &["integer", "number", "string", "boolean", "array", "object"];

impl Validation {
    /// The argument name that spells this constraint.
    pub fn key(&self) -> &'static str {
        match self {
            Validation::Minimum(_) => "minimum",
            Validation::Maximum(_) => "maximum",
            Validation::ExclusiveMinimum(_) => "exclusive_minimum",
            Validation::ExclusiveMaximum(_) => "exclusive_maximum",
            Validation::MultipleOf(_) => "multiple_of",
            Validation::MinLength(_) => "min_length",
            Validation::MaxLength(_) => "max_length",
            Validation::Pattern(_) => "pattern",
            Validation::MinItems(_) => "min_items",
            Validation::MaxItems(_) => "max_items",
            Validation::UniqueItems(_) => "unique_items",
            Validation::MinProperties(_) => "min_properties",
            Validation::MaxProperties(_) => "max_properties",
            Validation::Enum(_) => "enum",
            Validation::Format(_) => "format",
            Validation::Type(_) => "type",
            Validation::Cel(_) => "cel",
        }
    }

    /// Checks that the constraint fits a schema of OpenAPI type `ty` (`None` when the type
    /// is not known yet). `int_or_string` schemas accept string constraints too.
    pub fn check_applies(&self, ty: Option<&str>, int_or_string: bool) -> Result<(), String> {
        let Some(ty) = ty else { return Ok(()) };
        let (wanted, ok): (&str, bool) = match self {
            Validation::Minimum(n) | Validation::Maximum(n) | Validation::MultipleOf(n) => {
                if ty == "integer" && n.as_i64().is_none() && n.as_u64().is_none() {
                    return Err(format!(
                        "`{}` on an integer needs an integer value, not {n}",
                        self.key()
                    ));
                }
                ("an integer or number", ty == "integer" || ty == "number")
            }
            Validation::ExclusiveMinimum(_) | Validation::ExclusiveMaximum(_) => {
                ("an integer or number", ty == "integer" || ty == "number")
            }
            Validation::MinLength(_) | Validation::MaxLength(_) | Validation::Pattern(_) => {
                ("a string", ty == "string" || int_or_string)
            }
            Validation::MinItems(_) | Validation::MaxItems(_) | Validation::UniqueItems(_) => {
                ("an array", ty == "array")
            }
            Validation::MinProperties(_) | Validation::MaxProperties(_) => {
                ("an object", ty == "object")
            }
            Validation::Enum(_)
            | Validation::Format(_)
            | Validation::Type(_)
            | Validation::Cel(_) => return Ok(()),
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "`{}` applies to {wanted}, but this is {} {ty}",
                self.key(),
                if ty.starts_with(['a', 'i', 'o']) {
                    "an"
                } else {
                    "a"
                }
            ))
        }
    }
}

/// Whether a marker sits on a struct field or on a type declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerTarget {
    Field,
    Type,
}

/// `x-kubernetes-list-type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListType {
    Atomic,
    Set,
    Map,
}

impl ListType {
    pub fn as_str(self) -> &'static str {
        match self {
            ListType::Atomic => "atomic",
            ListType::Set => "set",
            ListType::Map => "map",
        }
    }
}

/// `x-kubernetes-map-type` / `x-kubernetes-struct-type` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectType {
    Atomic,
    Granular,
}

impl ObjectType {
    pub fn as_str(self) -> &'static str {
        match self {
            ObjectType::Atomic => "atomic",
            ObjectType::Granular => "granular",
        }
    }
}

/// One `#[schema(...)]` property.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaProp {
    Default(Value),
    Example(Value),
    Nullable,
    Title(String),
    ListType(ListType),
    ListMapKeys(Vec<String>),
    MapType(ObjectType),
    StructType(ObjectType),
    PreserveUnknownFields,
    EmbeddedResource,
    IntOrString,
    Schemaless,
    ExternalDocs {
        url: String,
        description: Option<String>,
    },
}

impl SchemaProp {
    pub fn key(&self) -> &'static str {
        match self {
            SchemaProp::Default(_) => "default",
            SchemaProp::Example(_) => "example",
            SchemaProp::Nullable => "nullable",
            SchemaProp::Title(_) => "title",
            SchemaProp::ListType(_) => "list_type",
            SchemaProp::ListMapKeys(_) => "list_map_keys",
            SchemaProp::MapType(_) => "map_type",
            SchemaProp::StructType(_) => "struct_type",
            SchemaProp::PreserveUnknownFields => "preserve_unknown_fields",
            SchemaProp::EmbeddedResource => "embedded_resource",
            SchemaProp::IntOrString => "int_or_string",
            SchemaProp::Schemaless => "schemaless",
            SchemaProp::ExternalDocs { .. } => "external_docs",
        }
    }

    fn field_only(&self) -> bool {
        matches!(self, SchemaProp::Default(_) | SchemaProp::Schemaless)
    }

    /// Checks that the property fits a schema of OpenAPI type `ty` (`None` if unknown).
    pub fn check_applies(&self, ty: Option<&str>) -> Result<(), String> {
        let Some(ty) = ty else { return Ok(()) };
        let (wanted, ok) = match self {
            SchemaProp::ListType(_) | SchemaProp::ListMapKeys(_) => ("an array", ty == "array"),
            SchemaProp::MapType(_) | SchemaProp::StructType(_) => ("an object", ty == "object"),
            _ => return Ok(()),
        };
        if ok {
            Ok(())
        } else {
            Err(format!("`{}` applies to {wanted}, not to {ty}", self.key()))
        }
    }
}

/// Everything the schema markers say about one field or type.
#[derive(Debug, Clone, Default)]
pub struct FieldMarkers {
    pub validations: Vec<Spanned<Validation>>,
    /// `#[validation(items(...))]`: constraints on the elements of an array.
    pub items: Vec<Spanned<Validation>>,
    /// `#[validation(items(int_or_string, preserve_unknown_fields, embedded_resource))]`:
    /// controller-gen's `items:XIntOrString`, `items:XPreserveUnknownFields` and
    /// `items:XEmbeddedResource`.
    pub items_schema: Vec<Spanned<SchemaProp>>,
    pub schema: Vec<Spanned<SchemaProp>>,
    pub optional: Option<Span>,
    pub required: Option<Span>,
    /// `immutable`: the field cannot change once set (`+k8s:immutable`).
    pub immutable: Option<Span>,
    /// Type-level one-of groups, JSON field names, in source order.
    pub one_of: Vec<Spanned<(OneOf, Vec<String>)>>,
}

impl FieldMarkers {
    pub fn is_empty(&self) -> bool {
        self.validations.is_empty()
            && self.items.is_empty()
            && self.items_schema.is_empty()
            && self.schema.is_empty()
            && self.optional.is_none()
            && self.required.is_none()
            && self.immutable.is_none()
            && self.one_of.is_empty()
    }

    pub fn has(&self, pred: impl Fn(&SchemaProp) -> bool) -> Option<Span> {
        self.schema.iter().find(|p| pred(&p.value)).map(|p| p.span)
    }
}

/// What `items(...)` takes: the value constraints and three schema flags.
const ITEMS_KEYS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "multiple_of",
    "min_length",
    "max_length",
    "pattern",
    "min_items",
    "max_items",
    "unique_items",
    "min_properties",
    "max_properties",
    "enum",
    "format",
    "type",
    "cel",
    "int_or_string",
    "preserve_unknown_fields",
    "embedded_resource",
];
const VALIDATION_KEYS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "multiple_of",
    "min_length",
    "max_length",
    "pattern",
    "min_items",
    "max_items",
    "unique_items",
    "min_properties",
    "max_properties",
    "enum",
    "format",
    "type",
    "cel",
    "items",
    "optional",
    "required",
    "immutable",
    "exactly_one_of",
    "at_most_one_of",
    "at_least_one_of",
];
const SCHEMA_KEYS: &[&str] = &[
    "default",
    "example",
    "nullable",
    "title",
    "list_type",
    "list_map_keys",
    "map_type",
    "struct_type",
    "preserve_unknown_fields",
    "embedded_resource",
    "int_or_string",
    "schemaless",
    "external_docs",
];
const CEL_KEYS: &[&str] = &[
    "rule",
    "message",
    "message_expression",
    "reason",
    "field_path",
    "optional_old_self",
];

/// Parses a value constraint for `key`.
fn parse_validation(
    key: &str,
    meta: &syn::meta::ParseNestedMeta<'_>,
) -> syn::Result<Spanned<Validation>> {
    use syn::spanned::Spanned as _;
    let span = meta.path.span();
    let v = match key {
        "minimum" => Validation::Minimum(args::number(meta)?.value),
        "maximum" => Validation::Maximum(args::number(meta)?.value),
        "exclusive_minimum" => Validation::ExclusiveMinimum(args::flag(meta)?.value),
        "exclusive_maximum" => Validation::ExclusiveMaximum(args::flag(meta)?.value),
        "multiple_of" => {
            let n = args::number(meta)?;
            if n.value.as_f64().is_some_and(|f| f <= 0.0) {
                return Err(syn::Error::new(
                    n.span,
                    "multiple_of must be greater than 0",
                ));
            }
            Validation::MultipleOf(n.value)
        }
        "min_length" => Validation::MinLength(args::unsigned(meta)?.value),
        "max_length" => Validation::MaxLength(args::unsigned(meta)?.value),
        "pattern" => {
            let p = args::string(meta)?;
            if let Err(err) = regex_syntax::Parser::new().parse(&p.value) {
                return Err(syn::Error::new(
                    p.span,
                    format!(
                        "pattern is not a valid regular expression: {}",
                        first_line(&err.to_string())
                    ),
                ));
            }
            Validation::Pattern(p.value)
        }
        "min_items" => Validation::MinItems(args::unsigned(meta)?.value),
        "max_items" => Validation::MaxItems(args::unsigned(meta)?.value),
        "unique_items" => {
            let f = args::flag(meta)?;
            if f.value {
                // controller-gen writes it; the API server then refuses the whole CRD.
                return Err(syn::Error::new(
                    f.span,
                    "the API server rejects `uniqueItems: true` in CRDs (its cost is quadratic); use #[schema(list_type = \"set\")] for a list of unique scalars, or list_type = \"map\" with list_map_keys for objects",
                ));
            }
            Validation::UniqueItems(false)
        }
        "min_properties" => Validation::MinProperties(args::unsigned(meta)?.value),
        "max_properties" => Validation::MaxProperties(args::unsigned(meta)?.value),
        "enum" => {
            let v = args::json(meta)?;
            match v.value {
                Value::Array(items) if !items.is_empty() => Validation::Enum(items),
                // controller-gen's `Enum=A;B;C`, the list form every list marker takes.
                Value::String(list) if !list.trim().is_empty() => Validation::Enum(
                    args::split_list(&list)
                        .into_iter()
                        .map(Value::String)
                        .collect(),
                ),
                _ => {
                    return Err(syn::Error::new(
                        v.span,
                        "enum takes a non-empty list, such as \"Fast;Safe\" or [\"Fast\", \"Safe\"]",
                    ));
                }
            }
        }
        "format" => Validation::Format(args::string(meta)?.value),
        "type" => {
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
            Validation::Type(t.value)
        }
        "cel" => Validation::Cel(parse_cel(meta)?),
        _ => unreachable!("{key} is a value key"),
    };
    Ok(Spanned::new(v, span))
}

/// `cel(rule = "...", message = "...", message_expression = "...", reason = "...",
/// field_path = "...", optional_old_self)`.
fn parse_cel(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<CelRule> {
    use syn::spanned::Spanned as _;
    let span = meta.path.span();
    let mut rule = CelRule::default();
    let mut has_rule = false;
    let mut inner = Diagnostics::new();
    args::nested(meta, "validation(cel", CEL_KEYS, &mut inner, |key, meta| {
        match key {
            "rule" => {
                let r = args::string(meta)?;
                if r.value.trim().is_empty() {
                    return Err(syn::Error::new(r.span, "a CEL rule cannot be empty"));
                }
                rule.rule = r.value;
                has_rule = true;
            }
            "message" => rule.message = Some(args::string(meta)?.value),
            "message_expression" => rule.message_expression = Some(args::string(meta)?.value),
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
            "optional_old_self" => rule.optional_old_self = Some(args::flag(meta)?.value),
            _ => unreachable!(),
        }
        Ok(())
    })?;
    if let Some(first) = inner.into_vec().into_iter().next() {
        return Err(syn::Error::new(first.span, first.message));
    }
    if !has_rule {
        return Err(syn::Error::new(span, "cel(...) needs `rule = \"...\"`"));
    }
    Ok(rule)
}

fn first_line(s: &str) -> String {
    s.lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or(s)
        .trim()
        .trim_start_matches("error: ")
        .to_string()
}

fn parse_object_type(meta: &syn::meta::ParseNestedMeta<'_>) -> syn::Result<ObjectType> {
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

/// Collects the `#[validation]` and `#[schema]` markers among `attrs`.
pub fn parse_field_markers(
    attrs: &[syn::Attribute],
    target: MarkerTarget,
    diags: &mut Diagnostics,
) -> FieldMarkers {
    use syn::spanned::Spanned as _;
    let mut out = FieldMarkers::default();
    for attr in attrs {
        match marker_name(attr) {
            Some(VALIDATION) => {
                let mut inner = Diagnostics::new();
                parse_args(
                    MetaSource::Attr(attr),
                    VALIDATION,
                    VALIDATION_KEYS,
                    diags,
                    |key, meta| {
                        match key {
                            "optional" | "required" => {
                                let span = meta.path.span();
                                if target == MarkerTarget::Type {
                                    return Err(syn::Error::new(
                                        span,
                                        format!("`{key}` goes on a field, not on a type"),
                                    ));
                                }
                                if args::flag(meta)?.value {
                                    if key == "optional" {
                                        out.optional = Some(span);
                                    } else {
                                        out.required = Some(span);
                                    }
                                }
                            }
                            "immutable" => {
                                let span = meta.path.span();
                                if target == MarkerTarget::Type {
                                    return Err(syn::Error::new(
                                        span,
                                        "`immutable` goes on a field, not on a type",
                                    ));
                                }
                                if args::flag(meta)?.value {
                                    out.immutable = Some(span);
                                }
                            }
                            "exactly_one_of" | "at_most_one_of" | "at_least_one_of" => {
                                let span = meta.path.span();
                                if target == MarkerTarget::Field {
                                    return Err(syn::Error::new(
                                        span,
                                        format!(
                                            "`{key}` goes on a struct, naming its fields; not on a field"
                                        ),
                                    ));
                                }
                                let kind = match key {
                                    "exactly_one_of" => OneOf::Exactly,
                                    "at_most_one_of" => OneOf::AtMost,
                                    _ => OneOf::AtLeast,
                                };
                                let fields = args::string_list(meta)?;
                                if fields.value.len() < 2 {
                                    return Err(syn::Error::new(
                                        fields.span,
                                        format!("`{key}` names at least two fields"),
                                    ));
                                }
                                out.one_of
                                    .push(Spanned::new((kind, fields.value), fields.span));
                            }
                            "items" => {
                                let (items, items_schema) = (&mut out.items, &mut out.items_schema);
                                args::nested(
                                    meta,
                                    "validation(items",
                                    ITEMS_KEYS,
                                    &mut inner,
                                    |key, meta| {
                                        let span = meta.path.span();
                                        let flag = match key {
                                            "int_or_string" => SchemaProp::IntOrString,
                                            "preserve_unknown_fields" => {
                                                SchemaProp::PreserveUnknownFields
                                            }
                                            "embedded_resource" => SchemaProp::EmbeddedResource,
                                            _ => {
                                                items.push(parse_validation(key, meta)?);
                                                return Ok(());
                                            }
                                        };
                                        items_schema
                                            .push(Spanned::new(flag_prop(meta, flag)?, span));
                                        Ok(())
                                    },
                                )?;
                            }
                            _ => out.validations.push(parse_validation(key, meta)?),
                        }
                        Ok(())
                    },
                );
                diags.append(inner);
            }
            Some(SCHEMA) => {
                parse_args(
                    MetaSource::Attr(attr),
                    SCHEMA,
                    SCHEMA_KEYS,
                    diags,
                    |key, meta| {
                        let span = meta.path.span();
                        let prop = match key {
                            "default" => SchemaProp::Default(args::json(meta)?.value),
                            "example" => SchemaProp::Example(args::json(meta)?.value),
                            "nullable" => flag_prop(meta, SchemaProp::Nullable)?,
                            "title" => SchemaProp::Title(args::string(meta)?.value),
                            "list_type" => {
                                let s = args::string(meta)?;
                                SchemaProp::ListType(match s.value.as_str() {
                                    "atomic" => ListType::Atomic,
                                    "set" => ListType::Set,
                                    "map" => ListType::Map,
                                    other => {
                                        return Err(syn::Error::new(
                                            s.span,
                                            format!(
                                                "unknown list_type `{other}`; expected \"atomic\", \"set\" or \"map\""
                                            ),
                                        ));
                                    }
                                })
                            }
                            "list_map_keys" => {
                                let keys = args::string_list(meta)?;
                                if keys.value.is_empty() {
                                    return Err(syn::Error::new(
                                        keys.span,
                                        "list_map_keys needs at least one key",
                                    ));
                                }
                                SchemaProp::ListMapKeys(keys.value)
                            }
                            "map_type" => SchemaProp::MapType(parse_object_type(meta)?),
                            "struct_type" => SchemaProp::StructType(parse_object_type(meta)?),
                            "preserve_unknown_fields" => {
                                flag_prop(meta, SchemaProp::PreserveUnknownFields)?
                            }
                            "embedded_resource" => flag_prop(meta, SchemaProp::EmbeddedResource)?,
                            "int_or_string" => flag_prop(meta, SchemaProp::IntOrString)?,
                            "schemaless" => flag_prop(meta, SchemaProp::Schemaless)?,
                            "external_docs" => {
                                let (mut url, mut description) = (None, None);
                                let mut inner = Diagnostics::new();
                                args::nested(
                                    meta,
                                    "schema(external_docs",
                                    &["url", "description"],
                                    &mut inner,
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
                                if let Some(first) = inner.into_vec().into_iter().next() {
                                    return Err(syn::Error::new(first.span, first.message));
                                }
                                let Some(url) = url else {
                                    return Err(syn::Error::new(
                                        span,
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
                                SchemaProp::ExternalDocs {
                                    url: url.value,
                                    description,
                                }
                            }
                            _ => unreachable!(),
                        };
                        if target == MarkerTarget::Type && prop.field_only() {
                            return Err(syn::Error::new(
                                span,
                                format!("`{key}` goes on a field, not on a type"),
                            ));
                        }
                        out.schema.push(Spanned::new(prop, span));
                        Ok(())
                    },
                );
            }
            _ => {}
        }
    }
    check_consistency(&out, diags);
    out
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

fn flag_prop(meta: &syn::meta::ParseNestedMeta<'_>, prop: SchemaProp) -> syn::Result<SchemaProp> {
    let f = args::flag(meta)?;
    if f.value {
        Ok(prop)
    } else {
        Err(syn::Error::new(
            f.span,
            "write the flag alone to set it, or leave it out",
        ))
    }
}

/// Cross-checks between markers of one field: contradictions that no schema type could fix.
fn check_consistency(m: &FieldMarkers, diags: &mut Diagnostics) {
    if let (Some(_), Some(req)) = (m.optional, m.required) {
        diags.push(req, "a field cannot be both `optional` and `required`");
    }
    for list in [&m.validations, &m.items] {
        let find = |key: &str| list.iter().find(|v| v.value.key() == key);
        let num = |v: &Spanned<Validation>| match &v.value {
            Validation::Minimum(n) | Validation::Maximum(n) => n.as_f64(),
            Validation::MinLength(n)
            | Validation::MaxLength(n)
            | Validation::MinItems(n)
            | Validation::MaxItems(n)
            | Validation::MinProperties(n)
            | Validation::MaxProperties(n) => Some(*n as f64),
            _ => None,
        };
        for (lo, hi) in [
            ("minimum", "maximum"),
            ("min_length", "max_length"),
            ("min_items", "max_items"),
            ("min_properties", "max_properties"),
        ] {
            if let (Some(l), Some(h)) = (find(lo), find(hi))
                && let (Some(lv), Some(hv)) = (num(l), num(h))
                && lv > hv
            {
                diags.push(
                    h.span,
                    format!("conflicting markers: `{lo}` ({lv}) is greater than `{hi}` ({hv})"),
                );
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        for v in list
            .iter()
            .filter(|v| !matches!(v.value, Validation::Cel(_)))
        {
            if seen.contains(&v.value.key()) {
                diags.push(
                    v.span,
                    format!("`{}` is given twice for this field", v.value.key()),
                );
            }
            seen.push(v.value.key());
        }
    }
    let list_type = m.schema.iter().find_map(|p| match p.value {
        SchemaProp::ListType(t) => Some(t),
        _ => None,
    });
    if let Some(keys) = m.has(|p| matches!(p, SchemaProp::ListMapKeys(_)))
        && list_type != Some(ListType::Map)
    {
        diags.push(keys, "`list_map_keys` needs `list_type = \"map\"`");
    }
    if let Some(span) = m.has(|p| matches!(p, SchemaProp::ListType(ListType::Map)))
        && m.has(|p| matches!(p, SchemaProp::ListMapKeys(_))).is_none()
    {
        diags.push(
            span,
            "`list_type = \"map\"` needs `list_map_keys = \"...\"` naming the key fields",
        );
    }
}

/// The OpenAPI type a Rust type maps to, when it can be told from the syntax alone
/// (primitives, `String`, `Vec`, maps, `Option`/`Box` of those). `None` for named types,
/// which only the generator can resolve.
pub fn syntactic_schema_type(ty: &syn::Type) -> Option<&'static str> {
    match ty {
        syn::Type::Path(tp) if tp.qself.is_none() => {
            let last = tp.path.segments.last()?;
            let name = last.ident.to_string();
            let first_arg = || match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|arg| match arg {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                }),
                _ => None,
            };
            match name.as_str() {
                "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "isize" | "usize" => {
                    Some("integer")
                }
                "f32" | "f64" => Some("number"),
                "bool" => Some("boolean"),
                "String" | "str" => Some("string"),
                "Vec" | "VecDeque" | "BTreeSet" | "HashSet" => {
                    let is_bytes = name == "Vec"
                        && first_arg().and_then(syntactic_schema_type) == Some("integer")
                        && matches!(first_arg(), Some(syn::Type::Path(p)) if p.path.is_ident("u8"));
                    Some(if is_bytes { "string" } else { "array" })
                }
                "BTreeMap" | "HashMap" => Some("object"),
                "Option" | "Box" => first_arg().and_then(syntactic_schema_type),
                _ => None,
            }
        }
        syn::Type::Array(_) => Some("array"),
        syn::Type::Reference(r) => syntactic_schema_type(&r.elem),
        syn::Type::Paren(p) => syntactic_schema_type(&p.elem),
        syn::Type::Group(g) => syntactic_schema_type(&g.elem),
        _ => None,
    }
}
