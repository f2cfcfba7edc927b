//! Lowering of declared types: a struct, enum or type alias of a parsed file becomes a
//! [`TypeDef`], with its markers parsed, its doc comments read, serde's reading taken and
//! its type expressions reduced to [`Ty`]s. Done once per type, on the thread that parsed
//! the file; nothing after this reads syntax trees.

use syn::spanned::Spanned as _;

use crate::Origin;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::docs;
use crate::markers::{self, FieldMarkers, MarkerTarget};
use crate::model::{Body, FieldDef, Fields, Ty, TyKind, TypeDef, VariantDef};
use crate::place::Loc;
use crate::serde_attrs::{self, FieldAttrs, SerdeShape};
use crate::source::TypeItem;

/// The model of `item`, declared in input `file`.
pub(crate) fn type_def(file: usize, item: TypeItem<'_>) -> TypeDef {
    let at = |span| Loc::of(file, span);
    let attrs = item.attrs();
    let name = item.ident().to_string();
    let generics = item.generics();
    let (markers, marker_problems) = match item {
        // rustc refuses derive helper attributes on a `type` item (there is no derive to
        // declare them), so markers here never compile: refuse them too.
        TypeItem::Alias(_) => (
            FieldMarkers::default(),
            attrs
                .iter()
                .filter(|a| markers::marker_name(a).is_some())
                .map(|a| {
                    Diagnostic::new(
                        at(a.span()),
                        format!(
                            "markers cannot go on a type alias (`type {name} = ...`): the compiler refuses them there; make it a newtype (`pub struct {name}(...)` with #[derive(Schema)]) or put the markers on the fields that use it"
                        ),
                        Origin::Marker,
                    )
                })
                .collect(),
        ),
        _ => field_markers(file, attrs, MarkerTarget::Type),
    };
    let serde = serde_attrs::read(&item, file).map_err(|errors| {
        errors
            .into_iter()
            .map(|e| Diagnostic::new(at(e.span()), format!("serde: {e}"), Origin::Serde))
            .collect()
    });
    let converts_through = serde
        .as_ref()
        .ok()
        .and_then(|shape: &SerdeShape| shape.container.converts_through())
        .map(
            |through| match syn::parse_str::<syn::Type>(&through.target) {
                // The type is written in a string: every part of it is where the string is.
                Ok(t) => Ok(lower_ty(&t, &mut |_, _| through.at)),
                Err(e) => Err(Diagnostic::new(
                    through.at,
                    format!("serde: {e}"),
                    Origin::Source,
                )),
            },
        );
    let shape = serde.as_ref().ok();
    let body = match item {
        TypeItem::Struct(s) => {
            Body::Struct(fields(file, &s.fields, shape.map(|s| s.fields.as_slice())))
        }
        TypeItem::Enum(e) => Body::Enum(
            e.variants
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let serde = shape
                        .and_then(|s| s.variants.get(i))
                        .map(|v| v.fields.as_slice());
                    variant(file, v, serde)
                })
                .collect(),
        ),
        TypeItem::Alias(t) => Body::Alias(ty(file, &t.ty)),
    };
    TypeDef {
        at: at(item.ident().span()),
        generics: (!generics.params.is_empty()).then(|| at(generics.span())),
        params: generics
            .type_params()
            .map(|p| p.ident.to_string())
            .collect(),
        param_defaults: generics
            .type_params()
            .map(|p| p.default.as_ref().map(|t| ty(file, t)))
            .collect(),
        doc: docs::description(attrs),
        derives: crate::source::derive_names(attrs),
        repr: attrs
            .iter()
            .filter(|a| a.path().is_ident("repr"))
            .find_map(|a| a.parse_args::<syn::Ident>().ok())
            .map(|r| r.to_string()),
        markers,
        marker_problems,
        serde,
        converts_through,
        body,
        kind: None,
        name,
    }
}

/// The schema markers among `attrs`, placed in input `file`, and their mistakes.
fn field_markers(
    file: usize,
    attrs: &[syn::Attribute],
    target: MarkerTarget,
) -> (FieldMarkers<Loc>, Vec<Diagnostic<Loc>>) {
    let mut diags = Diagnostics::new();
    let parsed = markers::parse_field_markers(attrs, target, &mut diags);
    let problems = diags.placed(|span| Loc::of(file, span));
    let placed = if parsed.is_empty() {
        FieldMarkers::default()
    } else {
        parsed.map_spans(&mut |s| Loc::of(file, s))
    };
    (placed, problems)
}

/// The fields of a struct or variant; `serde` is serde's reading of them, when it read.
fn fields(file: usize, fields: &syn::Fields, serde: Option<&[FieldAttrs]>) -> Fields {
    let lowered = || {
        fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let swapped = serde
                    .and_then(|s| s.get(i))
                    .is_some_and(|a| !a.swaps.is_empty());
                field(file, f, swapped)
            })
            .collect()
    };
    match fields {
        syn::Fields::Named(_) => Fields::Named(lowered()),
        syn::Fields::Unnamed(_) => Fields::Unnamed(lowered()),
        syn::Fields::Unit => Fields::Unit,
    }
}

fn field(file: usize, f: &syn::Field, swapped: bool) -> FieldDef {
    let (markers, marker_problems) = field_markers(file, &f.attrs, MarkerTarget::Field);
    let written = &f.ty;
    FieldDef {
        ident: f
            .ident
            .as_ref()
            .map(|i| (i.to_string(), Loc::of(file, i.span()))),
        ty: ty(file, &f.ty),
        ty_text: swapped.then(|| quote::quote!(#written).to_string().replace(' ', "")),
        doc: docs::description(&f.attrs),
        markers,
        marker_problems,
    }
}

fn variant(file: usize, v: &syn::Variant, serde: Option<&[FieldAttrs]>) -> VariantDef {
    VariantDef {
        name: v.ident.to_string(),
        at: Loc::of(file, v.ident.span()),
        fields: fields(file, &v.fields, serde),
        doc: docs::description(&v.attrs),
        discriminant: v
            .discriminant
            .as_ref()
            .map(|(_, e)| integer_literal(e).ok_or_else(|| Loc::of(file, e.span()))),
        serde_other: v.attrs.iter().any(is_serde_other),
        marker: v
            .attrs
            .iter()
            .find(|a| markers::marker_name(a).is_some())
            .map(|a| Loc::of(file, a.span())),
        foreign_problems: {
            let mut diags = Diagnostics::new();
            markers::variant_problems(&v.attrs, &mut diags);
            diags.placed(|span| Loc::of(file, span))
        },
    }
}

/// The type expression `t`, written in input `file`.
pub(crate) fn ty(file: usize, t: &syn::Type) -> Ty {
    lower_ty(t, &mut |first, last| Loc::spanning(file, first, last))
}

/// Places a type by its first and last token. (syn's `span()` of a type prints the type
/// back into tokens to join their spans: too slow for every type of a large API.)
type Place<'f> = dyn FnMut(proc_macro2::Span, proc_macro2::Span) -> Loc + 'f;

fn lower_ty(t: &syn::Type, at: &mut Place<'_>) -> Ty {
    let (kind, place) = match t {
        syn::Type::Paren(p) => return lower_ty(&p.elem, at),
        syn::Type::Group(g) => return lower_ty(&g.elem, at),
        syn::Type::Path(tp) if tp.qself.is_none() => {
            let path = &tp.path;
            let first = path.leading_colon.map_or_else(
                || path.segments.first().map(|s| s.ident.span()),
                |c| Some(c.spans[0]),
            );
            let last = path.segments.last().map(|s| match &s.arguments {
                syn::PathArguments::AngleBracketed(a) => a.gt_token.span,
                syn::PathArguments::Parenthesized(p) => match &p.output {
                    syn::ReturnType::Default => p.paren_token.span.close(),
                    syn::ReturnType::Type(_, t) => t.span(),
                },
                syn::PathArguments::None => s.ident.span(),
            });
            let kind = TyKind::Path {
                absolute: path.leading_colon.is_some(),
                segments: path.segments.iter().map(|s| s.ident.to_string()).collect(),
                args: match path.segments.last().map(|s| &s.arguments) {
                    Some(syn::PathArguments::AngleBracketed(a)) => a
                        .args
                        .iter()
                        .filter_map(|arg| match arg {
                            syn::GenericArgument::Type(t) => Some(lower_ty(t, at)),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                },
            };
            let place = match (first, last) {
                (Some(first), Some(last)) => at(first, last),
                _ => at(t.span(), t.span()),
            };
            (kind, place)
        }
        syn::Type::Reference(r) => {
            let elem = lower_ty(&r.elem, at);
            let place = Loc {
                end_line: elem.at.end_line,
                end_column: elem.at.end_column,
                ..at(r.and_token.span, r.and_token.span)
            };
            (TyKind::Reference(Box::new(elem)), place)
        }
        syn::Type::Array(a) => {
            let len = match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(n),
                    ..
                }) => n.base10_parse::<i64>().ok(),
                _ => None,
            };
            let len = len.ok_or_else(|| {
                let span = a.len.span();
                at(span, span)
            });
            let place = at(a.bracket_token.span.open(), a.bracket_token.span.close());
            (TyKind::Array(Box::new(lower_ty(&a.elem, at)), len), place)
        }
        syn::Type::Slice(s) => {
            let place = at(s.bracket_token.span.open(), s.bracket_token.span.close());
            (TyKind::Slice(Box::new(lower_ty(&s.elem, at))), place)
        }
        syn::Type::Tuple(u) if u.elems.is_empty() => (
            TyKind::Unit,
            at(u.paren_token.span.open(), u.paren_token.span.close()),
        ),
        other => {
            let span = other.span();
            (
                TyKind::Other(quote::quote!(#other).to_string()),
                at(span, span),
            )
        }
    };
    Ty { at: place, kind }
}

/// An integer literal, negated or not (`3`, `-1`, `0x10`).
fn integer_literal(expr: &syn::Expr) -> Option<i128> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse::<i128>().ok(),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => integer_literal(expr).map(|n| -n),
        syn::Expr::Paren(p) => integer_literal(&p.expr),
        syn::Expr::Group(g) => integer_literal(&g.expr),
        _ => None,
    }
}

/// Whether `attr` is `#[serde(other)]`.
fn is_serde_other(attr: &syn::Attribute) -> bool {
    attr.path().is_ident("serde")
        && attr
            .parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|metas| metas.iter().any(|m| m.path().is_ident("other")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A type's place, found from its first and last tokens, is the one syn's `span()`
    /// gives (which prints the type back into tokens).
    #[test]
    fn types_are_placed_as_syn_places_them() {
        let text = "pub struct S {\n    pub a: Option<std::collections::BTreeMap<String, Vec<u8>>>,\n    pub b: ::core::num::NonZeroU8,\n    pub c: &'static str,\n    pub d: [u16; 3],\n    pub e: [i32],\n    pub f: (),\n    pub g: (i32, i32),\n    pub h: Box<dyn Fn(i32) -> i32>,\n    pub i: (Multi<\n        Line,\n    >),\n}\n";
        let file =
            crate::source::parse_text("src/lib.rs".as_ref(), "src".as_ref(), text.into()).unwrap();
        let syn::Item::Struct(s) = &file.ast.items[0] else {
            unreachable!()
        };
        for f in &s.fields {
            let written = match &f.ty {
                syn::Type::Paren(p) => &*p.elem,
                t => t,
            };
            assert_eq!(ty(0, &f.ty).at, Loc::of(0, written.span()), "{:?}", f.ident);
        }
    }
}
