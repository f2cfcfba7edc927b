//! Markers onto schemas: each value constraint and schema property written into the
//! schema it sits on, after checking that it fits that schema's type; immutability and
//! one-of groups as CEL rules; the field names those rules use, escaped for CEL.

use crate::api::apiextensions::v1::{
    ExternalDocumentation, JSON, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};
use crate::diagnostics::Misfit;

use super::SchemaBuilder;
use super::rules::{RulePlaces, cel_field, push_rule_from};
use crate::markers::{
    CelRule, FieldMarkers, Length, OneOf, SchemaProp, Spanned, Validation, bound_conflicts,
};
use crate::place::Loc;

impl SchemaBuilder<'_> {
    /// Applies field or type markers to `schema`, checking that each fits.
    pub(super) fn apply_markers(
        &mut self,
        schema: &mut JSONSchemaProps,
        markers: &FieldMarkers<Loc>,
    ) {
        for p in &markers.schema {
            if let Err(msg) = apply_schema_prop(schema, &p.value) {
                self.error(p.span, msg);
            }
        }
        // A `type` override goes first, so the other constraints are checked against it.
        let (types, others): (Vec<_>, Vec<_>) = markers
            .validations
            .iter()
            .partition(|v| matches!(v.value, Validation::Type(_)));
        let int_or_string = schema.x_kubernetes_int_or_string == Some(true);
        let mut lengths = Vec::new();
        for l in &markers.lengths {
            match length_bounds(schema.type_.as_deref(), int_or_string, l.value) {
                Some(bounds) => lengths.extend(bounds.map(|v| Spanned::new(v, l.span))),
                None => self.error(
                    l.span,
                    "`length` applies to a string, a list or a map, and this value is none of those",
                ),
            }
        }
        // A length against the other bounds (written or named): conflicts between those
        // others alone were reported when the markers were read.
        if !lengths.is_empty() {
            let bounds: Vec<Spanned<Validation, Loc>> =
                others.iter().copied().chain(&lengths).cloned().collect();
            for conflict in bound_conflicts(&bounds) {
                if conflict
                    .between
                    .iter()
                    .any(|span| markers.lengths.iter().any(|l| l.span == *span))
                {
                    self.error(conflict.at, conflict.message);
                }
            }
        }
        for v in types.into_iter().chain(others).chain(&lengths) {
            if let Err(msg) = apply_validation(schema, v, &mut self.rule_places) {
                self.error(v.span, msg);
            }
        }
        // Each rule is compiled as the API server will compile it once the version's schema
        // is whole (a field's type may be filled in later): the rule remembers its marker.
        // CEL sees a value through its schema's type; the API server cannot compile a rule
        // on a value without one.
        if !has_cel_type(schema) {
            let rules = markers
                .validations
                .iter()
                .filter(|v| matches!(v.value, Validation::Cel(_)))
                .map(|v| (v.span, "a CEL rule"))
                .chain(
                    markers
                        .immutable
                        .map(|span| (span, "`immutable` (a CEL rule)")),
                );
            for (span, what) in rules {
                self.error(
                    span,
                    format!(
                        "{what} needs a value the API server's CEL can see, and this one has no type (serde_json::Value, schemaless) or holds values without one: the API server cannot compile the rule; give the values a type or drop the rule"
                    ),
                );
            }
        }
        if let Some(span) = markers.immutable {
            let rule = CelRule {
                rule: "self == oldSelf".into(),
                message: Some("field is immutable".into()),
                ..Default::default()
            };
            push_rule_from(schema, &rule, &mut self.rule_places, span);
        }
        let mut groups: Vec<&Spanned<(OneOf, Vec<String>), Loc>> = markers.one_of.iter().collect();
        groups.sort_by_key(|g| g.value.0);
        for group in groups {
            let (kind, fields) = &group.value;
            for f in fields {
                let property = schema.properties.as_ref().and_then(|p| p.get(f));
                if let Some(property) = property
                    && !(has_cel_type(property) && cel_nameable(f))
                {
                    self.error(
                        group.span,
                        format!(
                            "`{}` names `{f}`, which the API server's CEL cannot see (a value without a type, such as serde_json::Value, or a list or map of them; or a name CEL cannot spell), so it refuses the rule",
                            kind.key()
                        ),
                    );
                }
                if let Some(property) = property
                    && property.default.is_some()
                    && matches!(kind, OneOf::Exactly | OneOf::AtMost)
                {
                    self.error(
                        group.span,
                        format!(
                            "`{}` names `{f}`, which has a default: the API server fills it in, so it is always set and the group's other fields could never be; drop the default or the field from the group",
                            kind.key()
                        ),
                    );
                }
                if property.is_none() {
                    self.error(
                        group.span,
                        format!(
                            "`{}` names `{f}`, which is not a field of this struct (JSON names, after serde renames)",
                            kind.key()
                        ),
                    );
                }
            }
            // The rule names the fields as CEL spells them; the message as they are.
            let escaped: Vec<String> = fields.iter().map(|f| cel_field(f)).collect();
            let rule = CelRule {
                message: kind.rule(fields).message,
                ..kind.rule(&escaped)
            };
            // A group naming a field that is not there is reported above already: its rule
            // is not judged again.
            let props = schema.properties.as_ref();
            if !fields
                .iter()
                .all(|f| props.is_some_and(|p| p.contains_key(f)))
            {
                self.cel_skip.insert(rule.rule.clone());
            }
            push_rule_from(schema, &rule, &mut self.rule_places, group.span);
        }
        if !markers.items.is_empty() || !markers.items_schema.is_empty() {
            match &mut schema.items {
                Some(JSONSchemaPropsOrArray::Schema(items)) => {
                    // The flags go first: int_or_string widens what the value constraints
                    // may apply to, as on a field.
                    for p in &markers.items_schema {
                        if let Err(msg) = apply_schema_prop(items, &p.value) {
                            self.error(p.span, msg.prefixed("items: "));
                        }
                    }
                    for v in &markers.items {
                        if let Err(msg) = apply_validation(items, v, &mut self.rule_places) {
                            self.error(v.span, msg.prefixed("items: "));
                        }
                    }
                }
                _ => {
                    let span = markers
                        .items
                        .first()
                        .map_or_else(|| markers.items_schema[0].span, |v| v.span);
                    self.error(
                        span,
                        "`items(...)` applies to arrays (Vec, sets, fixed arrays)",
                    );
                }
            }
        }
    }

    /// Checks what the API server checks of a field's or type's final schema, at the
    /// marker or, for what no marker holds, at `site` (the field's type): each `default`
    /// and `example` of `markers` against the schema, the keys and items of `set` and `map`
    /// lists, and rules on `oldSelf` where old and new values cannot be paired.
    pub(super) fn check_final_schema(
        &mut self,
        schema: &JSONSchemaProps,
        markers: &FieldMarkers<Loc>,
        site: Loc,
    ) {
        let items = match &schema.items {
            Some(JSONSchemaPropsOrArray::Schema(items)) => Some(&**items),
            _ => None,
        };
        let sites = markers
            .schema
            .iter()
            .map(|p| (p, Some(schema), ""))
            .chain(markers.items_schema.iter().map(|p| (p, items, "items: ")));
        for (p, schema, prefix) in sites {
            let (what, value) = match &p.value {
                SchemaProp::Default(v) => ("default", v),
                SchemaProp::Example(v) => ("example", v),
                _ => continue,
            };
            if let Some(schema) = schema
                && let Err(problem) = super::values::check(value, schema)
            {
                self.error(p.span, problem.prefixed(&format!("{prefix}{what} ")));
            }
        }
        if let Some(path) = uncorrelated_old_self(schema) {
            self.error(
                site,
                format!(
                    "{path} has a rule on `oldSelf` (immutable, or a CEL transition rule), but it sits in {}: the API server cannot pair an old and a new value there and refuses the CRD; make the list `list_type = \"map\"` with list_map_keys, or drop the rule",
                    if schema.type_.as_deref() == Some("array") {
                        "a list that is not `list_type = \"map\"`"
                    } else {
                        "an atomic object"
                    }
                ),
            );
        }
        if let Some(rule) = unbounded_key_rule(schema) {
            self.error(
                site,
                Misfit::from(format!(
                    "the keys of this map read only some strings, so operator-gen holds them to that with the CEL rule `{rule}`; the API server refuses such a rule on a map without `maxProperties` (its estimated cost is over the budget)"
                ))
                .with_help("bound the map: #[validation(max_properties = N)] on the field, or #[validation(items(max_properties = N))] for the maps of a list; or use String keys"),
            );
        }
        let list_type = markers.schema.iter().find_map(|p| match &p.value {
            SchemaProp::ListType(t) => Some((t.as_str(), p.span)),
            _ => None,
        });
        if let (Some((list_type, span)), Some(items)) = (list_type, items)
            && let Err(problem) = check_list_items(schema, list_type, items)
        {
            let span = markers
                .schema
                .iter()
                .find(|p| matches!(p.value, SchemaProp::ListMapKeys(_)))
                .map_or(span, |p| p.span);
            self.error(span, problem);
        }
    }
}

/// The first key rule (see `types::key_rule`) on a map without `maxProperties` in this
/// schema, its list items or its map values (not in its properties: each field is checked
/// where it is declared).
fn unbounded_key_rule(schema: &JSONSchemaProps) -> Option<&str> {
    if let Some(JSONSchemaPropsOrBool::Schema(values)) = &schema.additional_properties {
        if schema.max_properties.is_none()
            && let Some(rule) = schema
                .x_kubernetes_validations
                .iter()
                .flatten()
                .find(|r| super::types::is_key_rule(r))
        {
            return Some(&rule.rule);
        }
        return unbounded_key_rule(values);
    }
    match &schema.items {
        Some(JSONSchemaPropsOrArray::Schema(items)) => unbounded_key_rule(items),
        _ => None,
    }
}

/// Whether the API server's CEL can see a value of this schema (its `SchemaDeclType` is
/// not nil): an int-or-string, a scalar, an object, or a list or map whose values it can
/// see. A value without a type (serde_json::Value, schemaless) is invisible, and so is a
/// list or map of them; an object merely leaves such properties out.
fn has_cel_type(schema: &JSONSchemaProps) -> bool {
    if schema.x_kubernetes_int_or_string == Some(true) {
        return true;
    }
    match schema.type_.as_deref() {
        Some("array") => match &schema.items {
            Some(JSONSchemaPropsOrArray::Schema(items)) => has_cel_type(items),
            _ => false,
        },
        Some("object") => match &schema.additional_properties {
            Some(JSONSchemaPropsOrBool::Schema(values)) => has_cel_type(values),
            _ => true,
        },
        Some("string" | "boolean" | "number" | "integer") => true,
        _ => false,
    }
}

/// Whether a property of this name is a field CEL can name (the API server drops the
/// others from the object's CEL type): not empty, not starting with a digit, and made of
/// letters, digits, `_`, `.`, `-` and `/` (the last three escaped).
fn cel_nameable(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/'))
}

/// Where a rule on `oldSelf` sits in a part of `schema` that the API server cannot
/// correlate between an old and a new object: the items of a list that is not a `map` list,
/// or the inside of an atomic object or map (rules on the list or object itself are fine).
fn uncorrelated_old_self(schema: &JSONSchemaProps) -> Option<String> {
    let uncorrelated = match schema.type_.as_deref() {
        Some("array") => schema.x_kubernetes_list_type.as_deref() != Some("map"),
        Some("object") => schema.x_kubernetes_map_type.as_deref() == Some("atomic"),
        _ => false,
    };
    let mut path = String::new();
    (uncorrelated && inner_old_self(schema, &mut path)).then(|| format!("`{path}`"))
}

/// Whether a rule below `schema` (not on it) reads `oldSelf`; `path` ends at that rule.
fn inner_old_self(schema: &JSONSchemaProps, path: &mut String) -> bool {
    let len = path.len();
    let visit = |segment: [&str; 2], child: &JSONSchemaProps, path: &mut String| {
        path.push_str(segment[0]);
        path.push_str(segment[1]);
        let found = reads_old_self(child) || inner_old_self(child, path);
        if !found {
            path.truncate(len);
        }
        found
    };
    for (name, child) in schema.properties.iter().flatten() {
        if visit([".", name], child, path) {
            return true;
        }
    }
    if let Some(JSONSchemaPropsOrBool::Schema(values)) = &schema.additional_properties
        && visit(["[*]", ""], values, path)
    {
        return true;
    }
    matches!(&schema.items, Some(JSONSchemaPropsOrArray::Schema(items)) if visit(["[*]", ""], items, path))
}

/// Whether a rule of `schema` itself reads `oldSelf`.
fn reads_old_self(schema: &JSONSchemaProps) -> bool {
    schema
        .x_kubernetes_validations
        .iter()
        .flatten()
        .any(|r| r.rule.contains("oldSelf") || r.optional_old_self == Some(true))
}

/// What the API server requires of the items of a `set` or `map` list: items that are not
/// nullable; for a set, items that are scalars or atomic; for a map, objects whose keys are
/// scalar fields, each required or defaulted, none nullable.
fn check_list_items(
    schema: &JSONSchemaProps,
    list_type: &str,
    items: &JSONSchemaProps,
) -> Result<(), Misfit> {
    if list_type != "set" && list_type != "map" {
        return Ok(());
    }
    if items.nullable == Some(true) {
        return Err(Misfit::from(format!(
            "the items of a list of list_type \"{list_type}\" cannot be nullable (the API server refuses it)"
        )));
    }
    let item_type = items.type_.as_deref().unwrap_or("");
    if list_type == "set" {
        let atomic = match item_type {
            "object" => items.x_kubernetes_map_type.as_deref() == Some("atomic"),
            "array" => matches!(
                items.x_kubernetes_list_type.as_deref(),
                None | Some("atomic")
            ),
            _ => true,
        };
        if !atomic {
            return Err(Misfit::from(format!(
                "a list of list_type \"set\" needs scalar or atomic items, and these are {} that is not atomic; use list_type = \"map\" with list_map_keys, or make the item type atomic (#[schema(struct_type = \"atomic\")] on it)",
                if item_type == "object" {
                    "an object"
                } else {
                    "a list"
                }
            )));
        }
        return Ok(());
    }
    if item_type != "object" {
        return Err(Misfit::from(format!(
            "list_type = \"map\" needs a list of objects (structs), not of `{item_type}`"
        )));
    }
    let required = items.required.as_deref().unwrap_or(&[]);
    let keys = schema.x_kubernetes_list_map_keys.as_deref().unwrap_or(&[]);
    for (i, key) in keys.iter().enumerate() {
        if keys[..i].contains(key) {
            return Err(Misfit::from(format!("list_map_keys names `{key}` twice")));
        }
        let Some(field) = items.properties.as_ref().and_then(|p| p.get(key)) else {
            let known: Vec<&str> = items
                .properties
                .iter()
                .flatten()
                .map(|(k, _)| k.as_str())
                .collect();
            return Err(Misfit::from(format!(
                "list_map_keys names `{key}`, which is not a field of the items (JSON names, after serde renames: {})",
                known.join(", ")
            )));
        };
        if matches!(field.type_.as_deref(), Some("object" | "array")) {
            return Err(Misfit::from(format!(
                "the list-map key `{key}` must be a scalar (string, integer, number or boolean), not an {}",
                field.type_.as_deref().unwrap_or_default()
            )));
        }
        if field.nullable == Some(true) {
            return Err(Misfit::from(format!(
                "the list-map key `{key}` cannot be nullable (the API server refuses it)"
            )));
        }
        if !required.contains(key) && field.default.is_none() {
            return Err(Misfit::from(format!(
                "the list-map key `{key}` must be required or have a default (the API server refuses an optional key without one); make the field non-optional or give it #[schema(default = ...)]"
            )));
        }
    }
    Ok(())
}

fn apply_schema_prop(schema: &mut JSONSchemaProps, prop: &SchemaProp) -> Result<(), Misfit> {
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
        // Both act on the whole field schema, so struct_schema applies them itself; the
        // last is a check of the field's serde default there.
        SchemaProp::Schemaless | SchemaProp::SkipDescriptions | SchemaProp::NoDefault => {}
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

fn apply_validation(
    schema: &mut JSONSchemaProps,
    v: &Spanned<Validation, Loc>,
    rule_places: &mut RulePlaces,
) -> Result<(), Misfit> {
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
                super::values::type_fits(value, schema).map_err(|m| m.prefixed("enum value "))?;
            }
            schema.enum_ = Some(values.iter().cloned().map(JSON).collect());
        }
        Validation::Format(fmt) => schema.format = Some(fmt.clone()),
        Validation::Type(t) => schema.type_ = Some(t.clone()),
        Validation::Cel(rule) => push_rule_from(schema, rule, rule_places, v.span),
        Validation::JsonOneOf(list) => schema.one_of = Some(junctor_list(list, schema)?),
        Validation::JsonAnyOf(list) => schema.any_of = Some(junctor_list(list, schema)?),
        Validation::JsonAllOf(list) => schema.all_of = Some(junctor_list(list, schema)?),
        Validation::JsonNot(one) => schema.not = Some(Box::new(junctor_of(one, schema)?)),
    }
    Ok(())
}

/// The schemas of a `one_of`, `any_of` or `all_of` marker (checked when it was read).
fn junctor_list(
    list: &serde_json::Value,
    schema: &JSONSchemaProps,
) -> Result<Vec<JSONSchemaProps>, Misfit> {
    let items = list.as_array().map(Vec::as_slice).unwrap_or_default();
    items.iter().map(|one| junctor_of(one, schema)).collect()
}

/// One schema inside a junctor: every property it names must be one of `schema`'s, as the
/// API server requires of a structural schema.
fn junctor_of(
    one: &serde_json::Value,
    schema: &JSONSchemaProps,
) -> Result<JSONSchemaProps, Misfit> {
    let inner: JSONSchemaProps = serde_json::from_value(one.clone())
        .map_err(|e| Misfit::from(format!("not a schema: {e}")))?;
    if let Some(props) = &inner.properties {
        for name in props.keys() {
            if !schema
                .properties
                .as_ref()
                .is_some_and(|p| p.contains_key(name))
            {
                return Err(Misfit::from(format!(
                    "names the property `{name}`, which the schema does not have (the API server requires each property inside a junctor to be one of the schema's own)"
                )));
            }
        }
    }
    Ok(inner)
}

/// The markers a `length(...)` stands for on a schema of type `ty`: characters of a string,
/// items of a list, entries of a map; `None` for any other type.
fn length_bounds(
    ty: Option<&str>,
    int_or_string: bool,
    length: Length,
) -> Option<impl Iterator<Item = Validation>> {
    type Bound = fn(u64) -> Validation;
    let (min, max): (Bound, Bound) = match ty {
        Some("string") => (Validation::MinLength, Validation::MaxLength),
        _ if int_or_string => (Validation::MinLength, Validation::MaxLength),
        Some("array") => (Validation::MinItems, Validation::MaxItems),
        Some("object") => (Validation::MinProperties, Validation::MaxProperties),
        _ => return None,
    };
    Some(length.min.map(min).into_iter().chain(length.max.map(max)))
}
