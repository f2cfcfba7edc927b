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
//!
//! A value is read exactly or refused, never guessed: a literal is read as what each crate
//! reads it as (a pattern, or the path of a regex item: see [`read_foreign`]); a path
//! (`regex(path = *SEMVER_RE)`, `range(min = MIN)`) becomes a [`NamedValue`] that the
//! generator reads from the crate's `static`, `const` or `lazy_static!` item once every
//! file is indexed (`lower::named`), an error where that item holds Rust code it cannot
//! evaluate or where no such item exists; any other expression is an error at its key.

use serde_json::Number;
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned as _;

use super::args::{Spanned, lit_str_value};
use super::payloads::{Length, NamedValue, Slot};
use super::table::{FieldMarkers, SchemaProp, Validation};
use crate::Origin;
use crate::diagnostics::{Diagnostic, Diagnostics};

/// The attributes read here, by the last segment of their path.
pub const FOREIGN: &[&str] = &["schemars", "validate", "garde"];

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

/// The regular expressions of the foreign attributes on one field that are not literals:
/// a `#[validation(pattern = "...")]` on the same field says what they say, and then they
/// are not read.
#[derive(Debug, Default)]
pub struct ForeignPatterns {
    /// Regex items named by path, for the generator to read.
    pub named: Vec<Spanned<NamedValue>>,
    /// Regular expressions held in Rust code no item names (a call, a method chain), at
    /// their key, with the code.
    pub unreadable: Vec<Spanned<String>>,
}

/// What to do where no literal pattern is given.
pub const PATTERN_HELP: &str = "name a `static`, `const` or `lazy_static!` item of the crate whose regex is built from a string literal (`static RE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r\"^[a-z]+$\").unwrap());`), or write the same expression as #[validation(pattern = \"...\")] on this field";

/// What to do where a bound is not a number literal.
pub const BOUND_HELP: &str = "write the bound as a number literal, or name a `const` of the crate whose value is one (`const MIN_REPLICAS: i32 = 1;`)";

/// What to do where a title is not a string literal.
pub const TITLE_HELP: &str =
    "write the title as a string literal, or name a `const` of the crate whose value is one";

/// Reads the schema keys of one foreign attribute into `out`; mistakes go to `diags` at
/// their key. A value named by a path goes to `out.named` (a regular expression to
/// `patterns.named`), for the generator to read from the crate's items; a regular
/// expression written as Rust code goes to `patterns.unreadable`, an error unless a
/// `#[validation(pattern)]` says the same in a literal.
///
/// Which crate reads which form how (each arm below says which versions it follows):
///
/// | form | meaning |
/// |---|---|
/// | `regex = "X"` (validate, schemars) | validator <= 0.16 and schemars 0.8: `X` is the path of a regex item; when `X` is no Rust path it can only be a pattern, and is read as one |
/// | `regex(path = X)`, `regex(path = "X")` (validate, schemars) | validator 0.16 and 0.17+, schemars 0.8: a path (with `*`/`&` in 0.17+) |
/// | `regex(pattern = "...")` (schemars, validate) | schemars 0.8 and 1.x: the pattern itself |
/// | `regex(pattern = X)` (schemars) | schemars 1.x: `X.to_string()`, the pattern of the item `X` |
/// | `pattern("...")` (schemars, garde) | schemars 1.x, garde: the pattern itself |
/// | `pattern(X)` (schemars, garde) | schemars 1.x (`X.to_string()`), garde (a `Matcher`): the item `X` |
/// | `range(min = ..)`, `length(min = ..)` | a number literal; a path names a `const` (schemars 1.x, validator 0.17+, garde); a string holds a path (validator <= 0.16, schemars 0.8) or, in schemars 1.x and validator 0.17+, an expression |
pub fn read_foreign(
    attr: &syn::Attribute,
    crate_name: &'static str,
    out: &mut FieldMarkers,
    patterns: &mut ForeignPatterns,
    diags: &mut Diagnostics,
) {
    let result = attr.parse_nested_meta(|meta| {
        let key = key_of(&meta);
        let span = meta.path.span();
        match key.as_str() {
            "length" => length(&meta, crate_name, out, diags)?,
            "range" => range(&meta, crate_name, out, diags)?,
            "regex" | "pattern" => {
                let named = |segments: (bool, Vec<String>)| NamedValue {
                    absolute: segments.0,
                    segments: segments.1,
                    slot: Slot::Pattern,
                    key: format!("#[{crate_name}({key})]"),
                };
                match pattern(&meta, crate_name, &key)? {
                    Given::Literal(pattern) => out
                        .validations
                        .push(Spanned::new(Validation::Pattern(pattern), span)),
                    Given::Path(path) => patterns.named.push(Spanned::new(named(path), span)),
                    Given::Code(code) => patterns.unreadable.push(Spanned::new(code, span)),
                }
            }
            "email" => {
                out.validations
                    .push(Spanned::new(Validation::Format("email".into()), span));
                // validator's `email(message = "...", code = "...")`.
                skip(&meta)?;
            }
            "url" => {
                out.validations
                    .push(Spanned::new(Validation::Format("uri".into()), span));
                skip(&meta)?;
            }
            "required" => {
                out.required = Some(span);
                skip(&meta)?;
            }
            "title" if crate_name == "schemars" => title(&meta, out, diags)?,
            key if crate_name == "schemars" && SCHEMARS_LAYOUT.contains(&key) => skip(&meta)?,
            key if crate_name == "schemars" => {
                let why = schemars_alternative(key).unwrap_or(
                    "operator-gen reads `length`, `range`, `regex`, `pattern`, `email`, `url`, `required` and `title` from #[schemars(...)]; write the rest as markers",
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

/// A value as a foreign attribute gives it.
enum Given<T> {
    /// Written out.
    Literal(T),
    /// Named by a path: `(absolute, segments)`.
    Path((bool, Vec<String>)),
    /// Rust code no path names, as written.
    Code(String),
}

/// The path an expression names: `RE`, `*RE`, `&crate::re::RE`, `(RE)`; `None` for any
/// other expression.
fn named_path(expr: &syn::Expr) -> Option<(bool, Vec<String>)> {
    match expr {
        syn::Expr::Path(p)
            if p.qself.is_none()
                && p.path
                    .segments
                    .iter()
                    .all(|s| matches!(s.arguments, syn::PathArguments::None)) =>
        {
            Some((
                p.path.leading_colon.is_some(),
                p.path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect(),
            ))
        }
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Deref(_),
            expr,
            ..
        }) => named_path(expr),
        syn::Expr::Reference(r) => named_path(&r.expr),
        syn::Expr::Paren(p) => named_path(&p.expr),
        syn::Expr::Group(g) => named_path(&g.expr),
        _ => None,
    }
}

/// The path the text of a string literal spells (`"*crate::RE"`), if it spells one.
fn text_path(lit: &syn::LitStr) -> Option<(bool, Vec<String>)> {
    syn::parse_str::<syn::Expr>(&lit.value())
        .ok()
        .as_ref()
        .and_then(named_path)
}

/// Code as a message quotes it: its tokens, with a space only between two words and after
/// a comma (`Regex::new("^a$").unwrap()`, `2*MAX`).
pub(crate) fn code_text(code: &impl quote::ToTokens) -> String {
    fn write(tokens: proc_macro2::TokenStream, out: &mut String) {
        use proc_macro2::{Delimiter, TokenTree};
        for tree in tokens {
            let word = matches!(tree, TokenTree::Ident(_) | TokenTree::Literal(_));
            if word && out.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '"') {
                out.push(' ');
            }
            match tree {
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::Brace => ("{ ", " }"),
                        Delimiter::None => ("", ""),
                    };
                    out.push_str(open);
                    write(g.stream(), out);
                    out.push_str(close);
                }
                TokenTree::Punct(p) => {
                    out.push(p.as_char());
                    if p.as_char() == ',' {
                        out.push(' ');
                    }
                }
                other => out.push_str(&other.to_string()),
            }
        }
    }
    let mut out = String::new();
    write(quote::ToTokens::to_token_stream(code), &mut out);
    out
}

fn string_literal(expr: &syn::Expr) -> Option<&syn::LitStr> {
    match expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(lit),
            ..
        }) => Some(lit),
        syn::Expr::Group(g) => string_literal(&g.expr),
        _ => None,
    }
}

/// What a string literal in a regex position is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LiteralIs {
    /// The pattern itself.
    Pattern,
    /// The path of a regex item; text that is no path is refused.
    Path,
    /// The path of a regex item when the text is a Rust path, else the pattern: the old
    /// `regex = "..."` form, whose string validator <= 0.16 and schemars 0.8 read as a path,
    /// and which this generator read as a pattern before it read paths. Text that is a
    /// path is never taken as a pattern: a path that names nothing is an error.
    PathOrPattern,
}

/// A regex value written after `key =` or as `path = ` / `pattern = ` inside `regex(...)`.
fn regex_value(expr: &syn::Expr, literal_is: LiteralIs, key: &str) -> syn::Result<Given<String>> {
    if let Some(lit) = string_literal(expr) {
        return match (literal_is, text_path(lit)) {
            (LiteralIs::Path | LiteralIs::PathOrPattern, Some(path)) => Ok(Given::Path(path)),
            (LiteralIs::Path, None) => Err(syn::Error::new(
                lit.span(),
                format!(
                    "`{key} = \"...\"` names the item that holds the regex (validator and schemars 0.8 read the string as a Rust path), and `{}` is not a path; write a pattern as #[validation(pattern = \"...\")]",
                    lit.value()
                ),
            )),
            (LiteralIs::Pattern | LiteralIs::PathOrPattern, _) => {
                check_regex(lit).map(|()| Given::Literal(lit_str_value(lit)))
            }
        };
    }
    Ok(match named_path(expr) {
        Some(path) => Given::Path(path),
        None => Given::Code(code_text(expr)),
    })
}

/// The regular expression of a `regex` or `pattern` key, by crate and form (see
/// [`read_foreign`]).
fn pattern(meta: &ParseNestedMeta<'_>, crate_name: &str, key: &str) -> syn::Result<Given<String>> {
    if meta.input.peek(syn::Token![=]) {
        let expr: syn::Expr = meta.value()?.parse()?;
        let literal_is = match (crate_name, key) {
            // validator <= 0.16 (`Validator::Regex(String)`, parsed as a `syn::Path`) and
            // schemars 0.8 (`parse_lit_into_expr_path`, for #[schemars] and #[validate]
            // alike): the string is a path. validator 0.17+ and schemars 1.x refuse the form.
            ("validate" | "schemars", "regex") => LiteralIs::PathOrPattern,
            // `pattern = ...` is no crate's form; its literal has always been the pattern.
            _ => LiteralIs::Pattern,
        };
        return regex_value(&expr, literal_is, key);
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let tokens: proc_macro2::TokenStream = content.parse()?;
    // `regex(path = ..., pattern = ..., message = ..., code = ...)`: keys with values.
    let keyed = syn::parse::Parser::parse2(
        |input: syn::parse::ParseStream<'_>| {
            let keyed = input.peek(syn::Ident) && input.peek2(syn::Token![=]);
            input.parse::<proc_macro2::TokenStream>()?;
            Ok(keyed)
        },
        tokens.clone(),
    )?;
    if keyed {
        let mut found: Option<Given<String>> = None;
        let nested = syn::meta::parser(|inner| {
            match key_of(&inner).as_str() {
                // validator 0.16 (a string holding the path), validator 0.17+ (darling reads
                // an `Expr`, and a string literal's contents as one: `path = "*crate::RE"`)
                // and schemars 0.8 (`parse_lit_into_expr_path`): the regex item. schemars
                // 1.x refuses `path` in #[schemars(regex)] and reads it in #[validate(regex)].
                "path" => {
                    let expr: syn::Expr = inner.value()?.parse()?;
                    found = Some(regex_value(&expr, LiteralIs::Path, "path")?);
                }
                // schemars 0.8 (a string literal, for #[schemars] and #[validate]) and
                // schemars 1.x (an expression whose `to_string()` is the pattern, #[schemars]
                // only): a literal is the pattern, a path the item whose text it is.
                "pattern" => {
                    let expr: syn::Expr = inner.value()?.parse()?;
                    found = Some(regex_value(&expr, LiteralIs::Pattern, "pattern")?);
                }
                // validator's `message` and `code` say nothing about the value.
                _ => skip(&inner)?,
            }
            Ok(())
        });
        syn::parse::Parser::parse2(nested, tokens)?;
        return found.ok_or_else(|| {
            meta.error(format!(
                "`{key}(...)` names no regular expression: give it `path = ...` (the regex item) or `pattern = \"...\"`"
            ))
        });
    }
    // `pattern("...")`, `pattern(RE)`: schemars 1.x (`parse_pattern`: an expression, a
    // literal being the pattern) and garde (`Pattern::Lit` or a `Matcher` expression).
    let expr: syn::Expr = syn::parse2(tokens)?;
    regex_value(&expr, LiteralIs::Pattern, key)
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

/// A bound of `range(...)` or `length(...)`: a number literal, or the `const` a path names.
/// A string holds the bound as text: validator <= 0.16 (`lit_to_f64_or_path`, a path) and
/// schemars 0.8 (`str_or_num_to_expr`, a path), and schemars 1.x and validator 0.17+ (the
/// string's contents parsed as an expression), so its text is read as the expression.
/// Anything else is an error at the key, never a value.
fn bound(inner: &ParseNestedMeta<'_>, diags: &mut Diagnostics) -> syn::Result<Given<Number>> {
    let expr: syn::Expr = inner.value()?.parse()?;
    let span = inner.path.span();
    let key = key_of(inner);
    let text_expr;
    let expr = match string_literal(&expr) {
        Some(lit) => match syn::parse_str::<syn::Expr>(&lit.value()) {
            Ok(parsed) => {
                text_expr = parsed;
                &text_expr
            }
            Err(_) => {
                diags.add(
                    Diagnostic::new(
                        span,
                        format!(
                            "`{key} = \"{}\"`: the string holds the bound as Rust code (as validator and schemars read it), and this is none",
                            lit.value()
                        ),
                        Origin::Marker,
                    )
                    .with_help(BOUND_HELP),
                );
                return Ok(Given::Code(lit.value()));
            }
        },
        None => &expr,
    };
    if let Ok(serde_json::Value::Number(n)) = super::args::literal_json(expr) {
        return Ok(Given::Literal(n));
    }
    if let Some(path) = named_path(expr) {
        return Ok(Given::Path(path));
    }
    diags.add(
        Diagnostic::new(
            span,
            format!(
                "the bound `{}` is Rust code that operator-gen, which reads the sources without compiling them, cannot evaluate",
                code_text(expr)
            ),
            Origin::Marker,
        )
        .with_help(BOUND_HELP),
    );
    Ok(Given::Code(code_text(expr)))
}

/// `length(min = 1, max = 63)`, `length(equal = 3)`; garde's `chars` counts as the API
/// server counts; its byte and UTF-16 counts do not.
fn length(
    meta: &ParseNestedMeta<'_>,
    crate_name: &str,
    out: &mut FieldMarkers,
    diags: &mut Diagnostics,
) -> syn::Result<()> {
    let mut length = Length::default();
    let at = out.lengths.len();
    let mut named = Vec::new();
    meta.parse_nested_meta(|inner| {
        let key = key_of(&inner);
        let span = inner.path.span();
        let slot = match key.as_str() {
            "min" => Slot::LengthMin(at),
            "max" => Slot::LengthMax(at),
            "equal" => Slot::LengthEqual(at),
            "simple" | "chars" => return Ok(()),
            // validator's error `message` and `code`.
            "message" | "code" => return skip(&inner),
            other => {
                return Err(inner.error(format!(
                    "length mode `{other}` counts differently from the API server (which counts characters); use `chars`, or a #[validation(pattern = \"...\")]"
                )));
            }
        };
        match bound(&inner, diags)? {
            Given::Literal(n) => {
                let Some(n) = n.as_u64() else {
                    return Err(syn::Error::new(
                        span,
                        format!("expected a whole number of 0 or more, not {n}"),
                    ));
                };
                match slot {
                    Slot::LengthMin(_) => length.min = Some(n),
                    Slot::LengthMax(_) => length.max = Some(n),
                    _ => {
                        length.min = Some(n);
                        length.max = Some(n);
                    }
                }
            }
            Given::Path((absolute, segments)) => named.push(Spanned::new(
                NamedValue {
                    absolute,
                    segments,
                    slot,
                    key: format!("#[{crate_name}(length({key}))]"),
                },
                span,
            )),
            Given::Code(_) => {}
        }
        Ok(())
    })?;
    out.lengths.push(Spanned::new(length, meta.path.span()));
    out.named.extend(named);
    Ok(())
}

/// `range(min = 1, max = 10)`, validator's `exclusive_min` / `exclusive_max` too.
fn range(
    meta: &ParseNestedMeta<'_>,
    crate_name: &str,
    out: &mut FieldMarkers,
    diags: &mut Diagnostics,
) -> syn::Result<()> {
    meta.parse_nested_meta(|inner| {
        let key = key_of(&inner);
        let span = inner.path.span();
        let slot = match key.as_str() {
            "min" => Slot::Minimum,
            "max" => Slot::Maximum,
            "exclusive_min" => Slot::ExclusiveMinimum,
            "exclusive_max" => Slot::ExclusiveMaximum,
            // validator's error `message` and `code`.
            "message" | "code" => return skip(&inner),
            other => return Err(inner.error(format!("unknown range bound `{other}`"))),
        };
        match bound(&inner, diags)? {
            Given::Literal(n) => out.validations.extend(
                bound_validations(slot, n)
                    .into_iter()
                    .map(|v| Spanned::new(v, span)),
            ),
            Given::Path((absolute, segments)) => out.named.push(Spanned::new(
                NamedValue {
                    absolute,
                    segments,
                    slot,
                    key: format!("#[{crate_name}(range({key}))]"),
                },
                span,
            )),
            Given::Code(_) => {}
        }
        Ok(())
    })
}

/// The validations a range bound `n` in `slot` makes.
pub fn bound_validations(slot: Slot, n: Number) -> Vec<Validation> {
    match slot {
        Slot::Minimum => vec![Validation::Minimum(n)],
        Slot::Maximum => vec![Validation::Maximum(n)],
        Slot::ExclusiveMinimum => vec![Validation::Minimum(n), Validation::ExclusiveMinimum(true)],
        Slot::ExclusiveMaximum => vec![Validation::Maximum(n), Validation::ExclusiveMaximum(true)],
        _ => Vec::new(),
    }
}

/// schemars' `title = "..."` (schemars 0.8 and 1.x: a string literal); a path names a
/// string item of the crate.
fn title(
    meta: &ParseNestedMeta<'_>,
    out: &mut FieldMarkers,
    diags: &mut Diagnostics,
) -> syn::Result<()> {
    let span = meta.path.span();
    let expr: syn::Expr = meta.value()?.parse()?;
    if let Some(lit) = string_literal(&expr) {
        out.schema
            .push(Spanned::new(SchemaProp::Title(lit_str_value(lit)), span));
    } else if let Some((absolute, segments)) = named_path(&expr) {
        out.named.push(Spanned::new(
            NamedValue {
                absolute,
                segments,
                slot: Slot::Title,
                key: "#[schemars(title)]".into(),
            },
            span,
        ));
    } else {
        diags.add(
            Diagnostic::new(
                span,
                format!(
                    "the title `{}` is Rust code that operator-gen, which reads the sources without compiling them, cannot evaluate",
                    code_text(&expr)
                ),
                Origin::Marker,
            )
            .with_help(TITLE_HELP),
        );
    }
    Ok(())
}

/// The error for regular expressions no item names, unless a `#[validation(pattern)]`
/// says the same.
pub(super) fn unreadable_pattern(code: &Spanned<String>) -> Diagnostic {
    Diagnostic::new(
        code.span,
        format!(
            "the regular expression `{}` is Rust code that operator-gen, which reads the sources without compiling them, cannot run, so the CRD would admit what this check refuses",
            code.value
        ),
        Origin::Marker,
    )
    .with_help(PATTERN_HELP)
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
        let mut patterns = ForeignPatterns::default();
        read_foreign(attr, crate_name, &mut read, &mut patterns, diags);
        let regexes = !patterns.named.is_empty() || !patterns.unreadable.is_empty();
        if diags.len() == before && (!read.is_empty() || regexes) {
            diags.push(
                attr.path().span(),
                format!(
                    "#[{crate_name}(...)] constraints go on types and fields, not on enum variants; put them on the variant's fields or on the type it carries"
                ),
            );
        }
    }
}
