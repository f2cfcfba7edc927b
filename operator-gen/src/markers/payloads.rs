//! The values schema markers carry, below the grammar that reads them: a CEL rule, a
//! list's or map's topology, the documentation link, a `length(...)`, a value a foreign
//! attribute names by path. The readers (`read.rs`), the table (`table.rs`) and the foreign
//! attributes (`foreign.rs`) all build these; they import nothing of the markers.

/// A CEL validation rule (`x-kubernetes-validations` entry).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CelRule {
    /// The CEL expression, true when the value is valid.
    pub rule: String,
    /// The message when it is not.
    pub message: Option<String>,
    /// A CEL expression that builds the message.
    pub message_expression: Option<String>,
    /// The reason of the error (`FieldValueInvalid`, ...).
    pub reason: Option<String>,
    /// The field the error names, relative to the node.
    pub field_path: Option<String>,
    /// The rule runs on creates too, with `oldSelf` an optional.
    pub optional_old_self: Option<bool>,
}

/// Which one-of constraint a type-level group states
/// (`+kubebuilder:validation:{AtMostOneOf,ExactlyOneOf,AtLeastOneOf}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OneOf {
    /// At most one of the fields is set.
    AtMost,
    /// Exactly one of the fields is set.
    Exactly,
    /// At least one of the fields is set.
    AtLeast,
}

impl OneOf {
    /// The marker key that states it (`exactly_one_of`).
    pub fn key(self) -> &'static str {
        match self {
            OneOf::AtMost => "at_most_one_of",
            OneOf::Exactly => "exactly_one_of",
            OneOf::AtLeast => "at_least_one_of",
        }
    }

    /// The CEL rule and message controller-gen writes for the group `fields` (JSON names).
    pub fn rule(self, fields: &[String]) -> CelRule {
        let count = format!(
            "[{}].filter(x,x==true).size()",
            fields
                .iter()
                .map(|f| format!("has(self.{f})"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let list = format!("[{}]", fields.join(" "));
        let (rule, message) = match self {
            OneOf::AtMost => (
                format!("{count} <= 1"),
                format!("at most one of the fields in {list} may be set"),
            ),
            OneOf::Exactly => (
                format!("{count} == 1"),
                format!("exactly one of the fields in {list} must be set"),
            ),
            OneOf::AtLeast => (
                format!("{count} >= 1"),
                format!("at least one of the fields in {list} must be set"),
            ),
        };
        CelRule {
            rule,
            message: Some(message),
            ..Default::default()
        }
    }
}

/// `external_docs(url = "...", description = "...")`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalDocs {
    /// Where the documentation is.
    pub url: String,
    /// What it is.
    pub description: Option<String>,
}

/// Whether a marker sits on a struct field or on a type declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkerTarget {
    /// On a struct field.
    Field,
    /// On a type declaration.
    Type,
}

/// `x-kubernetes-list-type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListType {
    /// `atomic`: replaced whole by an apply.
    Atomic,
    /// `set`: scalar items, merged as a set.
    Set,
    /// `map`: objects merged by their key fields.
    Map,
}

impl ListType {
    /// The value the schema writes.
    pub fn as_str(self) -> &'static str {
        match self {
            ListType::Atomic => "atomic",
            ListType::Set => "set",
            ListType::Map => "map",
        }
    }
}

/// `x-kubernetes-map-type` / `x-kubernetes-struct-type` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectType {
    /// `atomic`: replaced whole by an apply.
    Atomic,
    /// `granular`: merged field by field.
    Granular,
}

impl ObjectType {
    /// The value the schema writes.
    pub fn as_str(self) -> &'static str {
        match self {
            ObjectType::Atomic => "atomic",
            ObjectType::Granular => "granular",
        }
    }
}

/// `length(min = .., max = .., equal = ..)`: a string's characters, a list's items or a
/// map's entries, decided by the schema's type when the marker is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Length {
    /// The least.
    pub min: Option<u64>,
    /// The most.
    pub max: Option<u64>,
}

/// A value a foreign attribute names instead of writing it (`regex(path = *SEMVER_RE)`,
/// `range(min = MIN_REPLICAS)`): a `static`, `const` or `lazy_static!` item of the crate,
/// which the generator reads once every file is indexed (the derives, which see one item,
/// leave it to the generator's run over the crate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedValue {
    /// Whether the path starts with `::`.
    pub absolute: bool,
    /// The path's segments.
    pub segments: Vec<String>,
    /// What the value is for.
    pub slot: Slot,
    /// The attribute and key that name it, for messages (`#[validate(regex)]`).
    pub key: String,
}

impl NamedValue {
    /// The path as written (`crate::re::SEMVER`).
    pub fn path_text(&self) -> String {
        format!(
            "{}{}",
            if self.absolute { "::" } else { "" },
            self.segments.join("::")
        )
    }
}

/// Where a [`NamedValue`] goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// The `pattern`: a regular expression item, or a string item used as one.
    Pattern,
    /// `minimum`.
    Minimum,
    /// `maximum`.
    Maximum,
    /// `minimum` with `exclusiveMinimum`.
    ExclusiveMinimum,
    /// `maximum` with `exclusiveMaximum`.
    ExclusiveMaximum,
    /// The least length of the `length(...)` at this position in
    /// [`FieldMarkers::lengths`](super::FieldMarkers::lengths).
    LengthMin(usize),
    /// Its most.
    LengthMax(usize),
    /// Its least and most.
    LengthEqual(usize),
    /// schemars' `title`.
    Title,
}
