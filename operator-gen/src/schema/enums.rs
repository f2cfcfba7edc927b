//! serde's four enum representations as schemas: unit variants as a string enum,
//! externally tagged (one property per variant), internally and adjacently tagged (the tag
//! next to the union of the variants' fields, with CEL rules per variant), untagged.

use crate::diagnostics::Misfit;
use std::collections::BTreeMap;

use crate::api::apiextensions::v1::{JSON, JSONSchemaProps, ValidationRule};

use super::rules::{cel_field, push_rule};
use super::{SchemaBuilder, Site, object};
use crate::markers::{self, CelRule};
use crate::model::{Fields, Ty, TypeDef, VariantDef};
use crate::serde_attrs::{ContainerAttrs, SerdeShape, VariantAttrs};

/// A variant serde reads, with its JSON name and serde's reading of it.
type Variant<'m> = (String, &'m VariantDef, &'m VariantAttrs);

impl<'m> SchemaBuilder<'m> {
    /// The schema of an enum, following serde's representation of it: unit variants alone
    /// are a string enum; data-carrying variants become objects (externally tagged: one
    /// property per variant, exactly one set; internally or adjacently tagged: the tag as a
    /// string enum next to the variants' fields, with each variant's required fields checked
    /// by a CEL rule; untagged: the union of the variants' fields). Shapes that are not
    /// structural (strings mixed with objects, tuples, untagged unit variants) are errors.
    pub(super) fn enum_schema(
        &mut self,
        site: Site<'m>,
        item: &'m TypeDef,
        all: &'m [VariantDef],
        shape: &'m SerdeShape,
    ) -> Option<JSONSchemaProps> {
        let (ser_repr, de_repr) = (
            item.derives("Serialize_repr"),
            item.derives("Deserialize_repr"),
        );
        if ser_repr || de_repr {
            return self.repr_enum(item, all, ser_repr && de_repr);
        }
        let container = &shape.container;
        let mut variants: Vec<Variant<'m>> = Vec::new();
        for (variant, attrs) in all.iter().zip(&shape.variants) {
            // A variant serde never reads has no place in what the API server stores, nor
            // has one it never writes: the operator could read such an object but never
            // write it back (`#[serde(other, skip_serializing)] Unknown`).
            if attrs.skip_deserializing || attrs.skip_serializing {
                continue;
            }
            if let Some(swap) = attrs.swaps.first() {
                self.error(
                    swap.at,
                    format!(
                        "#[serde({} = \"{}\")] changes the JSON of variant `{}`, so its Rust fields do not describe it; move the conversion onto a type of its own (a newtype with markers that say what goes over the wire)",
                        swap.attribute, swap.target, variant.name
                    ),
                );
                return None;
            }
            if let Some(marker) = variant.marker {
                self.error(marker, markers::VARIANT_MARKER);
                return None;
            }
            if !variant.foreign_problems.is_empty() {
                self.report(&variant.foreign_problems);
                return None;
            }
            if let Fields::Unnamed(u) = &variant.fields
                && u.len() != 1
            {
                self.error(
                    variant.at,
                    format!(
                        "variant `{}` serializes as a JSON array, which has no structural schema; use named fields",
                        variant.name
                    ),
                );
                return None;
            }
            if let Some(written) = attrs
                .written_name
                .as_ref()
                .filter(|_| !attrs.skip_serializing)
            {
                self.error(
                    variant.at,
                    Misfit::from(format!(
                        "serde writes variant `{}` as `{written}` and reads it as `{}`; the schema can name it once, so the API server would refuse (or drop) what the operator writes",
                        variant.name, attrs.name
                    ))
                    .with_help("give it one name (`#[serde(rename = \"...\")]`); to go on reading an old name too, add `#[serde(alias = \"...\")]`"),
                );
                return None;
            }
            let json_name = attrs.name.clone();
            if let Some((_, first, _)) = variants.iter().find(|(n, _, _)| *n == json_name) {
                self.error(
                    variant.at,
                    format!(
                        "variants `{}` and `{}` both serialize as {json_name:?}; serde could not tell them apart when reading",
                        first.name, variant.name
                    ),
                );
                return None;
            }
            variants.push((json_name, variant, attrs));
        }
        if variants.is_empty() {
            self.error(
                item.at,
                format!(
                    "enum `{}` has no variant serde both reads and writes, so no value of it can be stored and read back (an empty `enum` would admit anything)",
                    item.name
                ),
            );
            return None;
        }
        if container.untagged {
            return self.untagged_enum(site, item, &variants, container);
        }
        match &container.tag {
            None => self.externally_tagged_enum(site, item, &variants),
            Some(tag) => self.tagged_enum(site, item, &variants, container, tag),
        }
    }

    /// An enum with serde_repr's derives: written and read as its discriminant, an integer
    /// of its `#[repr]` type (implicit discriminants count up from the one before, from 0).
    /// Only those integers read, unless a variant is `#[serde(other)]`, which takes any.
    fn repr_enum(
        &mut self,
        item: &'m TypeDef,
        variants: &'m [VariantDef],
        both: bool,
    ) -> Option<JSONSchemaProps> {
        if !both {
            self.error(
                item.at,
                format!(
                    "`{}` derives one of serde_repr's Serialize_repr and Deserialize_repr but not the other, so it is written and read in different forms (an integer and a name); derive both",
                    item.name
                ),
            );
            return None;
        }
        let Some(int) = item.repr.as_deref().and_then(super::types::integer) else {
            self.error(
                item.at,
                format!(
                    "`{}` derives serde_repr's traits, which write the discriminant as the #[repr] integer; give it one (#[repr(u8)], #[repr(i32)], ...)",
                    item.name
                ),
            );
            return None;
        };
        let mut values: Vec<i128> = Vec::new();
        let mut other = false;
        let mut next: i128 = 0;
        for variant in variants {
            if !matches!(variant.fields, Fields::Unit) {
                self.error(
                    variant.at,
                    format!(
                        "variant `{}` carries data; serde_repr writes only unit variants, as their discriminant",
                        variant.name
                    ),
                );
                return None;
            }
            let value = match variant.discriminant {
                None => next,
                Some(Ok(n)) => n,
                Some(Err(at)) => {
                    self.error(
                        at,
                        "operator-gen reads discriminants written as integer literals (it does not evaluate constants); write the number",
                    );
                    return None;
                }
            };
            next = value + 1;
            other |= variant.serde_other;
            values.push(value);
        }
        let mut schema = super::types::integer_schema(int);
        if !other {
            schema.minimum = None;
            schema.maximum = None;
            schema.enum_ = Some(
                values
                    .into_iter()
                    .map(|v| JSON(serde_json::Value::from(v as i64)))
                    .collect(),
            );
        }
        Some(schema)
    }

    /// `#[serde(untagged)]`: the union of the variants' fields, and a rule that the object
    /// has all required fields of at least one variant.
    fn untagged_enum(
        &mut self,
        site: Site<'m>,
        item: &'m TypeDef,
        variants: &[Variant<'m>],
        container: &ContainerAttrs,
    ) -> Option<JSONSchemaProps> {
        if let Some((_, unit, _)) = variants.iter().find(|(_, v, _)| is_unit(v)) {
            self.error(
                unit.at,
                format!(
                    "unit variant `{}` of an untagged enum serializes as null, which has no structural schema",
                    unit.name
                ),
            );
            return None;
        }
        if let [(_, a, _), (_, b, _)] = variants
            && let (Some(a_ty), Some(b_ty)) = (newtype(a), newtype(b))
        {
            let a_schema = self.type_schema(site, a_ty)?;
            let b_schema = self.type_schema(site, b_ty)?;
            if let Some(result) = int_or_string(&a_schema, &b_schema) {
                return match result {
                    Ok(schema) => Some(schema),
                    Err(why) => {
                        self.error(item.at, why);
                        None
                    }
                };
            }
        }
        // Newtype variants that all carry strings: serde tries each in turn, so the enum
        // reads the union of what they read.
        let carried: Option<Vec<&Ty>> = variants.iter().map(|(_, v, _)| newtype(v)).collect();
        if let Some(carried) = carried {
            let mut schemas = Vec::new();
            for ty in carried {
                let mut schema = self.type_schema(site, ty)?;
                if super::is_optional(ty) {
                    schema.nullable = Some(true);
                }
                schemas.push(schema);
            }
            if let Some(result) = string_union(&schemas) {
                return match result {
                    Ok(schema) => Some(schema),
                    Err(why) => {
                        self.error(item.at, why);
                        None
                    }
                };
            }
        }
        let (mut union, forms, all_fields) = self.forms(site, item, variants, container)?;
        push_guarded_by_fields(&mut union, &forms);
        // Each form: its required fields, and (where serde refuses fields it does not name)
        // none of the other forms' fields.
        let alternatives: Vec<(Vec<String>, Vec<String>)> = forms
            .iter()
            .map(|f| {
                let others = if f.denies {
                    f.others(&all_fields)
                } else {
                    Vec::new()
                };
                (f.required.clone(), others)
            })
            .collect();
        // A form that requires nothing and refuses nothing matches any object: then there is
        // nothing to check.
        if alternatives
            .iter()
            .all(|(r, o)| !r.is_empty() || !o.is_empty())
        {
            let check = |(required, others): &(Vec<String>, Vec<String>)| {
                required
                    .iter()
                    .map(|f| format!("has(self.{})", cel_field(f)))
                    .chain(
                        others
                            .iter()
                            .map(|f| format!("!has(self.{})", cel_field(f))),
                    )
                    .collect::<Vec<_>>()
                    .join(" && ")
            };
            let say = |(required, others): &(Vec<String>, Vec<String>)| {
                let mut parts = Vec::new();
                if !required.is_empty() {
                    parts.push(required.join(" and "));
                }
                if !others.is_empty() {
                    parts.push(format!("none of {}", others.join(", ")));
                }
                parts.join(" and ")
            };
            push_rule(
                &mut union,
                &CelRule {
                    rule: alternatives
                        .iter()
                        .map(|a| format!("({})", check(a)))
                        .collect::<Vec<_>>()
                        .join(" || "),
                    message: Some(format!(
                        "must be one of the forms of {}: with {}",
                        item.name,
                        alternatives
                            .iter()
                            .map(say)
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
        site: Site<'m>,
        item: &'m TypeDef,
        variants: &[Variant<'m>],
    ) -> Option<JSONSchemaProps> {
        if variants.iter().all(|(_, v, _)| is_unit(v)) {
            return Some(string_enum(variants));
        }
        if let Some((_, unit, _)) = variants.iter().find(|(_, v, _)| is_unit(v)) {
            self.error(
                unit.at,
                format!(
                    "enum `{}` mixes unit variants (JSON strings) with data-carrying variants (JSON objects), which no structural schema allows; give `{}` a field, or use #[serde(tag = \"...\")]",
                    item.name, unit.name
                ),
            );
            return None;
        }
        let mut properties = BTreeMap::new();
        for (json_name, variant, attrs) in variants {
            let mut schema = match &variant.fields {
                Fields::Unnamed(u) => {
                    let mut schema = self.type_schema(site, &u[0].ty)?;
                    // serde writes `A(None)` as `{"A": null}`: the null must stay, or the
                    // object is left with no variant.
                    if super::is_optional(&u[0].ty) {
                        schema.nullable = Some(true);
                    }
                    schema
                }
                _ => self.variant_object(site, item, variant, attrs)?,
            };
            if let Some(doc) = &variant.doc {
                schema.description = Some(doc.clone());
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
    /// and a CEL rule per variant requiring its fields when the tag names it. Where serde
    /// refuses fields a variant does not name (`deny_unknown_fields` on the enum, or on a
    /// newtype variant's struct), the rule also refuses the other variants' fields; an
    /// adjacently tagged unit variant takes no content.
    fn tagged_enum(
        &mut self,
        site: Site<'m>,
        item: &'m TypeDef,
        variants: &[Variant<'m>],
        container: &ContainerAttrs,
        tag: &str,
    ) -> Option<JSONSchemaProps> {
        let (mut union, forms, all_fields) = self.forms(site, item, variants, container)?;
        // (Unit variants alone get no rules.)
        if let Some(name) = [Some(tag), container.content.as_deref()]
            .into_iter()
            .flatten()
            .find(|n| !super::rules::cel_can_name(n))
            && forms.iter().any(|f| !f.unit)
        {
            self.error(
                item.at,
                format!(
                    "operator-gen checks the variants of `{}` with CEL rules on its tag and content, and CEL cannot name `{name}` (a name must start with a letter, `_`, `.`, `-` or `/` and hold only those and digits); rename it",
                    item.name
                ),
            );
            return None;
        }
        let mut rules = Vec::new();
        for form in &forms {
            let mut checks: Vec<String> = Vec::new();
            let prefix = container
                .content
                .as_ref()
                .map_or(String::new(), |c| format!("{}.", cel_field(c)));
            let mut takes_no_content = None;
            match &container.content {
                // serde reads an adjacently tagged unit variant from no content (or null).
                Some(content) if form.unit && !all_fields.is_empty() => {
                    checks.push(format!("!has(self.{})", cel_field(content)));
                    takes_no_content = Some(content);
                }
                Some(_) if form.unit => {}
                Some(content) => checks.push(format!("has(self.{})", cel_field(content))),
                None => {}
            }
            checks.extend(
                form.required
                    .iter()
                    .map(|f| format!("has(self.{prefix}{})", cel_field(f))),
            );
            let others = form.others(&all_fields);
            let refused = if form.denies && !others.is_empty() {
                checks.extend(
                    others
                        .iter()
                        .map(|f| format!("!has(self.{prefix}{})", cel_field(f))),
                );
                others
            } else {
                Vec::new()
            };
            if checks.is_empty() {
                continue;
            }
            let needs = match (&container.content, form.required.is_empty()) {
                (_, _) if form.unit => None,
                (Some(c), true) => Some(c.clone()),
                (Some(c), false) => Some(format!("{c} with {}", form.required.join(", "))),
                (None, true) => None,
                (None, false) => Some(form.required.join(", ")),
            };
            let message = match (needs, takes_no_content, refused.is_empty()) {
                (_, Some(content), _) => format!("{tag} {} takes no {content}", form.name),
                (Some(needs), None, true) => format!("{tag} {} needs {needs}", form.name),
                (Some(needs), None, false) => format!(
                    "{tag} {} needs {needs}, and none of {}",
                    form.name,
                    refused.join(", ")
                ),
                (None, None, _) => {
                    format!("{tag} {} takes none of {}", form.name, refused.join(", "))
                }
            };
            rules.push(CelRule {
                rule: format!(
                    "self.{} != {} || ({})",
                    cel_field(tag),
                    super::rules::cel_string(form.name),
                    checks.join(" && ")
                ),
                message: Some(message),
                ..Default::default()
            });
        }
        let mut properties = BTreeMap::from([(tag.to_string(), string_enum(variants))]);
        // Rules of the variants' own types stay with their fields: on `content`, or, when the
        // fields sit next to the tag, on the enum's object after the tag rules.
        let mut carried_rules = Vec::new();
        // A variant's flattened map of any JSON keeps the fields no variant names.
        let mut preserve_unknown = None;
        match &container.content {
            Some(content) => {
                // The content object cannot see the tag: a variant's rules hold where its
                // required fields are.
                push_guarded_by_fields(&mut union, &forms);
                if union.properties.is_some() {
                    properties.insert(content.clone(), union);
                }
            }
            None => {
                // Next to the tag, a variant's rules hold where the tag names it.
                for form in &forms {
                    let unless = format!(
                        "self.{} != {}",
                        cel_field(tag),
                        super::rules::cel_string(form.name)
                    );
                    carried_rules.extend(form.rules.iter().map(|r| guarded(r, &unless)));
                }
                preserve_unknown = union.x_kubernetes_preserve_unknown_fields;
                for (name, prop) in union.properties.take().unwrap_or_default() {
                    if properties.insert(name.clone(), prop).is_some() {
                        self.error(
                            item.at,
                            format!(
                                "a variant of `{}` has a field `{name}`, the name of the enum's tag",
                                item.name
                            ),
                        );
                        return None;
                    }
                }
            }
        }
        let mut schema = JSONSchemaProps {
            required: Some(vec![tag.to_string()]),
            x_kubernetes_preserve_unknown_fields: preserve_unknown,
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
        site: Site<'m>,
        item: &'m TypeDef,
        variant: &'m VariantDef,
        variant_attrs: &'m VariantAttrs,
    ) -> Option<JSONSchemaProps> {
        if variant_attrs.untagged {
            self.error(
                variant.at,
                format!(
                    "#[serde(untagged)] on variant `{}` mixes two representations in one enum; operator-gen supports one representation per enum",
                    variant.name
                ),
            );
            return None;
        }
        let schema = match &variant.fields {
            // serde has named the fields already (the variant's `rename_all`, else the
            // enum's `rename_all_fields`); the enum's `default` does not reach them.
            Fields::Named(fields) => self.struct_schema(
                site,
                fields,
                &variant_attrs.fields,
                &ContainerAttrs::default(),
                false,
            )?,
            Fields::Unnamed(u) => self.type_schema(site, &u[0].ty)?,
            Fields::Unit => return Some(object(BTreeMap::new())),
        };
        if schema.type_.as_deref() != Some("object") || schema.additional_properties.is_some() {
            let container = item.serde.as_ref().map(|s| &s.container).ok();
            let why = match container {
                Some(c) if c.untagged => "an untagged enum's variants share one object schema: the API server has no structural schema for a value that is a string or a number in one form and an object in another (one integer and one string variant alone make an int-or-string)".to_string(),
                Some(ContainerAttrs {
                    content: Some(content),
                    ..
                }) => format!(
                    "the variants' contents share one object schema under `{content}`, which cannot also be a string, a number, a list or a map"
                ),
                _ => "its fields become the object's fields, next to the tag".to_string(),
            };
            self.error(
                variant.at,
                format!(
                    "variant `{}` of `{}` must carry a struct with named fields in this enum representation: {why}",
                    variant.name, item.name
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
        item: &'m TypeDef,
        variant: &'m VariantDef,
        union: &mut JSONSchemaProps,
        fields: JSONSchemaProps,
    ) -> Option<()> {
        let properties = union.properties.get_or_insert_with(BTreeMap::new);
        for (name, prop) in fields.properties.unwrap_or_default() {
            match properties.get(&name) {
                Some(existing) if *existing != prop => {
                    self.error(
                        variant.at,
                        format!(
                            "variant `{}` of `{}` has a field `{name}` that another variant declares with a different schema; the variants' fields share one object",
                            variant.name, item.name
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
        if fields.x_kubernetes_preserve_unknown_fields == Some(true) {
            union.x_kubernetes_preserve_unknown_fields = Some(true);
        }
        for rule in fields.x_kubernetes_validations.unwrap_or_default() {
            union
                .x_kubernetes_validations
                .get_or_insert_with(Vec::new)
                .push(rule);
        }
        Some(())
    }
}

/// One variant's form in a tagged or untagged enum's object: its JSON name, its required
/// and its own fields, and whether serde refuses fields it does not name.
struct Form<'a> {
    name: &'a str,
    unit: bool,
    required: Vec<String>,
    own: Vec<String>,
    denies: bool,
    /// The rules of the variant's own object (its type's, its flattened fields', its
    /// optional immutable fields'): they hold for this variant only.
    rules: Vec<ValidationRule>,
}

impl<'a> Form<'a> {
    fn unit(name: &'a str) -> Self {
        Form {
            name,
            unit: true,
            required: Vec::new(),
            own: Vec::new(),
            denies: false,
            rules: Vec::new(),
        }
    }

    /// `rules` kept to this form, in an object where the form is known by its required
    /// fields (untagged, or the content of an adjacently tagged enum): each holds when they
    /// are all there. (serde takes the first form that reads.)
    fn guarded_by_fields(&self) -> Vec<ValidationRule> {
        if self.required.is_empty() {
            return self.rules.clone();
        }
        let present = self
            .required
            .iter()
            .map(|f| format!("has(self.{})", cel_field(f)))
            .collect::<Vec<_>>()
            .join(" && ");
        self.rules
            .iter()
            .map(|r| guarded(r, &format!("!({present})")))
            .collect()
    }

    /// The fields of the union this form does not have.
    fn others(&self, all: &[String]) -> Vec<String> {
        all.iter()
            .filter(|f| !self.own.contains(f))
            .cloned()
            .collect()
    }
}

impl<'m> SchemaBuilder<'m> {
    /// The variants' forms, the union of their fields (with the rules of the variants' own
    /// types) and the union's field names. A field the rules of the form must name but CEL
    /// cannot (a JSON name that starts with a digit, or holds a character other than
    /// letters, digits, `_`, `.`, `-` and `/`) is an error at its variant.
    fn forms<'v>(
        &mut self,
        site: Site<'m>,
        item: &'m TypeDef,
        variants: &'v [Variant<'m>],
        container: &ContainerAttrs,
    ) -> Option<(JSONSchemaProps, Vec<Form<'v>>, Vec<String>)> {
        let mut union = object(BTreeMap::new());
        let mut forms = Vec::new();
        for (json_name, variant, attrs) in variants {
            if is_unit(variant) {
                forms.push(Form::unit(json_name));
                continue;
            }
            let mut fields = self.variant_object(site, item, variant, attrs)?;
            let rules = fields.x_kubernetes_validations.take().unwrap_or_default();
            forms.push(Form {
                rules,
                name: json_name,
                unit: false,
                required: fields.required.clone().unwrap_or_default(),
                own: fields
                    .properties
                    .iter()
                    .flatten()
                    .map(|(k, _)| k.clone())
                    .collect(),
                denies: self.variant_denies_unknown(site, variant, container),
            });
            self.merge_variant_fields(item, variant, &mut union, fields)?;
        }
        let all_fields: Vec<String> = union
            .properties
            .iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .collect();
        for (form, (_, variant, _)) in forms.iter().zip(variants) {
            let named = form.required.iter().chain(if form.denies {
                all_fields.iter()
            } else {
                [].iter()
            });
            if let Some(name) = named.into_iter().find(|n| !super::rules::cel_can_name(n)) {
                // At the variant the field is of (another variant's, for a variant that
                // refuses the others' fields).
                let owner = forms
                    .iter()
                    .zip(variants)
                    .find(|(f, _)| f.own.contains(name))
                    .map_or(*variant, |(_, (_, v, _))| *v);
                self.error(
                    owner.at,
                    format!(
                        "operator-gen checks the fields of `{}`'s variants with CEL rules, and CEL cannot name the field `{name}` (a name must start with a letter, `_`, `.`, `-` or `/` and hold only those and digits); rename it",
                        item.name
                    ),
                );
                return None;
            }
        }
        Some((union, forms, all_fields))
    }

    /// Whether serde refuses a field this variant does not name: a struct variant when the
    /// enum says `deny_unknown_fields`, a newtype variant when its struct does.
    fn variant_denies_unknown(
        &self,
        site: Site<'m>,
        variant: &VariantDef,
        container: &ContainerAttrs,
    ) -> bool {
        match &variant.fields {
            Fields::Named(_) => container.deny_unknown_fields,
            Fields::Unnamed(u) => self.denies_unknown(site, &u[0].ty),
            Fields::Unit => false,
        }
    }
}

/// Each form's own rules, on an object that knows the forms by their required fields.
fn push_guarded_by_fields(union: &mut JSONSchemaProps, forms: &[Form<'_>]) {
    for rule in forms.iter().flat_map(Form::guarded_by_fields) {
        union
            .x_kubernetes_validations
            .get_or_insert_with(Vec::new)
            .push(rule);
    }
}

/// `rule`, holding only where `unless` is false.
fn guarded(rule: &ValidationRule, unless: &str) -> ValidationRule {
    ValidationRule {
        rule: format!("{unless} || ({})", rule.rule),
        ..rule.clone()
    }
}

fn is_unit(variant: &VariantDef) -> bool {
    matches!(variant.fields, Fields::Unit)
}

/// A string enum of the variants' JSON names.
fn string_enum(variants: &[Variant<'_>]) -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some("string".into()),
        enum_: Some(
            variants
                .iter()
                .map(|(name, _, _)| JSON(serde_json::Value::String(name.clone())))
                .collect(),
        ),
        ..Default::default()
    }
}

/// The one field's type of a newtype variant (`Port(u16)`).
fn newtype(variant: &VariantDef) -> Option<&Ty> {
    match &variant.fields {
        Fields::Unnamed(u) if u.len() == 1 => Some(&u[0].ty),
        _ => None,
    }
}

/// An untagged enum whose variants all carry strings (`Addr(IpAddr)`, `Net(IpNet)`) reads
/// any string one of them reads: a pattern that is the union of theirs (a unit enum's names
/// become a pattern), or any string when one of them takes any. A variant's lengths are kept
/// only where its own pattern already implies them (or all variants have the same ones):
/// the union of "this pattern within these lengths" has no structural schema otherwise.
/// `None` when not every variant is a string.
fn string_union(variants: &[JSONSchemaProps]) -> Option<Result<JSONSchemaProps, Misfit>> {
    if variants.len() < 2
        || variants
            .iter()
            .any(|v| v.type_.as_deref() != Some("string"))
    {
        return None;
    }
    if variants.iter().any(|v| v.format.is_some()) {
        return Some(Err(Misfit::from("a variant of this untagged enum carries a string with a `format`, which a union of the variants' strings cannot keep for that variant alone").with_help("drop the format from the variant's type, or give the enum #[schema(schemaless)] with markers that say what its strings look like")));
    }
    if variants
        .iter()
        .any(|v| v.x_kubernetes_validations.is_some())
    {
        return Some(Err(Misfit::from("a variant of this untagged enum carries a string with CEL rules of its own, which would hold for every variant's strings in a union").with_help("put the rules on the enum (`#[validation(rule = \"...\")]`)")));
    }
    let takes_any = |v: &JSONSchemaProps| {
        v.pattern.is_none() && v.enum_.is_none() && v.min_length.is_none() && v.max_length.is_none()
    };
    if variants.iter().any(takes_any) {
        return Some(Ok(JSONSchemaProps {
            type_: Some("string".into()),
            nullable: nullable(variants),
            ..Default::default()
        }));
    }
    let same_lengths = variants
        .iter()
        .all(|v| (v.min_length, v.max_length) == (variants[0].min_length, variants[0].max_length));
    let mut patterns = Vec::new();
    for v in variants {
        let pattern = match (&v.pattern, &v.enum_) {
            (Some(_), Some(_)) => {
                return Some(Err("a variant of this untagged enum carries a string with both names and a pattern; keep one".into()));
            }
            (Some(pattern), None) => pattern.clone(),
            (None, Some(values)) => names_pattern(values.iter().filter_map(|v| v.0.as_str())),
            (None, None) => {
                return Some(Err(Misfit::from("a variant of this untagged enum carries a string held only by its length, which a union of the variants' strings cannot keep for that variant alone").with_help("give that variant's type a pattern, or give the enum #[schema(schemaless)] with markers that say what its strings look like")));
            }
        };
        if !same_lengths && !lengths_implied(&pattern, v.min_length, v.max_length) {
            return Some(Err(Misfit::from(format!("a variant of this untagged enum carries a string whose lengths ({}) its pattern does not already imply, which a union of the variants' strings cannot keep for that variant alone", lengths_text(v))).with_help("put the lengths into the variant's pattern, or give every variant the same lengths")));
        }
        patterns.push(format!("({pattern})"));
    }
    let bound = |pick: fn(&JSONSchemaProps) -> Option<i64>, max: bool| {
        let values: Option<Vec<i64>> = variants.iter().map(pick).collect();
        values.and_then(|v| {
            if max {
                v.into_iter().max()
            } else {
                v.into_iter().min()
            }
        })
    };
    Some(Ok(JSONSchemaProps {
        type_: Some("string".into()),
        pattern: Some(patterns.join("|")),
        min_length: bound(|v| v.min_length, false),
        max_length: bound(|v| v.max_length, true),
        nullable: nullable(variants),
        ..Default::default()
    }))
}

/// A variant carrying an `Option` reads null, so the union does.
fn nullable(variants: &[JSONSchemaProps]) -> Option<bool> {
    variants
        .iter()
        .any(|v| v.nullable == Some(true))
        .then_some(true)
}

fn lengths_text(v: &JSONSchemaProps) -> String {
    match (v.min_length, v.max_length) {
        (Some(min), Some(max)) => format!("{min} to {max}"),
        (Some(min), None) => format!("at least {min}"),
        (None, Some(max)) => format!("at most {max}"),
        (None, None) => "none".into(),
    }
}

/// Whether every string `pattern` matches is within the lengths: the pattern is anchored at
/// both ends and its shortest and longest matches (in bytes: a character is one to four)
/// fall within them.
fn lengths_implied(pattern: &str, min: Option<i64>, max: Option<i64>) -> bool {
    use regex_syntax::hir::Look;
    let Ok(hir) = regex_syntax::Parser::new().parse(pattern) else {
        return false;
    };
    let properties = hir.properties();
    let anchored = properties.look_set_prefix().contains(Look::Start)
        && properties.look_set_suffix().contains(Look::End);
    if !anchored {
        return min.unwrap_or(0) <= 0 && max.is_none();
    }
    let shortest = properties.minimum_len().unwrap_or(0) as i64;
    let longest = properties.maximum_len().map(|l| l as i64);
    let min_ok = min.is_none_or(|min| shortest >= 4 * min);
    let max_ok = max.is_none_or(|max| longest.is_some_and(|l| l <= max));
    min_ok && max_ok
}

/// An untagged enum of an integer variant and a string variant (`Number(u16)`,
/// `Name(String)`) is an int-or-string: the API server applies the numeric bounds to
/// integers and the string's pattern and lengths to strings, and a CEL rule of either side
/// applies to its own type. A string side restricted to names (a unit enum) becomes a
/// pattern. `None` when the two variants are not one integer and one string.
fn int_or_string(
    a: &JSONSchemaProps,
    b: &JSONSchemaProps,
) -> Option<Result<JSONSchemaProps, Misfit>> {
    let (int, string) = match (a.type_.as_deref(), b.type_.as_deref()) {
        (Some("integer"), Some("string")) => (a, b),
        (Some("string"), Some("integer")) => (b, a),
        _ => return None,
    };
    if int.enum_.is_some() {
        return Some(Err(Misfit::from("the integer variant of this untagged enum takes only some integers (an enum), which an int-or-string schema cannot say next to its strings").with_help("use a plain integer type with bounds")));
    }
    let mut pattern = string.pattern.clone();
    if let Some(values) = &string.enum_ {
        if pattern.is_some() {
            return Some(Err(
                "the string variant of this untagged enum has both names and a pattern; keep one"
                    .into(),
            ));
        }
        pattern = Some(names_pattern(values.iter().filter_map(|v| v.0.as_str())));
    }
    let mut rules = Vec::new();
    for (schema, kind) in [(int, "int"), (string, "string")] {
        for rule in schema.x_kubernetes_validations.iter().flatten() {
            rules.push(crate::api::apiextensions::v1::ValidationRule {
                rule: format!("type(self) != {kind} || ({})", rule.rule),
                ..rule.clone()
            });
        }
    }
    Some(Ok(JSONSchemaProps {
        minimum: int.minimum,
        maximum: int.maximum,
        exclusive_minimum: int.exclusive_minimum,
        exclusive_maximum: int.exclusive_maximum,
        multiple_of: int.multiple_of,
        pattern,
        min_length: string.min_length,
        max_length: string.max_length,
        format: string.format.clone(),
        x_kubernetes_validations: (!rules.is_empty()).then_some(rules),
        ..crate::known_types::int_or_string()
    }))
}

/// A pattern of exactly the strings `names` (a unit enum's names, as a `pattern` where
/// `enum` cannot go).
pub(super) fn names_pattern<'n>(names: impl Iterator<Item = &'n str>) -> String {
    let names: Vec<String> = names.map(regex::escape).collect();
    format!("^({})$", names.join("|"))
}
