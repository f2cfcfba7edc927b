//! serde's own reading of a type's attributes: what JSON a declared type reads and writes.
//!
//! The attributes are read by `serde_derive_internals`, the crate serde_derive itself is
//! built on (schemars reads them the same way), so field and variant names come out with
//! `rename`, `rename_all` and `rename_all_fields` applied exactly as serde applies them, and
//! serde's own checks (unknown keys, `transparent` without one field, `flatten` in a tuple
//! struct, ...) report here what the compiler would report. This module keeps what a schema
//! needs of that reading, as plain owned data: names, presence (`skip*`, `default`),
//! `flatten`, the enum representation, `remote`, and every attribute that swaps the wire
//! format for another one (`with`, `serialize_with`, `deserialize_with` on fields and
//! variants; `into`, `from`, `try_from` on types), which the schema builder may not paper
//! over with the Rust type's own schema.

use serde_derive_internals::{Ctxt, Derive, ast, attr};
use syn::ext::IdentExt as _;
use syn::spanned::Spanned as _;

use crate::place::Loc;
use crate::source::TypeItem;

/// serde's reading of one declared struct or enum.
#[derive(Debug, Clone, Default)]
pub struct SerdeShape {
    /// What the type's own `#[serde(...)]` says.
    pub container: ContainerAttrs,
    /// The struct's fields, in declaration order (empty for an enum).
    pub fields: Vec<FieldAttrs>,
    /// The enum's variants, in declaration order (empty for a struct).
    pub variants: Vec<VariantAttrs>,
}

/// What a type's own `#[serde(...)]` says about its JSON.
#[derive(Debug, Clone, Default)]
pub struct ContainerAttrs {
    /// `#[serde(default)]`: every missing field takes its value from `Default`.
    pub default: bool,
    /// That default may fill a field with something other than its type's own default:
    /// `default = "path"`, or `default` with a `Default` the type does not derive.
    pub default_fills: bool,
    /// `transparent`: written as its one field.
    pub transparent: bool,
    /// `tag = "..."` (internally or, with `content`, adjacently tagged).
    pub tag: Option<String>,
    /// `content = "..."`: with `tag`, the field holding the variant's content.
    pub content: Option<String>,
    /// `untagged`: variants are told apart by their content alone.
    pub untagged: bool,
    /// `into`, `from`, `try_from`: the type is written or read as another type.
    pub conversions: Vec<WireSwap>,
    /// `remote = "..."`: the type mirrors another one for `#[serde(with = "ThisType")]`;
    /// its own fields are that type's wire format.
    pub remote: bool,
    /// `deny_unknown_fields`: a field serde does not know is an error when reading (for an
    /// enum: in its variants' fields too).
    pub deny_unknown_fields: bool,
    /// The name serde writes for the type: a struct's `tag` value.
    pub written_name: String,
}

/// What a field's `#[serde(...)]` says.
#[derive(Debug, Clone, Default)]
pub struct FieldAttrs {
    /// The JSON name serde reads (the one clients send).
    pub name: String,
    /// The JSON name serde writes, when it is not `name`.
    pub written_name: Option<String>,
    /// `skip_serializing` (or `skip`): never written.
    pub skip_serializing: bool,
    /// `skip_deserializing` (or `skip`): never read.
    pub skip_deserializing: bool,
    /// A missing value reads as a default (`#[serde(default)]` on the field).
    pub default: bool,
    /// That default comes from a function (`default = "path"`), not the type's `Default`.
    pub default_fills: bool,
    /// That function: its path as written, and where.
    pub default_function: Option<(String, Loc)>,
    /// `skip_serializing_if = "..."`: sometimes left out when written.
    pub skip_serializing_if: bool,
    /// `flatten`: its fields are written into the enclosing object.
    pub flatten: bool,
    /// `with`, `serialize_with`, `deserialize_with`. (`getter`, which a `remote` type uses
    /// to reach a private field, returns the field's own type: the JSON stays the same.)
    pub swaps: Vec<WireSwap>,
}

/// What a variant's `#[serde(...)]` says.
#[derive(Debug, Clone, Default)]
pub struct VariantAttrs {
    /// The JSON name of the variant.
    pub name: String,
    /// The JSON name serde writes, when it is not `name`.
    pub written_name: Option<String>,
    /// `skip_serializing` (or `skip`): never written.
    pub skip_serializing: bool,
    /// `skip_deserializing` (or `skip`): never read.
    pub skip_deserializing: bool,
    /// `untagged`: told apart by its content alone.
    pub untagged: bool,
    /// The variant's fields, names already renamed by the variant's `rename_all` or the
    /// enum's `rename_all_fields`.
    pub fields: Vec<FieldAttrs>,
    /// `with`, `serialize_with`, `deserialize_with` on the variant itself.
    pub swaps: Vec<WireSwap>,
}

/// One serde attribute that makes the JSON something other than the Rust type's own
/// serialisation: the type's schema would then describe the wrong thing.
#[derive(Debug, Clone)]
pub struct WireSwap {
    /// The attribute as written: `with`, `serialize_with`, `into`, ...
    pub attribute: &'static str,
    /// What it names (a function, a module or a type), as written.
    pub target: String,
    /// Where its value is written.
    pub at: Loc,
    /// For `with`: the module it names, as a path to resolve (whether it starts with `::`,
    /// and its segments).
    pub module: Option<(bool, Vec<String>)>,
}

impl WireSwap {
    /// Whether it changes what serde reads (what the API server must only admit), not just
    /// what it writes.
    pub fn changes_reading(&self) -> bool {
        !matches!(self.attribute, "serialize_with" | "into")
    }

    /// Whether it changes what serde writes (what the API server must admit).
    pub fn changes_writing(&self) -> bool {
        !matches!(self.attribute, "deserialize_with" | "from" | "try_from")
    }
}

impl ContainerAttrs {
    /// The type named by `into = "..."` and `from = "..."` / `try_from = "..."` when the
    /// type is read and written as that one type: then the schema is that type's.
    pub fn converts_through(&self) -> Option<&WireSwap> {
        let [first, rest @ ..] = self.conversions.as_slice() else {
            return None;
        };
        let reads = self
            .conversions
            .iter()
            .any(|c| matches!(c.attribute, "from" | "try_from"));
        let writes = self.conversions.iter().any(|c| c.attribute == "into");
        (reads && writes && rest.iter().all(|c| c.target == first.target)).then_some(first)
    }
}

/// Reads `item` as serde_derive's `Deserialize` reads it. Every problem serde would report
/// is returned, each at its span. `file` is the input's position, for the places kept.
pub fn read(item: &TypeItem<'_>, file: usize) -> Result<SerdeShape, Vec<syn::Error>> {
    if let Some(shape) = without_serde_attributes(item) {
        return Ok(shape);
    }
    let input = match item {
        TypeItem::Struct(s) => lean(&s.attrs, &s.ident, &s.generics, |data| {
            *data = syn::Data::Struct(syn::DataStruct {
                struct_token: s.struct_token,
                fields: lean_fields(&s.fields),
                semi_token: s.semi_token,
            })
        }),
        TypeItem::Enum(e) => lean(&e.attrs, &e.ident, &e.generics, |data| {
            *data = syn::Data::Enum(syn::DataEnum {
                enum_token: e.enum_token,
                brace_token: e.brace_token,
                variants: e
                    .variants
                    .iter()
                    .map(|v| syn::Variant {
                        attrs: serde_only(&v.attrs),
                        ident: v.ident.clone(),
                        fields: lean_fields(&v.fields),
                        discriminant: None,
                    })
                    .collect(),
            })
        }),
        TypeItem::Alias(_) => return Ok(SerdeShape::default()),
    };
    let cx = Ctxt::new();
    let shape = ast::Container::from_ast(&cx, &input, Derive::Deserialize).map(|c| {
        let mut shape = lower(&c, file);
        shape.container.default_fills = match c.attrs.default() {
            attr::Default::None => false,
            attr::Default::Default => !crate::source::derive_names(item.attrs())
                .iter()
                .any(|d| d == "Default"),
            attr::Default::Path(_) => true,
        };
        shape
    });
    match cx.check() {
        Ok(()) => Ok(shape.unwrap_or_default()),
        Err(combined) => Err(combined.into_iter().collect()),
    }
}

/// The shape of an item that carries no `serde` attribute at all, where serde reads every
/// field and variant by its Rust name (a raw identifier without its `r#`) and nothing else
/// changes: most types of an API, read without building serde's model.
fn without_serde_attributes(item: &TypeItem<'_>) -> Option<SerdeShape> {
    let is_serde = |attrs: &[syn::Attribute]| {
        attrs
            .iter()
            .any(|a| a.path().is_ident("serde") || a.path().is_ident("cfg_attr"))
    };
    let plain_fields = |fields: &syn::Fields| -> Option<Vec<FieldAttrs>> {
        fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                (!is_serde(&f.attrs)).then(|| FieldAttrs {
                    name: f
                        .ident
                        .as_ref()
                        .map_or_else(|| i.to_string(), |id| id.unraw().to_string()),
                    ..Default::default()
                })
            })
            .collect()
    };
    match item {
        TypeItem::Struct(s) if !is_serde(&s.attrs) => Some(SerdeShape {
            fields: plain_fields(&s.fields)?,
            ..Default::default()
        }),
        TypeItem::Enum(e) if !is_serde(&e.attrs) => Some(SerdeShape {
            variants: e
                .variants
                .iter()
                .map(|v| {
                    (!is_serde(&v.attrs)).then_some(()).and_then(|()| {
                        Some(VariantAttrs {
                            name: v.ident.unraw().to_string(),
                            fields: plain_fields(&v.fields)?,
                            ..Default::default()
                        })
                    })
                })
                .collect::<Option<_>>()?,
            ..Default::default()
        }),
        _ => None,
    }
}

/// What serde_derive_internals reads of an item, without what it does not: doc comments
/// and other attributes, and the fields' types (a placeholder stands in; serde looks at a
/// field's type only to borrow `&str` and `&[u8]` implicitly, which a CRD type cannot hold).
/// Cloning whole items made reading serde's attributes a tenth of a large API's generation.
fn lean(
    attrs: &[syn::Attribute],
    ident: &syn::Ident,
    generics: &syn::Generics,
    data: impl FnOnce(&mut syn::Data),
) -> syn::DeriveInput {
    let mut out = syn::DeriveInput {
        attrs: serde_only(attrs),
        vis: syn::Visibility::Inherited,
        ident: ident.clone(),
        generics: generics.clone(),
        data: syn::Data::Union(syn::DataUnion {
            union_token: Default::default(),
            fields: syn::FieldsNamed {
                brace_token: Default::default(),
                named: Default::default(),
            },
        }),
    };
    data(&mut out.data);
    out
}

/// The attributes serde_derive_internals reads: `serde`, and `repr` (for `packed`); also
/// those inside `#[cfg_attr(predicate, serde(...))]`, which are read as if the predicate
/// held, as every `#[cfg]` is (a crate with optional serde support writes its renames that
/// way, and the CRD describes the build that serializes the type).
fn serde_only(attrs: &[syn::Attribute]) -> Vec<syn::Attribute> {
    let wanted = |path: &syn::Path| path.is_ident("serde") || path.is_ident("repr");
    let mut out = Vec::new();
    for attr in attrs {
        if wanted(attr.path()) {
            out.push(attr.clone());
        } else if attr.path().is_ident("cfg_attr")
            && let syn::Meta::List(list) = &attr.meta
            && let Ok(metas) = list.parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            )
        {
            // The first is the predicate; a `cfg_attr` that does not parse is the compiler's
            // to report.
            out.extend(
                metas
                    .into_iter()
                    .skip(1)
                    .filter(|m| wanted(m.path()))
                    .map(|meta| syn::Attribute {
                        pound_token: attr.pound_token,
                        style: attr.style,
                        bracket_token: attr.bracket_token,
                        meta,
                    }),
            );
        }
    }
    out
}

fn lean_fields(fields: &syn::Fields) -> syn::Fields {
    let lean_field = |f: &syn::Field| syn::Field {
        attrs: serde_only(&f.attrs),
        vis: syn::Visibility::Inherited,
        mutability: syn::FieldMutability::None,
        ident: f.ident.clone(),
        colon_token: f.colon_token,
        ty: syn::Type::Tuple(syn::TypeTuple {
            paren_token: Default::default(),
            elems: Default::default(),
        }),
    };
    match fields {
        syn::Fields::Named(n) => syn::Fields::Named(syn::FieldsNamed {
            brace_token: n.brace_token,
            named: n.named.iter().map(lean_field).collect(),
        }),
        syn::Fields::Unnamed(u) => syn::Fields::Unnamed(syn::FieldsUnnamed {
            paren_token: u.paren_token,
            unnamed: u.unnamed.iter().map(lean_field).collect(),
        }),
        syn::Fields::Unit => syn::Fields::Unit,
    }
}

fn lower(c: &ast::Container<'_>, file: usize) -> SerdeShape {
    let a = &c.attrs;
    let (tag, content, untagged) = match a.tag() {
        attr::TagType::External => (None, None, false),
        attr::TagType::Internal { tag } => (Some(tag.clone()), None, false),
        attr::TagType::Adjacent { tag, content } => {
            (Some(tag.clone()), Some(content.clone()), false)
        }
        attr::TagType::None => (None, None, true),
    };
    let mut conversions = Vec::new();
    let mut swap = |attribute, target: &dyn quote::ToTokens, span| {
        conversions.push(WireSwap {
            attribute,
            target: shown(target),
            at: Loc::of(file, span),
            module: None,
        })
    };
    if let Some(t) = a.type_into() {
        swap("into", t, t.span());
    }
    if let Some(t) = a.type_from() {
        swap("from", t, t.span());
    }
    if let Some(t) = a.type_try_from() {
        swap("try_from", t, t.span());
    }
    let container = ContainerAttrs {
        default: !a.default().is_none(),
        // Set by `read`, which sees the type's derives.
        default_fills: false,
        transparent: a.transparent(),
        tag,
        content,
        untagged,
        conversions,
        remote: a.remote().is_some(),
        deny_unknown_fields: a.deny_unknown_fields(),
        written_name: a.name().serialize_name().to_string(),
    };
    let (fields, variants) = match &c.data {
        ast::Data::Struct(_, fields) => {
            (fields.iter().map(|f| field(f, file)).collect(), Vec::new())
        }
        ast::Data::Enum(variants) => (
            Vec::new(),
            variants
                .iter()
                .map(|v| VariantAttrs {
                    written_name: (v.attrs.name().serialize_name()
                        != v.attrs.name().deserialize_name())
                    .then(|| v.attrs.name().serialize_name().to_string()),
                    skip_serializing: v.attrs.skip_serializing(),
                    name: v.attrs.name().deserialize_name().to_string(),
                    skip_deserializing: v.attrs.skip_deserializing(),
                    untagged: v.attrs.untagged(),
                    fields: v.fields.iter().map(|f| field(f, file)).collect(),
                    swaps: custom_functions(
                        v.attrs.serialize_with(),
                        v.attrs.deserialize_with(),
                        file,
                    ),
                })
                .collect(),
        ),
    };
    SerdeShape {
        container,
        fields,
        variants,
    }
}

fn field(f: &ast::Field<'_>, file: usize) -> FieldAttrs {
    let a = &f.attrs;
    let name = a.name().deserialize_name().to_string();
    let written = a.name().serialize_name();
    let swaps = custom_functions(a.serialize_with(), a.deserialize_with(), file);
    FieldAttrs {
        written_name: (written != name).then(|| written.to_string()),
        name,
        skip_serializing: a.skip_serializing(),
        skip_deserializing: a.skip_deserializing(),
        default: !a.default().is_none(),
        default_fills: matches!(a.default(), attr::Default::Path(_)),
        default_function: match a.default() {
            attr::Default::Path(p) => Some((shown(p), Loc::of(file, p.span()))),
            _ => None,
        },
        skip_serializing_if: a.skip_serializing_if().is_some(),
        flatten: a.flatten(),
        swaps,
    }
}

/// `with = "m"` reaches serde_derive_internals as `m::serialize` and `m::deserialize`:
/// shown as the one attribute the user wrote.
fn custom_functions(
    ser: Option<&syn::ExprPath>,
    de: Option<&syn::ExprPath>,
    file: usize,
) -> Vec<WireSwap> {
    let module = |p: &syn::ExprPath, last: &str| {
        let segments = &p.path.segments;
        (segments.len() > 1 && segments.last().is_some_and(|s| s.ident == last)).then(|| {
            let mut module = p.path.clone();
            module.segments.pop();
            module.segments.pop_punct();
            module
        })
    };
    if let (Some(s), Some(d)) = (ser, de)
        && let (Some(a), Some(b)) = (module(s, "serialize"), module(d, "deserialize"))
        && shown(&a) == shown(&b)
    {
        return vec![WireSwap {
            attribute: "with",
            target: shown(&a),
            at: Loc::of(file, s.span()),
            module: Some((
                a.leading_colon.is_some(),
                a.segments.iter().map(|s| s.ident.to_string()).collect(),
            )),
        }];
    }
    let mut out = Vec::new();
    for (attribute, path) in [("serialize_with", ser), ("deserialize_with", de)] {
        if let Some(p) = path {
            out.push(WireSwap {
                attribute,
                target: shown(p),
                at: Loc::of(file, p.span()),
                module: None,
            });
        }
    }
    out
}

/// Tokens as a user reads them: `as_string`, `crate::wire::Port` (no spaces around `::`).
fn shown(tokens: &dyn quote::ToTokens) -> String {
    tokens
        .to_token_stream()
        .to_string()
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" < ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    fn item(text: &str) -> syn::Item {
        syn::parse_str(text).unwrap()
    }

    fn shape(text: &str) -> SerdeShape {
        let parsed = item(text);
        let ty = match &parsed {
            syn::Item::Struct(s) => TypeItem::Struct(s),
            syn::Item::Enum(e) => TypeItem::Enum(e),
            _ => unreachable!(),
        };
        read(&ty, 0)
            .unwrap_or_else(|e| panic!("{:?}", e.iter().map(|e| e.to_string()).collect::<Vec<_>>()))
    }

    /// Every rename rule names fields and variants as serde's own serialisation does: serde
    /// is the oracle.
    macro_rules! same_as_serde {
        ($rule:tt) => {{
            #[derive(Serialize, Default)]
            #[serde(rename_all = $rule)]
            #[allow(non_snake_case)]
            struct Fields {
                a: u8,
                two_words: u8,
                http_2_port: u8,
                trailing_: u8,
                _leading: u8,
                many__underscores: u8,
                x_y_z: u8,
            }
            #[derive(Serialize)]
            #[serde(rename_all = $rule)]
            #[allow(clippy::upper_case_acronyms, dead_code)]
            enum Variants {
                A,
                TwoWords,
                HTTPServer,
                Http2Port,
                XYZ,
            }
            let ours = shape(concat!(
                "#[serde(rename_all = \"",
                $rule,
                "\")] struct Fields { a: u8, two_words: u8, http_2_port: u8, trailing_: u8, _leading: u8, many__underscores: u8, x_y_z: u8 }"
            ));
            let theirs = serde_json::to_value(Fields::default()).unwrap();
            let mut theirs: Vec<&String> = theirs.as_object().unwrap().keys().collect();
            let mut ours: Vec<&String> = ours.fields.iter().map(|f| &f.name).collect();
            theirs.sort();
            ours.sort();
            assert_eq!(ours, theirs, "fields, {}", $rule);
            let ours = shape(concat!(
                "#[serde(rename_all = \"",
                $rule,
                "\")] enum Variants { A, TwoWords, HTTPServer, Http2Port, XYZ }"
            ));
            for (variant, ours) in [
                Variants::A,
                Variants::TwoWords,
                Variants::HTTPServer,
                Variants::Http2Port,
                Variants::XYZ,
            ]
            .iter()
            .zip(&ours.variants)
            {
                let theirs = serde_json::to_value(variant).unwrap();
                assert_eq!(ours.name, theirs.as_str().unwrap(), "{}", $rule);
            }
        }};
    }

    #[test]
    fn rename_rules_name_fields_and_variants_as_serde_does() {
        same_as_serde!("lowercase");
        same_as_serde!("UPPERCASE");
        same_as_serde!("PascalCase");
        same_as_serde!("camelCase");
        same_as_serde!("snake_case");
        same_as_serde!("SCREAMING_SNAKE_CASE");
        same_as_serde!("kebab-case");
        same_as_serde!("SCREAMING-KEBAB-CASE");
    }

    /// Without serde attributes the shape is read without serde_derive_internals; it must
    /// be what serde_derive_internals reads.
    #[test]
    fn items_without_serde_attributes_read_as_serde_reads_them() {
        for text in [
            "struct S { a: u8, r#type: String, two_words: bool }",
            "struct T(u8);",
            "enum E { A, B { r#in: u8 }, C(String) }",
        ] {
            let parsed = item(text);
            let ty = match &parsed {
                syn::Item::Struct(s) => TypeItem::Struct(s),
                syn::Item::Enum(e) => TypeItem::Enum(e),
                _ => unreachable!(),
            };
            let fast = without_serde_attributes(&ty).expect("no serde attributes");
            let input = match &parsed {
                syn::Item::Struct(s) => syn::DeriveInput::from(s.clone()),
                syn::Item::Enum(e) => syn::DeriveInput::from(e.clone()),
                _ => unreachable!(),
            };
            let cx = Ctxt::new();
            let full = lower(
                &ast::Container::from_ast(&cx, &input, Derive::Deserialize).unwrap(),
                0,
            );
            cx.check().unwrap();
            let names = |s: &SerdeShape| {
                let fields =
                    |f: &[FieldAttrs]| f.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
                (
                    fields(&s.fields),
                    s.variants
                        .iter()
                        .map(|v| (v.name.clone(), fields(&v.fields)))
                        .collect::<Vec<_>>(),
                )
            };
            assert_eq!(names(&fast), names(&full), "{text}");
        }
    }

    #[test]
    fn container_attributes_are_read() {
        let c = shape(
            r#"#[serde(deny_unknown_fields, rename_all = "camelCase", tag = "kind", content = "spec")]
               #[serde(rename_all_fields = "kebab-case")]
               #[derive(Debug)]
               enum E { #[serde(rename_all = "UPPERCASE")] A { one_two: u8 }, B { three_four: u8 } }"#,
        );
        assert_eq!(c.container.tag.as_deref(), Some("kind"));
        assert_eq!(c.container.content.as_deref(), Some("spec"));
        assert!(!c.container.untagged && !c.container.default);
        // The variant's own rule wins over the enum's `rename_all_fields`.
        assert_eq!(c.variants[0].fields[0].name, "ONE_TWO");
        assert_eq!(c.variants[1].fields[0].name, "three-four");
        let c = shape("#[serde(untagged)] enum E { A(String) }");
        assert!(c.container.untagged);
        let c = shape(r#"#[serde(default)] struct S { a: u8 }"#);
        assert!(c.container.default);
        // `rename_all(serialize = ..., deserialize = ...)`: the names clients send count.
        let c = shape(
            r#"#[serde(rename_all(serialize = "UPPERCASE", deserialize = "camelCase"))] struct S { one_two: u8 }"#,
        );
        assert_eq!(c.fields[0].name, "oneTwo");
        assert_eq!(c.fields[0].written_name.as_deref(), Some("ONE_TWO"));
    }

    #[test]
    fn field_attributes_are_read() {
        let s = shape(
            r#"struct S {
                #[serde(rename = "x", default = "path::to", skip_serializing_if = "Option::is_none")] a: Option<u8>,
                #[serde(flatten)] b: Inner,
                #[serde(skip)] c: u8,
                #[serde(skip_deserializing)] #[doc = "x"] d: u8,
                #[serde(with = "as_string")] e: u32,
                #[serde(serialize_with = "w::out")] f: u32,
                #[serde(deserialize_with = "w::inp", serialize_with = "w::out")] g: u32,
            }"#,
        );
        let f = &s.fields;
        assert_eq!(f[0].name, "x");
        assert!(f[0].default && !f[0].skip_serializing && !f[0].flatten && f[0].swaps.is_empty());
        assert!(f[1].flatten);
        assert!(f[2].skip_serializing && f[2].skip_deserializing);
        assert!(!f[3].skip_serializing && f[3].skip_deserializing);
        let swaps = |i: usize| {
            f[i].swaps
                .iter()
                .map(|s| format!("{} = {}", s.attribute, s.target))
                .collect::<Vec<_>>()
        };
        assert_eq!(swaps(4), ["with = as_string"]);
        assert_eq!(swaps(5), ["serialize_with = w::out"]);
        assert_eq!(
            swaps(6),
            ["serialize_with = w::out", "deserialize_with = w::inp"]
        );
        assert!(!f[5].swaps[0].changes_reading() && f[6].swaps[1].changes_reading());
    }

    #[test]
    fn conversions_name_the_type_on_the_wire() {
        let s = shape(r#"#[serde(into = "String", try_from = "String")] struct Port(u16);"#);
        assert_eq!(s.container.converts_through().unwrap().target, "String");
        let s = shape(r#"#[serde(into = "String", from = "u16")] struct Port(u16);"#);
        assert!(s.container.converts_through().is_none());
        let s = shape(r#"#[serde(from = "String")] struct Port(u16);"#);
        assert!(s.container.converts_through().is_none());
        assert_eq!(s.container.conversions[0].attribute, "from");
    }

    #[test]
    fn what_serde_refuses_is_an_error_at_its_span() {
        let parsed = item(r#"#[serde(rename_all = "Title Case")] struct S { a: u8 }"#);
        let syn::Item::Struct(s) = &parsed else {
            unreachable!()
        };
        let errors = read(&TypeItem::Struct(s), 0).unwrap_err();
        assert!(
            errors[0].to_string().contains("unknown rename rule"),
            "{}",
            errors[0]
        );
        let parsed = item(r#"struct S { #[serde(renam = "b")] a: u8 }"#);
        let syn::Item::Struct(s) = &parsed else {
            unreachable!()
        };
        let errors = read(&TypeItem::Struct(s), 0).unwrap_err();
        assert!(
            errors[0]
                .to_string()
                .contains("unknown serde field attribute `renam`"),
            "{}",
            errors[0]
        );
    }
}
