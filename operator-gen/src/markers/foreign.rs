//! Schema attributes of other crates: `#[schemars(...)]` and the validation crates'
//! `#[validate(...)]` (validator) and `#[garde(...)]`, which schemars also turns into
//! schema keywords. A type may derive `schemars::JsonSchema` next to `Schema`, and a CRD
//! that silently lacked what those attributes say would disagree with the schemars schema
//! and with the runtime validation. So what has a marker counterpart is read as that marker
//! (`length`, `range`, `regex`/`pattern`, `email`, `url`, `required`, `title`), and what
//! shapes a schemars schema in a way the CRD would not follow is an error at the key that
//! names the marker or the serde attribute to use instead. The validation crates' checks
//! that schemars leaves out of its schemas too (`custom`, `nested`, `dive`, `ascii`, ...)
//! run in the operator and change nothing here.

use serde_json::Number;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;

use super::args::Spanned;
use super::field::FieldMarkers;
use super::read;
use super::table::{SchemaProp, Validation};
use crate::diagnostics::Diagnostics;

/// The attributes read here, by the last segment of their path.
pub const FOREIGN: &[&str] = &["schemars", "validate", "garde"];

/// `length(min = .., max = .., equal = ..)`: a string's characters, a list's items or a
/// map's entries, decided by the schema's type when the marker is applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Length {
    /// The least.
    pub min: Option<u64>,
    /// The most.
    pub max: Option<u64>,
}

/// Keys of `#[schemars(...)]` that only steer how schemars lays its schema out (no
/// keyword of the CRD changes with them).
const SCHEMARS_LAYOUT: &[&str] = &["crate", "bound", "inline", "deprecated"];

/// What to use instead of a schemars key that the CRD would not follow.
fn schemars_alternative(key: &str) -> Option<&'static str> {
    Some(match key {
        "rename"
        | "rename_all"
        | "rename_all_fields"
        | "skip"
        | "skip_serializing"
        | "skip_deserializing"
        | "flatten"
        | "tag"
        | "content"
        | "untagged"
        | "transparent"
        | "deny_unknown_fields"
        | "from"
        | "into"
        | "try_from"
        | "remote" => {
            "the CRD follows serde's attributes, which serde and schemars both read: write it as #[serde(...)]"
        }
        "default" => {
            "a default the API server fills in is #[schema(default = ...)] with a literal value (serde's own default, for the operator's reading, is #[serde(default)])"
        }
        "description" | "doc" => {
            "operator-gen takes descriptions from doc comments: write it as `///`"
        }
        "example" | "examples" => "use #[schema(example = ...)] with a literal value",
        "with" | "schema_with" | "transform" | "extend" => {
            "the CRD cannot follow a schema computed by Rust code: say what the value looks like with #[validation(...)] and #[schema(...)] markers (an object kept as it is: #[schema(schemaless, preserve_unknown_fields)] with #[validation(type = \"object\")]; a set or map list: #[schema(list_type = \"set\")] or `list_type = \"map\", list_map_keys = \"name\"`; a Kubernetes object: #[schema(embedded_resource)])"
        }
        "contains" | "inner" => {
            "there is no marker for it: write the constraint as #[validation(pattern = \"...\")], #[validation(items(...))] or a CEL rule"
        }
        _ => return None,
    })
}

/// Reads the schema keys of one foreign attribute into `out`; mistakes go to `diags` at
/// their key. A regular expression held in Rust code (`regex(path = RE)`) cannot be read:
/// its key's span goes to `unread_patterns`, an error unless a `#[validation(pattern)]`
/// says the same in a literal.
pub fn read_foreign(
    attr: &syn::Attribute,
    crate_name: &'static str,
    out: &mut FieldMarkers,
    unread_patterns: &mut Vec<proc_macro2::Span>,
    diags: &mut Diagnostics,
) {
    let result = attr.parse_nested_meta(|meta| {
        let key = key_of(&meta);
        let span = meta.path.span();
        match key.as_str() {
            "length" => out.lengths.push(Spanned::new(length(&meta)?, span)),
            "range" => range(&meta, out)?,
            "regex" | "pattern" => match pattern(&meta)? {
                Some(pattern) => out
                    .validations
                    .push(Spanned::new(Validation::Pattern(pattern), span)),
                None => unread_patterns.push(span),
            },
            "email" => out.validations.push(Spanned::new(
                Validation::Format("email".into()),
                span,
            )),
            "url" => out
                .validations
                .push(Spanned::new(Validation::Format("uri".into()), span)),
            "required" => out.required = Some(span),
            "title" if crate_name == "schemars" => out
                .schema
                .push(Spanned::new(SchemaProp::Title(read::string(&meta)?), span)),
            key if crate_name == "schemars" && SCHEMARS_LAYOUT.contains(&key) => skip(&meta)?,
            key if crate_name == "schemars" => {
                let why = schemars_alternative(key).unwrap_or(
                    "operator-gen reads `length`, `range`, `regex`, `email`, `url`, `required` and `title` from #[schemars(...)]; write the rest as markers",
                );
                diags.push(
                    span,
                    format!("#[schemars({key})] would shape the schemars schema but not the CRD; {why}"),
                );
                skip(&meta)?;
            }
            // Checks of the validation crates that have no schema keyword: they run in the
            // operator, and the schema admits what they refuse (serde still reads it).
            _ => skip(&meta)?,
        }
        Ok(())
    });
    if let Err(e) = result {
        diags.push_syn(e);
    }
}

/// The key a nested meta item names (empty for a path of several segments).
fn key_of(meta: &ParseNestedMeta<'_>) -> String {
    meta.path
        .get_ident()
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// Consumes whatever value follows a key.
fn skip(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        meta.value()?.parse::<syn::Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<proc_macro2::TokenStream>()?;
    }
    Ok(())
}

/// `length(min = 1, max = 63)`, `length(equal = 3)`; garde's `chars` counts as the API
/// server counts; its byte and UTF-16 counts do not.
fn length(meta: &ParseNestedMeta<'_>) -> syn::Result<Length> {
    let mut length = Length::default();
    meta.parse_nested_meta(|inner| {
        let key = key_of(&inner);
        match key.as_str() {
            "min" => length.min = Some(read::unsigned(&inner)?),
            "max" => length.max = Some(read::unsigned(&inner)?),
            "equal" => {
                let n = read::unsigned(&inner)?;
                length.min = Some(n);
                length.max = Some(n);
            }
            "simple" | "chars" => {}
            other => {
                return Err(inner.error(format!(
                    "length mode `{other}` counts differently from the API server (which counts characters); use `chars`, or a #[validation(pattern = \"...\")]"
                )));
            }
        }
        Ok(())
    })
    .map_err(integer_literal_hint)?;
    Ok(length)
}

/// `range(min = 1, max = 10)`, validator's `exclusive_min` / `exclusive_max` too.
fn range(meta: &ParseNestedMeta<'_>, out: &mut FieldMarkers) -> syn::Result<()> {
    meta.parse_nested_meta(|inner| {
        let key = key_of(&inner);
        let span = inner.path.span();
        let n: Number = read::number(&inner)?;
        let mut push = |v| out.validations.push(Spanned::new(v, span));
        match key.as_str() {
            "min" => push(Validation::Minimum(n)),
            "max" => push(Validation::Maximum(n)),
            "exclusive_min" => {
                push(Validation::Minimum(n));
                push(Validation::ExclusiveMinimum(true));
            }
            "exclusive_max" => {
                push(Validation::Maximum(n));
                push(Validation::ExclusiveMaximum(true));
            }
            other => return Err(inner.error(format!("unknown range bound `{other}`"))),
        }
        Ok(())
    })
    .map_err(integer_literal_hint)
}

/// `regex(pattern = "...")`, `regex = "..."`, `pattern("...")`, `pattern = "..."`: a
/// literal the generator can check and copy. `None` for a regex held in Rust code (a path
/// or an expression), which the generator cannot read.
fn pattern(meta: &ParseNestedMeta<'_>) -> syn::Result<Option<String>> {
    if meta.input.peek(syn::Token![=]) {
        let expr: syn::Expr = meta.value()?.parse()?;
        return match expr {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(lit),
                ..
            }) => check_regex(&lit).map(|()| Some(lit.value())),
            _ => Ok(None),
        };
    }
    let content;
    syn::parenthesized!(content in meta.input);
    if content.peek(syn::LitStr) && content.peek2(syn::parse::End) {
        let lit: syn::LitStr = content.parse()?;
        check_regex(&lit)?;
        return Ok(Some(lit.value()));
    }
    let mut found = None;
    let nested = syn::meta::parser(|inner| {
        if inner.path.is_ident("pattern") {
            let expr: syn::Expr = inner.value()?.parse()?;
            if let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(lit),
                ..
            }) = expr
            {
                check_regex(&lit)?;
                found = Some(lit.value());
            }
        } else {
            skip(&inner)?;
        }
        Ok(())
    });
    // Whatever else the parentheses hold (a path, a compiled regex) is Rust code.
    let tokens: proc_macro2::TokenStream = content.parse()?;
    if syn::parse::Parser::parse2(nested, tokens).is_err() {
        return Ok(None);
    }
    Ok(found)
}

fn check_regex(lit: &syn::LitStr) -> syn::Result<()> {
    regex_syntax::Parser::new()
        .parse(&lit.value())
        .map(|_| ())
        .map_err(|e| {
            syn::Error::new(
                lit.span(),
                format!(
                    "pattern is not a valid regular expression: {}",
                    e.to_string().lines().last().unwrap_or_default().trim()
                ),
            )
        })
}

/// A bound written as a constant or an expression reads as a parse error; say why.
fn integer_literal_hint(e: syn::Error) -> syn::Error {
    if e.to_string().starts_with("expected") {
        syn::Error::new(
            e.span(),
            format!("{e} (operator-gen reads bounds without compiling: write them as literals)"),
        )
    } else {
        e
    }
}

/// The problems of the `#[schemars]`, `#[validate]` and `#[garde]` attributes on an enum
/// variant: a key the CRD would not follow is refused as on a field (`#[schemars(skip)]`
/// would leave the variant out of the schemars schema only), and a constraint has nowhere
/// to go on a variant.
pub fn variant_problems(attrs: &[syn::Attribute], diags: &mut Diagnostics) {
    for attr in attrs {
        let Some(crate_name) = FOREIGN.iter().copied().find(|c| attr.path().is_ident(c)) else {
            continue;
        };
        let before = diags.len();
        let mut read = FieldMarkers::default();
        let mut unread = Vec::new();
        read_foreign(attr, crate_name, &mut read, &mut unread, diags);
        if diags.len() == before && (!read.is_empty() || !unread.is_empty()) {
            diags.push(
                attr.path().span(),
                format!(
                    "#[{crate_name}(...)] constraints go on types and fields, not on enum variants; put them on the variant's fields or on the type it carries"
                ),
            );
        }
    }
}
