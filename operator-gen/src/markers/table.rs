//! The table of schema markers: every key of `#[validation(...)]` and `#[schema(...)]` in
//! one place, with its payload, its reader, where it may sit, the schema types it applies
//! to, controller-gen's spelling and its help line. The marker enums, the allowed-key lists,
//! the parse dispatch, the placement and type-fit checks and the book's marker reference
//! are all made from it.
//!
//! Adding a marker is one entry here (and a reader in `read.rs` when none fits) plus its
//! arm in the generator's apply function, which the compiler asks for: the `match` over the
//! enum there is exhaustive.

use crate::diagnostics::Misfit;
use std::sync::OnceLock;

use super::args;
use super::args::Spanned;
use super::payloads::{
    CelRule, ExternalDocs, Length, ListType, MarkerTarget, NamedValue, ObjectType, OneOf,
};
use super::read;
use super::{SCHEMA, VALIDATION};
use proc_macro2::Span;
use serde_json::{Number, Value};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;

/// Where a marker may be written: on a field, on a type (reaching every field of that
/// type), inside `#[validation(items(...))]` (on each element of a list).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Places(u8);

impl Places {
    /// On a struct field.
    pub const FIELD: Places = Places(1);
    /// On a type declaration.
    pub const TYPE: Places = Places(2);
    /// Inside `#[validation(items(...))]`.
    pub const ITEMS: Places = Places(4);
    /// On a field or a type.
    pub const FIELD_OR_TYPE: Places = Places(1 | 2);
    /// On a field, a type or inside `items(...)`.
    pub const ANYWHERE: Places = Places(1 | 2 | 4);

    /// Whether every place of `other` is one of these.
    pub const fn contains(self, other: Places) -> bool {
        self.0 & other.0 == other.0
    }

    fn of(target: MarkerTarget) -> Places {
        match target {
            MarkerTarget::Field => Places::FIELD,
            MarkerTarget::Type => Places::TYPE,
        }
    }

    /// "field, type, items", as the reference shows it.
    fn describe(self) -> String {
        [
            (Places::FIELD, "field"),
            (Places::TYPE, "type"),
            (Places::ITEMS, "items"),
        ]
        .into_iter()
        .filter(|(p, _)| self.contains(*p))
        .map(|(_, name)| name)
        .collect::<Vec<_>>()
        .join(", ")
    }
}

/// The OpenAPI types a marker fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    /// Any value.
    Any,
    /// Integers and numbers.
    Numbers,
    /// Strings, and int-or-string values.
    Strings,
    /// Lists.
    Arrays,
    /// Objects and maps.
    Objects,
}

impl Applies {
    fn fits(self, ty: &str, int_or_string: bool) -> bool {
        match self {
            Applies::Any => true,
            Applies::Numbers => ty == "integer" || ty == "number",
            Applies::Strings => ty == "string" || int_or_string,
            Applies::Arrays => ty == "array",
            Applies::Objects => ty == "object",
        }
    }

    fn wanted(self) -> &'static str {
        match self {
            Applies::Any => "any type",
            Applies::Numbers => "an integer or number",
            Applies::Strings => "a string",
            Applies::Arrays => "an array",
            Applies::Objects => "an object",
        }
    }
}

/// One marker key.
#[derive(Debug)]
pub struct MarkerDef {
    /// The attribute it is written in (`validation` or `schema`).
    pub attr: &'static str,
    /// Its name (`minimum`).
    pub key: &'static str,
    /// Where it may be written.
    pub places: Places,
    /// The values it fits.
    pub applies: Applies,
    /// controller-gen's spelling (Markdown).
    pub go: &'static str,
    /// The Rust spelling, as an example (Markdown).
    pub example: &'static str,
    /// What it does, in one line (Markdown).
    pub help: &'static str,
    read: fn(&ParseNestedMeta<'_>) -> syn::Result<Parsed>,
}

impl MarkerDef {
    /// Reads the marker's value into its typed form.
    pub fn read(&self, meta: &ParseNestedMeta<'_>) -> syn::Result<Parsed> {
        (self.read)(meta)
    }

    /// Refuses the marker where it may not sit, naming where it goes.
    pub fn check_place(&self, target: MarkerTarget) -> Result<(), Misfit> {
        if self.places.contains(Places::of(target)) {
            return Ok(());
        }
        Err(match target {
            MarkerTarget::Type => format!("`{}` goes on a field, not on a type", self.key).into(),
            MarkerTarget::Field => format!(
                "`{}` goes on a struct, naming its fields; not on a field",
                self.key
            )
            .into(),
        })
    }

    /// Checks that the marker fits a schema of OpenAPI type `ty` (`None` when the type is
    /// not known yet); `int_or_string` schemas take string markers too.
    pub fn check_applies(&self, ty: Option<&str>, int_or_string: bool) -> Result<(), Misfit> {
        match ty {
            Some(ty) if !self.applies.fits(ty, int_or_string) => Err(Misfit::from(format!(
                "`{}` applies to {}, but this is {} {ty}",
                self.key,
                self.applies.wanted(),
                if ty.starts_with(['a', 'i', 'o']) {
                    "an"
                } else {
                    "a"
                }
            ))),
            _ => Ok(()),
        }
    }
}

/// Names a payload type inside the table macro.
fn payload<T>(value: T) -> T {
    value
}

/// Declares the marker enums and the table from one list of entries:
/// `"key" => Variant(Payload) = reader; on PLACES, applies TYPES, go "...", rust "...", "help";`
macro_rules! marker_table {
    ($(
        $(#[$meta:meta])*
        enum $section:ident in $attr:ident {
            $(
                $key:literal => $variant:ident $(($payload:ty))? = $read:path;
                    on $places:ident, applies $applies:ident,
                    go $go:literal, rust $example:literal, $help:literal;
            )*
        }
    )*) => {
        $(
            $(#[$meta])*
            pub enum $section {
                $( #[doc = $help] $variant $(($payload))?, )*
            }

            impl $section {
                /// The argument name that spells this marker.
                pub fn key(&self) -> &'static str {
                    match self {
                        $( $section::$variant { .. } => $key, )*
                    }
                }

                /// The marker's table entry.
                pub fn def(&self) -> &'static MarkerDef {
                    find($attr, self.key()).expect("every variant has its table entry")
                }
            }
        )*

        /// What reading one marker gives.
        #[derive(Debug, Clone)]
        pub enum Parsed {
            $(
                #[doc = concat!("A marker of the `", stringify!($section), "` kind.")]
                $section($section),
            )*
        }

        /// Every schema marker, in the order the reference and the "allowed" lists show.
        pub static MARKERS: &[MarkerDef] = &[
            $( $(
                MarkerDef {
                    attr: $attr,
                    key: $key,
                    places: Places::$places,
                    applies: Applies::$applies,
                    go: $go,
                    example: $example,
                    help: $help,
                    read: |meta| {
                        let _value = $read(meta)?;
                        Ok(Parsed::$section($section::$variant $( (payload::<$payload>(_value)) )?))
                    },
                },
            )* )*
        ];
    };
}

marker_table! {
    /// A value constraint (`+kubebuilder:validation:<Name>`).
    #[derive(Debug, Clone, PartialEq)]
    enum Validation in VALIDATION {
        "minimum" => Minimum(Number) = read::number;
            on ANYWHERE, applies Numbers,
            go "`+kubebuilder:validation:Minimum=0`", rust "`#[validation(minimum = 0)]`",
            "The smallest value allowed (an integer on an integer field).";
        "maximum" => Maximum(Number) = read::number;
            on ANYWHERE, applies Numbers,
            go "`+kubebuilder:validation:Maximum=10`", rust "`#[validation(maximum = 10)]`",
            "The largest value allowed (an integer on an integer field).";
        "exclusive_minimum" => ExclusiveMinimum(bool) = read::flag;
            on ANYWHERE, applies Numbers,
            go "`+kubebuilder:validation:ExclusiveMinimum=true`", rust "`#[validation(exclusive_minimum)]`",
            "`minimum` itself is not allowed.";
        "exclusive_maximum" => ExclusiveMaximum(bool) = read::flag;
            on ANYWHERE, applies Numbers,
            go "`+kubebuilder:validation:ExclusiveMaximum=true`", rust "`#[validation(exclusive_maximum)]`",
            "`maximum` itself is not allowed.";
        "multiple_of" => MultipleOf(Number) = read::multiple_of;
            on ANYWHERE, applies Numbers,
            go "`+kubebuilder:validation:MultipleOf=5`", rust "`#[validation(multiple_of = 5)]`",
            "The value is a multiple of this (greater than 0).";
        "min_length" => MinLength(u64) = read::unsigned;
            on ANYWHERE, applies Strings,
            go "`+kubebuilder:validation:MinLength=1`", rust "`#[validation(min_length = 1)]`",
            "The shortest string allowed, in characters.";
        "max_length" => MaxLength(u64) = read::unsigned;
            on ANYWHERE, applies Strings,
            go "`+kubebuilder:validation:MaxLength=63`", rust "`#[validation(max_length = 63)]`",
            "The longest string allowed, in characters.";
        "pattern" => Pattern(String) = read::pattern;
            on ANYWHERE, applies Strings,
            go "`+kubebuilder:validation:Pattern=^[a-z]+$`", rust "`#[validation(pattern = \"^[a-z]+$\")]`",
            "A regular expression the string matches (its syntax is checked when the marker is read).";
        "min_items" => MinItems(u64) = read::unsigned;
            on ANYWHERE, applies Arrays,
            go "`+kubebuilder:validation:MinItems=1`", rust "`#[validation(min_items = 1)]`",
            "The fewest elements a list may have.";
        "max_items" => MaxItems(u64) = read::unsigned;
            on ANYWHERE, applies Arrays,
            go "`+kubebuilder:validation:MaxItems=8`", rust "`#[validation(max_items = 8)]`",
            "The most elements a list may have.";
        "unique_items" => UniqueItems(bool) = read::unique_items;
            on ANYWHERE, applies Arrays,
            go "`+kubebuilder:validation:UniqueItems=true`", rust "`#[schema(list_type = \"set\")]` instead",
            "Only `false` is accepted: the API server refuses CRDs with `uniqueItems: true`, which controller-gen writes.";
        "min_properties" => MinProperties(u64) = read::unsigned;
            on ANYWHERE, applies Objects,
            go "`+kubebuilder:validation:MinProperties=1`", rust "`#[validation(min_properties = 1)]`",
            "The fewest properties an object or map may have.";
        "max_properties" => MaxProperties(u64) = read::unsigned;
            on ANYWHERE, applies Objects,
            go "`+kubebuilder:validation:MaxProperties=4`", rust "`#[validation(max_properties = 4)]`",
            "The most properties an object or map may have.";
        "enum" => Enum(Vec<Value>) = read::enum_values;
            on ANYWHERE, applies Any,
            go "`+kubebuilder:validation:Enum=Fast;Safe`", rust "`#[validation(enum = \"Fast;Safe\")]`, `enum = [1, 2]`",
            "The values allowed: strings as `\"a;b\"`, any JSON values as a list; each must fit the field's type.";
        "format" => Format(String) = read::string;
            on ANYWHERE, applies Any,
            go "`+kubebuilder:validation:Format=date-time`", rust "`#[validation(format = \"date-time\")]`",
            "The OpenAPI format of the value.";
        "type" => Type(String) = read::openapi_type;
            on ANYWHERE, applies Any,
            go "`+kubebuilder:validation:Type=string`", rust "`#[validation(type = \"string\")]`",
            "Overrides the schema type (`integer`, `number`, `string`, `boolean`, `array`, `object`); the other markers are checked against it.";
        "cel" => Cel(CelRule) = read::cel;
            on ANYWHERE, applies Any,
            go "`+kubebuilder:validation:XValidation:rule=\"...\",message=\"...\",messageExpression=\"...\",reason=FieldValueForbidden,fieldPath=\".x\",optionalOldSelf=true`",
            rust "`#[validation(cel(rule = \"...\", message = \"...\", message_expression = \"...\", reason = \"FieldValueForbidden\", field_path = \".x\", optional_old_self))]`",
            "A CEL rule (`x-kubernetes-validations`); repeatable; only `rule` is required.";
        "one_of" => JsonOneOf(Value) = read::junctor_list;
            on ANYWHERE, applies Any,
            go "none (CRDs written by other generators carry it)", rust "`#[validation(one_of = json!([{\"required\": [\"a\"]}, {\"required\": [\"b\"]}]))]`",
            "JSON Schema's `oneOf`: the value matches exactly one of the schemas. Value validations only: no `type`, `description`, `title`, `default`, `nullable` or `x-kubernetes-*` inside (the API server's rule for structural schemas), and each property named must also be a property of the schema itself.";
        "any_of" => JsonAnyOf(Value) = read::junctor_list;
            on ANYWHERE, applies Any,
            go "none", rust "`#[validation(any_of = json!([{\"format\": \"ipv4\"}, {\"format\": \"ipv6\"}]))]`",
            "JSON Schema's `anyOf`: the value matches at least one of the schemas (value validations only, as for `one_of`).";
        "all_of" => JsonAllOf(Value) = read::junctor_list;
            on ANYWHERE, applies Any,
            go "none", rust "`#[validation(all_of = json!([{\"minLength\": 1}, {\"pattern\": \"^a\"}]))]`",
            "JSON Schema's `allOf`: the value matches every one of the schemas (value validations only, as for `one_of`).";
        "not" => JsonNot(Value) = read::junctor;
            on ANYWHERE, applies Any,
            go "none", rust "`#[validation(not = json!({\"required\": [\"a\", \"b\"]}))]`",
            "JSON Schema's `not`: the value does not match the schema (value validations only, as for `one_of`).";
    }

    /// The `#[validation(...)]` keys that shape the object rather than constrain a value:
    /// presence, immutability, one-of groups and the constraints on list elements.
    #[derive(Debug, Clone)]
    enum Rule in VALIDATION {
        "items" => Items(FieldMarkers) = items;
            on FIELD_OR_TYPE, applies Arrays,
            go "`+kubebuilder:validation:items:MinLength=1`, `items:XIntOrString`, ...", rust "`#[validation(items(min_length = 1, int_or_string))]`",
            "Markers on each element of a list: every key this table allows on *items*.";
        "optional" => Optional(bool) = read::flag;
            on FIELD, applies Any,
            go "`+optional`, `+k8s:optional`, `+kubebuilder:validation:Optional`", rust "`#[validation(optional)]`",
            "The field may be left out (an `Option` field, or one with a serde default, already may).";
        "required" => Required(bool) = read::flag;
            on FIELD, applies Any,
            go "`+required`, `+k8s:required`, `+kubebuilder:validation:Required`", rust "`#[validation(required)]`",
            "The field must be given, even when it is an `Option` or has a serde default.";
        "immutable" => Immutable(bool) = read::flag;
            on FIELD, applies Any,
            go "`+k8s:immutable`", rust "`#[validation(immutable)]`",
            "The value cannot change once set (rule `self == oldSelf`, message `field is immutable`); on an optional field the parent also gets `!has(oldSelf.f) || has(self.f)` (message `field f is immutable once set`), so a set field cannot be unset.";
        "exactly_one_of" => ExactlyOneOf(Spanned<Vec<String>>) = read::one_of_fields;
            on TYPE, applies Objects,
            go "`+kubebuilder:validation:ExactlyOneOf=a;b`", rust "`#[validation(exactly_one_of = \"a;b\")]`",
            "Exactly one of the named fields (JSON names) is set.";
        "at_most_one_of" => AtMostOneOf(Spanned<Vec<String>>) = read::one_of_fields;
            on TYPE, applies Objects,
            go "`+kubebuilder:validation:AtMostOneOf=a;b`", rust "`#[validation(at_most_one_of = \"a;b\")]`",
            "At most one of the named fields (JSON names) is set.";
        "at_least_one_of" => AtLeastOneOf(Spanned<Vec<String>>) = read::one_of_fields;
            on TYPE, applies Objects,
            go "`+kubebuilder:validation:AtLeastOneOf=a;b`", rust "`#[validation(at_least_one_of = \"a;b\")]`",
            "At least one of the named fields (JSON names) is set.";
    }

    /// One `#[schema(...)]` property: everything that shapes a schema besides constraints.
    #[derive(Debug, Clone, PartialEq)]
    enum SchemaProp in SCHEMA {
        "default" => Default(Value) = read::json;
            on FIELD, applies Any,
            go "`+kubebuilder:default=3`, `+default=...`", rust "`#[schema(default = 3)]`, `default = json!({\"a\": 1})`",
            "The value the API server fills in when the field is absent; it must fit the field's type. With `#[serde(default = \"path\")]` the derive writes a test that `path()` serializes to it.";
        "no_default" => NoDefault = read::set;
            on FIELD, applies Any,
            go "none (Go has no default functions)", rust "`#[schema(no_default)]`",
            "The field's `#[serde(default = \"path\")]` is the operator's alone and the CRD has no default: for a value computed anew each time (a generated name, the time). Without it a default function needs `default`.";
        "example" => Example(Value) = read::json;
            on FIELD_OR_TYPE, applies Any,
            go "`+kubebuilder:example=5`", rust "`#[schema(example = 5)]`",
            "An example value (any JSON, as for `default`).";
        "nullable" => Nullable = read::set;
            on FIELD_OR_TYPE, applies Any,
            go "`+nullable`", rust "`#[schema(nullable)]`",
            "`null` is a valid value.";
        "title" => Title(String) = read::string;
            on FIELD_OR_TYPE, applies Any,
            go "`+kubebuilder:title=...`", rust "`#[schema(title = \"...\")]`",
            "The schema's title.";
        "list_type" => ListType(ListType) = read::list_type;
            on FIELD_OR_TYPE, applies Arrays,
            go "`+listType=set`", rust "`#[schema(list_type = \"set\")]`",
            "How server-side apply merges the list: `atomic`, `set` or `map` (with `list_map_keys`).";
        "list_map_keys" => ListMapKeys(Vec<String>) = read::list_map_keys;
            on FIELD_OR_TYPE, applies Arrays,
            go "`+listMapKey=name` (repeatable)", rust "`#[schema(list_type = \"map\", list_map_keys = \"name;port\")]`",
            "The fields that identify an element of a `list_type = \"map\"` list.";
        "map_type" => MapType(ObjectType) = read::object_type;
            on FIELD_OR_TYPE, applies Objects,
            go "`+mapType=atomic`", rust "`#[schema(map_type = \"atomic\")]`",
            "Whether server-side apply replaces the map whole (`atomic`) or merges its keys (`granular`).";
        "struct_type" => StructType(ObjectType) = read::object_type;
            on FIELD_OR_TYPE, applies Objects,
            go "`+structType=atomic`", rust "`#[schema(struct_type = \"atomic\")]`",
            "Whether server-side apply replaces the object whole (`atomic`) or merges its fields (`granular`).";
        "preserve_unknown_fields" => PreserveUnknownFields = read::set;
            on ANYWHERE, applies Any,
            go "`+kubebuilder:pruning:PreserveUnknownFields`, `items:XPreserveUnknownFields`", rust "`#[schema(preserve_unknown_fields)]`",
            "The API server keeps fields the schema does not declare.";
        "embedded_resource" => EmbeddedResource = read::set;
            on ANYWHERE, applies Any,
            go "`+kubebuilder:validation:EmbeddedResource`, `items:XEmbeddedResource`", rust "`#[schema(embedded_resource)]`",
            "The value is a whole Kubernetes object (`apiVersion`, `kind`, `metadata`).";
        "int_or_string" => IntOrString = read::set;
            on ANYWHERE, applies Any,
            go "`+kubebuilder:validation:XIntOrString`, `items:XIntOrString`", rust "`#[schema(int_or_string)]`",
            "The value is an integer or a string; string markers then apply too.";
        "schemaless" => Schemaless = read::set;
            on FIELD, applies Any,
            go "`+kubebuilder:validation:Schemaless`", rust "`#[schema(schemaless)]`",
            "The field gets an empty schema instead of its type's.";
        "skip_descriptions" => SkipDescriptions = read::set;
            on FIELD, applies Any,
            go "`+kubebuilder:skipDescriptions` (controller-tools after v0.21)", rust "`#[schema(skip_descriptions)]`",
            "Drops the descriptions of everything below the field (its own stays): for embedded types such as a `PodTemplateSpec`, whose docs can push a CRD past the API server's size limit.";
        "external_docs" => ExternalDocs(ExternalDocs) = read::external_docs;
            on FIELD_OR_TYPE, applies Any,
            go "`+kubebuilder:externalDocs:url=...,description=...`", rust "`#[schema(external_docs(url = \"https://...\", description = \"...\"))]`",
            "A link to more documentation (an absolute URL).";
    }
}

/// The entry of `key` in the attribute `attr`.
pub fn find(attr: &str, key: &str) -> Option<&'static MarkerDef> {
    MARKERS.iter().find(|d| d.attr == attr && d.key == key)
}

/// The keys `#[attr(...)]` takes, in table order.
pub fn keys(attr: &str) -> &'static [&'static str] {
    static VALIDATION_KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    static SCHEMA_KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    let (cell, attr) = if attr == VALIDATION {
        (&VALIDATION_KEYS, VALIDATION)
    } else {
        (&SCHEMA_KEYS, SCHEMA)
    };
    cell.get_or_init(|| {
        MARKERS
            .iter()
            .filter(|d| d.attr == attr)
            .map(|d| d.key)
            .collect()
    })
}

/// The keys `#[validation(items(...))]` takes, in table order.
pub fn keys_in_items() -> &'static [&'static str] {
    static KEYS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KEYS.get_or_init(|| {
        MARKERS
            .iter()
            .filter(|d| d.places.contains(Places::ITEMS))
            .map(|d| d.key)
            .collect()
    })
}

/// The entry of a key [`keys_in_items`] lists.
pub fn in_items(key: &str) -> &'static MarkerDef {
    MARKERS
        .iter()
        .find(|d| d.key == key && d.places.contains(Places::ITEMS))
        .expect("keys_in_items lists table keys only")
}

/// The marker reference as a Markdown table (the book's "On fields and types" section, docs/src/reference/markers.md).
pub fn reference_markdown() -> String {
    let mut out = String::from(
        "| Rust | controller-gen | on | applies to | what it does |\n|---|---|---|---|---|\n",
    );
    for d in MARKERS {
        let applies = match d.applies {
            Applies::Any => "any",
            Applies::Numbers => "integer, number",
            Applies::Strings => "string, int-or-string",
            Applies::Arrays => "array",
            Applies::Objects => "object",
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            d.example.replace('|', "\\|"),
            d.go.replace('|', "\\|"),
            d.places.describe(),
            applies,
            d.help.replace('|', "\\|"),
        ));
    }
    out
}

/// Everything the schema markers say about one field or type, each marker with where it
/// was written (`S`: a span while parsing, a `Loc`, the compact place the model keeps).
#[derive(Debug, Clone)]
pub struct FieldMarkers<S = Span> {
    /// `#[validation(...)]` constraints on the value.
    pub validations: Vec<Spanned<Validation, S>>,
    /// `#[validation(items(...))]`: constraints on the elements of an array.
    pub items: Vec<Spanned<Validation, S>>,
    /// `#[validation(items(int_or_string, preserve_unknown_fields, embedded_resource))]`:
    /// controller-gen's `items:XIntOrString`, `items:XPreserveUnknownFields` and
    /// `items:XEmbeddedResource`.
    pub items_schema: Vec<Spanned<SchemaProp, S>>,
    /// `#[schema(...)]` properties of the value.
    pub schema: Vec<Spanned<SchemaProp, S>>,
    /// `optional`: the field may be left out.
    pub optional: Option<S>,
    /// `required`: the field must be present.
    pub required: Option<S>,
    /// `immutable`: the field cannot change once set (`+k8s:immutable`).
    pub immutable: Option<S>,
    /// Type-level one-of groups, JSON field names, in source order.
    pub one_of: Vec<Spanned<(OneOf, Vec<String>), S>>,
    /// `length(...)` of `#[schemars]`, `#[validate]` or `#[garde]`: characters, items or
    /// entries, by the schema's type.
    pub lengths: Vec<Spanned<Length, S>>,
    /// Values the foreign attributes name by path (`regex(path = *RE)`, `range(min = MIN)`),
    /// at their key: the generator reads them from the crate's items once every file is
    /// indexed, and this list is empty after that (see `lower::named`).
    pub named: Vec<Spanned<NamedValue, S>>,
}

impl<S> Default for FieldMarkers<S> {
    fn default() -> Self {
        Self {
            validations: Vec::new(),
            items: Vec::new(),
            items_schema: Vec::new(),
            schema: Vec::new(),
            optional: None,
            required: None,
            immutable: None,
            one_of: Vec::new(),
            lengths: Vec::new(),
            named: Vec::new(),
        }
    }
}

impl<S: Copy> FieldMarkers<S> {
    /// The same markers, placed by `f` (the model's lowering turns spans into locations).
    pub fn map_spans<S2>(self, f: &mut impl FnMut(S) -> S2) -> FieldMarkers<S2> {
        fn all<T, S, S2>(
            v: Vec<Spanned<T, S>>,
            f: &mut impl FnMut(S) -> S2,
        ) -> Vec<Spanned<T, S2>> {
            v.into_iter().map(|s| s.map_span(f)).collect()
        }
        FieldMarkers {
            validations: all(self.validations, f),
            items: all(self.items, f),
            items_schema: all(self.items_schema, f),
            schema: all(self.schema, f),
            optional: self.optional.map(&mut *f),
            required: self.required.map(&mut *f),
            immutable: self.immutable.map(&mut *f),
            one_of: all(self.one_of, f),
            lengths: all(self.lengths, f),
            named: all(self.named, f),
        }
    }

    /// Whether no marker was written.
    pub fn is_empty(&self) -> bool {
        self.validations.is_empty()
            && self.items.is_empty()
            && self.items_schema.is_empty()
            && self.schema.is_empty()
            && self.optional.is_none()
            && self.required.is_none()
            && self.immutable.is_none()
            && self.one_of.is_empty()
            && self.lengths.is_empty()
            && self.named.is_empty()
    }

    /// Where a schema property that `pred` picks was written, if one was.
    pub fn has(&self, pred: impl Fn(&SchemaProp) -> bool) -> Option<S> {
        self.schema.iter().find(|p| pred(&p.value)).map(|p| p.span)
    }

    /// The `type = "..."` marker, with where it was written.
    pub fn type_marker(&self) -> Option<(&str, S)> {
        self.validations.iter().find_map(|v| match &v.value {
            Validation::Type(t) => Some((t.as_str(), v.span)),
            _ => None,
        })
    }
}

impl FieldMarkers {
    /// Files one marker read at `span` (its key) where the generator looks for it.
    pub(super) fn add(&mut self, parsed: Parsed, span: Span) {
        let set = |slot: &mut Option<Span>, on: bool| {
            if on {
                *slot = Some(span);
            }
        };
        match parsed {
            Parsed::Validation(v) => self.validations.push(Spanned::new(v, span)),
            Parsed::SchemaProp(p) => self.schema.push(Spanned::new(p, span)),
            Parsed::Rule(rule) => match rule {
                Rule::Items(items) => {
                    self.items.extend(items.validations);
                    self.items_schema.extend(items.schema);
                }
                Rule::Optional(on) => set(&mut self.optional, on),
                Rule::Required(on) => set(&mut self.required, on),
                Rule::Immutable(on) => set(&mut self.immutable, on),
                Rule::ExactlyOneOf(f) => self.one_of_group(OneOf::Exactly, f),
                Rule::AtMostOneOf(f) => self.one_of_group(OneOf::AtMost, f),
                Rule::AtLeastOneOf(f) => self.one_of_group(OneOf::AtLeast, f),
            },
        }
    }

    fn one_of_group(&mut self, kind: OneOf, fields: Spanned<Vec<String>>) {
        self.one_of
            .push(Spanned::new((kind, fields.value), fields.span));
    }
}

/// `items(...)`: the markers the table allows on list elements, read by their own readers.
pub fn items(meta: &ParseNestedMeta<'_>) -> syn::Result<FieldMarkers> {
    let mut items = FieldMarkers::default();
    args::group(meta, "validation(items", keys_in_items(), |key, meta| {
        let def = in_items(key);
        items.add(def.read(meta)?, meta.path.span());
        Ok(())
    })?;
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_per_attribute_and_in_items() {
        for (i, a) in MARKERS.iter().enumerate() {
            for b in &MARKERS[i + 1..] {
                assert!(
                    !(a.attr == b.attr && a.key == b.key),
                    "{}({}) twice",
                    a.attr,
                    a.key
                );
                assert!(
                    !(a.key == b.key
                        && a.places.contains(Places::ITEMS)
                        && b.places.contains(Places::ITEMS)),
                    "items({}) twice",
                    a.key
                );
            }
        }
    }

    fn messages(attr: &str, target: MarkerTarget) -> Vec<String> {
        let attrs = syn::parse::Parser::parse_str(syn::Attribute::parse_outer, attr).unwrap();
        let mut diags = crate::diagnostics::Diagnostics::new();
        super::super::parse_field_markers(&attrs, target, &mut diags);
        diags.into_vec().into_iter().map(|d| d.message).collect()
    }

    #[test]
    fn every_mistake_inside_a_nested_group_is_reported() {
        let cel = messages(
            r#"#[validation(cel(bogus = 1, reasn = "x", rule = ""))]"#,
            MarkerTarget::Field,
        );
        assert_eq!(cel.len(), 3, "{cel:#?}");
        assert!(cel[0].starts_with("unknown argument `bogus` in #[validation(cel(...))]"));
        assert!(cel[1].contains("did you mean `reason`?"), "{}", cel[1]);
        assert_eq!(cel[2], "a CEL rule cannot be empty");
        let docs = messages(
            r#"#[schema(external_docs(uri = "https://x", url = "https://y", url = "z"))]"#,
            MarkerTarget::Field,
        );
        assert_eq!(docs.len(), 2, "{docs:#?}");
        assert!(docs[0].contains("did you mean `url`?"), "{}", docs[0]);
        assert_eq!(
            docs[1],
            "duplicate argument `url` in #[schema(external_docs(...))]"
        );
        let items = messages(
            r#"#[validation(items(minimum = 0, bogus = 1, nullable, max_length = -1))]"#,
            MarkerTarget::Field,
        );
        assert_eq!(items.len(), 3, "{items:#?}");
        assert!(items[1].starts_with("unknown argument `nullable` in #[validation(items(...))]"));
    }

    #[test]
    fn placement_and_type_fit_come_from_the_table() {
        assert_eq!(
            messages(
                "#[validation(exactly_one_of = \"a;b\")]",
                MarkerTarget::Field
            ),
            ["`exactly_one_of` goes on a struct, naming its fields; not on a field"]
        );
        assert_eq!(
            messages("#[schema(default = 1)]", MarkerTarget::Type),
            ["`default` goes on a field, not on a type"]
        );
        let max_items = find(VALIDATION, "max_items").unwrap();
        assert_eq!(
            max_items
                .check_applies(Some("object"), false)
                .unwrap_err()
                .message,
            "`max_items` applies to an array, but this is an object"
        );
        let pattern = find(VALIDATION, "pattern").unwrap();
        assert!(pattern.check_applies(Some("integer"), true).is_ok());
        assert!(pattern.check_applies(Some("integer"), false).is_err());
        assert!(pattern.check_applies(None, false).is_ok());
    }

    #[test]
    fn every_entry_reads_its_own_example() {
        // The Rust column's first example of each entry parses with the entry's reader into
        // a value whose key is the entry's: the reference cannot show a spelling that fails.
        for d in MARKERS {
            let Some(example) = d.example.split('`').nth(1).filter(|e| e.starts_with("#[")) else {
                continue;
            };
            let attr = syn::parse::Parser::parse_str(syn::Attribute::parse_outer, example)
                .unwrap_or_else(|e| panic!("{example}: {e}"));
            let mut diags = crate::diagnostics::Diagnostics::new();
            let target = if d.places.contains(Places::FIELD) {
                MarkerTarget::Field
            } else {
                MarkerTarget::Type
            };
            let m = super::super::parse_field_markers(&attr, target, &mut diags);
            assert!(diags.is_empty(), "{example}: {:?}", diags.into_vec());
            assert!(!m.is_empty(), "{example} read nothing");
        }
    }
}
