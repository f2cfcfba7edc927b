//! Values the validation crates' attributes name by path instead of writing them
//! (`#[validate(regex(path = *SEMVER_RE))]`, `range(min = MIN_REPLICAS)`), read from the
//! crate's `static`, `const` and `lazy_static!` items once the [`Skeleton`] indexes every
//! file: a path is resolved as a type path is, through the modules and imports, and the
//! item's value is taken when it is written out (a regex built from a string literal, a
//! string or number literal, or another such item). What cannot be read that way is an
//! error at the attribute's key: the CRD never carries a guess.

use crate::Origin;
use crate::diagnostics::Diagnostic;
use crate::markers::{
    FieldMarkers, NamedValue, SchemaProp, Slot, Spanned, Validation, bound_conflicts,
    bound_validations,
};
use crate::model::{Body, Fields, TypeDef};
use crate::place::Loc;
use crate::source::{Resolved, Skeleton, Value, ValueItem};

/// How many items a value may pass through (`const A: &str = B;`) before the chain is
/// taken for a cycle.
const MAX_HOPS: usize = 8;

/// Reads the values the markers of `defs` (declaration ids of `skeleton`) name: each
/// becomes the marker it stands for, or a problem kept with its type or field.
pub(crate) fn resolve_named(skeleton: &Skeleton, defs: &mut [TypeDef]) {
    for (id, def) in defs.iter_mut().enumerate() {
        let Some(module) = skeleton.decls.get(id).map(|d| &d.module) else {
            break;
        };
        resolve(skeleton, module, &mut def.markers, &mut def.marker_problems);
        let fields: Vec<&mut Fields> = match &mut def.body {
            Body::Struct(fields) => vec![fields],
            Body::Enum(variants) => variants.iter_mut().map(|v| &mut v.fields).collect(),
            Body::Alias(_) => Vec::new(),
        };
        for fields in fields {
            if let Fields::Named(list) | Fields::Unnamed(list) = fields {
                for field in list {
                    resolve(
                        skeleton,
                        module,
                        &mut field.markers,
                        &mut field.marker_problems,
                    );
                }
            }
        }
    }
}

fn resolve(
    skeleton: &Skeleton,
    module: &[String],
    markers: &mut FieldMarkers<Loc>,
    problems: &mut Vec<Diagnostic<Loc>>,
) {
    let mut placed = Vec::new();
    for named in std::mem::take(&mut markers.named) {
        let Spanned { value: named, span } = named;
        let found = follow(
            skeleton,
            module,
            named.absolute,
            &named.segments,
            MAX_HOPS,
            None,
        );
        let outcome = found
            .map_err(|refusal| refusal.message(&named))
            .and_then(|found| place(&named, found, span, markers));
        match outcome {
            Ok(()) => placed.push(span),
            Err(message) => problems
                .push(Diagnostic::new(span, message, Origin::Source).with_help(help(&named))),
        }
    }
    // The bounds again, now that the named ones have values: conflicts between written
    // values were reported when the markers were read.
    for list in [&markers.validations, &markers.items] {
        for conflict in bound_conflicts(list) {
            if conflict.between.iter().any(|span| placed.contains(span)) {
                problems.push(Diagnostic::new(
                    conflict.at,
                    conflict.message,
                    Origin::Source,
                ));
            }
        }
    }
}

/// What a named item holds, once read.
enum Found {
    /// A regular expression, by its pattern.
    Regex(String),
    /// A string.
    Str(String),
    /// A number.
    Number(serde_json::Number),
}

/// Why a named item cannot be read.
enum Refusal<'s> {
    /// Nothing of the scanned sources has the name `missing`, which the item `via` names
    /// (`None`: the attribute itself); `external` is its full path when the imports say it
    /// comes from another crate.
    NotFound {
        missing: String,
        external: Option<String>,
        via: Option<&'s ValueItem>,
    },
    /// Several items have the name `missing` and the imports do not say which one is meant.
    Ambiguous {
        missing: String,
        via: Option<&'s ValueItem>,
    },
    /// Its module declares it twice (under `#[cfg]`s).
    Twice(&'s ValueItem),
    /// It holds Rust code that only runs in the operator.
    Code(&'s ValueItem, String),
    /// A regex compiled from a number.
    NumberAsRegex(&'s ValueItem),
    /// The items name each other in a loop, or a chain too long to follow.
    Cycle,
}

/// The value of the item `segments` names in `module`, through the items it names in turn.
fn follow<'s>(
    skeleton: &'s Skeleton,
    module: &[String],
    absolute: bool,
    segments: &[String],
    hops: usize,
    via: Option<&'s ValueItem>,
) -> Result<Found, Refusal<'s>> {
    if hops == 0 {
        return Err(Refusal::Cycle);
    }
    let missing = || {
        format!(
            "{}{}",
            if absolute { "::" } else { "" },
            segments.join("::")
        )
    };
    let item = match skeleton.resolve_value(module, absolute, segments) {
        Resolved::Local(id) => &skeleton.values[id],
        Resolved::Ambiguous(_) => {
            return Err(Refusal::Ambiguous {
                missing: missing(),
                via,
            });
        }
        Resolved::External(full) => {
            return std_constant(&full).map(Found::Number).ok_or_else(|| {
                let local = absolute
                    || full == segments
                    || matches!(
                        full.first().map(String::as_str),
                        Some("crate" | "self" | "super")
                    );
                Refusal::NotFound {
                    missing: missing(),
                    external: (!local).then(|| full.join("::")),
                    via,
                }
            });
        }
    };
    if item.declared_twice {
        return Err(Refusal::Twice(item));
    }
    let text = |value: &Value, hops| match value {
        Value::Str(s) => Ok(s.clone()),
        Value::Path { absolute, segments } => {
            match follow(
                skeleton,
                &item.module,
                *absolute,
                segments,
                hops,
                Some(item),
            )? {
                Found::Str(s) | Found::Regex(s) => Ok(s),
                Found::Number(_) => Err(Refusal::NumberAsRegex(item)),
            }
        }
        Value::Number(_) => Err(Refusal::NumberAsRegex(item)),
        Value::Regex(_) => Err(Refusal::Code(item, "a regex compiled from a regex".into())),
        Value::Code(code) => Err(Refusal::Code(item, code.clone())),
    };
    match &item.value {
        Value::Str(s) => Ok(Found::Str(s.clone())),
        Value::Number(n) => Ok(Found::Number(n.clone())),
        Value::Path { absolute, segments } => follow(
            skeleton,
            &item.module,
            *absolute,
            segments,
            hops - 1,
            Some(item),
        ),
        Value::Regex(pattern) => Ok(Found::Regex(text(pattern, hops - 1)?)),
        Value::Code(code) => Err(Refusal::Code(item, code.clone())),
    }
}

/// The standard library's integer bounds a range may name (`u16::MAX`, `std::i32::MIN`).
fn std_constant(path: &[String]) -> Option<serde_json::Number> {
    let (ty, name) = match path {
        [ty, name] => (ty, name),
        [root, ty, name] if root == "std" || root == "core" => (ty, name),
        _ => return None,
    };
    let (min, max): (i64, u64) = match ty.as_str() {
        "i8" => (i8::MIN.into(), i8::MAX as u64),
        "i16" => (i16::MIN.into(), i16::MAX as u64),
        "i32" => (i32::MIN.into(), i32::MAX as u64),
        "i64" => (i64::MIN, i64::MAX as u64),
        "u8" => (0, u8::MAX.into()),
        "u16" => (0, u16::MAX.into()),
        "u32" => (0, u32::MAX.into()),
        "u64" => (0, u64::MAX),
        _ => return None,
    };
    match name.as_str() {
        "MIN" => Some(min.into()),
        "MAX" => Some(max.into()),
        _ => None,
    }
}

/// `crate::a::b`, or `the crate root`.
fn module_text(module: &[String]) -> String {
    if module.is_empty() {
        "the crate root".into()
    } else {
        format!("`crate::{}`", module.join("::"))
    }
}

fn item_text(item: &ValueItem) -> String {
    format!(
        "`{}` (a `{}` in {})",
        item.name,
        item.what,
        module_text(&item.module)
    )
}

impl Refusal<'_> {
    fn message(&self, named: &NamedValue) -> String {
        let key = &named.key;
        let path = named.path_text();
        let what = match named.slot {
            Slot::Pattern => "its pattern",
            Slot::Title => "its text",
            _ => "its value",
        };
        match self {
            Refusal::NotFound {
                missing,
                external,
                via,
            } => {
                let named = match via {
                    None => format!("{key} names `{path}`"),
                    Some(item) => format!(
                        "{key} names `{path}`, and {} names `{missing}`",
                        item_text(item)
                    ),
                };
                match external {
                    None => format!(
                        "{named}, and the scanned sources declare no `static`, `const` or `lazy_static!` item by that name, so operator-gen cannot read {what}"
                    ),
                    Some(full) => format!(
                        "{named}, which is `{full}` of another crate; operator-gen reads this crate's sources only, so it cannot read {what}"
                    ),
                }
            }
            Refusal::Ambiguous { missing, via } => {
                let named = match via {
                    None => format!("{key} names `{path}`"),
                    Some(item) => format!(
                        "{key} names `{path}`, and {} names `{missing}`",
                        item_text(item)
                    ),
                };
                format!(
                    "{named}, and several items of the crate have that name without an import that says which one is meant"
                )
            }
            Refusal::Twice(item) => format!(
                "{key} names `{path}`, and {} declares `{}` more than once (under #[cfg]s): operator-gen reads every item whatever its #[cfg], so it cannot tell which one a build uses",
                module_text(&item.module),
                item.name
            ),
            Refusal::Code(item, code) => format!(
                "{key} names `{path}`, and {} holds {code}: Rust code that operator-gen, which reads the sources without compiling them, cannot run, so it cannot read {what}",
                item_text(item)
            ),
            Refusal::NumberAsRegex(item) => format!(
                "{key} names `{path}`, and {} builds a regular expression from a number",
                item_text(item)
            ),
            Refusal::Cycle => format!(
                "{key} names `{path}`, whose value names other items in a chain operator-gen does not follow to its end"
            ),
        }
    }
}

/// What to do about a value that cannot be read.
fn help(named: &NamedValue) -> &'static str {
    match named.slot {
        Slot::Pattern => crate::markers::PATTERN_HELP,
        Slot::Title => crate::markers::TITLE_HELP,
        _ => crate::markers::BOUND_HELP,
    }
}

/// Puts what `named` names where it goes in `markers`, or says why it does not fit.
fn place(
    named: &NamedValue,
    found: Found,
    span: Loc,
    markers: &mut FieldMarkers<Loc>,
) -> Result<(), String> {
    let key = &named.key;
    let path = named.path_text();
    let holds = |found: &Found| match found {
        Found::Regex(..) => "a regular expression",
        Found::Str(_) => "a string",
        Found::Number(_) => "a number",
    };
    match (named.slot, found) {
        (Slot::Pattern, Found::Regex(pattern) | Found::Str(pattern)) => {
            if let Err(e) = regex_syntax::Parser::new().parse(&pattern) {
                let reason = e.to_string();
                return Err(format!(
                    "{key} names `{path}`, whose pattern {pattern:?} is not a valid regular expression: {}",
                    reason.lines().last().unwrap_or_default().trim()
                ));
            }
            markers
                .validations
                .push(Spanned::new(Validation::Pattern(pattern), span));
        }
        (Slot::Title, Found::Str(title)) => markers
            .schema
            .push(Spanned::new(SchemaProp::Title(title), span)),
        (
            slot
            @ (Slot::Minimum | Slot::Maximum | Slot::ExclusiveMinimum | Slot::ExclusiveMaximum),
            Found::Number(n),
        ) => markers.validations.extend(
            bound_validations(slot, n)
                .into_iter()
                .map(|v| Spanned::new(v, span)),
        ),
        (Slot::LengthMin(i) | Slot::LengthMax(i) | Slot::LengthEqual(i), Found::Number(n)) => {
            let Some(n) = n.as_u64() else {
                return Err(format!(
                    "{key} names `{path}`, which holds {n}: a length is a whole number of 0 or more"
                ));
            };
            let length = &mut markers.lengths[i].value;
            if !matches!(named.slot, Slot::LengthMax(_)) {
                length.min = Some(n);
            }
            if !matches!(named.slot, Slot::LengthMin(_)) {
                length.max = Some(n);
            }
        }
        (slot, found) => {
            let wanted = match slot {
                Slot::Pattern => "a regular expression or a string",
                Slot::Title => "a string",
                _ => "a number",
            };
            return Err(format!(
                "{key} names `{path}`, which holds {}, not {wanted}",
                holds(&found)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
