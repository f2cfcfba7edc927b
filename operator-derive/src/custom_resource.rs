//! `#[derive(CustomResource)]`: checks a root kind and generates its kube and serde impls.

use operator_gen::diagnostics::Diagnostics;
use operator_gen::internals::markers::{self, ResourceMarker, Scope};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;

use crate::checks;
use crate::crate_crd;

pub fn expand(input: syn::DeriveInput) -> TokenStream {
    let mut diags = Diagnostics::new();
    let resource = operator_gen::internals::markers::crd_markers(&input.attrs, &mut diags).resource;
    markers::parse_field_markers(&input.attrs, markers::MarkerTarget::Type, &mut diags);
    checks::check_fields(&input.data, &mut diags);

    let fields = match &input.data {
        syn::Data::Struct(syn::DataStruct {
            fields: syn::Fields::Named(named),
            ..
        }) => Some(&named.named),
        _ => {
            diags.push(input.ident.span(), "#[derive(CustomResource)] goes on a struct with named fields (metadata, spec, status)");
            None
        }
    };
    if !input.generics.params.is_empty() {
        diags.push(
            input.generics.span(),
            "a custom resource type cannot be generic",
        );
    }
    let resource = match resource {
        Some(r) => Some(r),
        None if diags.is_empty() => {
            diags.push(
                input.ident.span(),
                "#[derive(CustomResource)] needs #[resource(group = \"...\", version = \"...\")] on the struct",
            );
            None
        }
        None => None,
    };
    let field = |name: &str| {
        fields.and_then(|f| {
            f.iter()
                .find(|f| f.ident.as_ref().is_some_and(|i| i == name))
        })
    };
    if fields.is_some() && field("metadata").is_none() {
        diags.push(
            input.ident.span(),
            "a custom resource needs a `metadata: ObjectMeta` field",
        );
    }
    if let Some(status) = field("status")
        && option_inner(&status.ty).is_none()
    {
        diags.push(
            status.ty.span(),
            "`status` must be an Option<...>: new objects have no status yet",
        );
    }

    let errors = |diags: Diagnostics| {
        diags
            .into_syn_result()
            .err()
            .map(|e| e.to_compile_error())
            .unwrap_or_default()
    };
    let (Some(resource), Some(fields)) = (resource, fields) else {
        return errors(diags);
    };
    let kind = resource
        .kind
        .as_ref()
        .map_or_else(|| input.ident.to_string(), |k| k.value.clone());
    // On a mistake the impls are emitted all the same (with a `crd()` that cannot run,
    // since the build fails), so one mistake is one error, not a cascade of missing traits.
    let stub = || crate_crd::CompiledCrd {
        json: String::new(),
        plural: resource
            .plural
            .as_ref()
            .map_or_else(|| operator_gen::default_plural(&kind), |p| p.value.clone()),
        files: Vec::new(),
    };
    if !diags.is_empty() {
        let mut out = errors(diags);
        if input.generics.params.is_empty() {
            out.extend(generate(&input, fields, &resource, &kind, &stub()));
        }
        return out;
    }
    let extra_file = local_file(&input);
    match crate_crd::compile_crd(&resource.group.value, &kind, extra_file.clone()) {
        Ok(crd) => generate(&input, fields, &resource, &kind, &crd),
        Err(err) => {
            let mut out = generate(&input, fields, &resource, &kind, &stub());
            out.extend(crd_errors(
                &input,
                &format!("the CRD for {kind}"),
                extra_file.as_deref(),
                err,
            ));
            out
        }
    }
}

/// The compile errors for a CRD that could not be generated. Marker mistakes are left out:
/// the derive on the item that carries the marker reports them at the marker (and the
/// compiler does for markers where no derive is). Problems inside this kind's own item are
/// reported at their tokens; the others at the kind's name, with the path relative to the
/// crate.
pub(crate) fn crd_errors(
    input: &syn::DeriveInput,
    what: &str,
    own_file: Option<&std::path::Path>,
    err: crate_crd::CrdError,
) -> TokenStream {
    let errors = match err {
        crate_crd::CrdError::Other(message) => {
            return syn::Error::new(
                input.ident.span(),
                format!("cannot generate {what}: {message}"),
            )
            .to_compile_error();
        }
        crate_crd::CrdError::Invalid(errors) => errors,
    };
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from);
    let canonical =
        |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let own_file = own_file.map(canonical);
    let mut out = TokenStream::new();
    for e in errors.into_iter().filter(|e| {
        !matches!(
            e.origin,
            operator_gen::Origin::Marker | operator_gen::Origin::Serde
        ) && !reported_by_a_derive(e)
    }) {
        let message = match &e.help {
            Some(help) => format!("{}\n\nhelp: {help}", e.message),
            None => e.message.clone(),
        };
        let here = own_file.as_ref() == Some(&canonical(&e.at.file));
        if here && let Some(span) = token_at(input, e.at.line, e.at.column) {
            out.extend(syn::Error::new(span, &message).to_compile_error());
            continue;
        }
        let path = manifest_dir
            .as_deref()
            .and_then(|dir| {
                canonical(&e.at.file)
                    .strip_prefix(canonical(dir))
                    .ok()
                    .map(std::path::Path::to_path_buf)
            })
            .unwrap_or_else(|| e.at.file.clone());
        out.extend(
            syn::Error::new(
                input.ident.span(),
                format!(
                    "cannot generate {what}: {}:{}:{}: {message}",
                    path.display(),
                    e.at.line,
                    e.at.column,
                ),
            )
            .to_compile_error(),
        );
    }
    out
}

/// Whether the derive on the item where `e` lies reports `e` itself: the derives check
/// marker fit on types they can see (`minimum` on a `String`), with the same message at
/// the same place as the generator.
fn reported_by_a_derive(e: &operator_gen::LocatedError) -> bool {
    let Ok(text) = std::fs::read_to_string(&e.at.file) else {
        return false;
    };
    // Real file positions need proc-macro2's own parser (as in `crate_crd`).
    proc_macro2::fallback::force();
    // parse_items refuses nesting that would overflow the stack.
    let found = operator_gen::internals::source::parse_items(&text)
        .ok()
        .is_some_and(|file| {
            let mut items: Vec<&syn::Item> = file.items.iter().collect();
            while let Some(item) = items.pop() {
                let (attrs, input) = match item {
                    syn::Item::Mod(m) => {
                        items.extend(m.content.iter().flat_map(|(_, c)| c));
                        continue;
                    }
                    syn::Item::Struct(s) => (&s.attrs, syn::DeriveInput::from(s.clone())),
                    syn::Item::Enum(en) => (&en.attrs, syn::DeriveInput::from(en.clone())),
                    _ => continue,
                };
                let span = item.span();
                if !(span.start().line..=span.end().line).contains(&e.at.line) {
                    continue;
                }
                let derives_ours = operator_gen::internals::type_schemas::derives(attrs, "Schema")
                    || operator_gen::internals::type_schemas::derives(attrs, "CustomResource");
                return derives_ours
                    && checks::check_schema_type(&input)
                        .into_vec()
                        .iter()
                        .any(|d| {
                            let start = d.at.start();
                            start.line == e.at.line
                                && start.column + 1 == e.at.column
                                && d.message == e.message
                        });
            }
            false
        });
    proc_macro2::fallback::unforce();
    found
}

/// The span of the token of `input` that starts at `line`:`column` (1-based, as the
/// generator reports them), when the compiler gave the tokens real positions.
fn token_at(input: &syn::DeriveInput, line: usize, column: usize) -> Option<proc_macro2::Span> {
    fn find(tokens: TokenStream, line: usize, column: usize) -> Option<proc_macro2::Span> {
        for tree in tokens {
            let span = tree.span();
            let start = span.start();
            if start.line == line && start.column + 1 == column {
                return Some(span);
            }
            if let proc_macro2::TokenTree::Group(g) = tree
                && let Some(found) = find(g.stream(), line, column)
            {
                return Some(found);
            }
        }
        None
    }
    find(quote!(#input), line, column)
}

pub(crate) fn local_file(input: &syn::DeriveInput) -> Option<std::path::PathBuf> {
    // Span::local_file needs a real compiler span; outside a macro expansion (unit tests)
    // there is none.
    std::panic::catch_unwind(|| input.ident.span().unwrap().local_file())
        .ok()
        .flatten()
}

fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// Where the generated code finds its crates: `::kube` and so on, or the paths of
/// `#[resource(crates(...))]`.
struct Crates {
    kube: TokenStream,
    k8s_openapi: TokenStream,
    serde: TokenStream,
    serde_json: TokenStream,
    /// `#[serde(crate = "...")]` for the serde derives, when serde is relocated.
    serde_attr: Option<String>,
}

impl Crates {
    fn of(resource: &ResourceMarker) -> Self {
        let path = |name: &str, default: TokenStream| {
            resource
                .crates
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, p)| p.parse::<TokenStream>().ok())
                .unwrap_or(default)
        };
        let serde = path("serde", quote!(::serde));
        Self {
            kube: path("kube", quote!(::kube)),
            k8s_openapi: path("k8s_openapi", quote!(::k8s_openapi)),
            serde_attr: resource
                .crates
                .iter()
                .any(|(n, _)| n == "serde")
                .then(|| serde.to_string().replace(' ', "")),
            serde,
            serde_json: path("serde_json", quote!(::serde_json)),
        }
    }
}

fn generate(
    input: &syn::DeriveInput,
    fields: &syn::punctuated::Punctuated<syn::Field, syn::Token![,]>,
    resource: &ResourceMarker,
    kind: &str,
    crd: &crate_crd::CompiledCrd,
) -> TokenStream {
    let Crates {
        kube,
        k8s_openapi,
        serde,
        serde_json,
        serde_attr,
    } = Crates::of(resource);
    let ident = &input.ident;
    let group = &resource.group.value;
    let version = &resource.version.value;
    let api_version = if group.is_empty() {
        version.clone()
    } else {
        format!("{group}/{version}")
    };
    let plural = &crd.plural;
    let scope = match resource.scope {
        Scope::Namespaced => quote!(#k8s_openapi::NamespaceResourceScope),
        Scope::Cluster => quote!(#k8s_openapi::ClusterResourceScope),
    };
    // An empty JSON text stands for a CRD that could not be generated: the derive reports
    // why as a compile error, so this body is never run.
    let crd_body = if crd.json.is_empty() {
        quote!(::core::unreachable!(
            "the CRD could not be generated; see the compile errors"
        ))
    } else {
        let crd_json = &crd.json;
        quote!(#serde_json::from_str(#crd_json).expect("the embedded CRD was produced by operator-gen and parses"))
    };
    let tracked = crd.files.iter().map(|f| f.display().to_string());

    let find = |name: &str| {
        fields
            .iter()
            .find(|f| f.ident.as_ref().is_some_and(|i| i == name))
    };
    let spec_impl = find("spec").map(|spec| {
        let ty = &spec.ty;
        quote! {
            impl #kube::core::object::HasSpec for #ident {
                type Spec = #ty;
                fn spec(&self) -> &#ty { &self.spec }
                fn spec_mut(&mut self) -> &mut #ty { &mut self.spec }
            }
        }
    });
    let status_impl = find("status").and_then(|s| option_inner(&s.ty)).map(|ty| {
        quote! {
            impl #kube::core::object::HasStatus for #ident {
                type Status = #ty;
                fn status(&self) -> ::core::option::Option<&#ty> { self.status.as_ref() }
                fn status_mut(&mut self) -> &mut ::core::option::Option<#ty> { &mut self.status }
            }
        }
    });

    // `new(name, spec)`: everything else starts at its default.
    let spec_ty = find("spec").map(|s| &s.ty);
    let init = fields.iter().filter_map(|f| f.ident.as_ref()).map(|name| {
        if name == "metadata" {
            quote!(metadata: #k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                name: ::core::option::Option::Some(::std::string::ToString::to_string(name)),
                ..::core::default::Default::default()
            })
        } else if name == "spec" {
            quote!(spec)
        } else {
            quote!(#name: ::core::default::Default::default())
        }
    });
    let new_fn = match spec_ty {
        Some(ty) => quote! {
            /// A new object named `name` with the given spec (metadata and status empty).
            pub fn new(name: &str, spec: #ty) -> Self { Self { #(#init),* } }
        },
        None => quote! {
            /// A new object named `name` (everything else at its default).
            pub fn new(name: &str) -> Self { Self { #(#init),* } }
        },
    };

    let serde_impls = serde_impls(input, fields, &api_version, kind, &serde, serde_attr);
    let json_schema_impl = crate::json_schema::for_kind(input, kind, version, &crd.json);
    let crd_name = format!("{plural}.{group}");
    let shortnames = &resource.shortnames;

    quote! {
        impl #ident {
            /// The API group.
            pub const GROUP: &'static str = #group;
            /// The API version within the group.
            pub const VERSION: &'static str = #version;
            /// `group/version` (just `version` for the core group).
            pub const API_VERSION: &'static str = #api_version;
            /// The kind.
            pub const KIND: &'static str = #kind;
            /// The resource name in URLs.
            pub const PLURAL: &'static str = #plural;

            #new_fn

            /// The CustomResourceDefinition of this kind: the same object `operator-gen`
            /// writes to `config/crd/bases`.
            pub fn crd() -> #k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
                // Rebuild when any scanned source changes, not only this file.
                #( const _: &[u8] = ::core::include_bytes!(#tracked); )*
                #crd_body
            }
        }

        impl #kube::core::Resource for #ident {
            type DynamicType = ();
            type Scope = #scope;
            fn kind(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#kind) }
            fn group(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#group) }
            fn version(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#version) }
            fn api_version(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#api_version) }
            fn plural(_: &()) -> ::std::borrow::Cow<'_, str> { ::std::borrow::Cow::Borrowed(#plural) }
            fn meta(&self) -> &#k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta { &self.metadata }
            fn meta_mut(&mut self) -> &mut #k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta { &mut self.metadata }
        }

        impl #kube::core::CustomResourceExt for #ident {
            fn crd() -> #k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
                #ident::crd()
            }
            fn crd_name() -> &'static str { #crd_name }
            fn api_resource() -> #kube::core::ApiResource {
                #kube::core::ApiResource::erase::<Self>(&())
            }
            fn shortnames() -> &'static [&'static str] { &[#(#shortnames),*] }
        }

        #spec_impl
        #status_impl
        #serde_impls
        #json_schema_impl
    }
}

/// Serialize/Deserialize through a serde "remote" mirror of the struct with two extra
/// fields, `apiVersion` and `kind`: written on output, checked when present on input.
fn serde_impls(
    input: &syn::DeriveInput,
    fields: &syn::punctuated::Punctuated<syn::Field, syn::Token![,]>,
    api_version: &str,
    kind: &str,
    serde: &TokenStream,
    serde_attr: Option<String>,
) -> TokenStream {
    let serde_crate = serde_attr.map(|path| quote!(#[serde(crate = #path)]));
    let ident = &input.ident;
    let ident_text = ident.to_string();
    let wire = format_ident!("__{}Wire", ident);
    let api_tag = format_ident!("__{}ApiVersion", ident);
    let kind_tag = format_ident!("__{}Kind", ident);
    let get_api = format_ident!("__{}_api_version", ident.to_string().to_lowercase());
    let get_kind = format_ident!("__{}_kind", ident.to_string().to_lowercase());
    let container_serde = input.attrs.iter().filter(|a| a.path().is_ident("serde"));
    let mirror_fields = fields.iter().map(|f| {
        let serde_attrs = f.attrs.iter().filter(|a| a.path().is_ident("serde"));
        let name = &f.ident;
        let ty = &f.ty;
        quote!(#(#serde_attrs)* #name: #ty)
    });
    let moves = fields
        .iter()
        .filter_map(|f| f.ident.as_ref())
        .map(|n| quote!(#n: w.#n));
    let tag = |tag: &syn::Ident, expected: &str, what: &str| {
        quote! {
            #[derive(Default)]
            struct #tag;
            impl #serde::Serialize for #tag {
                fn serialize<S: #serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                    s.serialize_str(#expected)
                }
            }
            impl<'de> #serde::Deserialize<'de> for #tag {
                fn deserialize<D: #serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                    let found = <::std::string::String as #serde::Deserialize>::deserialize(d)?;
                    if found == #expected {
                        ::core::result::Result::Ok(#tag)
                    } else {
                        ::core::result::Result::Err(<D::Error as #serde::de::Error>::custom(::std::format!(
                            "expected {} {:?}, found {:?}", #what, #expected, found
                        )))
                    }
                }
            }
        }
    };
    let api_tag_def = tag(&api_tag, api_version, "apiVersion");
    let kind_tag_def = tag(&kind_tag, kind, "kind");
    let get_api_text = get_api.to_string();
    let get_kind_text = get_kind.to_string();
    quote! {
        const _: () = {
            #api_tag_def
            #kind_tag_def
            fn #get_api(_: &#ident) -> #api_tag { #api_tag }
            fn #get_kind(_: &#ident) -> #kind_tag { #kind_tag }

            #[derive(#serde::Serialize, #serde::Deserialize)]
            #serde_crate
            #[serde(remote = #ident_text)]
            #(#container_serde)*
            struct #wire {
                #[serde(rename = "apiVersion", getter = #get_api_text, default)]
                __api_version: #api_tag,
                #[serde(rename = "kind", getter = #get_kind_text, default)]
                __kind: #kind_tag,
                #(#mirror_fields),*
            }

            impl ::core::convert::From<#wire> for #ident {
                fn from(w: #wire) -> Self {
                    let _ = (w.__api_version, w.__kind);
                    Self { #(#moves),* }
                }
            }

            impl #serde::Serialize for #ident {
                fn serialize<S: #serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                    #wire::serialize(self, s)
                }
            }

            impl<'de> #serde::Deserialize<'de> for #ident {
                fn deserialize<D: #serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                    #wire::deserialize(d)
                }
            }
        };
    }
}

#[cfg(test)]
mod tests;
