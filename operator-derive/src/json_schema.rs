//! `schemars::JsonSchema` for kinds and schema types, so they plug into schemars-based
//! tools (a struct deriving schemars' `JsonSchema` that holds them, OpenAPI generators,
//! validators) with the very schema their CRDs carry: a kind returns its version's `openAPIV3Schema`, a schema
//! type the schema operator-gen builds for it (see `operator_gen::internals::type_schemas`).
//!
//! The impls are written when the crate depends on `schemars` (see
//! `operator_gen::JsonSchemaSupport`), never for a type that derives `JsonSchema` itself,
//! and not when the crate opts out with `json-schema = false`.

use operator_gen::JsonSchemaSupport;
use proc_macro2::TokenStream;
use quote::quote;

use crate::crate_crd;
use crate::custom_resource::{crd_errors, local_file};

/// The crate's choice, from its `Cargo.toml` (off outside a cargo build).
fn support(input: &syn::DeriveInput) -> Result<JsonSchemaSupport, TokenStream> {
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") else {
        return Ok(JsonSchemaSupport::Off);
    };
    let manifest = std::path::Path::new(&dir).join("Cargo.toml");
    if !manifest.is_file() {
        return Ok(JsonSchemaSupport::Off);
    }
    JsonSchemaSupport::from_manifest(&manifest)
        .map_err(|e| syn::Error::new(input.ident.span(), e).to_compile_error())
}

/// The line of the type's name, when the compiler gives real positions.
fn ident_line(input: &syn::DeriveInput) -> Option<usize> {
    std::panic::catch_unwind(|| input.ident.span().unwrap().line()).ok()
}

/// What the crate's run says of a type.
enum Lookup {
    /// No impl to write (the crate does not want them, or the type derives its own).
    None,
    /// The type as the run found it.
    Found(crate_crd::TypeJsonSchema, Paths),
    /// The crate's sources do not parse (the compiler reports why): an impl that cannot
    /// run keeps the errors to that one.
    Stub(Paths),
    /// A compile error of the derive's own.
    Error(TokenStream),
}

/// Looks the type up in the crate's run.
fn lookup(input: &syn::DeriveInput) -> Lookup {
    match try_lookup(input) {
        Ok(found) => found,
        Err(error) => Lookup::Error(error),
    }
}

fn try_lookup(input: &syn::DeriveInput) -> Result<Lookup, TokenStream> {
    let JsonSchemaSupport::On {
        schemars,
        serde_json,
        feature,
    } = support(input)?
    else {
        return Ok(Lookup::None);
    };
    let ident = &input.ident;
    let Some(serde_json) = serde_json else {
        return Err(syn::Error::new(
            ident.span(),
            format!(
                "implementing schemars::JsonSchema for {ident} needs serde_json: add serde_json to [dependencies], or set json-schema = false in [package.metadata.operator-gen]"
            ),
        )
        .to_compile_error());
    };
    let path = |name: &str| format!("::{name}").parse::<TokenStream>().ok();
    let paths = Paths {
        schemars: path(&schemars).unwrap_or_else(|| quote!(::schemars)),
        serde_json: path(&serde_json).unwrap_or_else(|| quote!(::serde_json)),
        feature,
    };
    let found =
        crate_crd::compile_type_schema(&ident.to_string(), local_file(input), ident_line(input));
    let found = match found {
        Ok(found) => found,
        Err(crate_crd::CrdError::Invalid(_)) => return Ok(Lookup::Stub(paths)),
        Err(crate_crd::CrdError::Other(message)) => {
            return Err(syn::Error::new(
                ident.span(),
                format!(
                    "cannot implement schemars::JsonSchema for {ident}: {message} (operator-gen reads the crate's files under src/; a type a macro writes is not among them: set json-schema = false in [package.metadata.operator-gen] to leave JsonSchema out)"
                ),
            )
            .to_compile_error());
        }
    };
    if found.derives_json_schema {
        return Ok(Lookup::None);
    }
    Ok(Lookup::Found(found, paths))
}

/// Where the impl finds its crates, and the feature it is compiled under.
struct Paths {
    schemars: TokenStream,
    serde_json: TokenStream,
    feature: Option<String>,
}

/// The impl for a `#[derive(Schema)]` type (nothing for a generic one, which has no schema
/// of its own). `checked` says whether the derive's own marker checks passed: the schema's
/// problems are reported only when nothing else already is.
pub fn for_schema_type(input: &syn::DeriveInput, checked: bool) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let ident = &input.ident;
    let (found, paths) = match lookup(input) {
        Lookup::Found(found, paths) => (found, paths),
        Lookup::Stub(paths) => return implement(ident, &ident.to_string(), None, &[], &paths),
        Lookup::None => return TokenStream::new(),
        Lookup::Error(error) => return error,
    };
    if found.kind {
        // Its `CustomResource` derive writes the impl.
        return TokenStream::new();
    }
    let what = format!("the JSON schema of {ident}");
    with_schema(
        input,
        &ident.to_string(),
        found,
        None,
        checked,
        &what,
        &paths,
    )
}

/// The impl with `json` as the schema, or else the one the run built, or else one that
/// cannot run and the run's problems (when nothing else reports them already).
fn with_schema(
    input: &syn::DeriveInput,
    name: &str,
    found: crate_crd::TypeJsonSchema,
    json: Option<String>,
    checked: bool,
    what: &str,
    paths: &Paths,
) -> TokenStream {
    let ident = &input.ident;
    match json.map(Ok).unwrap_or(found.schema) {
        Ok(json) => implement(ident, name, Some(&json), &found.files, paths),
        Err(errors) => {
            let mut out = implement(ident, name, None, &found.files, paths);
            // When the CRDs failed, their derives report the problems; most are this type's.
            if checked && found.crds_ok {
                out.extend(crd_errors(
                    input,
                    what,
                    local_file(input).as_deref(),
                    crate_crd::CrdError::Invalid(errors),
                ));
            }
            out
        }
    }
}

/// The impl for a root kind: its version's `openAPIV3Schema` from `crd_json` (empty when
/// the CRD could not be generated; the derive reports why), or for a version the CRD skips,
/// the schema the run built.
pub fn for_kind(
    input: &syn::DeriveInput,
    kind: &str,
    version: &str,
    crd_json: &str,
) -> TokenStream {
    let (found, paths) = match lookup(input) {
        Lookup::Found(found, paths) => (found, paths),
        Lookup::Stub(paths) => return implement(&input.ident, kind, None, &[], &paths),
        Lookup::None => return TokenStream::new(),
        Lookup::Error(error) => return error,
    };
    let root = serde_json::from_str::<serde_json::Value>(crd_json)
        .ok()
        .and_then(|crd| {
            crd["spec"]["versions"]
                .as_array()?
                .iter()
                .find(|v| v["name"] == version)
                .map(|v| v["schema"]["openAPIV3Schema"].to_string())
        });
    let what = format!("the JSON schema of {kind}");
    // A CRD that failed is reported by the derive already.
    let checked = !crd_json.is_empty();
    with_schema(input, kind, found, root, checked, &what, &paths)
}

/// `impl JsonSchema`: the schema parsed from `json`, inlined wherever the type is used (it
/// is whole, without `$ref`s, as a CRD's must be). Without `json` the body cannot run: the
/// build fails with the reason.
fn implement(
    ident: &syn::Ident,
    name: &str,
    json: Option<&str>,
    tracked: &[std::path::PathBuf],
    paths: &Paths,
) -> TokenStream {
    let Paths {
        schemars,
        serde_json,
        feature,
    } = paths;
    let cfg = feature.as_ref().map(|f| quote!(#[cfg(feature = #f)]));
    let body = match json {
        Some(json) => quote! {
            #serde_json::from_str::<#schemars::Schema>(#json)
                .expect("the embedded schema was produced by operator-gen and parses")
        },
        None => quote!(::core::unreachable!(
            "the schema could not be generated; see the compile errors"
        )),
    };
    let tracked = tracked.iter().map(|f| f.display().to_string());
    let id = ident.to_string();
    quote! {
        #cfg
        impl #schemars::JsonSchema for #ident {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(#name)
            }
            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #id))
            }
            fn json_schema(_: &mut #schemars::SchemaGenerator) -> #schemars::Schema {
                // Rebuild when any scanned source changes, not only this file.
                #( const _: &[u8] = ::core::include_bytes!(#tracked); )*
                #body
            }
        }
    }
}
