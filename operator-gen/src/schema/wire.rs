//! Fields and types whose serde attributes put something other than the Rust type on the
//! wire (`with`, `serialize_with`, `deserialize_with`; `into`, `from`, `try_from`). The
//! Rust type's schema would describe JSON that is never sent, so the schema comes from what
//! is known of the wire format instead: the type named by the conversion, the mirror type
//! of a `remote` derive, or the markers that say what goes over the wire. Anything else is
//! an error at the attribute.

use crate::api::apiextensions::v1::JSONSchemaProps;

use super::{SchemaBuilder, Site, external, humantime};
use crate::markers::{FieldMarkers, SchemaProp, Validation};
use crate::model::{FieldDef, Ty, TyKind, TypeDef};
use crate::place::Loc;
use crate::serde_attrs::{ContainerAttrs, FieldAttrs, WireSwap};
use crate::source::Resolved;

/// How to say what goes over the wire, for the error messages.
const SAY_WHAT: &str = "say what goes over the wire with markers, for example #[validation(type = \"string\", format = \"...\")] (or #[schema(int_or_string)], #[schema(preserve_unknown_fields)])";

/// Whether the markers describe the wire format on their own: a scalar `type`, or a
/// schema that needs no type (`int_or_string`, `preserve_unknown_fields`).
fn markers_say_what(markers: &FieldMarkers<Loc>) -> bool {
    markers.validations.iter().any(
        |v| matches!(&v.value, Validation::Type(t) if !matches!(t.as_str(), "array" | "object")),
    ) || markers
        .has(|p| {
            matches!(
                p,
                SchemaProp::IntOrString | SchemaProp::PreserveUnknownFields
            )
        })
        .is_some()
}

impl<'m> SchemaBuilder<'m> {
    /// The schema of a field (or a newtype's or transparent struct's one field) whose
    /// serde attributes swap its wire format: empty for the markers to fill in when they
    /// say what goes over the wire; the mirror type's with `with = "Mirror"` naming a
    /// `#[serde(remote = "...")]` type of the sources; an error otherwise.
    pub(super) fn swapped_field_schema(
        &mut self,
        site: Site<'m>,
        field: &'m FieldDef,
        attrs: &FieldAttrs,
        markers: &FieldMarkers<Loc>,
    ) -> Option<JSONSchemaProps> {
        if markers_say_what(markers) {
            return Some(JSONSchemaProps::default());
        }
        let swap = &attrs.swaps[0];
        if let Some(id) = self.remote_mirror(site, swap) {
            return self.decl_schema(id, swap.at);
        }
        if let Some(schema) = self.known_module(site, field, attrs) {
            return Some(schema);
        }
        self.error(
            swap.at,
            format!(
                "#[serde({} = \"{}\")] {} this field's JSON, so its Rust type `{}` does not describe it: {SAY_WHAT}",
                swap.attribute,
                swap.target,
                match (
                    attrs.swaps.iter().any(WireSwap::changes_reading),
                    attrs.swaps.iter().any(WireSwap::changes_writing),
                ) {
                    (true, true) => "changes how serde reads and writes",
                    (true, false) => "changes how serde reads",
                    _ => "changes how serde writes",
                },
                field.ty_text.as_deref().unwrap_or("?")
            ),
        );
        None
    }

    /// The schema of a field whose `with` module's wire format is known: humantime_serde's
    /// on a `std::time::Duration` (also in an `Option`, whose `None` it writes as `null`
    /// and reads back from it), and time's `serde::rfc3339` on an `OffsetDateTime` (its
    /// `rfc3339::option` on an `Option<OffsetDateTime>`, which writes `None` as `null`).
    fn known_module(
        &mut self,
        site: Site<'m>,
        field: &'m FieldDef,
        attrs: &FieldAttrs,
    ) -> Option<JSONSchemaProps> {
        let [swap] = attrs.swaps.as_slice() else {
            return None;
        };
        let (absolute, module) = swap.module.as_ref()?;
        if swap.attribute != "with" {
            return None;
        }
        // time's RFC 3339 modules, by the path the imports give them.
        let time_option = match self.resolve(site, *absolute, module) {
            Resolved::External(path) => external::time_rfc3339_module(&path),
            _ => None,
        };
        if time_option.is_none() && module != &["humantime_serde"] {
            return None;
        }
        let (optional, ty) = match option_of(&field.ty) {
            Some(inner) => (true, inner),
            None => (false, &field.ty),
        };
        if time_option.is_some_and(|option| option != optional) {
            return None;
        }
        let TyKind::Path {
            absolute,
            segments,
            args,
        } = &ty.kind
        else {
            return None;
        };
        let Resolved::External(path) = self.resolve(site, *absolute, segments) else {
            return None;
        };
        let mut schema = if time_option.is_some() {
            if !args.is_empty() || !external::is_offset_date_time(&path) {
                return None;
            }
            external::offset_date_time()
        } else {
            let std_duration = args.is_empty()
                && matches!(path.as_slice(), [root, time, name]
                    if (root == "std" || root == "core") && time == "time" && name == "Duration");
            if !std_duration {
                return None;
            }
            humantime::duration()
        };
        if optional {
            schema.nullable = Some(true);
        }
        Some(schema)
    }

    /// The declared type `target` (a `with = "..."` path) names, when it is a mirror made
    /// with `#[serde(remote = "...")]`: serde then reads and writes the field through the
    /// mirror's fields.
    fn remote_mirror(&mut self, site: Site<'m>, swap: &WireSwap) -> Option<usize> {
        let (absolute, segments) = swap.module.as_ref()?;
        let Resolved::Local(id) = self.resolve(site, *absolute, segments) else {
            return None;
        };
        self.types.defs[id]
            .serde
            .as_ref()
            .is_ok_and(|shape| shape.container.remote)
            .then_some(id)
    }

    /// The schema of a type with `into`, `from` or `try_from`: the schema of the type it
    /// is written and read as, when that is one type; empty for the type's markers to fill
    /// in when they say what goes over the wire; an error otherwise.
    pub(super) fn converted_schema(
        &mut self,
        site: Site<'m>,
        def: &'m TypeDef,
        container: &ContainerAttrs,
    ) -> Option<JSONSchemaProps> {
        // The type's markers' mistakes are reported when they are applied; here only what
        // they say about the wire counts.
        if markers_say_what(&def.markers) {
            return Some(JSONSchemaProps::default());
        }
        match &def.converts_through {
            Some(Ok(ty)) => return self.type_schema(site, ty),
            Some(Err(problem)) => {
                self.problems.add(problem.clone());
                return None;
            }
            None => {}
        }
        let name = &def.name;
        let first: &WireSwap = &container.conversions[0];
        let message = match container.conversions.as_slice() {
            [only] if only.attribute == "into" => format!(
                "#[serde(into = \"{}\")] writes `{name}` as `{}`, but serde reads it as `{name}` itself: add `from = \"{}\"` (or `try_from`) so both ways go through one type, or {SAY_WHAT} on the type",
                only.target, only.target, only.target
            ),
            [only] => format!(
                "#[serde({} = \"{}\")] reads `{name}` from `{}`, but serde writes it as `{name}` itself: add `into = \"{}\"` so both ways go through one type, or {SAY_WHAT} on the type",
                only.attribute, only.target, only.target, only.target
            ),
            _ => format!(
                "`{name}` is written as `{}` and read as `{}` (#[serde(into, from)]): no one schema admits exactly what both read and write; use one type both ways, or {SAY_WHAT} on the type",
                container
                    .conversions
                    .iter()
                    .find(|c| c.attribute == "into")
                    .map_or("?", |c| c.target.as_str()),
                container
                    .conversions
                    .iter()
                    .find(|c| c.attribute != "into")
                    .map_or("?", |c| c.target.as_str()),
            ),
        };
        self.error(first.at, message);
        None
    }
}

/// The `T` of an `Option<T>`.
fn option_of(ty: &Ty) -> Option<&Ty> {
    match &ty.kind {
        TyKind::Path { segments, args, .. } if segments.last()? == "Option" => args.first(),
        _ => None,
    }
}
