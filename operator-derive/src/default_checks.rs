//! Tests that hold a CRD default to the function serde fills the field with.
//!
//! `#[serde(default = "path")]` is a function the generator cannot run, so the CRD's
//! default is written beside it as a literal (`#[schema(default = ...)]`; the generator
//! refuses a default function without one, or without `#[schema(no_default)]`). Only a
//! compiled crate can call the function: for a type with fields that have both, the derive
//! writes a hidden module `__operator_rs_default_functions_of_<Type>` whose `drifted()`
//! compares `serde_json::to_value(path())` with each literal, and a `#[cfg(test)]` test that
//! fails with every field that differs, so a literal that drifts from its function fails
//! the crate's `cargo test`.

use operator_gen::diagnostics::Diagnostics;
use operator_gen::internals::markers::{self, MarkerTarget, SchemaProp};
use operator_gen::internals::serde_attrs;
use operator_gen::internals::source::TypeItem;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt as _;

/// The test module for `input`'s default functions; empty when it has none to check (or is
/// generic, an enum, or has attributes serde refuses, which the compiler reports).
pub fn tests(input: &syn::DeriveInput) -> TokenStream {
    let syn::Data::Struct(data) = &input.data else {
        return TokenStream::new();
    };
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let item = syn::ItemStruct {
        attrs: input.attrs.clone(),
        vis: input.vis.clone(),
        struct_token: data.struct_token,
        ident: input.ident.clone(),
        generics: input.generics.clone(),
        fields: data.fields.clone(),
        semi_token: data.semi_token,
    };
    let Ok(shape) = serde_attrs::read(&TypeItem::Struct(&item), 0) else {
        return TokenStream::new();
    };
    let ident = &input.ident;
    let mut checks = Vec::new();
    for (field, attrs) in data.fields.iter().zip(&shape.fields) {
        let Some((function, _)) = &attrs.default_function else {
            continue;
        };
        // A field written through another function has another JSON than its type's.
        if !attrs.swaps.is_empty() {
            continue;
        }
        let mut diags = Diagnostics::new();
        let found = markers::parse_field_markers(&field.attrs, MarkerTarget::Field, &mut diags);
        let Some(declared) = found.schema.iter().find_map(|p| match &p.value {
            SchemaProp::Default(v) => Some(v.clone()),
            _ => None,
        }) else {
            continue;
        };
        let Ok(path) = syn::parse_str::<syn::Path>(function) else {
            continue;
        };
        let call = reachable_from_child(path);
        let name = field
            .ident
            .as_ref()
            .map(|i| i.unraw().to_string())
            .unwrap_or_else(|| checks.len().to_string());
        let declared_text = declared.to_string();
        let shown = format!("{ident}.{name}");
        checks.push(quote! {{
            let written = ::serde_json::to_value(#call())
                .expect("the default function's value serializes");
            let declared: ::serde_json::Value = ::serde_json::from_str(#declared_text)
                .expect("the default was written by operator-gen");
            if written != declared {
                drifted.push(::std::format!(
                    "`{}`: #[schema(default = {})] is the CRD's default, but `{}()`, which serde fills the field with, writes {}; make the two agree",
                    #shown, declared, #function, written
                ));
            }
        }});
    }
    if checks.is_empty() {
        return TokenStream::new();
    }
    let module = format_ident!("__operator_rs_default_functions_of_{}", ident);
    quote! {
        #[doc(hidden)]
        #[allow(non_snake_case, dead_code, unreachable_pub)]
        pub mod #module {
            /// Each default function's value against the CRD's default beside it: the
            /// fields whose two differ, with both values.
            pub fn drifted() -> ::std::vec::Vec<::std::string::String> {
                let mut drifted = ::std::vec::Vec::new();
                #(#checks)*
                drifted
            }

            #[cfg(test)]
            #[test]
            fn crd_defaults_are_what_the_default_functions_return() {
                let drifted = drifted();
                assert!(drifted.is_empty(), "{}", drifted.join("\n"));
            }
        }
    }
}

/// `path` as code in a module inside the type's module names it: `super::` in front of a
/// relative path.
fn reachable_from_child(path: syn::Path) -> TokenStream {
    let absolute =
        path.leading_colon.is_some() || path.segments.first().is_some_and(|s| s.ident == "crate");
    if absolute {
        quote!(#path)
    } else {
        quote!(super::#path)
    }
}
