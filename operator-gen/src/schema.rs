//! Stage three: the model's types to structural OpenAPI v3 schemas, a function of the
//! model alone (no syntax tree is read). This module walks declared types (structs with
//! serde's renames, skips, defaults and flattening; the root kind); its parts map type
//! expressions (`types`), enums (`enums`), apply markers (`apply`) and flatten a field over
//! its named type (`flatten`). What cannot be expressed (floats without opt-in, generics,
//! recursion, unknown types) is reported at its place in the sources.

use std::collections::{BTreeMap, HashMap};

use crate::api::apiextensions::v1::{JSON, JSONSchemaProps, ValidationRule};

mod apply;
mod enums;
mod external;
mod flatten;
mod humantime;
mod net;
mod rules;
mod types;
pub mod values;
mod wire;

pub use flatten::merge_field_over_type;

use apply::clear_nested_descriptions;
use rules::{RulePlaces, cel_field, push_rule, visit_rules_mut};

use crate::Options;
use crate::diagnostics::{Diagnostic, Diagnostics, Misfit};
use crate::known_types;
use crate::markers::{CelRule, SchemaProp};
use crate::model::{Body, FieldDef, Fields, Ty, TyKind, TypeDef};
use crate::place::Loc;
use crate::serde_attrs::{ContainerAttrs, FieldAttrs, SerdeShape, WireSwap};
use crate::source::Skeleton;

/// Types that serialize as their content (`Option` also makes a field optional).
const WRAPPERS: &[&str] = &[
    "Option",
    "Box",
    "Rc",
    "Arc",
    "Cow",
    "Cell",
    "RefCell",
    "Mutex",
    "RwLock",
    "Wrapping",
    "Saturating",
    "Reverse",
];

/// The wrappers that serde reads through when a value is missing, so that an `Option`
/// inside them still makes the field optional.
const POINTERS: &[&str] = &["Box", "Rc", "Arc"];

/// The declared types of the sources: names (the skeleton) and their models, by id.
#[derive(Clone, Copy)]
pub(crate) struct Types<'m> {
    pub skeleton: &'m Skeleton,
    pub defs: &'m [TypeDef],
    /// Where the instances of generic types (`Role<ZkConfig>`: `Role` with its type
    /// arguments in place) are kept while schemas are built.
    pub instances: &'m typed_arena::Arena<TypeDef>,
}

impl std::fmt::Debug for Types<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Types")
            .field("skeleton", &self.skeleton)
            .field("defs", &self.defs.len())
            .finish_non_exhaustive()
    }
}

/// Builds schemas from the model of the sources' types, collecting problems as it goes.
/// It reads no syntax tree: every marker, doc comment and serde attribute was read when
/// the types were lowered.
#[derive(Debug)]
pub struct SchemaBuilder<'m> {
    types: Types<'m>,
    options: &'m Options,
    /// Types being built (as `cache` keys them), innermost last, to detect recursion.
    stack: Vec<(usize, String)>,
    /// By declaration id and, for an instance of a generic type, its type arguments
    /// (empty for any other type).
    cache: HashMap<(usize, String), Cached>,
    /// What it found wrong: taken by its caller when the build is done.
    pub problems: Diagnostics<Loc>,
    /// Rules of markers already refused (a one-of group naming a field that is not there):
    /// [`SchemaBuilder::check_cel`] does not judge them again.
    pub(crate) cel_skip: std::collections::HashSet<String>,
    /// Where the markers that wrote CEL rules are, for [`SchemaBuilder::check_cel`].
    rule_places: RulePlaces,
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

/// Where a type expression was written: its module, for name resolution.
#[derive(Clone, Copy)]
struct Site<'m> {
    module: &'m [String],
}

impl<'m> SchemaBuilder<'m> {
    pub(crate) fn new(types: Types<'m>, options: &'m Options) -> Self {
        Self {
            types,
            options,
            stack: Vec::new(),
            cache: HashMap::new(),
            problems: Diagnostics::new(),
            cel_skip: std::collections::HashSet::new(),
            rule_places: RulePlaces::default(),
        }
    }

    /// A field serde fills from a function when it is missing (`#[serde(default = "f")]`):
    /// the generator cannot run `f`, so the CRD's default must be written beside it as a
    /// literal (which the derive's test holds to `f()`), or `no_default` must say the API
    /// server fills in nothing. Without either, objects are stored without the value and
    /// every other client reads them otherwise than the operator does.
    fn check_default_function(
        &mut self,
        schema: &JSONSchemaProps,
        attrs: &FieldAttrs,
        markers: &crate::markers::FieldMarkers<Loc>,
        ident_at: Loc,
    ) {
        let no_default = markers.has(|p| matches!(p, SchemaProp::NoDefault));
        match (&attrs.default_function, no_default) {
            (Some((function, at)), None) if schema.default.is_none() => self.error(
                *at,
                Misfit::from(format!(
                    "serde fills this field with `{function}()` when it is missing, and the CRD has no default: the API server stores objects without it, so other clients (kubectl, GitOps tools, the other versions' readers) see no value where this operator sees one"
                ))
                .with_help(format!(
                    "write what `{function}()` returns as #[schema(default = ...)] (the derive writes a test that the two agree), or #[schema(no_default)] for a value computed anew each time"
                )),
            ),
            (Some(_), Some(_)) if schema.default.is_some() => self.error(
                ident_at,
                "#[schema(no_default)] says the CRD has no default, and #[schema(default = ...)] gives one: keep one of them",
            ),
            (None, Some(span)) => self.error(
                span,
                "#[schema(no_default)] keeps a #[serde(default = \"...\")] function out of the CRD, and this field has none",
            ),
            _ => {}
        }
    }

    /// The options it builds with.
    pub fn options(&self) -> &'m Options {
        self.options
    }

    /// A problem found here at `at` (a message, or a [`Misfit`] a check found).
    fn error(&mut self, at: Loc, problem: impl Into<Misfit>) {
        self.problems.add(problem.into().placed_at(at));
    }

    /// Compiles every CEL rule of `schema` (a version's whole schema) and checks the API
    /// server's cost budget over it (`cel::budget`); each problem is an error at the
    /// marker that wrote the rule (`kind` for rules no marker wrote). The rules' marks are
    /// cleared after: the finished schema holds none of the builder's numbers.
    pub fn check_cel(&mut self, schema: &mut JSONSchemaProps, kind: Loc) {
        let places = &self.rule_places;
        let found = crate::cel::budget::check(schema, kind, &self.cel_skip, |rule| places.of(rule));
        for (at, problem) in found {
            self.error(at, problem);
        }
        visit_rules_mut(schema, &mut |rule| rule.mark = None);
    }

    /// Problems found when the type or field was lowered, reported now that it is used.
    fn report(&mut self, problems: &[Diagnostic<Loc>]) {
        for p in problems {
            self.problems.add(p.clone());
        }
    }

    fn site(&self, id: usize) -> Site<'m> {
        Site {
            module: &self.types.skeleton.decls[id].module,
        }
    }

    /// The schema of the root kind `id`: `apiVersion`, `kind`, `metadata` and the struct's
    /// own fields.
    pub fn root_schema(&mut self, id: usize) -> Option<JSONSchemaProps> {
        let def: &'m TypeDef = &self.types.defs[id];
        let Body::Struct(Fields::Named(fields)) = &def.body else {
            self.error(
                def.at,
                "#[resource] goes on a struct with named fields (metadata, spec, status)",
            );
            return None;
        };
        let site = self.site(id);
        let shape = self.serde_shape(def)?;
        let mut schema = self.struct_schema(site, fields, &shape.fields, &shape.container, true)?;
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
        schema.description = def.doc.clone();
        self.report(&def.marker_problems);
        self.apply_markers(&mut schema, &def.markers);
        null_passes_enums(&mut schema);
        self.check_final_schema(&schema, &def.markers, def.at);
        Some(schema)
    }

    /// The schema of the declared type `id` on its own: what a field of that type carries
    /// before the field's own markers and doc comment apply (see [`crate::type_schemas`]).
    pub fn declared_schema(&mut self, id: usize) -> Option<JSONSchemaProps> {
        let at = self.types.defs[id].at;
        self.decl_schema(id, at)
    }

    /// serde's reading of a declared type; `None` (reported) where serde would refuse it.
    fn serde_shape(&mut self, def: &'m TypeDef) -> Option<&'m SerdeShape> {
        match &def.serde {
            Ok(shape) => Some(shape),
            Err(problems) => {
                self.report(problems);
                None
            }
        }
    }

    /// The schema of a named type declared in the sources (cached; recursion is an error).
    /// `used_at` is where it is named.
    fn decl_schema(&mut self, id: usize, used_at: Loc) -> Option<JSONSchemaProps> {
        self.def_schema(id, &self.types.defs[id], String::new(), used_at)
    }

    /// How many instances of generic type `id` are being built, one inside the other.
    pub(super) fn instances_on_stack(&self, id: usize) -> usize {
        self.stack.iter().filter(|(d, _)| *d == id).count()
    }

    /// The schema of declared type `id` as `def` says: its declaration, or an instance of
    /// it (a generic type with its arguments in place, `args` naming them).
    pub(super) fn def_schema(
        &mut self,
        id: usize,
        def: &'m TypeDef,
        args: String,
        used_at: Loc,
    ) -> Option<JSONSchemaProps> {
        let key = (id, args);
        if let Some(Cached::Kept(done)) = self.cache.get(&key) {
            return done.as_deref().cloned();
        }
        if let Some(pos) = self.stack.iter().position(|d| *d == key) {
            let cycle: Vec<String> = self.stack[pos..]
                .iter()
                .map(|(d, _)| self.types.defs[*d].name.clone())
                .chain(std::iter::once(def.name.clone()))
                .collect();
            self.error(
                used_at,
                format!(
                    "recursive type: {} cannot be expressed as a structural schema; break the cycle, for example with #[schema(schemaless, preserve_unknown_fields)] on this field",
                    cycle.join(" -> ")
                ),
            );
            return None;
        }
        if let Some(generics) = def.generics {
            self.error(
                generics,
                format!(
                    "generic type `{}` is not supported in a CRD schema; use a concrete type",
                    def.name
                ),
            );
            self.cache.insert(key, Cached::Kept(None));
            return None;
        }
        let hand_written = self.hand_written_serde(id, def);
        if hand_written == Some(false) {
            self.cache.insert(key, Cached::Kept(None));
            return None;
        }
        self.stack.push(key.clone());
        let site = self.site(id);
        let Some(shape) = self.serde_shape(def) else {
            self.stack.pop();
            self.cache.insert(key, Cached::Kept(None));
            return None;
        };
        let only_map = match &def.body {
            Body::Struct(Fields::Named(fields)) => Self::only_flattened_map(fields, &shape.fields),
            _ => None,
        };
        let mut schema = match &def.body {
            // The markers say what it looks like: they are the whole schema.
            _ if hand_written.is_some() => Some(JSONSchemaProps::default()),
            // Its one field's entries are all it writes and reads: it is that map.
            _ if only_map.is_some() => only_map.and_then(|field| self.type_schema(site, &field.ty)),
            _ if !shape.container.conversions.is_empty() => {
                self.converted_schema(site, def, &shape.container)
            }
            Body::Struct(Fields::Named(fields)) if shape.container.transparent => {
                // serde reads and writes the one field that is not skipped.
                let field = fields
                    .iter()
                    .zip(&shape.fields)
                    .find(|(_, a)| !a.skip_deserializing);
                match field {
                    Some((f, a)) if !a.swaps.is_empty() => {
                        self.swapped_field_schema(site, f, a, &Default::default())
                    }
                    Some((f, _)) => self.type_schema(site, &f.ty),
                    None => None,
                }
            }
            Body::Struct(Fields::Named(fields)) => self
                .struct_schema(site, fields, &shape.fields, &shape.container, false)
                .map(|mut schema| {
                    // `#[serde(tag = "...")]` on a struct writes its name under the tag.
                    // (Not with `deny_unknown_fields`: then serde refuses the tag it wrote.)
                    if let Some(tag) = shape
                        .container
                        .tag
                        .as_ref()
                        .filter(|_| !shape.container.deny_unknown_fields)
                    {
                        schema.properties.get_or_insert_with(BTreeMap::new).insert(
                            tag.clone(),
                            JSONSchemaProps {
                                type_: Some("string".into()),
                                enum_: Some(vec![JSON(serde_json::Value::String(
                                    shape.container.written_name.clone(),
                                ))]),
                                ..Default::default()
                            },
                        );
                    }
                    schema
                }),
            Body::Struct(Fields::Unnamed(fields)) if fields.len() == 1 => {
                match shape.fields.first().filter(|a| !a.swaps.is_empty()) {
                    Some(a) => self.swapped_field_schema(site, &fields[0], a, &Default::default()),
                    None => self.type_schema(site, &fields[0].ty),
                }
            }
            Body::Struct(_) => {
                self.error(
                    def.at,
                    format!(
                        "`{}` serializes as a JSON array or null, which has no structural schema; use named fields",
                        def.name
                    ),
                );
                None
            }
            Body::Enum(variants) => self.enum_schema(site, def, variants, shape),
            Body::Alias(ty) => self.type_schema(site, ty),
        };
        self.stack.pop();
        if hand_written.is_none()
            && let Some(built) = &schema
            && let Some(marker) = def.markers.type_marker()
            && let Some(written) = built.type_.as_deref()
            && written != marker.0
        {
            self.error(
                marker.1,
                Misfit::from(format!(
                    "`type = \"{}\"` on `{}`, which serde's derive writes as {} {written}: the API server would refuse what the operator writes",
                    marker.0,
                    def.name,
                    if written == "integer" || written == "array" || written == "object" { "an" } else { "a" },
                ))
                .with_help("drop the marker; a type serialized by code of its own (impl Serialize, serde_with's SerializeDisplay) takes its `type` marker as its whole schema"),
            );
            self.cache.insert(key, Cached::Kept(None));
            return None;
        }
        if let Some(schema) = &mut schema {
            schema.description = def.doc.clone().or(schema.description.take());
            // The markers' mistakes (on an alias: the markers themselves) are the grammar's.
            self.report(&def.marker_problems);
            if !matches!(def.body, Body::Alias(_)) {
                self.apply_markers(schema, &def.markers);
                self.check_final_schema(schema, &def.markers, def.at);
            }
        }
        match self.cache.get(&key) {
            None => {
                self.cache.insert(key, Cached::Once);
            }
            // Built before, or found to be recursive while it was being built.
            Some(_) => {
                self.cache
                    .insert(key, Cached::Kept(schema.clone().map(Box::new)));
            }
        }
        schema
    }

    /// The one field of a struct that serde reads and writes, when it is a flattened map
    /// (`#[serde(flatten)] labels: BTreeMap<String, String>`): the struct's JSON is that map's.
    fn only_flattened_map<'f>(
        fields: &'f [FieldDef],
        serde: &[FieldAttrs],
    ) -> Option<&'f FieldDef> {
        let mut kept = fields
            .iter()
            .zip(serde)
            .filter(|(_, a)| !(a.skip_serializing && a.skip_deserializing));
        let (field, attrs) = kept.next()?;
        let is_map = matches!(
            &field.ty.kind,
            TyKind::Path { segments, args, .. }
                if args.len() == 2
                    && segments.last().is_some_and(|s| matches!(s.as_str(), "BTreeMap" | "HashMap" | "IndexMap"))
        );
        (kept.next().is_none() && attrs.flatten && attrs.swaps.is_empty() && is_map)
            .then_some(field)
    }

    /// Whether declared type `id` is serialized by code the generator cannot read (a
    /// hand-written `impl Serialize`/`Deserialize` in the sources, or serde_with's
    /// `SerializeDisplay`/`DeserializeFromStr`): `None` if not; `Some(true)` if its markers
    /// say what it looks like on the wire, so they are its schema; `Some(false)`, reported,
    /// if they do not.
    fn hand_written_serde(&mut self, id: usize, def: &TypeDef) -> Option<bool> {
        let type_marker = def.markers.type_marker();
        let impl_written = self.types.skeleton.hand_serde(id);
        // Serialized by code the sources do not show (a macro's, another crate's): its
        // `type` marker says what it looks like.
        if type_marker.is_some()
            && !def.derives("Serialize")
            && !def.derives("Deserialize")
            && impl_written.is_none()
        {
            return Some(true);
        }
        let (how, at) = match impl_written {
            Some((name, at)) => (format!("a hand-written `impl {name} for {}`", def.name), at),
            None => {
                let derive = def.derives.iter().find(|d| {
                    matches!(
                        d.as_str(),
                        "SerializeDisplay" | "DeserializeFromStr" | "SerializeFromStr"
                    )
                })?;
                (format!("`#[derive({derive})]`"), def.at)
            }
        };
        let declared = type_marker.is_some()
            || def
                .markers
                .has(|p| {
                    matches!(
                        p,
                        SchemaProp::IntOrString | SchemaProp::PreserveUnknownFields
                    )
                })
                .is_some();
        if !declared {
            self.error(
                at,
                Misfit::from(format!(
                    "`{}` is read and written by {how}, so its JSON is whatever that code makes of it, which operator-gen cannot see (its fields say nothing about it)",
                    def.name
                ))
                .with_help(format!(
                    "to keep the validation its fields would give, let serde read and write it through a plain struct that derives serde and Schema: #[serde(from = \"{0}Wire\", into = \"{0}Wire\")] on `{0}` with `impl From<{0}Wire> for {0}` and back (or `try_from` for a conversion that can fail); or say what `{0}` looks like on the wire with markers on the type, which then are its whole schema: #[derive(Schema)] and, for a string, #[validation(type = \"string\", pattern = \"...\")] (or `type = \"object\"` with #[schema(preserve_unknown_fields)], `int_or_string`, ...)",
                    def.name
                )),
            );
        }
        Some(declared)
    }

    fn struct_schema(
        &mut self,
        site: Site<'m>,
        fields: &'m [FieldDef],
        serde: &[FieldAttrs],
        container: &ContainerAttrs,
        is_root: bool,
    ) -> Option<JSONSchemaProps> {
        let mut properties = BTreeMap::new();
        let mut required = Vec::new();
        // Optional immutable fields, in field order: once set, they may not be unset.
        let mut once_set = Vec::new();
        // A flattened map of any JSON takes the fields no other field names.
        let mut preserve_unknown = false;
        // The rules of flattened types, which now test this object's fields.
        let mut carried = Vec::new();
        let mut ok = true;
        for (field, attrs) in fields.iter().zip(serde) {
            let Some((_, ident_at)) = &field.ident else {
                continue;
            };
            if attrs.skip_serializing && attrs.skip_deserializing {
                continue;
            }
            // Written, never read: where serde refuses fields it does not read, the API
            // server must not keep this one (it prunes it), or the operator could not read
            // back an object it wrote.
            if attrs.skip_deserializing && container.deny_unknown_fields {
                continue;
            }
            let json_name = match &attrs.written_name {
                // Written, never read: the schema holds what serde writes.
                Some(written) if attrs.skip_deserializing => written.clone(),
                Some(written) if !attrs.skip_serializing => {
                    self.error(
                        *ident_at,
                        Misfit::from(format!(
                            "serde writes this field as `{written}` and reads it as `{}`; a CRD field has one name, so the API server would drop (or refuse) what the operator writes",
                            attrs.name
                        ))
                        .with_help("give it one name (`#[serde(rename = \"...\")]`); to go on reading an old name too, add `#[serde(alias = \"...\")]`"),
                    );
                    ok = false;
                    continue;
                }
                _ => attrs.name.clone(),
            };
            if is_root && json_name == "metadata" {
                // The API server owns its shape; `required` alone may be said of it (Go types
                // whose `metadata` has no `omitempty` put it in the root's `required`).
                self.report(&field.marker_problems);
                let m = &field.markers;
                let other = m
                    .validations
                    .first()
                    .map(|v| v.span)
                    .or(m.schema.first().map(|p| p.span))
                    .or(m.items.first().map(|v| v.span))
                    .or(m.optional)
                    .or(m.immutable);
                if let Some(at) = other {
                    self.error(
                        at,
                        "the root's `metadata` is the API server's ObjectMeta: of the markers, only #[validation(required)] applies to it",
                    );
                    ok = false;
                }
                if m.required.is_some() {
                    required.push(json_name);
                }
                continue;
            }
            self.report(&field.marker_problems);
            let markers = &field.markers;

            if attrs.flatten {
                match self.type_schema(site, &field.ty) {
                    Some(inner) if inner.properties.is_some() => {
                        let optional = is_optional(&field.ty);
                        match flattened_rules(&inner, optional) {
                            Ok(rules) => carried.extend(rules),
                            Err(name) => {
                                self.error(
                                    field.ty.at,
                                    format!(
                                        "the fields of this flattened type are checked with CEL rules on this struct, and CEL cannot name its field `{name}` (a name must start with a letter, `_`, `.`, `-` or `/` and hold only those and digits); rename it"
                                    ),
                                );
                                ok = false;
                            }
                        }
                        for (name, schema) in inner.properties.unwrap_or_default() {
                            // serde writes both keys and reads the first; the schema can
                            // hold one, so one of the fields would vanish from the CRD.
                            if properties.insert(name.clone(), schema).is_some() {
                                self.error(
                                    field.ty.at,
                                    format!(
                                        "this flattened type has a field with the JSON name `{name}`, which another field of this struct already has (after serde renames)"
                                    ),
                                );
                                ok = false;
                            }
                        }
                        if !optional {
                            required.extend(inner.required.unwrap_or_default());
                        }
                        if inner.x_kubernetes_preserve_unknown_fields == Some(true) {
                            preserve_unknown = true;
                        }
                    }
                    // A struct whose fields are all skipped adds nothing.
                    Some(inner)
                        if inner.type_.as_deref() == Some("object")
                            && inner.additional_properties.is_none()
                            && inner.x_kubernetes_preserve_unknown_fields.is_none() => {}
                    // A map of any JSON (`HashMap<String, serde_json::Value>`,
                    // `serde_json::Map`, `Value` itself) takes every field the struct does not
                    // name: the API server keeps those fields as they are.
                    Some(inner) if takes_any_field(&inner) => preserve_unknown = true,
                    Some(_) => {
                        self.error(
                            field.ty.at,
                            "#[serde(flatten)] of this type has no structural schema: a flattened struct's fields join this struct's, and a flattened map must hold any JSON (`HashMap<String, serde_json::Value>`, whose fields the API server then keeps unchecked); a map of typed values would need the API server to check fields it does not know",
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
            let swapped = !attrs.swaps.is_empty();
            let schema = if schemaless {
                Some(JSONSchemaProps::default())
            } else if swapped {
                self.swapped_field_schema(site, field, attrs, markers)
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
                && !swapped
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
                    description: field.doc.clone(),
                    ..Default::default()
                };
                self.apply_markers(&mut overlay, markers);
                schema = match merge_field_over_type(overlay, schema) {
                    Ok(merged) => merged,
                    Err(e) => {
                        self.error(
                            field.ty.at,
                            format!(
                                "operator-gen could not merge this field's markers with its type's schema ({e}); this is a bug in operator-gen, please report it with this field"
                            ),
                        );
                        ok = false;
                        continue;
                    }
                };
            } else {
                if let Some(doc) = &field.doc {
                    schema.description = Some(doc.clone());
                }
                self.apply_markers(&mut schema, markers);
            }
            self.check_final_schema(&schema, markers, field.ty.at);
            self.check_default_function(&schema, attrs, markers, *ident_at);
            if markers
                .has(|p| matches!(p, SchemaProp::SkipDescriptions))
                .is_some()
            {
                // After flattening, as controller-gen applies it: only now does the schema
                // hold the type's nested descriptions.
                clear_nested_descriptions(&mut schema);
            }

            // serde reads a missing `Option` field as `None` only with its own reading: a
            // field read `with` a module (or `deserialize_with`) must be there, unless it
            // has a default.
            let reads_through = attrs.swaps.iter().any(WireSwap::changes_reading);
            let is_required = if markers.required.is_some() {
                true
            } else if markers.optional.is_some() {
                false
            } else {
                !((is_optional(&field.ty) && !reads_through)
                    || attrs.default
                    || container.default
                    || attrs.skip_deserializing)
            };
            // A required `serde_json::Value` (any JSON, untyped): serde writes `Value::Null`
            // as `null`, which the API server would prune and then miss as a required
            // field. (An optional one reads a pruned `null` as `None` anyway.)
            if is_required
                && !schemaless
                && schema.type_.is_none()
                && schema.x_kubernetes_preserve_unknown_fields == Some(true)
                && schema.x_kubernetes_int_or_string.is_none()
            {
                schema.nullable = Some(true);
            }
            // serde writes `None` as `null` (no `skip_serializing_if`), which the API
            // server prunes unless the field is nullable; if a missing field then reads as
            // a default other than `None`, the operator's `None` came back as that value.
            let writes_null = is_optional(&field.ty)
                && attrs.swaps.is_empty()
                && !attrs.skip_serializing
                && !attrs.skip_serializing_if;
            if writes_null && (attrs.default_fills || (!attrs.default && container.default_fills)) {
                schema.nullable = Some(true);
            }
            if is_required {
                required.push(json_name.clone());
            } else if markers.immutable.is_some() {
                once_set.push(json_name.clone());
            }
            if properties.insert(json_name.clone(), schema).is_some() {
                self.error(
                    *ident_at,
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
            x_kubernetes_preserve_unknown_fields: preserve_unknown.then_some(true),
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
        if !carried.is_empty() {
            schema
                .x_kubernetes_validations
                .get_or_insert_with(Vec::new)
                .extend(carried);
        }
        Some(schema)
    }
}

/// What a flattened type's own object checked that its fields, now among the enclosing
/// object's, no longer get from it: its CEL rules (an internally tagged enum's per-variant
/// rules) and its property counts (an externally tagged enum's one variant), as rules on the
/// enclosing object. For an `Option` serde reads `None` from none of the fields, so only the
/// upper count holds there; the rules of an optional flattened type are not carried (they
/// would fail on the absent fields), which leaves such a type's own rules unchecked.
fn flattened_rules(inner: &JSONSchemaProps, optional: bool) -> Result<Vec<ValidationRule>, String> {
    let mut rules = Vec::new();
    let names: Vec<&String> = inner.properties.iter().flatten().map(|(k, _)| k).collect();
    let required = inner.required.as_deref().unwrap_or_default();
    let counted = inner.min_properties.is_some_and(|m| m > 0 && !optional)
        || inner
            .max_properties
            .is_some_and(|m| (m as usize) < names.len());
    // The rules written here name the type's fields (all of them, or the required ones).
    let named: Vec<&String> = if counted {
        names.clone()
    } else if optional {
        required.iter().collect()
    } else {
        Vec::new()
    };
    if let Some(name) = named.iter().find(|n| !rules::cel_can_name(n)) {
        return Err((*name).clone());
    }
    // Counted as one-of groups count (`exactly_one_of`), which is how controller-gen writes them.
    let count = format!(
        "[{}].filter(x,x==true).size()",
        names
            .iter()
            .map(|n| format!("has(self.{})", cel_field(n)))
            .collect::<Vec<_>>()
            .join(",")
    );
    let listed = names
        .iter()
        .map(|n| n.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let (min, max) = (
        inner.min_properties.filter(|_| !optional),
        inner.max_properties,
    );
    let rule = |rule: String, message: String| ValidationRule {
        rule,
        message: Some(message),
        ..Default::default()
    };
    match (min, max) {
        (Some(1), Some(1)) => rules.push(rule(
            format!("{count} == 1"),
            format!("exactly one of {listed} must be set"),
        )),
        (min, max) => {
            if let Some(min) = min.filter(|m| *m > 0) {
                rules.push(rule(
                    format!("{count} >= {min}"),
                    format!("at least {min} of {listed} must be set"),
                ));
            }
            if let Some(max) = max.filter(|m| (*m as usize) < names.len()) {
                rules.push(rule(
                    format!("{count} <= {max}"),
                    format!("at most {max} of {listed} may be set"),
                ));
            }
        }
    }
    let has = |n: &String| format!("has(self.{})", cel_field(n));
    let all_required = required.iter().map(has).collect::<Vec<_>>().join(" && ");
    if !optional || required.is_empty() {
        rules.extend(inner.x_kubernetes_validations.iter().flatten().cloned());
    } else {
        // An `Option`'s own rules hold where serde reads `Some`: all its required fields there.
        rules.extend(
            inner
                .x_kubernetes_validations
                .iter()
                .flatten()
                .map(|r| ValidationRule {
                    rule: format!("!({all_required}) || ({})", r.rule),
                    ..r.clone()
                }),
        );
    }
    // serde reads an `Option` flattened as `None` unless all its required fields are there,
    // and then drops the ones that are: so any of its fields comes with all required ones.
    if optional && !required.is_empty() {
        rules.push(rule(
            format!(
                "({all_required}) || !({})",
                names
                    .iter()
                    .map(|n| has(n))
                    .collect::<Vec<_>>()
                    .join(" || ")
            ),
            format!("{} must be set with any of {listed}", required.join(", ")),
        ));
    }
    Ok(rules)
}

/// Whether a flattened value of this schema reads every field a struct does not name, as
/// any JSON: `serde_json::Value`, `serde_json::Map`, or a map of `Value`s.
fn takes_any_field(schema: &JSONSchemaProps) -> bool {
    let any_json = |s: &JSONSchemaProps| {
        s.x_kubernetes_preserve_unknown_fields == Some(true)
            && s.properties.is_none()
            && s.additional_properties.is_none()
            && matches!(s.type_.as_deref(), None | Some("object"))
    };
    if any_json(schema) {
        return true;
    }
    match &schema.additional_properties {
        Some(crate::api::apiextensions::v1::JSONSchemaPropsOrBool::Schema(values)) => {
            schema.type_.as_deref() == Some("object")
                && schema.properties.is_none()
                && values.type_.is_none()
                && any_json(values)
        }
        _ => false,
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

/// Every `nullable` node of `schema` with an `enum`, its values held otherwise: the API
/// server checks `enum` on a `null` too (its validator runs the type and enum checks on a
/// null value, and no null matches), so an `Option` enum serde writes as `null` (a list
/// element or map value, a field with a default other than `None`, a field marked
/// `nullable`) would be refused. Names become a `pattern`, integers that follow one another
/// `minimum` and `maximum` (neither is checked on a null). Other integers keep their `enum`
/// (a CEL rule would pass a null too, but would cost what an unbounded list cannot pay).
fn null_passes_enums(schema: &mut JSONSchemaProps) {
    use crate::api::apiextensions::v1::{JSONSchemaPropsOrArray, JSONSchemaPropsOrBool};
    let names = schema
        .enum_
        .as_ref()
        .filter(|values| values.iter().all(|v| v.0.is_string()));
    if schema.nullable == Some(true)
        && schema.pattern.is_none()
        && let Some(names) = names
    {
        schema.pattern = Some(enums::names_pattern(
            names.iter().filter_map(|v| v.0.as_str()),
        ));
        schema.enum_ = None;
    }
    // Integers that follow one another are a range.
    let integers: Option<Vec<i64>> = schema
        .enum_
        .as_ref()
        .and_then(|values| values.iter().map(|v| v.0.as_i64()).collect());
    if schema.nullable == Some(true)
        && schema.minimum.is_none()
        && schema.maximum.is_none()
        && let Some(mut integers) = integers
        && !integers.is_empty()
    {
        integers.sort_unstable();
        integers.dedup();
        let (low, high) = (integers[0], integers[integers.len() - 1]);
        if (high - low) as usize + 1 == integers.len() {
            schema.enum_ = None;
            schema.minimum = Some(low as f64);
            schema.maximum = Some(high as f64);
        }
    }
    for child in schema.properties.iter_mut().flat_map(|p| p.values_mut()) {
        null_passes_enums(child);
    }
    if let Some(JSONSchemaPropsOrArray::Schema(items)) = &mut schema.items {
        null_passes_enums(items);
    }
    if let Some(JSONSchemaPropsOrBool::Schema(values)) = &mut schema.additional_properties {
        null_passes_enums(values);
    }
}

/// Whether serde reads a missing value of `ty` as `None`: an `Option`, also inside the
/// pointers that serialize as their content (`Box<Option<T>>`, `Arc<Option<T>>`).
pub(super) fn is_optional(ty: &Ty) -> bool {
    match &ty.kind {
        TyKind::Path { segments, args, .. } => match segments.last().map(String::as_str) {
            Some("Option") => true,
            Some(pointer) if POINTERS.contains(&pointer) => args.iter().any(is_optional),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests;
