//! The declared types of the sources, lowered once on the thread that parsed them: what
//! schema building reads, as plain data that crosses threads. Every marker is parsed here
//! (its mistakes kept with the type, reported when a CRD uses it), every doc comment made
//! into a description, serde's reading taken, and every type expression reduced to what
//! the schema depends on.

use crate::diagnostics::Diagnostic;
use crate::markers::{FieldMarkers, ResourceMarker, SubresourceMarker};
use crate::place::Loc;
use crate::serde_attrs::SerdeShape;

/// A struct, enum or type alias of the sources.
#[derive(Debug, Clone)]
pub struct TypeDef {
    /// Its name.
    pub name: String,
    /// Where its name is.
    pub at: Loc,
    /// Where its generic parameters are, when it has any.
    pub generics: Option<Loc>,
    /// The names of its type parameters (`T` of `Role<T>`), in order.
    pub params: Vec<String>,
    /// Their defaults (`U = GenericRoleConfig`), where written.
    pub param_defaults: Vec<Option<Ty>>,
    /// Its doc comment as a description.
    pub doc: Option<String>,
    /// The last path segment of every trait it derives (`Schema`, `Serialize_repr`, ...).
    pub derives: Vec<String>,
    /// The integer type of its `#[repr(...)]`, when it has one.
    pub repr: Option<String>,
    /// Its type-level `#[validation]`/`#[schema]` markers (and the schema-shaping keys of
    /// `#[schemars]`, `#[validate]`, `#[garde]`).
    pub markers: FieldMarkers<Loc>,
    /// The mistakes in those markers, and the marker attributes written where none may go
    /// (on a type alias).
    pub marker_problems: Vec<Diagnostic<Loc>>,
    /// serde's reading of it, or serde's refusal.
    pub serde: Result<SerdeShape, Vec<Diagnostic<Loc>>>,
    /// For `#[serde(into/from/try_from = "T")]`: `T`, read as a type (or why it does not read).
    pub converts_through: Option<Result<Ty, Diagnostic<Loc>>>,
    /// Its fields, variants or aliased type.
    pub body: Body,
    /// Its CRD-level markers, when it is a root kind (`#[resource]`).
    pub kind: Option<KindMarkers>,
}

impl TypeDef {
    /// Whether it derives the trait whose last path segment is `name`.
    pub fn derives(&self, name: &str) -> bool {
        self.derives.iter().any(|d| d == name)
    }
}

/// The CRD-level markers of a root kind.
#[derive(Debug, Clone)]
pub struct KindMarkers {
    /// The `#[resource]` marker.
    pub resource: ResourceMarker<Loc>,
    /// The `#[subresource]` marker.
    pub subresources: SubresourceMarker<Loc>,
    /// The `#[printcolumn]` markers, in order.
    pub printcolumns: Vec<crate::markers::PrintColumnMarker<Loc>>,
}

/// What a type declaration holds.
#[derive(Debug, Clone)]
pub enum Body {
    /// A struct's fields.
    Struct(Fields),
    /// An enum's variants.
    Enum(Vec<VariantDef>),
    /// A type alias's type.
    Alias(Ty),
}

/// The fields of a struct or variant.
#[derive(Debug, Clone)]
pub enum Fields {
    /// Named fields (`{ a: T }`).
    Named(Vec<FieldDef>),
    /// Tuple fields (`(T, U)`).
    Unnamed(Vec<FieldDef>),
    /// No fields.
    Unit,
}

/// A field of a struct or of an enum variant.
#[derive(Debug, Clone)]
pub struct FieldDef {
    /// Its name and where it is (`None` for a tuple field).
    pub ident: Option<(String, Loc)>,
    /// Its type.
    pub ty: Ty,
    /// The type as written, kept only where a message quotes it (a field whose serde
    /// attributes change its wire format).
    pub ty_text: Option<String>,
    /// Its doc comment as a description.
    pub doc: Option<String>,
    /// Its `#[validation]`/`#[schema]` markers.
    pub markers: FieldMarkers<Loc>,
    /// The mistakes in those markers.
    pub marker_problems: Vec<Diagnostic<Loc>>,
}

/// A variant of an enum.
#[derive(Debug, Clone)]
pub struct VariantDef {
    /// Its name.
    pub name: String,
    /// Where its name is.
    pub at: Loc,
    /// Its fields.
    pub fields: Fields,
    /// Its doc comment as a description.
    pub doc: Option<String>,
    /// Its discriminant, when written: the integer literal, or where the expression that
    /// is not one is.
    pub discriminant: Option<Result<i128, Loc>>,
    /// Whether it is `#[serde(other)]`.
    pub serde_other: bool,
    /// The first schema marker written on it (markers do not go on variants).
    pub marker: Option<Loc>,
    /// What is wrong with the schemars/validate/garde attributes on it.
    pub foreign_problems: Vec<crate::diagnostics::Diagnostic<Loc>>,
}

/// A type expression, reduced to what its schema depends on. Parentheses and invisible
/// groups are gone; their content is in their place.
#[derive(Debug, Clone)]
pub struct Ty {
    /// Where it is written.
    pub at: Loc,
    /// What it is.
    pub kind: TyKind,
}

/// The kinds of type expression.
#[derive(Debug, Clone)]
pub enum TyKind {
    /// `a::b::C<T, U>`: the segments, whether it starts with `::`, and the type arguments
    /// of the last segment (lifetimes and constants left out).
    Path {
        /// Whether it starts with `::`.
        absolute: bool,
        /// The path's segments.
        segments: Vec<String>,
        /// The last segment's type arguments.
        args: Vec<Ty>,
    },
    /// `&T`, `&mut T`.
    Reference(Box<Ty>),
    /// `[T; N]`: the length when it is an integer literal, else where it is written.
    Array(Box<Ty>, Result<i64, Loc>),
    /// `[T]`.
    Slice(Box<Ty>),
    /// `()`.
    Unit,
    /// Anything else (tuples, function pointers, `impl Trait`, qualified paths, ...), as
    /// written.
    Other(String),
}

impl Ty {
    /// `Some(name)` when this is a bare name (`i32`), one segment without arguments.
    pub fn ident(&self) -> Option<&str> {
        match &self.kind {
            TyKind::Path {
                absolute: false,
                segments,
                args,
            } if segments.len() == 1 && args.is_empty() => Some(&segments[0]),
            _ => None,
        }
    }
}
