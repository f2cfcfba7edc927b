//! JSON paths of a CRD's markers (print columns, selectable fields) followed through a
//! version's schema: what the API server would refuse, and what would read nothing.

use crate::api::apiextensions::v1::JSONSchemaProps;
use crate::markers::{self, PrintColumnMarker};
use crate::place::Loc;

/// The most selectable fields a version may have (the API server's limit).
const MAX_SELECTABLE_FIELDS: usize = 8;

/// Where a JSON path leads in a version's schema, as far as the schema tells.
#[derive(Debug)]
enum Resolved<'s> {
    /// To this field.
    Field(&'s JSONSchemaProps),
    /// Past the object at `at`, which takes only the fields it lists and not `step`.
    NoSuchField {
        at: String,
        step: String,
        fields: Vec<String>,
    },
    /// Into the scalar at `at` (of type `type_`), as if it had fields.
    IntoScalar { at: String, type_: String },
    /// Across the list at `at` without `[...]`.
    AcrossList { at: String },
    /// Into the object at `at`, whose fields the schema does not list (preserved unknown
    /// fields, or an object such as `metadata`).
    Unlisted { at: String },
    /// By steps this check does not read (wildcards, recursive descent, a bracket on an
    /// object, a map whose values may be anything).
    Open,
}

impl Resolved<'_> {
    /// Why the path reads nothing, when the schema shows it by fields alone: a field the
    /// object does not have, or fields of a scalar.
    fn reads_nothing(&self) -> Option<String> {
        match self {
            Resolved::NoSuchField { at, step, fields } => Some(format!(
                "`{at}` has no field `{step}` ({} and no others)",
                listed(fields)
            )),
            Resolved::IntoScalar { at, type_ } => {
                Some(format!("`{at}` is {}, with no fields", a(type_)))
            }
            Resolved::Field(_)
            | Resolved::AcrossList { .. }
            | Resolved::Unlisted { .. }
            | Resolved::Open => None,
        }
    }
}

/// A step of a JSON path: a field name, or a `[...]` (an index or a filter).
#[derive(Debug, PartialEq)]
enum Step<'p> {
    Name(&'p str),
    Bracket,
}

/// The steps of `path` (`.spec.a[0].b`), or `None` for a path this check does not read.
/// The path's brackets and quotes pair up (the marker parser checked it).
fn steps(path: &str) -> Option<Vec<Step<'_>>> {
    if path.contains("..") {
        return None;
    }
    let mut out = Vec::new();
    let mut rest = path.strip_prefix('.')?;
    while !rest.is_empty() {
        if let Some(inner) = rest.strip_prefix('[') {
            let (mut depth, mut quote, mut end) = (1, None, None);
            for (i, c) in inner.char_indices() {
                match (quote, c) {
                    (Some(q), c) if c == q => quote = None,
                    (Some(_), _) => {}
                    (None, '\'' | '"') => quote = Some(c),
                    (None, '[') => depth += 1,
                    (None, ']') => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(i);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            out.push(Step::Bracket);
            rest = &inner[end? + 1..];
            rest = rest.strip_prefix('.').unwrap_or(rest);
            continue;
        }
        let end = rest.find(['.', '[']).unwrap_or(rest.len());
        let name = &rest[..end];
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return None;
        }
        out.push(Step::Name(name));
        rest = &rest[end..];
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    Some(out)
}

/// Follows `path` through a version's schema.
fn resolve<'s>(schema: &'s JSONSchemaProps, path: &str) -> Resolved<'s> {
    let Some(steps) = steps(path) else {
        return Resolved::Open;
    };
    let mut current = schema;
    let mut at = String::new();
    for step in steps {
        let type_ = current.type_.as_deref();
        if current.x_kubernetes_preserve_unknown_fields == Some(true) {
            return Resolved::Unlisted { at };
        }
        match step {
            // A map: a step names a key, and leads to a value.
            Step::Name(key) if current.additional_properties.is_some() => {
                let Some(values) = current.values_schema() else {
                    return Resolved::Open;
                };
                current = values;
                at.push('.');
                at.push_str(key);
            }
            Step::Bracket => match current.items_schema() {
                Some(items) if type_ == Some("array") => {
                    current = items;
                    at.push_str("[]");
                }
                _ => return Resolved::Open,
            },
            Step::Name(_) if type_ == Some("array") => return Resolved::AcrossList { at },
            Step::Name(_) if matches!(type_, Some("string" | "integer" | "number" | "boolean")) => {
                return Resolved::IntoScalar {
                    at,
                    type_: type_.unwrap_or_default().to_string(),
                };
            }
            Step::Name(name) => {
                let Some(properties) = &current.properties else {
                    return Resolved::Unlisted { at };
                };
                match properties.get(name) {
                    Some(field) => {
                        current = field;
                        at.push('.');
                        at.push_str(name);
                    }
                    None => {
                        return Resolved::NoSuchField {
                            at: if at.is_empty() { ".".into() } else { at },
                            step: name.to_string(),
                            fields: properties.keys().cloned().collect(),
                        };
                    }
                }
            }
        }
    }
    Resolved::Field(current)
}

/// A type's name with its article: "an integer", "a string".
fn a(type_: &str) -> String {
    let article = if type_.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {type_}")
}

/// `fields`, for a message: the first dozen and how many more.
fn listed(fields: &[String]) -> String {
    const SHOWN: usize = 12;
    if fields.is_empty() {
        return "no fields".into();
    }
    let mut text = fields
        .iter()
        .take(SHOWN)
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if fields.len() > SHOWN {
        text.push_str(&format!(" and {} more", fields.len() - SHOWN));
    }
    format!("the fields {text}")
}

/// What is wrong with a print column's path, when the schema shows that it reads nothing:
/// the API server accepts any path that compiles, and kubectl prints `<none>` in every row.
pub(super) fn column_problem(
    column: &PrintColumnMarker<Loc>,
    schema: &JSONSchemaProps,
) -> Option<String> {
    let path = &column.json_path;
    // A path across a list without `[...]` is left to kubectl's JSONPath.
    let why = resolve(schema, path).reads_nothing()?;
    Some(format!(
        "print column {:?} reads `{path}`, which no object of this version has: {why}; kubectl would show <none> in every row",
        column.name
    ))
}

/// What the API server would refuse in a version's selectable fields: more than
/// [`MAX_SELECTABLE_FIELDS`], one listed twice, one under `metadata`, one with `[...]`, one
/// that names no field of the schema or a field that is not a string, integer or boolean.
pub(super) fn selectable_problems(
    paths: &[markers::Spanned<String, Loc>],
    schema: &JSONSchemaProps,
) -> Vec<(Loc, String)> {
    let mut problems = Vec::new();
    if let Some(first_too_many) = paths.get(MAX_SELECTABLE_FIELDS) {
        problems.push((
            first_too_many.span,
            format!(
                "{} selectable fields; the API server takes at most {MAX_SELECTABLE_FIELDS} per version",
                paths.len()
            ),
        ));
    }
    for (i, spanned) in paths.iter().enumerate() {
        let (path, at) = (&spanned.value, spanned.span);
        let field = format!("selectable field `{path}`");
        if paths[..i].iter().any(|p| p.value == *path) {
            problems.push((at, format!("{field} is listed twice")));
            continue;
        }
        if path == ".metadata" || path.starts_with(".metadata.") || path.starts_with(".metadata[") {
            problems.push((at, format!(
                "{field} is under `metadata`, which the API server refuses (`metadata.name` and `metadata.namespace` are selectable on every kind)"
            )));
            continue;
        }
        if path.contains('[') {
            problems.push((at, format!(
                "{field} uses `[...]`; a selectable field is a plain path of field names, such as \".spec.color\""
            )));
            continue;
        }
        let why = match resolve(schema, path) {
            Resolved::Field(p) => match p.type_.as_deref() {
                Some("string" | "integer" | "boolean") => continue,
                Some(other) => format!("it is {}", a(other)),
                None if p.x_kubernetes_int_or_string == Some(true) => {
                    "it is an int-or-string".into()
                }
                None => "its type is not given".into(),
            },
            Resolved::AcrossList { at } => format!("it crosses the list `{at}`"),
            Resolved::Unlisted { at } => {
                format!("it goes into `{at}`, whose fields the schema does not list")
            }
            Resolved::Open => continue,
            other => other.reads_nothing().unwrap_or_default(),
        };
        problems.push((at, format!(
            "{field} must name a string, integer or boolean field of the schema, as the API server requires: {why}"
        )));
    }
    problems
}
