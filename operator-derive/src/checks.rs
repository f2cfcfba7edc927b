//! Compile-time checks of marker attributes, through the shared grammar in
//! `operator_gen::internals::markers`. The generator runs the same parsers; here the field's Rust
//! type is known only syntactically, so type fit is checked where the syntax tells.

use operator_gen::diagnostics::Diagnostics;
use operator_gen::internals::markers::{self, FieldMarkers, MarkerTarget, MetaSource, Validation};
use proc_macro2::{Span, TokenStream};
use syn::spanned::Spanned;

/// Checks the schema markers of a type and its fields.
pub fn check_schema_type(input: &syn::DeriveInput) -> Diagnostics {
    let mut diags = Diagnostics::new();
    for attr in &input.attrs {
        if let Some(name @ (markers::RESOURCE | markers::SUBRESOURCE | markers::PRINTCOLUMN)) =
            markers::marker_name(attr)
        {
            diags.push(
                attr.span(),
                format!("#[{name}] belongs on a root kind: use #[derive(CustomResource)]"),
            );
        }
    }
    markers::parse_field_markers(&input.attrs, MarkerTarget::Type, &mut diags);
    if let syn::Data::Enum(e) = &input.data {
        for attr in e.variants.iter().flat_map(|v| &v.attrs) {
            if markers::marker_name(attr).is_some() {
                diags.push(attr.path().span(), markers::VARIANT_MARKER);
            }
        }
    }
    check_fields(&input.data, &mut diags);
    diags
}

/// Checks the field markers of every field.
pub fn check_fields(data: &syn::Data, diags: &mut Diagnostics) {
    let fields: Vec<&syn::Field> = match data {
        syn::Data::Struct(s) => s.fields.iter().collect(),
        syn::Data::Enum(e) => e.variants.iter().flat_map(|v| v.fields.iter()).collect(),
        syn::Data::Union(u) => u.fields.named.iter().collect(),
    };
    for field in fields {
        let m = markers::parse_field_markers(&field.attrs, MarkerTarget::Field, diags);
        check_fit(&m, &field.ty, diags);
    }
}

fn check_fit(m: &FieldMarkers, ty: &syn::Type, diags: &mut Diagnostics) {
    let int_or_string = m
        .has(|p| matches!(p, markers::SchemaProp::IntOrString))
        .is_some();
    let schemaless = m
        .has(|p| matches!(p, markers::SchemaProp::Schemaless))
        .is_some();
    let overridden = m.validations.iter().find_map(|v| match &v.value {
        Validation::Type(t) => Some(t.as_str()),
        _ => None,
    });
    let ty_name = if schemaless {
        None
    } else {
        overridden.or_else(|| markers::syntactic_schema_type(ty))
    };
    for v in &m.validations {
        if let Err(msg) = v.value.check_applies(ty_name, int_or_string) {
            diags.push(v.span, msg);
        }
    }
    for p in &m.schema {
        if let Err(msg) = p.value.check_applies(ty_name) {
            diags.push(p.span, msg);
        }
    }
    if !m.items.is_empty() {
        match element_type(ty) {
            Some(elem) => {
                let elem_ty = markers::syntactic_schema_type(elem);
                for v in &m.items {
                    if let Err(msg) = v.value.check_applies(elem_ty, false) {
                        diags.push(v.span, format!("items: {msg}"));
                    }
                }
            }
            None if ty_name.is_some() => diags.push(
                m.items[0].span,
                "`items(...)` applies to arrays (Vec, sets, fixed arrays)",
            ),
            None => {}
        }
    }
}

/// The element type of `Vec<T>`/sets/arrays (through `Option`/`Box`).
fn element_type(ty: &syn::Type) -> Option<&syn::Type> {
    match ty {
        syn::Type::Array(a) => Some(&a.elem),
        syn::Type::Slice(s) => Some(&s.elem),
        syn::Type::Path(p) => {
            let last = p.path.segments.last()?;
            let arg = match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                })?,
                _ => return None,
            };
            match last.ident.to_string().as_str() {
                "Vec" | "VecDeque" | "BTreeSet" | "HashSet" => Some(arg),
                "Option" | "Box" => element_type(arg),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Checks `#[rbac(...)]` arguments and where the attribute sits.
pub fn check_rbac(args: &TokenStream, item: &TokenStream) -> Vec<syn::Error> {
    check_item_marker(
        args,
        item,
        |source, diags| {
            markers::parse_rbac(source, diags);
        },
        markers::MISPLACED_RBAC,
    )
}

/// Checks `#[webhook(...)]` arguments and where the attribute sits.
pub fn check_webhook(args: &TokenStream, item: &TokenStream) -> Vec<syn::Error> {
    check_item_marker(
        args,
        item,
        |source, diags| {
            markers::parse_webhook(source, diags);
        },
        markers::MISPLACED_WEBHOOK,
    )
}

/// Checks `#[webhook_configuration(...)]` arguments and where the attribute sits.
pub fn check_webhook_configuration(args: &TokenStream, item: &TokenStream) -> Vec<syn::Error> {
    check_item_marker(
        args,
        item,
        |source, diags| {
            markers::parse_webhook_configuration(source, diags);
        },
        markers::MISPLACED_WEBHOOK_CONFIGURATION,
    )
}

/// Parses the arguments of an attribute macro that marks an item (a function, impl,
/// module or struct: where operator-gen looks for it) and checks the item is one of those.
fn check_item_marker(
    args: &TokenStream,
    item: &TokenStream,
    parse: impl FnOnce(MetaSource<'_>, &mut Diagnostics),
    misplaced: &str,
) -> Vec<syn::Error> {
    let mut diags = Diagnostics::new();
    let span = args
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span());
    parse(MetaSource::Tokens(args, span), &mut diags);
    if let Ok(item) = syn::parse2::<syn::Item>(item.clone())
        && !matches!(
            item,
            syn::Item::Fn(_) | syn::Item::Impl(_) | syn::Item::Mod(_) | syn::Item::Struct(_)
        )
    {
        diags.push(Span::call_site(), misplaced);
    }
    diags
        .into_vec()
        .into_iter()
        .map(|d| syn::Error::new(d.at, d.message))
        .collect()
}
