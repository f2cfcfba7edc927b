//! Fields and types whose serde attributes put something other than the Rust type on the
//! wire (`with`, `serialize_with`, `deserialize_with`; `into`, `from`, `try_from`). The
//! Rust type's schema would describe JSON that is never sent, so the schema comes from what
//! is known of the wire format instead: the type named by the conversion, the mirror type
//! of a `remote` derive, or the markers that say what goes over the wire. Anything else is
//! an error at the attribute.

use crate::api::apiextensions::v1::JSONSchemaProps;

use super::{SchemaBuilder, Site};
use crate::diagnostics::Diagnostics;
use crate::markers::{self, FieldMarkers, MarkerTarget, SchemaProp, Validation};
use crate::serde_attrs::{self, ContainerAttrs, FieldAttrs, WireSwap};
use crate::source::{Resolved, TypeDecl};

/// How to say what goes over the wire, for the error messages.
const SAY_WHAT: &str = "say what goes over the wire with markers, for example #[validation(type = \"string\", format = \"...\")] (or #[schema(int_or_string)], #[schema(preserve_unknown_fields)])";

/// Whether the markers describe the wire format on their own: a scalar `type`, or a
/// schema that needs no type (`int_or_string`, `preserve_unknown_fields`).
fn markers_say_what(markers: &FieldMarkers) -> bool {
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

impl<'a> SchemaBuilder<'a, '_> {
    /// The schema of a field (or a newtype's or transparent struct's one field) whose
    /// serde attributes swap its wire format: empty for the markers to fill in when they
    /// say what goes over the wire; the mirror type's with `with = "Mirror"` naming a
    /// `#[serde(remote = "...")]` type of the sources; an error otherwise.
    pub(super) fn swapped_field_schema(
        &mut self,
        site: Site<'a, '_>,
        field: &'a syn::Field,
        attrs: &FieldAttrs,
        markers: &FieldMarkers,
    ) -> Option<JSONSchemaProps> {
        if markers_say_what(markers) {
            return Some(JSONSchemaProps::default());
        }
        let swap = &attrs.swaps[0];
        if swap.attribute == "with"
            && let Some(id) = self.remote_mirror(site, &swap.target)
        {
            return self.decl_schema(id, (site.file, swap.span));
        }
        let ty = &field.ty;
        self.error(
            site.file,
            swap.span,
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
                quote::quote!(#ty).to_string().replace(' ', "")
            ),
        );
        None
    }

    /// The declared type `target` (a `with = "..."` path) names, when it is a mirror made
    /// with `#[serde(remote = "...")]`: serde then reads and writes the field through the
    /// mirror's fields.
    fn remote_mirror(&mut self, site: Site<'a, '_>, target: &str) -> Option<usize> {
        let path: syn::Path = syn::parse_str(target).ok()?;
        let Resolved::Local(id) = self.index.resolve(site.module, &path) else {
            return None;
        };
        let decl = self.index.decl(id);
        serde_attrs::read(&decl.item)
            .ok()
            .filter(|shape| shape.container.remote)
            .map(|_| id)
    }

    /// The schema of a type with `into`, `from` or `try_from`: the schema of the type it
    /// is written and read as, when that is one type; empty for the type's markers to fill
    /// in when they say what goes over the wire; an error otherwise.
    pub(super) fn converted_schema(
        &mut self,
        site: Site<'a, '_>,
        decl: &TypeDecl<'a>,
        container: &ContainerAttrs,
    ) -> Option<JSONSchemaProps> {
        // The type's markers are read (and their mistakes reported) again when they are
        // applied; here only what they say about the wire counts.
        let mut ignored = Diagnostics::new();
        let markers =
            markers::parse_field_markers(decl.item.attrs(), MarkerTarget::Type, &mut ignored);
        if markers_say_what(&markers) {
            return Some(JSONSchemaProps::default());
        }
        if let Some(through) = container.converts_through() {
            return match syn::parse_str::<syn::Type>(&through.target) {
                Ok(ty) => self.type_schema(site, &ty),
                Err(e) => {
                    self.error(site.file, through.span, format!("serde: {e}"));
                    None
                }
            };
        }
        let name = decl.name();
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
        self.error(site.file, first.span, message);
        None
    }
}
