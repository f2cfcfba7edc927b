//! Stage three: Rust types to structural OpenAPI v3 schemas. Resolves type paths through
//! the source index, honours serde's renames, skips, defaults and flattening, applies the
//! schema markers (checking that each fits the type it lands on), and reports what cannot
//! be expressed (floats without opt-in, generics, recursion, unknown types) at its span.

use std::collections::{BTreeMap, HashMap};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    ExternalDocumentation, JSON, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
    ValidationRule,
};
use proc_macro2::Span;
use syn::spanned::Spanned as _;

use crate::diagnostics::Diagnostics;
use crate::docs;
use crate::known_types;
use crate::markers::{
    self, CelRule, FieldMarkers, MarkerTarget, OneOf, SchemaProp, Spanned, Validation,
};
use crate::serde_attrs::{self, ContainerAttrs};
use crate::source::{Index, Resolved, SourceFile, TypeDecl, TypeItem};
use crate::{Options, Origin};

/// Types that serialize as their content (`Option` also makes a field optional).
const WRAPPERS: &[&str] = &["Option", "Box", "Rc", "Arc"];

/// Builds schemas for the types of one source index, collecting problems as it goes.
#[derive(Debug)]
pub struct SchemaBuilder<'a, 'i> {
    index: &'i Index<'a>,
    options: &'i Options,
    /// Types being built, innermost last, to detect recursion.
    stack: Vec<usize>,
    cache: HashMap<usize, Cached>,
    pub file_problems: Vec<(&'a SourceFile, Span, String, Origin)>,
}

/// What the builder remembers of a declared type's schema.
#[derive(Debug)]
enum Cached {
    /// Built once and handed out without a copy. Most types are used once, and a schema
    /// copy per type doubled the memory of a large API; a type used again is built again,
    /// and kept from then on.
    Once,
    /// Kept for every further use (`None`: the type has errors, already reported).
    Kept(Option<Box<JSONSchemaProps>>),
}

/// Where a type expression was written: its module (for name resolution) and file.
#[derive(Clone, Copy)]
struct Site<'a, 'm> {
    module: &'m [String],
    file: &'a SourceFile,
}

impl<'a, 'i> SchemaBuilder<'a, 'i> {
    pub fn new(index: &'i Index<'a>, options: &'i Options) -> Self {
        Self {
            index,
            options,
            stack: Vec::new(),
            cache: HashMap::new(),
            file_problems: Vec::new(),
        }
    }

    fn error(&mut self, file: &'a SourceFile, span: Span, message: impl Into<String>) {
        self.file_problems
            .push((file, span, message.into(), Origin::Source));
    }

    fn push_diags(&mut self, file: &'a SourceFile, diags: Diagnostics) {
        for d in diags.into_vec() {
            self.file_problems
                .push((file, d.span, d.message, Origin::Marker));
        }
    }

    /// The schema of a root kind: `apiVersion`, `kind`, `metadata` and the struct's own fields.
    pub fn root_schema(&mut self, decl: &TypeDecl<'a>) -> Option<JSONSchemaProps> {
        let TypeItem::Struct(item) = decl.item else {
            self.error(
                decl.file,
                decl.item.ident().span(),
                "#[resource] goes on a struct with named fields",
            );
            return None;
        };
        let site = Site {
            module: decl.module,
            file: decl.file,
        };
        let container = self.container_attrs(decl.file, decl.item.attrs());
        let mut schema = self.struct_schema(site, &item.fields, &container, true)?;
        let props = schema.properties.get_or_insert_with(BTreeMap::new);
        props.insert(
            "apiVersion".into(),
            JSONSchemaProps {
                description: Some(known_types::API_VERSION_DESCRIPTION.into()),
                type_: Some("string".into()),
                ..Default::default()
            },
        );
        props.insert(
            "kind".into(),
            JSONSchemaProps {
                description: Some(known_types::KIND_DESCRIPTION.into()),
                type_: Some("string".into()),
                ..Default::default()
            },
        );
        // The API server owns the shape of the top-level metadata.
        props.insert(
            "metadata".into(),
            JSONSchemaProps {
                type_: Some("object".into()),
                ..Default::default()
            },
        );
        if let Some(required) = &mut schema.required {
            required.retain(|r| r != "metadata");
            if required.is_empty() {
                schema.required = None;
            }
        }
        schema.description = docs::description(decl.item.attrs());
        let mut diags = Diagnostics::new();
        let markers =
            markers::parse_field_markers(decl.item.attrs(), MarkerTarget::Type, &mut diags);
        self.push_diags(decl.file, diags);
        self.apply_markers(decl.file, &mut schema, &markers);
        Some(schema)
    }

    fn container_attrs(
        &mut self,
        file: &'a SourceFile,
        attrs: &[syn::Attribute],
    ) -> ContainerAttrs {
        match serde_attrs::container_attrs(attrs) {
            Ok(c) => c,
            Err(e) => {
                self.error(file, e.span(), format!("cannot read serde attribute: {e}"));
                ContainerAttrs::default()
            }
        }
    }

    /// The serde attributes of a field or variant; `None` (reported) when they do not read.
    fn field_attrs(
        &mut self,
        file: &'a SourceFile,
        attrs: &[syn::Attribute],
    ) -> Option<serde_attrs::FieldAttrs> {
        serde_attrs::field_attrs(attrs)
            .map_err(|e| self.error(file, e.span(), format!("cannot read serde attribute: {e}")))
            .ok()
    }

    /// The schema of a named type declared in the sources (cached; recursion is an error).
    fn decl_schema(
        &mut self,
        id: usize,
        use_span: (&'a SourceFile, Span),
    ) -> Option<JSONSchemaProps> {
        if let Some(Cached::Kept(done)) = self.cache.get(&id) {
            return done.as_deref().cloned();
        }
        let decl = self.index.decl(id);
        if let Some(pos) = self.stack.iter().position(|d| *d == id) {
            let cycle: Vec<String> = self.stack[pos..]
                .iter()
                .map(|d| self.index.skeleton.decls[*d].name.clone())
                .chain(std::iter::once(decl.name()))
                .collect();
            self.error(
                use_span.0,
                use_span.1,
                format!(
                    "recursive type: {} cannot be expressed as a structural schema; break the cycle, for example with #[schema(schemaless, preserve_unknown_fields)] on this field",
                    cycle.join(" -> ")
                ),
            );
            return None;
        }
        if !decl.item.generics().params.is_empty() {
            self.error(
                decl.file,
                decl.item.generics().span(),
                format!(
                    "generic type `{}` is not supported in a CRD schema; use a concrete type",
                    decl.name()
                ),
            );
            self.cache.insert(id, Cached::Kept(None));
            return None;
        }
        self.stack.push(id);
        let site = Site {
            module: decl.module,
            file: decl.file,
        };
        let container = self.container_attrs(decl.file, decl.item.attrs());
        let mut schema = match decl.item {
            TypeItem::Struct(s) => match &s.fields {
                syn::Fields::Named(_) if container.transparent => {
                    let field = s.fields.iter().find(|f| {
                        serde_attrs::field_attrs(&f.attrs)
                            .map(|a| !a.skip_deserializing)
                            .unwrap_or(true)
                    });
                    field.and_then(|f| self.type_schema(site, &f.ty))
                }
                syn::Fields::Named(_) => self.struct_schema(site, &s.fields, &container, false),
                syn::Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                    self.type_schema(site, &u.unnamed[0].ty)
                }
                _ => {
                    self.error(
                        decl.file,
                        s.ident.span(),
                        format!(
                            "`{}` serializes as a JSON array or null, which has no structural schema; use named fields",
                            s.ident
                        ),
                    );
                    None
                }
            },
            TypeItem::Enum(e) => self.enum_schema(site, e, &container),
            TypeItem::Alias(t) => self.type_schema(site, &t.ty),
        };
        self.stack.pop();
        if let Some(schema) = &mut schema {
            schema.description = docs::description(decl.item.attrs()).or(schema.description.take());
            if let TypeItem::Alias(alias) = decl.item {
                // rustc refuses derive helper attributes on a `type` item (there is no derive
                // to declare them), so markers here never compile: refuse them too.
                for attr in alias
                    .attrs
                    .iter()
                    .filter(|a| markers::marker_name(a).is_some())
                {
                    // The compiler reports these at the marker: they count as the grammar's.
                    self.file_problems.push((
                        decl.file,
                        attr.span(),
                        format!(
                            "markers cannot go on a type alias (`type {} = ...`): the compiler refuses them there; make it a newtype (`pub struct {}(...)` with #[derive(Schema)]) or put the markers on the fields that use it",
                            alias.ident, alias.ident
                        ),
                        Origin::Marker,
                    ));
                }
            } else {
                let mut diags = Diagnostics::new();
                let markers =
                    markers::parse_field_markers(decl.item.attrs(), MarkerTarget::Type, &mut diags);
                self.push_diags(decl.file, diags);
                self.apply_markers(decl.file, schema, &markers);
            }
        }
        match self.cache.get(&id) {
            None => {
                self.cache.insert(id, Cached::Once);
            }
            // Built before, or found to be recursive while it was being built.
            Some(_) => {
                self.cache
                    .insert(id, Cached::Kept(schema.clone().map(Box::new)));
            }
        }
        schema
    }

    fn struct_schema(
        &mut self,
        site: Site<'a, '_>,
        fields: &'a syn::Fields,
        container: &ContainerAttrs,
        is_root: bool,
    ) -> Option<JSONSchemaProps> {
        let mut properties = BTreeMap::new();
        let mut required = Vec::new();
        // Optional immutable fields, in field order: once set, they may not be unset.
        let mut once_set = Vec::new();
        let mut ok = true;
        for field in fields {
            let Some(ident) = &field.ident else { continue };
            let Some(attrs) = self.field_attrs(site.file, &field.attrs) else {
                continue;
            };
            if attrs.skip_serializing && attrs.skip_deserializing {
                continue;
            }
            let rust_name = syn::ext::IdentExt::unraw(ident).to_string();
            let json_name = attrs.rename.clone().unwrap_or_else(|| {
                container
                    .rename_all
                    .map_or(rust_name.clone(), |r| r.apply_to_field(&rust_name))
            });
            if is_root && json_name == "metadata" {
                continue;
            }
            let mut diags = Diagnostics::new();
            let markers =
                markers::parse_field_markers(&field.attrs, MarkerTarget::Field, &mut diags);
            self.push_diags(site.file, diags);

            if attrs.flatten {
                match self.type_schema(site, &field.ty) {
                    Some(inner) if inner.properties.is_some() => {
                        properties.extend(inner.properties.unwrap_or_default());
                        if !is_option(&field.ty) {
                            required.extend(inner.required.unwrap_or_default());
                        }
                    }
                    Some(_) => {
                        self.error(
                            site.file,
                            field.ty.span(),
                            "#[serde(flatten)] is supported for structs with named fields; a flattened map has no structural schema",
                        );
                        ok = false;
                    }
                    None => ok = false,
                }
                continue;
            }

            let schemaless = markers
                .has(|p| matches!(p, SchemaProp::Schemaless))
                .is_some();
            let schema = if schemaless {
                Some(JSONSchemaProps::default())
            } else {
                self.type_schema(site, &field.ty)
            };
            let Some(mut schema) = schema else {
                ok = false;
                continue;
            };
            // Without markers of its own the field is its type's schema with the field's doc,
            // which the `else` branch builds without the merge's round trip through JSON.
            if !markers.is_empty()
                && !schemaless
                && markers.items.is_empty()
                && markers.items_schema.is_empty()
                && self.is_named(site, &field.ty)
            {
                // A field of a named type: controller-gen writes the field's own markers
                // next to a reference to the type and flattens the two; conflicting values
                // end up side by side in `allOf`.
                let mut overlay = JSONSchemaProps {
                    type_: schema.type_.clone(),
                    x_kubernetes_int_or_string: schema.x_kubernetes_int_or_string,
                    description: docs::description(&field.attrs),
                    ..Default::default()
                };
                self.apply_markers(site.file, &mut overlay, &markers);
                schema = merge_field_over_type(overlay, schema);
            } else {
                if let Some(doc) = docs::description(&field.attrs) {
                    schema.description = Some(doc);
                }
                self.apply_markers(site.file, &mut schema, &markers);
            }
            if markers
                .has(|p| matches!(p, SchemaProp::SkipDescriptions))
                .is_some()
            {
                // After flattening, as controller-gen applies it: only now does the schema
                // hold the type's nested descriptions.
                clear_nested_descriptions(&mut schema);
            }

            let is_required = if markers.required.is_some() {
                true
            } else if markers.optional.is_some() {
                false
            } else {
                !(is_option(&field.ty)
                    || attrs.default
                    || container.default
                    || attrs.skip_deserializing)
            };
            if is_required {
                required.push(json_name.clone());
            } else if markers.immutable.is_some() {
                once_set.push(json_name.clone());
            }
            if properties.insert(json_name.clone(), schema).is_some() {
                self.error(
                    site.file,
                    ident.span(),
                    format!("two fields serialize to the JSON name `{json_name}`"),
                );
            }
        }
        if !ok {
            return None;
        }
        required.sort();
        required.dedup();
        let mut schema = JSONSchemaProps {
            type_: Some("object".into()),
            properties: (!properties.is_empty()).then_some(properties),
            required: (!required.is_empty()).then_some(required),
            ..Default::default()
        };
        // `self == oldSelf` on the field cannot see a field that is removed, so the parent
        // also refuses to unset it (controller-gen writes these before the type's own rules).
        for name in &once_set {
            let field = cel_field(name);
            push_rule(
                &mut schema,
                &CelRule {
                    rule: format!("!has(oldSelf.{field}) || has(self.{field})"),
                    message: Some(format!("field {name} is immutable once set")),
                    ..Default::default()
                },
            );
        }
        Some(schema)
    }

    /// The schema of an enum, following serde's representation of it: unit variants alone
    /// are a string enum; data-carrying variants become objects (externally tagged: one
    /// property per variant, exactly one set; internally or adjacently tagged: the tag as a
    /// string enum next to the variants' fields, with each variant's required fields checked
    /// by a CEL rule; untagged: the union of the variants' fields). Shapes that are not
    /// structural (strings mixed with objects, tuples, untagged unit variants) are errors.
    fn enum_schema(
        &mut self,
        site: Site<'a, '_>,
        item: &'a syn::ItemEnum,
        container: &ContainerAttrs,
    ) -> Option<JSONSchemaProps> {
        let mut variants: Vec<(String, &'a syn::Variant)> = Vec::new();
        for variant in &item.variants {
            let attrs = self.field_attrs(site.file, &variant.attrs)?;
            if attrs.skip_deserializing {
                continue;
            }
            if let Some(marker) = variant
                .attrs
                .iter()
                .find(|a| markers::marker_name(a).is_some())
            {
                self.error(site.file, marker.span(), markers::VARIANT_MARKER);
                return None;
            }
            if let syn::Fields::Unnamed(u) = &variant.fields
                && u.unnamed.len() != 1
            {
                self.error(
                    site.file,
                    variant.ident.span(),
                    format!(
                        "variant `{}` serializes as a JSON array, which has no structural schema; use named fields",
                        variant.ident
                    ),
                );
                return None;
            }
            let name = variant.ident.to_string();
            let json_name = attrs.rename.unwrap_or_else(|| {
                container
                    .rename_all
                    .map_or(name.clone(), |r| r.apply_to_variant(&name))
            });
            variants.push((json_name, variant));
        }
        if container.untagged {
            return self.untagged_enum(site, item, &variants, container);
        }
        match &container.tag {
            None => self.externally_tagged_enum(site, item, &variants, container),
            Some(tag) => self.tagged_enum(site, item, &variants, container, tag),
        }
    }

    /// `#[serde(untagged)]`: the union of the variants' fields, and a rule that the object
    /// has all required fields of at least one variant.
    fn untagged_enum(
        &mut self,
        site: Site<'a, '_>,
        item: &'a syn::ItemEnum,
        variants: &[(String, &'a syn::Variant)],
        container: &ContainerAttrs,
    ) -> Option<JSONSchemaProps> {
        if let Some((_, unit)) = variants.iter().find(|(_, v)| is_unit(v)) {
            self.error(
                site.file,
                unit.ident.span(),
                format!(
                    "unit variant `{}` of an untagged enum serializes as null, which has no structural schema",
                    unit.ident
                ),
            );
            return None;
        }
        let mut union = object(BTreeMap::new());
        let mut alternatives = Vec::new();
        for (_, variant) in variants {
            let fields = self.variant_object(site, item, variant, container)?;
            alternatives.push(fields.required.clone().unwrap_or_default());
            self.merge_variant_fields(site, item, variant, &mut union, fields)?;
        }
        // A variant without required fields matches any object: then there is nothing to check.
        if alternatives.iter().all(|r| !r.is_empty()) {
            let has_all = |fields: &[String]| {
                fields
                    .iter()
                    .map(|f| format!("has(self.{})", cel_field(f)))
                    .collect::<Vec<_>>()
                    .join(" && ")
            };
            push_rule(
                &mut union,
                &CelRule {
                    rule: alternatives
                        .iter()
                        .map(|r| format!("({})", has_all(r)))
                        .collect::<Vec<_>>()
                        .join(" || "),
                    message: Some(format!(
                        "must be one of the forms of {}: with {}",
                        item.ident,
                        alternatives
                            .iter()
                            .map(|r| r.join(" and "))
                            .collect::<Vec<_>>()
                            .join(", or with ")
                    )),
                    ..Default::default()
                },
            );
        }
        Some(union)
    }

    /// serde's default representation: a unit variant is its name as a string, any other
    /// variant an object with the variant's name as its one key.
    fn externally_tagged_enum(
        &mut self,
        site: Site<'a, '_>,
        item: &'a syn::ItemEnum,
        variants: &[(String, &'a syn::Variant)],
        container: &ContainerAttrs,
    ) -> Option<JSONSchemaProps> {
        if variants.iter().all(|(_, v)| is_unit(v)) {
            return Some(string_enum(variants));
        }
        if let Some((_, unit)) = variants.iter().find(|(_, v)| is_unit(v)) {
            self.error(
                site.file,
                unit.ident.span(),
                format!(
                    "enum `{}` mixes unit variants (JSON strings) with data-carrying variants (JSON objects), which no structural schema allows; give `{}` a field, or use #[serde(tag = \"...\")]",
                    item.ident, unit.ident
                ),
            );
            return None;
        }
        let mut properties = BTreeMap::new();
        for (json_name, variant) in variants {
            let mut schema = match &variant.fields {
                syn::Fields::Unnamed(u) => self.type_schema(site, &u.unnamed[0].ty)?,
                _ => self.variant_object(site, item, variant, container)?,
            };
            if let Some(doc) = docs::description(&variant.attrs) {
                schema.description = Some(doc);
            }
            properties.insert(json_name.clone(), schema);
        }
        Some(JSONSchemaProps {
            min_properties: Some(1),
            max_properties: Some(1),
            ..object(properties)
        })
    }

    /// Internally (`tag`) or adjacently (`tag` + `content`) tagged: an object whose tag names
    /// the variant, next to (or with `content` holding) the union of the variants' fields,
    /// and a CEL rule per variant requiring its fields when the tag names it.
    fn tagged_enum(
        &mut self,
        site: Site<'a, '_>,
        item: &'a syn::ItemEnum,
        variants: &[(String, &'a syn::Variant)],
        container: &ContainerAttrs,
        tag: &str,
    ) -> Option<JSONSchemaProps> {
        let mut union = object(BTreeMap::new());
        let mut rules = Vec::new();
        for (json_name, variant) in variants {
            let mut checks: Vec<String> = Vec::new();
            let mut required = Vec::new();
            if !is_unit(variant) {
                let fields = self.variant_object(site, item, variant, container)?;
                required = fields.required.clone().unwrap_or_default();
                self.merge_variant_fields(site, item, variant, &mut union, fields)?;
                if let Some(content) = &container.content {
                    checks.push(format!("has(self.{})", cel_field(content)));
                }
            }
            let prefix = container
                .content
                .as_ref()
                .map_or(String::new(), |c| format!("{}.", cel_field(c)));
            checks.extend(
                required
                    .iter()
                    .map(|f| format!("has(self.{prefix}{})", cel_field(f))),
            );
            if checks.is_empty() {
                continue;
            }
            rules.push(CelRule {
                rule: format!(
                    "self.{} != '{}' || ({})",
                    cel_field(tag),
                    json_name.replace('\\', "\\\\").replace('\'', "\\'"),
                    checks.join(" && ")
                ),
                message: Some(format!(
                    "{tag} {json_name} needs {}",
                    match (&container.content, required.is_empty()) {
                        (Some(c), true) => c.clone(),
                        (Some(c), false) => format!("{c} with {}", required.join(", ")),
                        (None, _) => required.join(", "),
                    }
                )),
                ..Default::default()
            });
        }
        let mut properties = BTreeMap::from([(tag.to_string(), string_enum(variants))]);
        // Rules of the variants' own types stay with their fields: on `content`, or, when the
        // fields sit next to the tag, on the enum's object after the tag rules.
        let mut carried_rules = Vec::new();
        match &container.content {
            Some(content) => {
                if union.properties.is_some() {
                    properties.insert(content.clone(), union);
                }
            }
            None => {
                carried_rules = union.x_kubernetes_validations.take().unwrap_or_default();
                for (name, prop) in union.properties.take().unwrap_or_default() {
                    if properties.insert(name.clone(), prop).is_some() {
                        self.error(
                            site.file,
                            item.ident.span(),
                            format!(
                                "a variant of `{}` has a field `{name}`, the name of the enum's tag",
                                item.ident
                            ),
                        );
                        return None;
                    }
                }
            }
        }
        let mut schema = JSONSchemaProps {
            required: Some(vec![tag.to_string()]),
            ..object(properties)
        };
        for rule in &rules {
            push_rule(&mut schema, rule);
        }
        if !carried_rules.is_empty() {
            schema
                .x_kubernetes_validations
                .get_or_insert_with(Vec::new)
                .extend(carried_rules);
        }
        Some(schema)
    }

    /// The object a struct variant (or a newtype variant carrying a struct) serializes to.
    fn variant_object(
        &mut self,
        site: Site<'a, '_>,
        item: &'a syn::ItemEnum,
        variant: &'a syn::Variant,
        container: &ContainerAttrs,
    ) -> Option<JSONSchemaProps> {
        let variant_attrs = self.container_attrs(site.file, &variant.attrs);
        if variant_attrs.untagged {
            self.error(
                site.file,
                variant.ident.span(),
                format!(
                    "#[serde(untagged)] on variant `{}` mixes two representations in one enum; operator-gen supports one representation per enum",
                    variant.ident
                ),
            );
            return None;
        }
        let schema = match &variant.fields {
            syn::Fields::Named(_) => {
                // A variant's own `rename_all` wins over the enum's `rename_all_fields`.
                let fields_container = ContainerAttrs {
                    rename_all: variant_attrs.rename_all.or(container.rename_all_fields),
                    ..Default::default()
                };
                self.struct_schema(site, &variant.fields, &fields_container, false)?
            }
            syn::Fields::Unnamed(u) => self.type_schema(site, &u.unnamed[0].ty)?,
            syn::Fields::Unit => return Some(object(BTreeMap::new())),
        };
        if schema.type_.as_deref() != Some("object") || schema.additional_properties.is_some() {
            self.error(
                site.file,
                variant.ident.span(),
                format!(
                    "variant `{}` of `{}` must carry a struct with named fields in this enum representation (its fields become the object's fields)",
                    variant.ident, item.ident
                ),
            );
            return None;
        }
        Some(schema)
    }

    /// Adds a variant's fields to the union of all variants' fields; all are optional in
    /// the union. Two variants may share a field only with the same schema.
    fn merge_variant_fields(
        &mut self,
        site: Site<'a, '_>,
        item: &'a syn::ItemEnum,
        variant: &'a syn::Variant,
        union: &mut JSONSchemaProps,
        fields: JSONSchemaProps,
    ) -> Option<()> {
        let properties = union.properties.get_or_insert_with(BTreeMap::new);
        for (name, prop) in fields.properties.unwrap_or_default() {
            match properties.get(&name) {
                Some(existing) if *existing != prop => {
                    self.error(
                        site.file,
                        variant.ident.span(),
                        format!(
                            "variant `{}` of `{}` has a field `{name}` that another variant declares with a different schema; the variants' fields share one object",
                            variant.ident, item.ident
                        ),
                    );
                    return None;
                }
                Some(_) => {}
                None => {
                    properties.insert(name, prop);
                }
            }
        }
        for rule in fields.x_kubernetes_validations.unwrap_or_default() {
            union
                .x_kubernetes_validations
                .get_or_insert_with(Vec::new)
                .push(rule);
        }
        Some(())
    }

    /// Whether `ty` (under `Option`, `Box` and references) names a type with a schema of its
    /// own: a type declared in the sources or a Kubernetes type. controller-gen refers to
    /// those by reference instead of inlining them.
    fn is_named(&self, site: Site<'a, '_>, ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Reference(r) => self.is_named(site, &r.elem),
            syn::Type::Paren(p) => self.is_named(site, &p.elem),
            syn::Type::Group(g) => self.is_named(site, &g.elem),
            syn::Type::Path(tp) if tp.qself.is_none() => {
                let Some(last) = tp.path.segments.last() else {
                    return false;
                };
                if WRAPPERS.iter().any(|w| last.ident == w) {
                    if let syn::PathArguments::AngleBracketed(a) = &last.arguments
                        && let Some(syn::GenericArgument::Type(inner)) = a.args.first()
                    {
                        return self.is_named(site, inner);
                    }
                    return false;
                }
                match self.index.resolve(site.module, &tp.path) {
                    Resolved::Local(_) => true,
                    Resolved::Ambiguous(_) => false,
                    Resolved::External(p) => known_types::is_known_path(&p),
                }
            }
            _ => false,
        }
    }

    /// Maps a Rust type expression to a schema.
    fn type_schema(&mut self, site: Site<'a, '_>, ty: &'a syn::Type) -> Option<JSONSchemaProps> {
        match ty {
            syn::Type::Path(tp) if tp.qself.is_none() => self.path_schema(site, ty, &tp.path),
            syn::Type::Reference(r) => self.type_schema(site, &r.elem),
            syn::Type::Paren(p) => self.type_schema(site, &p.elem),
            syn::Type::Group(g) => self.type_schema(site, &g.elem),
            syn::Type::Array(a) => self.array_of(site, &a.elem),
            syn::Type::Slice(a) => self.array_of(site, &a.elem),
            other => {
                self.error(
                    site.file,
                    other.span(),
                    format!(
                        "unsupported type `{}`: use a struct, enum, String, integer, bool, Option, Vec or map",
                        quote::quote!(#other)
                    ),
                );
                None
            }
        }
    }

    fn array_of(&mut self, site: Site<'a, '_>, elem: &'a syn::Type) -> Option<JSONSchemaProps> {
        let items = self.type_schema(site, elem)?;
        Some(JSONSchemaProps {
            type_: Some("array".into()),
            items: Some(JSONSchemaPropsOrArray::Schema(Box::new(items))),
            ..Default::default()
        })
    }

    fn path_schema(
        &mut self,
        site: Site<'a, '_>,
        ty: &'a syn::Type,
        path: &'a syn::Path,
    ) -> Option<JSONSchemaProps> {
        let last = path.segments.last()?;
        let name = last.ident.to_string();
        let args: Vec<&'a syn::Type> = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) => a
                .args
                .iter()
                .filter_map(|arg| match arg {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let resolved = self.index.resolve(site.module, path);
        let full_path = match resolved {
            Resolved::Local(id) => return self.decl_schema(id, (site.file, ty.span())),
            Resolved::Ambiguous(ids) => {
                let places: Vec<String> = ids
                    .iter()
                    .map(|i| {
                        let d = &self.index.skeleton.decls[*i];
                        format!(
                            "crate::{}",
                            d.module
                                .iter()
                                .cloned()
                                .chain([d.name.clone()])
                                .collect::<Vec<_>>()
                                .join("::")
                        )
                    })
                    .collect();
                self.error(
                    site.file,
                    ty.span(),
                    format!(
                        "`{name}` is ambiguous: it could be {}; import the one you mean with `use`",
                        places.join(" or ")
                    ),
                );
                return None;
            }
            Resolved::External(p) => p,
        };
        let scalar = |t: &str, format: Option<&str>| {
            Some(JSONSchemaProps {
                type_: Some(t.into()),
                format: format.map(Into::into),
                ..Default::default()
            })
        };
        match (name.as_str(), args.as_slice()) {
            ("i8" | "i16" | "u8" | "u16" | "isize" | "usize", []) => scalar("integer", None),
            ("i32" | "u32", []) => scalar("integer", Some("int32")),
            ("i64" | "u64", []) => scalar("integer", Some("int64")),
            ("f32" | "f64", []) => {
                if self.options.allow_dangerous_types {
                    scalar("number", None)
                } else {
                    self.error(
                        site.file,
                        ty.span(),
                        format!(
                            "`{name}` fields are discouraged in Kubernetes APIs (floats do not round-trip across languages); use an integer or a Quantity, or pass --allow-dangerous-types"
                        ),
                    );
                    None
                }
            }
            ("bool", []) => scalar("boolean", None),
            ("String" | "str" | "char", []) => scalar("string", None),
            (wrapper, [inner]) if WRAPPERS.contains(&wrapper) => self.type_schema(site, inner),
            ("Vec", [syn::Type::Path(p)]) if p.path.is_ident("u8") => {
                scalar("string", Some("byte"))
            }
            ("Vec" | "VecDeque" | "BTreeSet" | "HashSet", [inner]) => self.array_of(site, inner),
            ("BTreeMap" | "HashMap", [key, value]) => {
                let key_schema = self.type_schema(site, key)?;
                if key_schema.type_.as_deref() != Some("string") {
                    self.error(
                        site.file,
                        key.span(),
                        "map keys must serialize as strings (String or a string enum)",
                    );
                    return None;
                }
                let value = self.type_schema(site, value)?;
                Some(JSONSchemaProps {
                    type_: Some("object".into()),
                    additional_properties: Some(JSONSchemaPropsOrBool::Schema(Box::new(value))),
                    ..Default::default()
                })
            }
            ("Value", [])
                if full_path.first().is_some_and(|p| p == "serde_json") || full_path.len() == 1 =>
            {
                Some(JSONSchemaProps {
                    x_kubernetes_preserve_unknown_fields: Some(true),
                    ..Default::default()
                })
            }
            _ => {
                if let Some(schema) = known_types::schema_for_path(&full_path) {
                    return Some(schema);
                }
                let message = if known_types::is_kubernetes_path(&full_path) {
                    format!(
                        "`{}` is not among the Kubernetes types operator-gen knows ({}); use `serde_json::Value` with #[schema(preserve_unknown_fields)], or add the type to the `embedded` parity case and run `cargo xtask known-types`",
                        full_path.join("::"),
                        known_types::known_names().join(", ")
                    )
                } else {
                    format!(
                        "cannot generate a schema for `{}`: it is not declared in the scanned sources and is not a supported Kubernetes or standard type; add the file that declares it to the generator's paths",
                        full_path.join("::")
                    )
                };
                self.error(site.file, ty.span(), message);
                None
            }
        }
    }

    /// Applies field or type markers to `schema`, checking that each fits.
    fn apply_markers(
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

/// Flattens the schema of a field (`field`: its own markers and docs) with the schema of its
/// named type (`ty`) the way controller-gen's flattener does: the field's title,
/// description, example and external docs win when it has them; the type's enum wins; properties
/// and additional properties merge; required lists concatenate; the field's
/// preserve-unknown-fields and map type win; CEL rules are the field's followed by the
/// type's; any other property set differently on both moves into `allOf: [type's, field's]`.
pub fn merge_field_over_type(field: JSONSchemaProps, ty: JSONSchemaProps) -> JSONSchemaProps {
    let to_map = |s: JSONSchemaProps| match serde_json::to_value(s) {
        Ok(serde_json::Value::Object(m)) => m,
        _ => serde_json::Map::new(),
    };
    let (mut dst, mut src) = (to_map(ty), to_map(field));
    let docs: Vec<(String, serde_json::Value)> =
        ["title", "description", "example", "externalDocs"]
            .into_iter()
            .filter_map(|k| src.remove(k).map(|v| (k.to_string(), v)))
            .collect();
    flatten_into(&mut dst, src);
    dst.extend(docs);
    serde_json::from_value(serde_json::Value::Object(dst)).unwrap_or_default()
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

fn is_unit(variant: &syn::Variant) -> bool {
    matches!(variant.fields, syn::Fields::Unit)
}

/// A string enum of the variants' JSON names.
fn string_enum(variants: &[(String, &syn::Variant)]) -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some("string".into()),
        enum_: Some(
            variants
                .iter()
                .map(|(name, _)| JSON(serde_json::Value::String(name.clone())))
                .collect(),
        ),
        ..Default::default()
    }
}

/// An object schema with these properties (none: no `properties` key).
fn object(properties: BTreeMap<String, JSONSchemaProps>) -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some("object".into()),
        properties: (!properties.is_empty()).then_some(properties),
        ..Default::default()
    }
}

/// A property name as CEL in the API server spells it: names that are not identifiers, or
/// are CEL keywords, are escaped (`__dash__`, `__dot__`, `__slash__`, `__underscores__`,
/// `__namespace__`, ...).
fn cel_field(name: &str) -> String {
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

fn is_option(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option"))
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
fn clear_nested_descriptions(schema: &mut JSONSchemaProps) {
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

fn push_rule(schema: &mut JSONSchemaProps, rule: &CelRule) {
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

#[cfg(test)]
mod tests {
    use super::cel_field;

    fn generate(text: &str) -> Result<crate::Generated, crate::Error> {
        crate::generate_from_texts(
            std::path::Path::new("src"),
            vec![("src/lib.rs".into(), text.to_string())],
            &crate::Options::default(),
        )
    }

    #[test]
    fn a_type_used_many_times_has_the_same_schema_at_every_use() {
        let generated = generate(
            r#"
            #[derive(CustomResource)]
            #[resource(group = "test.example.com", version = "v1")]
            pub struct Thing { pub metadata: ObjectMeta, pub spec: ThingSpec }
            #[derive(Schema)]
            pub struct ThingSpec {
                pub first: Shared,
                pub second: Option<Shared>,
                pub third: Vec<Shared>,
                pub fourth: Shared,
            }
            /// Shared is used four times.
            #[derive(Schema)]
            #[validation(max_properties = 3)]
            pub struct Shared {
                #[validation(minimum = 1)]
                pub count: i32,
            }
            "#,
        )
        .unwrap();
        let spec = crate::output::to_json(&generated.crds[0])["spec"]["versions"][0]["schema"]
            ["openAPIV3Schema"]["properties"]["spec"]["properties"]
            .clone();
        let first = &spec["first"];
        assert_eq!(first["description"], "Shared is used four times.");
        assert_eq!(first["maxProperties"], 3);
        assert_eq!(first["properties"]["count"]["minimum"], 1);
        assert_eq!(&spec["second"], first);
        assert_eq!(&spec["third"]["items"], first);
        assert_eq!(&spec["fourth"], first);
    }

    #[test]
    fn a_broken_type_used_many_times_is_reported_once() {
        let err = generate(
            r#"
            #[derive(CustomResource)]
            #[resource(group = "test.example.com", version = "v1")]
            pub struct Thing { pub metadata: ObjectMeta, pub spec: ThingSpec }
            #[derive(Schema)]
            pub struct ThingSpec { pub a: Node, pub b: Node, pub c: Vec<Node>, pub d: Bad, pub e: Bad }
            #[derive(Schema)]
            pub struct Node { pub children: Vec<Node> }
            #[derive(Schema)]
            pub struct Bad { pub pair: (i32, i32) }
            "#,
        )
        .unwrap_err();
        let crate::Error::Invalid(errors) = err else {
            panic!("{err}")
        };
        let messages: Vec<String> = errors
            .iter()
            .map(|e| format!("{}:{} {}", e.line, e.column, e.message))
            .collect();
        assert_eq!(messages.len(), 2, "{messages:#?}");
        assert!(
            messages[0].starts_with("8:49 recursive type: Node -> Node"),
            "{messages:#?}"
        );
        assert!(
            messages[1].starts_with("10:40 unsupported type `(i32 , i32)`"),
            "{messages:#?}"
        );
    }

    #[test]
    fn cel_names_are_escaped_as_the_api_server_expects() {
        assert_eq!(cel_field("cron"), "cron");
        assert_eq!(cel_field("max-surge"), "max__dash__surge");
        assert_eq!(cel_field("a.b/c"), "a__dot__b__slash__c");
        assert_eq!(cel_field("a__b"), "a__underscores__b");
        assert_eq!(cel_field("namespace"), "__namespace__");
    }
}
