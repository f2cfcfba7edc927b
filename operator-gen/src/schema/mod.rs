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
use rules::{cel_field, push_rule};

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

    /// Compiles every CEL rule of `schema` (a version's whole schema) against the node it
    /// sits on, as the API server will, and estimates its cost as the API server does: a
    /// rule that does not compile, one whose cost times the values it may run on is over the
    /// budget, and a schema whose rules are over the budget together are errors at the
    /// marker that wrote the rule (`kind` for rules no marker wrote).
    pub fn check_cel(&mut self, schema: &JSONSchemaProps, kind: Loc) {
        let mut found = Vec::new();
        let mut total: u64 = 0;
        let mut spenders: Vec<(u64, Loc, String)> = Vec::new();
        walk_rules(
            schema,
            Some(1),
            true,
            &mut Trail::default(),
            &mut |node, rule, cardinality, root, trail| {
                if self.cel_skip.contains(&rule.rule) {
                    return;
                }
                let at = rule.origin.unwrap_or(kind);
                // Compiled as written in the schema, which is what the API server compiles.
                let compiled = crate::cel::compile(
                    &rule.rule,
                    rule.message_expression.as_deref(),
                    rule.optional_old_self == Some(true),
                    node,
                    root,
                );
                match compiled {
                    Err(problem) => found.push((at, problem)),
                    Ok(c) => {
                        let times = cardinality
                            .unwrap_or_else(|| crate::cel::cost::fallback_cardinality(node));
                        let spent = c.cost.saturating_mul(times);
                        total = total
                            .saturating_add(spent)
                            .saturating_add(c.message_cost.unwrap_or(0));
                        if spent >= crate::cel::cost::SCHEMA_LIMIT / 100 {
                            spenders.push((spent, at, rule.rule.clone()));
                        }
                        if spent > crate::cel::cost::RULE_LIMIT {
                            // Which rule, and where in the schema: operator-gen writes
                            // some itself (a map's key rule, an enum's variant rules).
                            let problem = format!(
                                "{} (the rule `{}` at {})",
                                cost_problem(c.cost, times, trail),
                                rule.rule,
                                trail.shown()
                            );
                            found.push((at, problem));
                        }
                        if let Some(m) = c.message_cost
                            && m > crate::cel::cost::RULE_LIMIT
                        {
                            found.push((
                            at,
                            format!(
                                "the message expression's estimated cost ({m}) is over the API server's budget of {} by a factor of {}: bound the strings and lists it reads (max_length, max_items)",
                                crate::cel::cost::RULE_LIMIT,
                                crate::cel::cost::factor_text(m, crate::cel::cost::RULE_LIMIT)
                            ),
                        ));
                        }
                    }
                }
            },
        );
        if total > crate::cel::cost::SCHEMA_LIMIT {
            spenders.sort_by_key(|s| std::cmp::Reverse(s.0));
            let at = spenders.first().map_or(kind, |s| s.1);
            let names: Vec<String> = spenders
                .iter()
                .take(4)
                .map(|(cost, _, rule)| format!("`{rule}` ({cost})"))
                .collect();
            found.push((
                at,
                format!(
                    "the CEL rules of this version together have an estimated cost of {total}, over the API server's budget of {} for a schema by a factor of {} (the most expensive: {}): give the lists, maps and strings they run on or read max_items, max_properties and max_length",
                    crate::cel::cost::SCHEMA_LIMIT,
                    crate::cel::cost::factor_text(total, crate::cel::cost::SCHEMA_LIMIT),
                    names.join(", ")
                ),
            ));
        }
        found.sort_by(|a, b| a.1.cmp(&b.1));
        found.dedup();
        for (at, problem) in found {
            self.error(at, problem);
        }
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
        if let Some(required) = &mut schema.required {
            required.retain(|r| r != "metadata");
            if required.is_empty() {
                schema.required = None;
            }
        }
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

/// Why a rule costs too much: its cost, the values it may run on, the factor, and what to
/// bound.
fn cost_problem(cost: u64, times: u64, trail: &Trail) -> String {
    use crate::cel::cost::{RULE_LIMIT, factor_text};
    let unbounded = !trail.unbounded.is_empty();
    format!(
        "the CEL rule's estimated cost, {cost} per value times {times} value{} it may run on{}, is over the API server's budget of {RULE_LIMIT} by a factor of {}: {}",
        if times == 1 { "" } else { "s" },
        if unbounded {
            format!(
                " (a list or map above it has no max_items / max_properties, so the count comes from the request size limit: {})",
                trail
                    .unbounded
                    .iter()
                    .map(|p| shown_path(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            String::new()
        },
        factor_text(cost.saturating_mul(times), RULE_LIMIT),
        match (unbounded, cost > 100) {
            (true, true) =>
                "give the lists and maps above it max_items / max_properties, and the strings and lists the rule reads max_length / max_items",
            (true, false) => "give the lists and maps above it max_items / max_properties",
            _ =>
                "give the strings, lists and maps the rule reads max_length, max_items and max_properties",
        }
    )
}

/// Calls `f` with each node of `schema` that carries CEL rules, each rule, how many values
/// of the node a request may hold (`None`: unbounded) and whether the node is a resource's
/// root (the kind's, or an embedded resource). Like the API server, it does not look into
/// `allOf` and the other combinators.
fn walk_rules<'s>(
    schema: &'s JSONSchemaProps,
    cardinality: Option<u64>,
    root: bool,
    trail: &mut Trail,
    f: &mut impl FnMut(
        &'s JSONSchemaProps,
        &'s crate::api::apiextensions::v1::ValidationRule,
        Option<u64>,
        bool,
        &Trail,
    ),
) {
    use crate::api::apiextensions::v1::{JSONSchemaPropsOrArray, JSONSchemaPropsOrBool};
    for rule in schema.x_kubernetes_validations.iter().flatten() {
        f(schema, rule, cardinality, root, trail);
    }
    let times = |bound: Option<i64>| -> Option<u64> {
        Some(cardinality?.saturating_mul(bound?.max(0) as u64))
    };
    for (name, child) in schema.properties.iter().flatten() {
        let embedded = child.x_kubernetes_embedded_resource == Some(true);
        trail.enter(&[".", name], false, |trail| {
            walk_rules(child, cardinality, embedded, trail, f)
        });
    }
    if let Some(JSONSchemaPropsOrArray::Schema(items)) = &schema.items {
        let embedded = items.x_kubernetes_embedded_resource == Some(true);
        trail.enter(&["[*]"], schema.max_items.is_none(), |trail| {
            walk_rules(items, times(schema.max_items), embedded, trail, f)
        });
    }
    if let Some(JSONSchemaPropsOrBool::Schema(values)) = &schema.additional_properties {
        let embedded = values.x_kubernetes_embedded_resource == Some(true);
        trail.enter(&["[*]"], schema.max_properties.is_none(), |trail| {
            walk_rules(values, times(schema.max_properties), embedded, trail, f)
        });
    }
}

/// Where [`walk_rules`] is: the path from the schema's root (`.spec.groups[*].config`),
/// and the lists and maps on the way that have no bound on their size.
#[derive(Default)]
struct Trail {
    path: String,
    unbounded: Vec<String>,
}

impl Trail {
    /// Walks into `step` (its pieces joined) for `f`; `unbounded`: the node being left is
    /// a list or map without a bound.
    fn enter(&mut self, step: &[&str], unbounded: bool, f: impl FnOnce(&mut Self)) {
        if unbounded {
            self.unbounded.push(self.path.clone());
        }
        let len = self.path.len();
        for piece in step {
            self.path.push_str(piece);
        }
        f(self);
        self.path.truncate(len);
        if unbounded {
            self.unbounded.pop();
        }
    }

    /// The path, `.` for the root.
    fn shown(&self) -> &str {
        shown_path(&self.path)
    }
}

/// A path of the schema as messages show it: `.` for the root.
fn shown_path(path: &str) -> &str {
    if path.is_empty() { "." } else { path }
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

    /// [`generate`] with the kind `Thing` of spec `ThingSpec` added after `types`.
    fn generate_kind(types: &str) -> Result<crate::Generated, crate::Error> {
        generate(&format!(
            "{types}\n#[derive(CustomResource)]\n#[resource(group = \"test.example.com\", version = \"v1\")]\npub struct Thing {{ pub metadata: ObjectMeta, pub spec: ThingSpec }}\n"
        ))
    }

    /// The message of the error generating a kind of `types` gives.
    fn error_of(types: &str) -> String {
        generate_kind(types).unwrap_err().to_string()
    }

    /// The first CRD's spec schema, as JSON.
    fn spec_schema(generated: &crate::Generated) -> serde_json::Value {
        crate::render::to_json(&generated.crds[0])["spec"]["versions"][0]["schema"]
            ["openAPIV3Schema"]["properties"]["spec"]
            .clone()
    }

    /// The properties of the first CRD's spec, as JSON.
    fn spec_properties(generated: &crate::Generated) -> serde_json::Value {
        spec_schema(generated)["properties"].clone()
    }

    #[test]
    fn an_option_whose_missing_value_is_not_none_keeps_its_null() {
        let generated = generate_kind(
            r#"
fn legal() -> Option<String> { Some("legal".into()) }
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(default = "legal")]
    #[schema(default = "legal")]
    pub written_null: Option<String>,
    #[serde(default = "legal", skip_serializing_if = "Option::is_none")]
    #[schema(no_default)]
    pub left_out: Option<String>,
    #[serde(default)]
    pub plain: Option<String>,
    pub bare: Option<String>,
    pub inner: Filled,
    pub derived: Derived,
}
#[derive(Schema)]
#[serde(default)]
pub struct Filled { pub size: Option<u32>, #[serde(default)] pub own: Option<u32> }
impl Default for Filled { fn default() -> Self { Self { size: Some(3), own: None } } }
#[derive(Schema, Default)]
#[serde(default)]
pub struct Derived { pub size: Option<u32> }
"#,
        )
        .unwrap();
        let properties = spec_properties(&generated);
        assert_eq!(properties["written_null"]["nullable"], true);
        for plain in ["left_out", "plain", "bare"] {
            assert!(properties[plain]["nullable"].is_null(), "{plain}");
        }
        assert_eq!(properties["inner"]["properties"]["size"]["nullable"], true);
        assert!(properties["inner"]["properties"]["own"]["nullable"].is_null());
        assert!(properties["derived"]["properties"]["size"]["nullable"].is_null());
    }

    #[test]
    fn a_default_function_needs_the_crds_default_beside_it_or_no_default() {
        let missing = error_of(
            r#"
mod defaults { pub fn image() -> String { "memcached:1.6".into() } }
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(default = "defaults::image")]
    pub image: String,
}
"#,
        );
        assert!(
            missing.contains("src/lib.rs:5:23: error: serde fills this field with `defaults::image()` when it is missing, and the CRD has no default"),
            "{missing}"
        );
        assert!(missing.contains("#[schema(default = ...)]"), "{missing}");
        let generated = generate_kind(
            r#"
mod defaults { pub fn image() -> String { "memcached:1.6".into() } pub fn id() -> String { String::new() } }
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(default = "defaults::image")]
    #[schema(default = "memcached:1.6")]
    pub image: String,
    #[serde(default = "defaults::id")]
    #[schema(no_default)]
    pub id: String,
}
"#,
        )
        .unwrap();
        let properties = spec_properties(&generated);
        assert_eq!(properties["image"]["default"], "memcached:1.6");
        assert!(properties["id"]["default"].is_null());
        let both = error_of(
            r#"
fn id() -> String { String::new() }
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(default = "id")]
    #[schema(default = "x", no_default)]
    pub id: String,
}
"#,
        );
        assert!(both.contains("keep one of them"), "{both}");
        let stray = error_of(
            r#"
#[derive(Schema)]
pub struct ThingSpec {
    #[schema(no_default)]
    pub id: String,
}
"#,
        );
        assert!(
            stray.contains("src/lib.rs:4:14: error: #[schema(no_default)] keeps"),
            "{stray}"
        );
    }

    #[test]
    fn a_nullable_enum_holds_its_values_so_that_null_passes() {
        let generated = generate_kind(
            r#"
fn red() -> Option<Color> { Some(Color::Red) }
#[derive(Schema)]
pub enum Color { Red, Green }
#[derive(Schema, Serialize_repr, Deserialize_repr)]
#[repr(u8)]
pub enum Level { Low = 1, Mid, High }
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(default = "red")]
    #[schema(default = "Red")]
    pub color: Option<Color>,
    pub palette: Vec<Option<Color>>,
    pub plain: Color,
    pub levels: Vec<Option<Level>>,
}
"#,
        )
        .unwrap();
        let properties = spec_properties(&generated);
        assert_eq!(properties["color"]["nullable"], true);
        assert!(properties["color"]["enum"].is_null());
        assert_eq!(properties["color"]["pattern"], "^(Red|Green)$");
        assert_eq!(properties["palette"]["items"]["pattern"], "^(Red|Green)$");
        assert!(properties["palette"]["items"]["enum"].is_null());
        assert_eq!(
            properties["plain"]["enum"],
            serde_json::json!(["Red", "Green"])
        );
        let levels = &properties["levels"]["items"];
        assert!(levels["enum"].is_null());
        assert_eq!(levels["minimum"], 1.0);
        assert_eq!(levels["maximum"], 3.0);
    }

    #[test]
    fn a_type_serialized_by_hand_is_what_its_markers_say() {
        // Its fields say nothing about its JSON: without markers it is refused, at the impl.
        let types = r#"
pub struct Lapse { duration: std::time::Duration, is_negative: bool }
mod wire {
    impl serde::Serialize for super::Lapse {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> { todo!() }
    }
}
#[derive(Schema)]
pub struct ThingSpec { pub timeout: Option<Lapse> }
"#;
        let error = generate_kind(types).unwrap_err().to_string();
        assert!(
            error.contains(
                "`Lapse` is read and written by a hand-written `impl Serialize for Lapse`"
            ),
            "{error}"
        );
        assert!(
            error.contains("impl serde::Serialize for super::Lapse"),
            "{error}"
        );
        // With markers that say what it looks like, they are its whole schema.
        let generated = generate_kind(&types.replace(
            "pub struct Lapse",
            "#[derive(Schema)]\n#[validation(type = \"string\", pattern = \"^[0-9]+s$\")]\npub struct Lapse",
        ))
        .unwrap();
        assert_eq!(
            spec_properties(&generated)["timeout"],
            serde_json::json!({"type": "string", "pattern": "^[0-9]+s$"})
        );
        // An impl in a `const _` block is seen too.
        let error = generate_kind(&types.replace("mod wire {", "const _: () = {").replace(
            "    }\n}\n#[derive(Schema)]\npub struct ThingSpec",
            "    }\n};\n#[derive(Schema)]\npub struct ThingSpec",
        ))
        .unwrap_err()
        .to_string();
        assert!(
            error.contains("hand-written `impl Serialize for Lapse`"),
            "{error}"
        );
        // A `type` marker against what serde's derive writes is refused; on a type that
        // derives no serde (its impl is a macro's, out of sight) it is the schema.
        let error = error_of(
            r#"
#[derive(Schema, Serialize, Deserialize)]
#[validation(type = "string")]
pub struct Span { secs: u64 }
#[derive(Schema)]
pub struct ThingSpec { pub span: Span }
"#,
        );
        assert!(
            error.contains(
                "`type = \"string\"` on `Span`, which serde's derive writes as an object"
            ),
            "{error}"
        );
        let generated = generate_kind(
            r#"
#[derive(Schema)]
#[validation(type = "string", max_length = 20)]
pub struct Span { secs: u64 }
#[derive(Schema)]
pub struct ThingSpec { pub span: Span }
"#,
        )
        .unwrap();
        assert_eq!(
            spec_properties(&generated)["span"],
            serde_json::json!({"type": "string", "maxLength": 20})
        );
        // serde_with's derives that go through Display and FromStr are hand-written too.
        let error = error_of(
            r#"
#[derive(serde_with::DeserializeFromStr, serde_with::SerializeDisplay)]
pub struct Version { major: u32, minor: u32 }
#[derive(Schema)]
pub struct ThingSpec { pub version: Version }
"#,
        );
        assert!(
            error.contains("`Version` is read and written by `#[derive(DeserializeFromStr)]`"),
            "{error}"
        );
    }

    #[test]
    fn imports_are_followed_through_super_and_re_exported_modules() {
        let generated = generate_kind(
            r#"
use k8s_openapi::api::core::v1::Toleration;
pub use k8s_openapi::apimachinery;
pub mod v1 {
    use super::Toleration;
    #[derive(Schema)]
    pub struct Placement {
        pub tolerations: Vec<Toleration>,
        pub since: Option<crate::apimachinery::pkg::apis::meta::v1::Time>,
        pub until: Option<super::apimachinery::pkg::apis::meta::v1::Time>,
    }
}
#[derive(Schema)]
pub struct ThingSpec { pub placement: v1::Placement }
"#,
        )
        .unwrap();
        let placement = &spec_properties(&generated)["placement"]["properties"];
        assert_eq!(
            placement["tolerations"]["items"]["properties"]["effect"]["type"],
            "string"
        );
        assert_eq!(placement["since"]["format"], "date-time");
        assert_eq!(placement["until"]["format"], "date-time");
    }

    #[test]
    fn a_field_read_through_a_module_is_required_unless_it_has_a_default() {
        // serde reads a missing `Option` field as `None` only with its own reading.
        let generated = generate_kind(
            r#"
use std::time::Duration;
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(with = "humantime_serde")]
    pub grace: Option<Duration>,
    #[serde(default, with = "humantime_serde")]
    pub timeout: Option<std::time::Duration>,
    #[serde(with = "humantime_serde")]
    pub every: Duration,
    #[serde(with = "crate::as_string")]
    #[validation(type = "string")]
    pub count: Option<u32>,
    #[serde(serialize_with = "crate::write_count")]
    #[validation(type = "integer")]
    pub written: Option<u32>,
}
"#,
        )
        .unwrap();
        let spec = spec_schema(&generated);
        assert_eq!(
            spec["required"],
            serde_json::json!(["count", "every", "grace"])
        );
        let properties = &spec["properties"];
        assert_eq!(properties["every"]["type"], "string");
        assert_eq!(properties["every"]["maxLength"], 64);
        assert!(properties["every"]["nullable"].is_null());
        // humantime_serde writes `None` as null and reads it back.
        assert_eq!(properties["grace"]["nullable"], true);
        assert_eq!(properties["timeout"]["nullable"], true);
        assert_eq!(
            properties["grace"]["pattern"],
            properties["every"]["pattern"]
        );
        assert!(properties["count"]["nullable"].is_null());
    }

    #[test]
    fn an_untagged_enum_of_strings_reads_what_any_variant_reads() {
        let generated = generate_kind(
            r#"
#[derive(Schema)]
#[serde(untagged)]
pub enum Cidr { Addr(std::net::IpAddr), Net(ipnet::IpNet) }
#[derive(Schema)]
pub enum Color { Red, Green }
#[derive(Schema)]
#[serde(untagged)]
pub enum Paint { Named(Color), Code(std::net::Ipv4Addr) }
#[derive(Schema)]
#[serde(untagged)]
pub enum Loose { Named(Color), Any(String) }
#[derive(Schema)]
pub struct ThingSpec { pub cidr: Cidr, pub paint: Paint, pub loose: Loose }
"#,
        )
        .unwrap();
        let properties = spec_properties(&generated);
        let cidr = &properties["cidr"];
        assert_eq!(cidr["type"], "string");
        assert_eq!(cidr["maxLength"], 49);
        let pattern = regex::Regex::new(cidr["pattern"].as_str().unwrap()).unwrap();
        for (s, admitted) in [
            ("10.0.0.1", true),
            ("10.0.0.0/8", true),
            ("fd00::/8", true),
            ("::1", true),
            ("10.0.0.0/33", false),
            ("host", false),
        ] {
            assert_eq!(pattern.is_match(s), admitted, "{s}");
        }
        let paint = regex::Regex::new(properties["paint"]["pattern"].as_str().unwrap()).unwrap();
        assert!(paint.is_match("Red") && paint.is_match("10.0.0.1") && !paint.is_match("Blue"));
        assert_eq!(properties["loose"], serde_json::json!({"type": "string"}));
        // Lengths a variant's pattern implies are kept; a variant carrying an Option reads null.
        let generated = generate_kind(
            r#"
#[derive(Schema)]
#[validation(pattern = "^[a-z]{1,5}$", max_length = 5)]
pub struct Short(pub String);
#[derive(Schema)]
#[serde(untagged)]
pub enum Either { Short(Short), Addr(Option<std::net::Ipv4Addr>) }
#[derive(Schema)]
pub struct ThingSpec { pub either: Either }
"#,
        )
        .unwrap();
        let either = &spec_properties(&generated)["either"];
        assert_eq!(either["maxLength"], 15);
        assert_eq!(either["nullable"], true);
        // A variant's lengths that its pattern does not imply cannot be kept for it alone.
        let error = error_of(
            r#"
#[derive(Schema)]
#[validation(pattern = "^[a-z]+$", max_length = 5)]
pub struct Short(pub String);
#[derive(Schema)]
#[serde(untagged)]
pub enum Either { Short(Short), Addr(std::net::Ipv4Addr) }
#[derive(Schema)]
pub struct ThingSpec { pub either: Either }
"#,
        );
        assert!(
            error.contains("whose lengths (at most 5) its pattern does not already imply"),
            "{error}"
        );
    }

    #[test]
    fn humantime_serde_on_another_type_needs_markers() {
        let error = error_of(
            r#"
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(with = "humantime_serde")]
    pub at: std::time::SystemTime,
}
"#,
        );
        assert!(
            error.contains("#[serde(with = \"humantime_serde\")] changes how serde reads and writes this field's JSON"),
            "{error}"
        );
    }

    #[test]
    fn a_type_used_many_times_has_the_same_schema_at_every_use() {
        let generated = generate_kind(
            r#"
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
        let spec = spec_properties(&generated);
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
            .map(|e| format!("{}:{} {}", e.at.line, e.at.column, e.message))
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

    /// A Kubernetes type named through a glob import of its module, also one whose name
    /// other API groups share, is that module's type.
    #[test]
    fn kubernetes_types_resolve_through_glob_imports() {
        let generated = generate_kind(
            r#"
            use k8s_openapi::api::core::v1::*;
            use k8s_openapi::api::apps::v1::*;
            #[derive(Schema)]
            pub struct ThingSpec {
                pub source: TypedLocalObjectReference,
                pub rollout: DeploymentStrategy,
            }
            "#,
        )
        .unwrap();
        let spec = spec_properties(&generated);
        assert_eq!(
            spec["source"]["required"],
            serde_json::json!(["kind", "name"])
        );
        assert!(spec["rollout"]["properties"]["rollingUpdate"].is_object());
    }

    /// A flattened map of any JSON takes the fields the struct does not name; a flattened
    /// map of typed values is refused.
    #[test]
    fn a_flattened_map_of_any_json_keeps_unknown_fields() {
        let generated = generate_kind(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec {
                pub size: i32,
                pub inner: Inner,
                #[serde(flatten)]
                pub extra: std::collections::HashMap<String, serde_json::Value>,
            }
            #[derive(Schema)]
            pub struct Inner { #[serde(flatten)] pub rest: serde_json::Map<String, serde_json::Value> }
            "#,
        )
        .unwrap();
        let spec = &crate::render::to_json(&generated.crds[0])["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
            ["properties"]["spec"];
        assert_eq!(spec["x-kubernetes-preserve-unknown-fields"], true);
        assert_eq!(spec["required"], serde_json::json!(["inner", "size"]));
        assert!(spec["properties"].get("extra").is_none());
        assert_eq!(
            spec["properties"]["inner"],
            serde_json::json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
        );

        let err = error_of(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec {
                #[serde(flatten)]
                pub labels: std::collections::BTreeMap<String, String>,
                pub size: i32,
            }
            "#,
        );
        assert!(
            err.contains(
                "src/lib.rs:5:29: error: #[serde(flatten)] of this type has no structural schema"
            ),
            "{err}"
        );
    }

    /// An enum with serde_repr's derives is its discriminants, as integers.
    #[test]
    fn serde_repr_enums_are_their_discriminants() {
        let generated = generate_kind(
            r#"
            #[derive(Schema, Serialize_repr, Deserialize_repr)]
            #[repr(i32)]
            pub enum Level { Low = -2, Mid, High = 0x10, Top }
            #[derive(Schema, serde_repr::Serialize_repr, serde_repr::Deserialize_repr)]
            #[repr(u8)]
            pub enum Open { Known = 1, #[serde(other)] Unknown = 255 }
            #[derive(Schema)]
            pub struct ThingSpec { pub level: Level, pub open: Open }
            "#,
        )
        .unwrap();
        let spec = spec_properties(&generated);
        assert_eq!(
            spec["level"],
            serde_json::json!({"type": "integer", "format": "int32", "enum": [-2, -1, 16, 17]})
        );
        assert_eq!(
            spec["open"],
            serde_json::json!({"type": "integer", "minimum": 0, "maximum": 255})
        );

        let err = error_of(
            r#"
            const TWO: u8 = 2;
            #[derive(Schema, Serialize_repr, Deserialize)]
            #[repr(u8)]
            pub enum Half { A }
            #[derive(Schema, Serialize_repr, Deserialize_repr)]
            pub enum NoRepr { A }
            #[derive(Schema, Serialize_repr, Deserialize_repr)]
            #[repr(u8)]
            pub enum Constant { A = TWO }
            #[derive(Schema)]
            pub struct ThingSpec { pub half: Half, pub no_repr: NoRepr, pub constant: Constant }
            "#,
        );
        for expected in [
            "5:22: error: `Half` derives one of serde_repr's Serialize_repr and Deserialize_repr but not the other",
            "7:22: error: `NoRepr` derives serde_repr's traits, which write the discriminant as the #[repr] integer",
            "10:37: error: operator-gen reads discriminants written as integer literals",
        ] {
            assert!(err.contains(expected), "{expected}\n{err}");
        }
    }

    /// An untagged enum of an integer and a string is an int-or-string with each side's
    /// constraints; the API server applies each to its own type.
    #[test]
    fn untagged_integer_or_string_enums_are_int_or_string() {
        let generated = generate_kind(
            r#"
            #[derive(Schema)]
            #[serde(untagged)]
            pub enum Port { Number(std::num::NonZeroU16), Name(PortName) }
            #[derive(Schema)]
            #[validation(pattern = "^[a-z]+$", max_length = 15)]
            pub struct PortName(String);
            #[derive(Schema)]
            pub enum Mode { Fast, #[serde(rename = "slow.mode")] Slow }
            #[derive(Schema)]
            #[serde(untagged)]
            pub enum Level { Named(Mode), Signed(i8) }
            #[derive(Schema)]
            pub struct ThingSpec { pub port: Port, pub level: Level }
            "#,
        )
        .unwrap();
        let spec = spec_properties(&generated);
        let any_of = serde_json::json!([{"type": "integer"}, {"type": "string"}]);
        assert_eq!(
            spec["port"],
            serde_json::json!({
                "anyOf": any_of, "x-kubernetes-int-or-string": true,
                "minimum": 1, "maximum": 65535, "pattern": "^[a-z]+$", "maxLength": 15,
            })
        );
        assert_eq!(
            spec["level"],
            serde_json::json!({
                "anyOf": any_of, "x-kubernetes-int-or-string": true,
                "minimum": -128, "maximum": 127, "pattern": "^(Fast|slow\\.mode)$",
            })
        );
        let err = error_of(
            r#"
            #[derive(Schema, Serialize_repr, Deserialize_repr)]
            #[repr(u8)]
            pub enum Code { A = 1 }
            #[derive(Schema)]
            #[serde(untagged)]
            pub enum Either { Code(Code), Text(String) }
            #[derive(Schema)]
            pub struct ThingSpec { pub either: Either }
            "#,
        );
        assert!(
            err.contains("the integer variant of this untagged enum takes only some integers"),
            "{err}"
        );
    }

    /// A map's keys are held to what the key type reads; what CEL cannot check is refused.
    #[test]
    fn map_keys_are_held_to_what_the_key_type_reads() {
        let generated = generate_kind(
            r#"
            use std::collections::{BTreeMap, HashMap};
            #[derive(Schema)]
            pub enum Color { Red, #[serde(rename = "it's")] Quote, #[serde(skip)] Hidden }
            #[derive(Schema)]
            #[validation(pattern = "^[a-z]+$", min_length = 2)]
            pub struct Name(String);
            #[derive(Schema)]
            pub struct ThingSpec {
                #[validation(max_properties = 2)]
                pub by_color: BTreeMap<Color, String>,
                #[validation(max_properties = 8)]
                pub by_char: HashMap<char, i32>,
                #[validation(max_properties = 8)]
                pub by_name: BTreeMap<Name, BTreeMap<String, i32>>,
            }
            "#,
        )
        .unwrap();
        let spec = spec_properties(&generated);
        let rule = |field: &str| spec[field]["x-kubernetes-validations"].clone();
        assert_eq!(
            rule("by_color"),
            serde_json::json!([{
                "rule": "self.all(k, k in ['Red', 'it\\'s'])",
                "message": "keys must be one of Red, it's"
            }])
        );
        assert_eq!(rule("by_char")[0]["rule"], "self.all(k, size(k) == 1)");
        assert_eq!(
            rule("by_name")[0]["rule"],
            "self.all(k, size(k) >= 2 && k.matches('^[a-z]+$'))"
        );
        assert!(
            spec["by_name"]["additionalProperties"]
                .get("x-kubernetes-validations")
                .is_none(),
            "String keys take any string"
        );

        let err = error_of(
            r#"
            use std::collections::BTreeMap;
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
            #[derive(Schema)]
            pub struct ThingSpec { pub at: BTreeMap<Time, String> }
            "#,
        );
        assert!(
            err.contains("the keys of this map have the format `date-time`"),
            "{err}"
        );
        // What to do is said on a help line under the excerpt, as rustc does.
        assert!(err.contains("^^^^\n  = help: use String keys"), "{err}");

        // Without a bound, the API server would refuse the rule: refused here, at the field.
        let err = error_of(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec {
                #[validation(max_items = 2)]
                pub lists: Vec<std::collections::BTreeMap<char, String>>,
            }
            "#,
        );
        assert!(
            err.contains("src/lib.rs:5:28: error: the keys of this map read only some strings, so operator-gen holds them to that with the CEL rule `self.all(k, size(k) == 1)`; the API server refuses such a rule on a map without `maxProperties`"),
            "{err}"
        );
    }

    /// indexmap's map and set are a map and a list to serde, as std's are; a hasher named
    /// as a third argument changes nothing on the wire.
    #[test]
    fn index_maps_and_hashers_serialize_as_maps_and_lists() {
        let generated = generate_kind(
            r#"
            use indexmap::{IndexMap, IndexSet};
            #[derive(Schema)]
            pub struct ThingSpec {
                pub ordered: IndexMap<String, i32>,
                pub tags: IndexSet<String>,
                pub hashed: std::collections::HashMap<String, bool, std::hash::RandomState>,
            }
            "#,
        )
        .unwrap();
        let spec = spec_properties(&generated);
        assert_eq!(spec["ordered"]["additionalProperties"]["format"], "int32");
        assert_eq!(spec["tags"]["items"]["type"], "string");
        assert_eq!(spec["hashed"]["additionalProperties"]["type"], "boolean");
    }

    /// Go's metav1.Duration has no k8s-openapi type: the error points at kube's.
    #[test]
    fn a_metav1_duration_points_at_kubes() {
        let err = error_of(
            r#"
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::Duration;
            #[derive(Schema)]
            pub struct ThingSpec { pub every: Duration }
            "#,
        );
        assert!(
            err.contains("= help: k8s-openapi has no metav1.Duration: use `kube::core::Duration`"),
            "{err}"
        );
    }

    /// Modules imported under another name, also through `{self as ...}` and `{self}`.
    #[test]
    fn kubernetes_types_resolve_through_module_aliases() {
        let generated = generate_kind(
            r#"
            use k8s_openapi::api::core::v1 as corev1;
            use k8s_openapi::api::apps::{self};
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::{self as metav1};
            #[derive(Schema)]
            pub struct ThingSpec {
                pub resources: corev1::ResourceRequirements,
                pub strategy: apps::v1::DeploymentStrategy,
                pub selector: metav1::LabelSelector,
            }
            "#,
        )
        .unwrap();
        let spec = spec_properties(&generated);
        assert!(spec["resources"]["properties"]["limits"].is_object());
        assert!(spec["strategy"]["properties"]["rollingUpdate"].is_object());
        assert!(spec["selector"]["properties"]["matchLabels"].is_object());
    }

    /// Types named through the crate's re-exports: a `pub use ... as` at the root, a glob
    /// re-export of a child module, reached by `crate::`, `super::` and plain paths.
    #[test]
    fn types_resolve_through_re_exports() {
        let generated = generate(
            r#"
            pub use api::v1::shared::Shared as Common;
            pub mod api {
                pub use self::v1::*;
                pub mod v1 {
                    pub mod shared {
                        #[derive(Schema)]
                        pub struct Shared { pub x: i32 }
                    }
                    mod types {
                        #[derive(Schema)]
                        pub struct Inner { pub y: String }
                    }
                    pub use types::*;
                    use super::super::Common;
                    #[derive(CustomResource)]
                    #[resource(group = "test.example.com", version = "v1")]
                    pub struct Thing { pub metadata: ObjectMeta, pub spec: ThingSpec }
                    #[derive(Schema)]
                    pub struct ThingSpec {
                        pub a: Common,
                        pub b: crate::Common,
                        pub c: super::v1::Inner,
                        pub d: crate::api::Inner,
                        pub e: crate::api::Shared2,
                    }
                    pub use shared::Shared as Shared2;
                }
            }
            "#,
        )
        .unwrap();
        let spec = spec_properties(&generated);
        for field in ["a", "b", "e"] {
            assert!(
                spec[field]["properties"]["x"].is_object(),
                "{field}: {spec}"
            );
        }
        for field in ["c", "d"] {
            assert!(
                spec[field]["properties"]["y"].is_object(),
                "{field}: {spec}"
            );
        }
    }

    #[test]
    fn cel_names_are_escaped_as_the_api_server_expects() {
        assert_eq!(cel_field("cron"), "cron");
        assert_eq!(cel_field("max-surge"), "max__dash__surge");
        assert_eq!(cel_field("a.b/c"), "a__dot__b__slash__c");
        assert_eq!(cel_field("a__b"), "a__underscores__b");
        assert_eq!(cel_field("namespace"), "__namespace__");
    }

    /// One-of rules name the fields as CEL spells them; their messages as they are.
    #[test]
    fn one_of_rules_escape_the_names_they_test() {
        let generated = generate(
            r#"
            #[derive(CustomResource)]
            #[resource(group = "a.example.com", version = "v1", kind = "Thing")]
            pub struct Thing { pub metadata: ObjectMeta, pub spec: ThingSpec }
            #[derive(Schema)]
            #[serde(rename_all = "kebab-case")]
            #[validation(exactly_one_of = ["max-surge", "namespace"])]
            pub struct ThingSpec { pub max_surge: Option<i32>, pub namespace: Option<String> }
            "#,
        )
        .unwrap();
        let spec = &generated.crds[0].spec.versions[0]
            .schema
            .as_ref()
            .unwrap()
            .open_api_v3_schema
            .as_ref()
            .unwrap()
            .properties
            .as_ref()
            .unwrap()["spec"];
        let rule = &spec.x_kubernetes_validations.as_ref().unwrap()[0];
        assert_eq!(
            rule.rule,
            "[has(self.max__dash__surge),has(self.__namespace__)].filter(x,x==true).size() == 1"
        );
        assert_eq!(
            rule.message.as_deref(),
            Some("exactly one of the fields in [max-surge namespace] must be set")
        );
    }

    /// serde_json writes integer and bool map keys as strings and reads back only the
    /// strings it writes: the keys are held to that.
    #[test]
    fn integer_and_bool_map_keys_are_held_to_what_serde_json_reads() {
        let generated = generate_kind(
            r#"
            use std::collections::BTreeMap;
            #[derive(Schema)]
            pub struct ThingSpec {
                #[validation(max_properties = 8)]
                pub ports: BTreeMap<u16, String>,
                #[validation(max_properties = 8)]
                pub small: BTreeMap<i8, String>,
                #[validation(max_properties = 8)]
                pub wide: BTreeMap<i64, String>,
                #[validation(max_properties = 8)]
                pub flags: BTreeMap<bool, String>,
            }
            "#,
        )
        .unwrap();
        let spec = spec_properties(&generated);
        let rule = |field: &str| spec[field]["x-kubernetes-validations"][0]["rule"].clone();
        assert_eq!(
            rule("ports"),
            "self.all(k, k.matches('^(0|[1-9][0-9]*)$') && uint(k) <= 65535u)"
        );
        assert_eq!(
            rule("small"),
            "self.all(k, k.matches('^(0|-?[1-9][0-9]*)$') && int(k) >= -128 && int(k) <= 127)"
        );
        assert_eq!(
            rule("wide"),
            "self.all(k, k.matches('^(0|-?[1-9][0-9]*)$') && int(k) <= 9223372036854775807)"
        );
        assert_eq!(rule("flags"), "self.all(k, k in ['true', 'false'])");
        assert_eq!(
            spec["ports"]["x-kubernetes-validations"][0]["message"],
            "keys must be integers from 0 to 65535, in decimal without leading zeros"
        );
    }

    /// Where serde refuses fields a variant does not name, the variant's rule refuses the
    /// other variants' fields; an adjacently tagged unit variant takes no content.
    #[test]
    fn generic_types_are_built_for_each_use_with_its_arguments() {
        let generated = generate_kind(
            r#"
pub mod shared {
    #[derive(Schema)]
    pub struct Role<Config, Extra> {
        pub config: Config,
        pub role_groups: std::collections::BTreeMap<String, RoleGroup<Config>>,
        #[serde(flatten)]
        pub extra: Extra,
    }
    #[derive(Schema)]
    pub struct RoleGroup<T> { pub replicas: Option<u16>, pub config: T }
    #[derive(Schema)]
    #[serde(untagged)]
    pub enum Either<A, B> { Left(A), Right(B) }
}
pub mod zk {
    #[derive(Schema)]
    pub struct ZkConfig { pub tick: u32 }
    #[derive(Schema)]
    pub struct Ports { pub client: u16 }
}
use shared::{Either, Role};
#[derive(Schema)]
pub struct ThingSpec {
    pub servers: Role<zk::ZkConfig, zk::Ports>,
    pub maybe: shared::RoleGroup<Option<String>>,
    pub plain: shared::RoleGroup<String>,
    pub label: Either<u16, String>,
}
"#,
        )
        .unwrap();
        let spec = spec_schema(&generated);
        let servers = &spec["properties"]["servers"];
        assert_eq!(
            servers["properties"]["config"]["properties"]["tick"]["type"],
            "integer"
        );
        assert_eq!(servers["properties"]["client"]["type"], "integer");
        let group = &servers["properties"]["role_groups"]["additionalProperties"];
        assert_eq!(
            group["properties"]["config"]["required"],
            serde_json::json!(["tick"])
        );
        assert_eq!(group["required"], serde_json::json!(["config"]));
        // An `Option` argument makes the field optional, as serde reads it.
        let maybe = &spec["properties"]["maybe"];
        assert_eq!(maybe["properties"]["config"]["type"], "string");
        assert!(maybe["required"].is_null(), "{maybe}");
        assert_eq!(
            spec["properties"]["plain"]["required"],
            serde_json::json!(["config"])
        );
        assert_eq!(
            spec["properties"]["label"]["x-kubernetes-int-or-string"],
            true
        );

        let error = error_of(
            r#"
#[derive(Schema)]
pub struct Nest<T> { pub v: T, pub next: Option<Box<Nest<Vec<T>>>> }
#[derive(Schema)]
pub struct ThingSpec { pub nest: Nest<i32> }
"#,
        );
        assert!(
            error.contains("`Nest` holds an instance of itself with other type arguments"),
            "{error}"
        );
        let error = error_of(
            r#"
#[derive(Schema)]
pub struct Pair<A, B> { pub a: A, pub b: B }
#[derive(Schema)]
pub struct ThingSpec { pub pair: Pair<String> }
"#,
        );
        assert!(
            error.contains("`Pair` takes 2 type arguments (<A, B>), and 1 are given here"),
            "{error}"
        );
        // Arguments left out take their defaults, which may name the parameters before them.
        let generated = generate_kind(
            r#"
pub mod shared {
    #[derive(Schema)]
    pub struct Config { pub shared: bool }
    #[derive(Schema)]
    pub struct Role<T, U = Config, V = Vec<T>> { pub config: T, pub role: U, pub all: V }
}
#[derive(Schema)]
pub struct Config { pub own: u8 }
#[derive(Schema)]
pub struct ThingSpec { pub role: shared::Role<Config>, pub other: shared::Role<Config, String> }
"#,
        )
        .unwrap();
        let spec = spec_properties(&generated);
        let role = &spec["role"]["properties"];
        assert_eq!(role["config"]["required"], serde_json::json!(["own"]));
        assert_eq!(role["role"]["required"], serde_json::json!(["shared"]));
        assert_eq!(role["all"]["items"]["required"], serde_json::json!(["own"]));
        assert_eq!(spec["other"]["properties"]["role"]["type"], "string");
        let error = error_of(
            r#"
#[derive(Schema)]
pub struct Role<T, U = String> { pub config: T, pub role: U }
#[derive(Schema)]
pub struct ThingSpec { pub role: Role }
"#,
        );
        assert!(
            error.contains("`Role` takes 2 type arguments (<T, U>, the last 1 with defaults), and 0 are given here"),
            "{error}"
        );
    }

    #[test]
    fn a_struct_of_one_flattened_map_is_that_map() {
        let generated = generate_kind(
            r#"
#[derive(Schema)]
pub struct NodeSelector { #[serde(flatten)] pub node_selector: std::collections::BTreeMap<String, String> }
#[derive(Schema)]
pub struct ThingSpec { pub selector: Option<NodeSelector> }
"#,
        )
        .unwrap();
        assert_eq!(
            spec_properties(&generated)["selector"],
            serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}})
        );
    }

    #[test]
    fn a_variant_serde_never_writes_is_not_stored() {
        let generated = generate_kind(
            r#"
#[derive(Schema)]
#[serde(rename_all = "kebab-case")]
pub enum Feature { Steal, Mirror, #[serde(other, skip_serializing)] Unknown }
#[derive(Schema)]
pub struct ThingSpec { pub block: Vec<Feature> }
"#,
        )
        .unwrap();
        assert_eq!(
            spec_properties(&generated)["block"]["items"]["enum"],
            serde_json::json!(["steal", "mirror"])
        );
        let error = error_of(
            r#"
#[derive(Schema)]
pub enum Gone { #[serde(other, skip_serializing)] Unknown }
#[derive(Schema)]
pub struct ThingSpec { pub gone: Gone }
"#,
        );
        assert!(
            error.contains("enum `Gone` has no variant serde both reads and writes"),
            "{error}"
        );
        // schemars' skip on a variant serde writes would leave it out of schemars' schema only.
        let error = error_of(
            r#"
#[derive(Schema)]
pub enum Feature { Steal, #[schemars(skip)] Mirror }
#[derive(Schema)]
pub struct ThingSpec { pub block: Vec<Feature> }
"#,
        );
        assert!(
            error.contains("#[schemars(skip)] would shape the schemars schema but not the CRD"),
            "{error}"
        );
    }

    #[test]
    fn enum_rules_refuse_what_serde_refuses() {
        let generated = generate_kind(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub backend: Backend, pub action: Action, pub auth: Auth }
            #[derive(Schema)]
            #[serde(tag = "type", deny_unknown_fields)]
            pub enum Backend { S3 { bucket: String }, Gcs { project: String } }
            #[derive(Schema)]
            #[serde(tag = "kind", content = "params")]
            pub enum Action { Restart, Scale(Scale), Run { command: Vec<String> } }
            #[derive(Schema)]
            #[serde(deny_unknown_fields)]
            pub struct Scale { pub replicas: i32 }
            #[derive(Schema)]
            #[serde(untagged, deny_unknown_fields)]
            pub enum Auth { Token { token: String }, Basic { username: String, password: String } }
            "#,
        )
        .unwrap();
        let spec = spec_properties(&generated);
        let rules = |field: &str| {
            spec[field]["x-kubernetes-validations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["rule"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            rules("backend"),
            [
                "self.type != 'S3' || (has(self.bucket) && !has(self.project))",
                "self.type != 'Gcs' || (has(self.project) && !has(self.bucket))",
            ]
        );
        assert_eq!(
            rules("action"),
            [
                "self.kind != 'Restart' || (!has(self.params))",
                "self.kind != 'Scale' || (has(self.params) && has(self.params.replicas) && !has(self.params.command))",
                // Run's fields are the enum's: without deny_unknown_fields on it, serde
                // ignores the others.
                "self.kind != 'Run' || (has(self.params) && has(self.params.command))",
            ]
        );
        assert_eq!(
            rules("auth"),
            [
                "(has(self.token) && !has(self.password) && !has(self.username)) || (has(self.password) && has(self.username) && !has(self.token))"
            ]
        );
        assert_eq!(
            spec["backend"]["x-kubernetes-validations"][0]["message"],
            "type S3 needs bucket, and none of project"
        );
    }

    /// A flattened enum's fields join the struct's; what its own object checked (one
    /// variant of an externally tagged enum, an internally tagged one's variant rules)
    /// moves with them.
    #[test]
    fn flattened_enums_keep_their_checks() {
        let generated = generate_kind(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec {
                pub name: String,
                #[serde(flatten)]
                pub source: Source,
                #[serde(flatten)]
                pub store: Store,
                #[serde(flatten)]
                pub meta: Meta,
            }
            #[derive(Schema)]
            #[serde(rename_all = "camelCase")]
            pub enum Source { Git { url: String }, Helm { chart: String } }
            #[derive(Schema)]
            #[serde(tag = "storeType")]
            pub enum Store { Disk { path: String }, Memory { size: i32 } }
            #[derive(Schema)]
            pub struct Meta {
                pub version: String,
                #[serde(flatten)]
                pub extra: serde_json::Map<String, serde_json::Value>,
            }
            "#,
        )
        .unwrap();
        let spec = spec_schema(&generated);
        let rules: Vec<&str> = spec["x-kubernetes-validations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["rule"].as_str().unwrap())
            .collect();
        assert_eq!(
            rules,
            [
                "[has(self.git),has(self.helm)].filter(x,x==true).size() == 1",
                "self.storeType != 'Disk' || (has(self.path))",
                "self.storeType != 'Memory' || (has(self.size))",
            ]
        );
        assert_eq!(spec["x-kubernetes-preserve-unknown-fields"], true);
        assert_eq!(
            spec["required"],
            serde_json::json!(["name", "storeType", "version"])
        );

        // An optional flattened struct: serde reads `None` (and drops what is there) unless
        // all its required fields are there.
        let generated = generate_kind(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub name: String, #[serde(flatten)] pub pair: Option<Pair> }
            #[derive(Schema)]
            pub struct Pair { pub x: String, pub y: String, pub z: Option<String> }
            "#,
        )
        .unwrap();
        let spec = spec_schema(&generated);
        assert_eq!(
            spec["x-kubernetes-validations"],
            serde_json::json!([{
                "rule": "(has(self.x) && has(self.y)) || !(has(self.x) || has(self.y) || has(self.z))",
                "message": "x, y must be set with any of x, y, z"
            }])
        );
        assert_eq!(spec["required"], serde_json::json!(["name"]));
    }

    /// What serde writes and reads, also where the attributes say it unusually.
    #[test]
    fn serde_attributes_that_name_fields_unusually() {
        let generated = generate_kind(
            r#"
            #[derive(Schema)]
            #[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
            pub struct ThingSpec {
                pub some_field: String,
                #[cfg_attr(feature = "serde", serde(default))]
                pub other_field: Vec<String>,
                pub inner: Inner,
                pub strict: Strict,
                pub choices: Vec<Choice>,
                pub at: chrono::DateTime<chrono::Utc>,
                // What the error for a type of another crate advises.
                #[schema(schemaless)]
                #[validation(type = "string", format = "uri")]
                pub day: url::Url,
                pub on: chrono::NaiveDate,
                pub time: chrono::NaiveTime,
                pub release: semver::Version,
            }
            #[derive(Schema)]
            #[serde(tag = "kind", rename = "inner")]
            pub struct Inner { pub a: String }
            #[derive(Schema)]
            #[serde(deny_unknown_fields)]
            pub struct Strict {
                pub kept: String,
                #[serde(skip_deserializing)]
                pub written_only: String,
            }
            #[derive(Schema)]
            pub enum Choice { A(Option<String>), B { x: i32 } }
            "#,
        )
        .unwrap();
        let spec = spec_properties(&generated);
        let names =
            |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(
            names(&spec),
            [
                "at",
                "choices",
                "day",
                "inner",
                "on",
                "otherField",
                "release",
                "someField",
                "strict",
                "time"
            ]
        );
        assert_eq!(
            spec["inner"]["properties"]["kind"],
            serde_json::json!({"type": "string", "enum": ["inner"]})
        );
        assert_eq!(
            spec["day"],
            serde_json::json!({"type": "string", "format": "uri"})
        );
        // semver's versions: numbers up to u64::MAX without leading zeros.
        let release = regex::Regex::new(spec["release"]["pattern"].as_str().unwrap()).unwrap();
        for (version, admitted) in [
            ("0.1.2-rc.1+b.01", true),
            ("18446744073709551615.0.0", true),
            ("18446744073709551616.0.0", false),
            ("01.2.3", false),
        ] {
            assert_eq!(release.is_match(version), admitted, "{version}");
        }
        // chrono's dates and times without a zone, as its serde writes them.
        assert_eq!(spec["on"]["format"], "date");
        let pattern = spec["on"]["pattern"].as_str().unwrap();
        assert!(pattern.contains("-02-29"), "{pattern}");
        assert_eq!(
            spec["time"],
            serde_json::json!({"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]{1,9})?$"})
        );
        assert_eq!(names(&spec["strict"]["properties"]), ["kept"]);
        assert_eq!(
            spec["choices"]["items"]["properties"]["A"]["nullable"],
            true
        );
        assert_eq!(spec["at"]["type"], "string");
        assert_eq!(spec["at"]["format"], "date-time");
        assert!(
            spec["at"]["pattern"]
                .as_str()
                .unwrap()
                .contains("(Z|[+-]([01][0-9]|2[0-3])")
        );

        let err = error_of(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec {
                #[serde(rename(serialize = "outName", deserialize = "inName"))]
                pub name: String,
            }
            "#,
        );
        assert!(
            err.contains("src/lib.rs:5:21: error: serde writes this field as `outName` and reads it as `inName`"),
            "{err}"
        );
    }

    /// A field the variant rules must name but CEL cannot is an error at its variant, not
    /// a rule that does not compile.
    #[test]
    fn a_variant_field_cel_cannot_name_is_refused_at_the_variant() {
        let err = error_of(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub value: Value }
            #[derive(Schema)]
            #[serde(tag = "type")]
            pub enum Value {
                A { #[serde(rename = "return")] ret: String },
                B { #[serde(rename = "1st")] first: String },
            }
            "#,
        );
        assert!(
            err.contains("src/lib.rs:8:17: error: operator-gen checks the fields of `Value`'s variants with CEL rules, and CEL cannot name the field `1st`"),
            "{err}"
        );
        // A keyword is escaped, not refused.
        generate_kind(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub value: Value }
            #[derive(Schema)]
            #[serde(tag = "type")]
            pub enum Value { A { #[serde(rename = "return")] ret: String } }
            "#,
        )
        .unwrap();
    }

    /// The rules of a variant's own object (here a flattened enum's) hold for that variant
    /// only: where the tag names it, or where its required fields are.
    #[test]
    fn a_variants_own_rules_hold_for_that_variant() {
        let generated = generate_kind(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub tagged: Tagged, pub loose: Loose, pub source: Option<Src> }
            #[derive(Schema)]
            #[serde(tag = "type")]
            pub enum Tagged { A { name: String, #[serde(flatten)] src: Source }, B { other: String } }
            #[derive(Schema)]
            #[serde(untagged)]
            pub enum Loose { A { name: String, #[serde(flatten)] src: Source }, B { other: String } }
            #[derive(Schema)]
            pub enum Source { Git { url: String }, Helm { chart: String } }
            #[derive(Schema)]
            pub struct Src { pub name: String, #[serde(flatten)] pub kind: Option<Kind> }
            #[derive(Schema)]
            #[serde(tag = "kind")]
            pub enum Kind { Git { url: String } }
            "#,
        )
        .unwrap();
        let spec = spec_properties(&generated);
        let rules = |v: &serde_json::Value| {
            v["x-kubernetes-validations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["rule"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            rules(&spec["tagged"]),
            [
                "self.type != 'A' || (has(self.name))",
                "self.type != 'B' || (has(self.other))",
                "self.type != 'A' || ([has(self.Git),has(self.Helm)].filter(x,x==true).size() == 1)",
            ]
        );
        assert_eq!(
            rules(&spec["loose"]),
            [
                "!(has(self.name)) || ([has(self.Git),has(self.Helm)].filter(x,x==true).size() == 1)",
                "(has(self.name)) || (has(self.other))",
            ]
        );
        // An optional flattened enum's variant rules hold where serde reads it: its tag there.
        assert_eq!(
            rules(&spec["source"]),
            [
                "!(has(self.kind)) || (self.kind != 'Git' || (has(self.url)))",
                "(has(self.kind)) || !(has(self.kind) || has(self.url))",
            ]
        );
    }

    /// What serde writes under one name and reads under another, or writes and then
    /// refuses, has no schema; a name CEL cannot spell is refused where it is declared.
    #[test]
    fn names_serde_and_cel_disagree_on_are_refused_where_written() {
        let err = |types: &str| generate_kind(types).unwrap_err().to_string();
        let e = err(r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub v: V }
            #[derive(Schema)]
            pub enum V { #[serde(rename(serialize = "out", deserialize = "in"))] A { x: i32 } }
            "#);
        assert!(
            e.contains(
                "src/lib.rs:5:82: error: serde writes variant `A` as `out` and reads it as `in`"
            ),
            "{e}"
        );
        let e = err(r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub name: String, #[serde(flatten)] pub src: Src }
            #[derive(Schema)]
            pub enum Src { #[serde(rename = "1git")] Git { url: String }, Helm { chart: String } }
            "#);
        assert!(
            e.contains("src/lib.rs:3:81: error: the fields of this flattened type are checked with CEL rules on this struct, and CEL cannot name its field `1git`"),
            "{e}"
        );
        // A variant that refuses the others' fields: the error is at the field's own variant.
        let e = err(r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub v: V }
            #[derive(Schema)]
            #[serde(tag = "type", deny_unknown_fields)]
            pub enum V { A { x: i32 }, B { #[serde(rename = "2y")] y: Option<i32> } }
            "#);
        assert!(
            e.contains("src/lib.rs:6:40: error: operator-gen checks the fields of `V`'s variants with CEL rules, and CEL cannot name the field `2y`"),
            "{e}"
        );
        // A tagged struct that denies unknown fields refuses its own tag when reading, so
        // the schema does not admit it.
        let generated = generate_kind(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub inner: Inner }
            #[derive(Schema)]
            #[serde(tag = "kind", deny_unknown_fields)]
            pub struct Inner { pub a: String }
            "#,
        )
        .unwrap();
        assert!(
            spec_properties(&generated)["inner"]["properties"]
                .get("kind")
                .is_none()
        );
    }
}
