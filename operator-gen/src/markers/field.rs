//! Schema markers, written on fields and on types: `#[validation(...)]` for the
//! `+kubebuilder:validation:*` constraints and `#[schema(...)]` for everything else that
//! shapes a field's schema (defaults, list and map topology, nullability, ...).

use super::args::{MetaSource, Spanned, parse_args};
use super::foreign::{FOREIGN, ForeignPatterns, read_foreign};
use super::payloads::{ListType, MarkerTarget, Slot};
use super::table::{self, FieldMarkers, SchemaProp, Validation};
use super::{
    COMPAT, CRD_SCHEMA, PRINTCOLUMN, RESOURCE, SCHEMA, SUBRESOURCE, VALIDATION, marker_name,
};
use crate::diagnostics::Diagnostics;
use crate::diagnostics::Misfit;

/// Collects the `#[validation]` and `#[schema]` (or `#[crd_schema]`) markers among `attrs`:
/// each key is read by its table entry's reader and refused where the table says it may
/// not sit.
pub fn parse_field_markers(
    attrs: &[syn::Attribute],
    target: MarkerTarget,
    diags: &mut Diagnostics,
) -> FieldMarkers {
    use syn::spanned::Spanned as _;
    let mut out = FieldMarkers::default();
    let mut patterns = ForeignPatterns::default();
    // Whether a `#[validation(pattern)]` is written: it says in a literal what a regular
    // expression held in Rust code says, and then that one is not read.
    let mut own_pattern = false;
    for attr in attrs {
        if let Some(foreign) = foreign_name(attr) {
            read_foreign(attr, foreign, &mut out, &mut patterns, diags);
            continue;
        }
        let name = match marker_name(attr) {
            Some(name @ (VALIDATION | SCHEMA)) => name,
            // The derive declares these for the kind's struct, so the compiler lets them
            // through on a field, where they would mean nothing.
            Some(kind_marker @ (RESOURCE | SUBRESOURCE | PRINTCOLUMN | COMPAT))
                if target == MarkerTarget::Field =>
            {
                diags.push(
                    attr.span(),
                    format!(
                        "#[{kind_marker}(...)] goes on the kind's struct, not on a field; a field takes #[validation(...)] and #[schema(...)]"
                    ),
                );
                continue;
            }
            _ => continue,
        };
        // Messages name the marker as it is written: `#[crd_schema(...)]` is `#[schema(...)]`.
        let written = if attr
            .path()
            .segments
            .last()
            .is_some_and(|s| s.ident == CRD_SCHEMA)
        {
            CRD_SCHEMA
        } else {
            name
        };
        let before = out.validations.len();
        parse_args(
            MetaSource::Attr(attr),
            written,
            table::keys(name),
            diags,
            |key, meta| {
                let span = meta.path.span();
                let def = table::find(name, key).expect("the allowed keys come from the table");
                def.check_place(target)
                    .map_err(|m| syn::Error::new(span, m.message))?;
                out.add(def.read(meta)?, span);
                Ok(())
            },
        );
        own_pattern |= out.validations[before..]
            .iter()
            .any(|v| matches!(v.value, Validation::Pattern(_)));
    }
    if !own_pattern {
        for code in &patterns.unreadable {
            diags.add(super::foreign::unreadable_pattern(code));
        }
        out.named.extend(patterns.named);
    }
    check_named(&out, diags);
    check_consistency(&out, diags);
    out
}

/// A value named by path that says what a literal (or another named value) on the same
/// field already says: once read it would be a second `pattern`, `minimum`, ... of which
/// only one reaches the CRD.
fn check_named(m: &FieldMarkers, diags: &mut Diagnostics) {
    let key = |slot| match slot {
        Slot::Pattern => Some("pattern"),
        Slot::Minimum | Slot::ExclusiveMinimum => Some("minimum"),
        Slot::Maximum | Slot::ExclusiveMaximum => Some("maximum"),
        Slot::Title => Some("title"),
        // A length's bounds are its own, checked with the length.
        Slot::LengthMin(_) | Slot::LengthMax(_) | Slot::LengthEqual(_) => None,
    };
    for (i, named) in m.named.iter().enumerate() {
        let Some(k) = key(named.value.slot) else {
            continue;
        };
        let written = m.validations.iter().any(|v| v.value.key() == k)
            || m.schema.iter().any(|p| p.value.key() == k)
            || m.named[..i].iter().any(|n| key(n.value.slot) == Some(k));
        if written {
            diags.push(named.span, format!("`{k}` is given twice for this field"));
        }
    }
}

impl Validation {
    /// Checks that the constraint fits a schema of OpenAPI type `ty` (`None` when the type
    /// is not known yet). `int_or_string` schemas accept string constraints too.
    pub fn check_applies(&self, ty: Option<&str>, int_or_string: bool) -> Result<(), Misfit> {
        if let Validation::Minimum(n) | Validation::Maximum(n) | Validation::MultipleOf(n) = self
            && ty == Some("integer")
            && n.as_i64().is_none()
            && n.as_u64().is_none()
        {
            return Err(Misfit::from(format!(
                "`{}` on an integer needs an integer value, not {n}",
                self.key()
            )));
        }
        self.def().check_applies(ty, int_or_string)
    }
}

impl SchemaProp {
    /// Checks that the property fits a schema of OpenAPI type `ty` (`None` if unknown).
    pub fn check_applies(&self, ty: Option<&str>) -> Result<(), Misfit> {
        self.def().check_applies(ty, false)
    }
}

/// Bounds of one list of markers that leave no value allowed.
pub(crate) struct BoundConflict<S> {
    /// The markers in conflict.
    pub(crate) between: Vec<S>,
    /// The one the error is reported at.
    pub(crate) at: S,
    pub(crate) message: String,
}

/// A lower bound above its upper bound (`minimum`, lengths, items, properties), or equal
/// bounds with an exclusive one. Run on the markers as written, and again once the values
/// the validation crates' attributes name by path are read (`range(min = MIN, max = MAX)`).
pub(crate) fn bound_conflicts<S: Copy>(list: &[Spanned<Validation, S>]) -> Vec<BoundConflict<S>> {
    let find = |key: &str| list.iter().find(|v| v.value.key() == key);
    let num = |v: &Spanned<Validation, S>| match &v.value {
        Validation::Minimum(n) | Validation::Maximum(n) => n.as_f64(),
        Validation::MinLength(n)
        | Validation::MaxLength(n)
        | Validation::MinItems(n)
        | Validation::MaxItems(n)
        | Validation::MinProperties(n)
        | Validation::MaxProperties(n) => Some(*n as f64),
        _ => None,
    };
    let mut conflicts = Vec::new();
    for (lo, hi) in [
        ("minimum", "maximum"),
        ("min_length", "max_length"),
        ("min_items", "max_items"),
        ("min_properties", "max_properties"),
    ] {
        let (Some(l), Some(h)) = (find(lo), find(hi)) else {
            continue;
        };
        let (Some(lv), Some(hv)) = (num(l), num(h)) else {
            continue;
        };
        if lv > hv {
            conflicts.push(BoundConflict {
                between: vec![l.span, h.span],
                at: h.span,
                message: format!(
                    "conflicting markers: `{lo}` ({lv}) is greater than `{hi}` ({hv})"
                ),
            });
        } else if lv == hv
            && lo == "minimum"
            && let Some(exclusive) = list.iter().find(|v| {
                matches!(
                    v.value,
                    Validation::ExclusiveMinimum(true) | Validation::ExclusiveMaximum(true)
                )
            })
        {
            conflicts.push(BoundConflict {
                between: vec![l.span, h.span, exclusive.span],
                at: exclusive.span,
                message: format!(
                    "conflicting markers: with `minimum` and `maximum` both {lv}, `{}` leaves no value allowed",
                    exclusive.value.key()
                ),
            });
        }
    }
    conflicts
}

/// Cross-checks between markers of one field: contradictions that no schema type could fix.
fn check_consistency(m: &FieldMarkers, diags: &mut Diagnostics) {
    if let (Some(_), Some(req)) = (m.optional, m.required) {
        diags.push(req, "a field cannot be both `optional` and `required`");
    }
    for list in [&m.validations, &m.items] {
        for conflict in bound_conflicts(list) {
            diags.push(conflict.at, conflict.message);
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
    // One value per property: a second `default` (or `example`, `title`, ...) would
    // silently replace the first.
    let mut seen: Vec<&str> = Vec::new();
    for p in &m.schema {
        if seen.contains(&p.value.key()) {
            diags.push(
                p.span,
                format!("`{}` is given twice for this field", p.value.key()),
            );
        }
        seen.push(p.value.key());
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
/// The name of a foreign schema attribute (`schemars`, `validate`, `garde`), if `attr` is one.
fn foreign_name(attr: &syn::Attribute) -> Option<&'static str> {
    // Doc comments, the most common attributes, are name-value: out first.
    let syn::Meta::List(list) = &attr.meta else {
        return None;
    };
    let ident = list.path.get_ident()?;
    FOREIGN.iter().copied().find(|name| ident == name)
}

/// The OpenAPI type a Rust type has on its face (`i32` is `integer`, `Vec<_>` `array`, ...),
/// for the type-fit checks the derive makes without the generator's model; `None` when only
/// the model can tell.
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
                n if n.starts_with("NonZero") => Some("integer"),
                "f32" | "f64" => Some("number"),
                "bool" => Some("boolean"),
                "String" | "str" | "char" | "PathBuf" => Some("string"),
                // A `Vec<u8>` is a list of numbers, as serde_json writes it.
                "Vec" | "VecDeque" | "BTreeSet" | "HashSet" | "BinaryHeap" | "LinkedList" => {
                    Some("array")
                }
                "BTreeMap" | "HashMap" => Some("object"),
                "Option" | "Box" | "Rc" | "Arc" | "Cow" => {
                    first_arg().and_then(syntactic_schema_type)
                }
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
