//! Argument parsing shared by every marker: `key = value`, bare flags and nested groups,
//! with typed values, spans kept, duplicate and unknown keys reported (with a suggestion).

use crate::diagnostics::Diagnostics;
use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::spanned::Spanned as _;
use syn::{Expr, ExprLit, ExprUnary, Lit, LitStr, Token, UnOp};

/// A value together with where it was written: the span of its tokens while the syntax
/// tree is at hand (`S = Span`), a `Loc` (a compact place) in the thread-free model.
#[derive(Debug, Clone)]
pub struct Spanned<T, S = Span> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: S,
}

impl<T, S> Spanned<T, S> {
    /// `value`, written at `span`.
    pub fn new(value: T, span: S) -> Self {
        Self { value, span }
    }

    /// The same value, placed by `f`.
    pub fn map_span<S2>(self, f: &mut impl FnMut(S) -> S2) -> Spanned<T, S2> {
        Spanned {
            value: self.value,
            span: f(self.span),
        }
    }
}

/// Where the arguments of a marker come from: a helper attribute on an item, or the
/// argument tokens of an attribute macro (`#[rbac(...)]` on a function).
#[derive(Debug, Clone, Copy)]
pub enum MetaSource<'a> {
    /// A helper attribute: its arguments are inside it.
    Attr(&'a syn::Attribute),
    /// An attribute macro's argument tokens, and the macro's span.
    Tokens(&'a TokenStream, Span),
}

impl MetaSource<'_> {
    /// Where the marker is, for errors about it as a whole.
    pub fn span(&self) -> Span {
        match self {
            MetaSource::Attr(attr) => attr.span(),
            MetaSource::Tokens(_, span) => *span,
        }
    }
}

/// Keys that may appear more than once in one attribute (each occurrence adds one more).
const REPEATABLE_KEYS: &[&str] = &["cel", "exactly_one_of", "at_most_one_of", "at_least_one_of"];

/// Parses `key = value, flag, group(...)` arguments of the marker `marker`.
///
/// `allowed` lists the keys; `on_arg` is called once per known key and parses its value.
/// Unknown keys are reported with the closest allowed key and the full list; duplicates
/// are reported; a value error stops this attribute (its later arguments are not seen).
/// Returns whether the arguments parsed cleanly; callers skip their "missing argument"
/// checks otherwise, so one typo gives one error.
pub fn parse_args(
    source: MetaSource<'_>,
    marker: &str,
    allowed: &[&str],
    diags: &mut Diagnostics,
    mut on_arg: impl FnMut(&str, &ParseNestedMeta<'_>) -> syn::Result<()>,
) -> bool {
    let mut seen: Vec<String> = Vec::new();
    let mut local = Diagnostics::new();
    let mut handler = |meta: ParseNestedMeta<'_>| -> syn::Result<()> {
        let Some(ident) = meta.path.get_ident() else {
            return Err(meta.error(format!(
                "expected a plain argument name in {}; allowed: {}",
                shown(marker),
                allowed.join(", ")
            )));
        };
        let key = ident.unraw().to_string();
        if !allowed.contains(&key.as_str()) {
            local.push(ident.span(), unknown_key_message(marker, &key, allowed));
            return skip_value(&meta);
        }
        if seen.contains(&key) && !REPEATABLE_KEYS.contains(&key.as_str()) {
            local.push(
                ident.span(),
                format!("duplicate argument `{key}` in {}", shown(marker)),
            );
            return skip_value(&meta);
        }
        seen.push(key.clone());
        on_arg(&key, &meta)
    };
    let result = match source {
        MetaSource::Attr(attr) => attr.parse_nested_meta(&mut handler),
        MetaSource::Tokens(tokens, _) => syn::meta::parser(&mut handler).parse2(tokens.clone()),
    };
    let clean = local.is_empty() && result.is_ok();
    diags.append(local);
    if let Err(err) = result {
        diags.push_syn(err);
    }
    clean
}

/// How a marker is named in messages: `validation` is `#[validation(...)]`, and a group
/// nested in it, named `validation(items`, is `#[validation(items(...))]`.
pub fn shown(marker: &str) -> String {
    format!(
        "#[{marker}(...){}]",
        ")".repeat(marker.matches('(').count())
    )
}

fn unknown_key_message(marker: &str, key: &str, allowed: &[&str]) -> String {
    let suggestion = allowed
        .iter()
        .map(|candidate| (strsim::jaro_winkler(key, candidate), *candidate))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| format!("; did you mean `{candidate}`?"))
        .unwrap_or_default();
    format!(
        "unknown argument `{key}` in {}{suggestion} (allowed: {})",
        shown(marker),
        allowed.join(", ")
    )
}

/// Consumes the value of an argument we are not going to interpret.
fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        meta.value()?.parse::<Expr>()?;
    } else if meta.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in meta.input);
        content.parse::<TokenStream>()?;
    }
    Ok(())
}

/// The value of a string literal. Raw strings, and strings without escapes (doc comments,
/// nearly every marker value), are cut out of the token's text instead of being decoded
/// character by character.
pub fn lit_str_value(lit: &LitStr) -> String {
    let repr = lit.token().to_string();
    let inner = match repr.strip_prefix('r') {
        Some(raw) => {
            let hashes = &raw[..raw.len() - raw.trim_start_matches('#').len()];
            raw[hashes.len()..]
                .strip_suffix(hashes)
                .and_then(|r| r.strip_prefix('"'))
                .and_then(|r| r.strip_suffix('"'))
        }
        None => repr
            .strip_prefix('"')
            .and_then(|r| r.strip_suffix('"'))
            .filter(|r| !r.contains('\\')),
    };
    match inner {
        Some(text) if !text.contains('\r') => text.to_string(),
        _ => lit.value(),
    }
}

/// The text of a string literal token written without escapes or carriage returns, cut
/// out of the token's text; `None` for any other literal.
fn unescaped_text(repr: &str) -> Option<&str> {
    repr.strip_prefix('"')?
        .strip_suffix('"')
        .filter(|text| !text.contains(['\\', '\r']))
}

/// Whether the argument's value ends at `cursor` (a `,` or the end of the arguments).
fn value_ends(cursor: syn::buffer::Cursor<'_>) -> bool {
    cursor.eof() || cursor.punct().is_some_and(|(p, _)| p.as_char() == ',')
}

/// A value that is a string literal without escapes, the usual marker value, read straight
/// from its token (syn would decode it character by character, twice). Nothing is consumed
/// and `None` comes back for any other value, which the caller then parses in full.
fn plain_string(input: syn::parse::ParseStream<'_>) -> syn::Result<Option<Spanned<String>>> {
    input.step(|cursor| {
        if let Some((literal, rest)) = cursor.literal()
            && value_ends(rest)
        {
            let repr = literal.to_string();
            if let Some(text) = unescaped_text(&repr) {
                return Ok((Some(Spanned::new(text.to_string(), literal.span())), rest));
            }
        }
        Ok((None, *cursor))
    })
}

/// `key = "text"`.
pub fn string(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<String>> {
    let input = meta.value()?;
    if let Some(text) = plain_string(input)? {
        return Ok(text);
    }
    let lit: LitStr = input.parse()?;
    Ok(Spanned::new(lit_str_value(&lit), lit.span()))
}

/// `key = "a;b;c"` (kubebuilder's list spelling) or `key = ["a", "b", "c"]`.
pub fn string_list(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<Vec<String>>> {
    let (items, span) = spanned_string_list(meta)?;
    Ok(Spanned::new(
        items.into_iter().map(|item| item.value).collect(),
        span,
    ))
}

/// [`string_list`] with each item's place: its literal in a list, the one string for
/// kubebuilder's `"a;b"` spelling; and the place of the whole value.
pub fn spanned_string_list(
    meta: &ParseNestedMeta<'_>,
) -> syn::Result<(Vec<Spanned<String>>, Span)> {
    let input = meta.value()?;
    let all = |value: &str, span| {
        split_list(value)
            .into_iter()
            .map(|item| Spanned::new(item, span))
            .collect()
    };
    if let Some(Spanned { value, span }) = plain_string(input)? {
        return Ok((all(&value, span), span));
    }
    let expr = value_expr(input)?;
    let span = expr.span();
    let items = match &expr {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => all(&lit_str_value(s), span),
        Expr::Array(array) => array
            .elems
            .iter()
            .map(|e| match e {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Ok(Spanned::new(lit_str_value(s), s.span())),
                other => Err(syn::Error::new(other.span(), "expected a string literal")),
            })
            .collect::<syn::Result<_>>()?,
        other => {
            return Err(syn::Error::new(
                other.span(),
                "expected a string such as \"a;b\" or a list such as [\"a\", \"b\"]",
            ));
        }
    };
    Ok((items, span))
}

/// kubebuilder's `a;b;c` list spelling, blanks trimmed and empty items dropped.
pub fn split_list(text: &str) -> Vec<String> {
    text.split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

/// The value after `key =` as an expression. The usual values, a literal or a negated
/// literal followed by `,` or the end, are read without syn's expression parser, into the
/// same expression it would build.
fn value_expr(input: syn::parse::ParseStream<'_>) -> syn::Result<Expr> {
    // Looked at token by token: syn's `peek(Lit)` would build the literal just to look.
    let simple = input.step(|cursor| {
        let (minus, after_minus) = match cursor.punct() {
            Some((p, rest)) if p.as_char() == '-' => (Some(Token![-](p.span())), rest),
            _ => (None, *cursor),
        };
        let (lit, rest) = if let Some((literal, rest)) = after_minus.literal() {
            (Lit::new(literal), rest)
        } else if let Some((ident, rest)) = after_minus.ident()
            && (ident == "true" || ident == "false")
        {
            let value = ident == "true";
            (Lit::Bool(syn::LitBool::new(value, ident.span())), rest)
        } else {
            return Ok((None, *cursor));
        };
        if !value_ends(rest) {
            return Ok((None, *cursor));
        }
        let lit = Expr::Lit(ExprLit {
            attrs: Vec::new(),
            lit,
        });
        let expr = match minus {
            Some(minus) => Expr::Unary(ExprUnary {
                attrs: Vec::new(),
                op: UnOp::Neg(minus),
                expr: Box::new(lit),
            }),
            None => lit,
        };
        Ok((Some(expr), rest))
    })?;
    match simple {
        Some(expr) => Ok(expr),
        None => input.parse(),
    }
}

/// A bare `key` (true) or `key = true|false`.
pub fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<bool>> {
    if meta.input.peek(Token![=]) {
        let lit: syn::LitBool = meta.value()?.parse()?;
        Ok(Spanned::new(lit.value, lit.span))
    } else {
        Ok(Spanned::new(true, meta.path.span()))
    }
}

/// `key = 12` (a non-negative integer).
pub fn unsigned(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<u64>> {
    let expr = value_expr(meta.value()?)?;
    let span = expr.span();
    match literal_json(&expr)? {
        serde_json::Value::Number(n) if n.as_u64().is_some() => {
            Ok(Spanned::new(n.as_u64().unwrap_or_default(), span))
        }
        serde_json::Value::Number(n) => Err(syn::Error::new(
            span,
            format!("expected a whole number of 0 or more, not {n}"),
        )),
        _ => Err(syn::Error::new(
            span,
            "expected a whole number of 0 or more, such as 0 or 12",
        )),
    }
}

/// `key = -3` (an integer that fits in i32, as Kubernetes' int32 fields require).
pub fn int32(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<i32>> {
    let expr = value_expr(meta.value()?)?;
    let span = expr.span();
    match literal_json(&expr)? {
        serde_json::Value::Number(n) => n
            .as_i64()
            .and_then(|v| i32::try_from(v).ok())
            .map(|v| Spanned::new(v, span))
            .ok_or_else(|| syn::Error::new(span, "expected an integer that fits in int32")),
        _ => Err(syn::Error::new(span, "expected an integer")),
    }
}

/// `key = 1.5` or `key = -2` as a JSON number.
pub fn number(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<serde_json::Number>> {
    let expr = value_expr(meta.value()?)?;
    let span = expr.span();
    match literal_json(&expr)? {
        serde_json::Value::Number(n) => Ok(Spanned::new(n, span)),
        _ => Err(syn::Error::new(
            span,
            "expected a number such as 0, -1 or 2.5",
        )),
    }
}

/// `key = <literal>`: a string, number, bool or a `[...]` list of those, as JSON.
pub fn json(meta: &ParseNestedMeta<'_>) -> syn::Result<Spanned<serde_json::Value>> {
    let expr = value_expr(meta.value()?)?;
    Ok(Spanned::new(literal_json(&expr)?, expr.span()))
}

/// Converts a Rust literal expression into the JSON value it spells.
pub fn literal_json(expr: &Expr) -> syn::Result<serde_json::Value> {
    use serde_json::Value;
    match expr {
        Expr::Lit(ExprLit { lit, .. }) => match lit {
            Lit::Str(s) => Ok(Value::String(lit_str_value(s))),
            Lit::Bool(b) => Ok(Value::Bool(b.value)),
            Lit::Int(i) => Ok(Value::Number(
                i.base10_parse::<i64>()
                    .map(Into::into)
                    .or_else(|_| i.base10_parse::<u64>().map(Into::into))?,
            )),
            Lit::Float(f) => {
                let v: f64 = f.base10_parse()?;
                serde_json::Number::from_f64(v)
                    .map(Value::Number)
                    .ok_or_else(|| syn::Error::new(f.span(), "expected a finite number"))
            }
            other => Err(syn::Error::new(
                other.span(),
                "expected a string, number or bool literal",
            )),
        },
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr: inner,
            ..
        }) => match literal_json(inner)? {
            Value::Number(n) => {
                // Integers stay integers as long as they fit i64 or u64: `-9223372036854775808`
                // is i64::MIN (its digits alone do not fit i64), `-(-9223372036854775808)`
                // is 2^63.
                let negated: Option<serde_json::Number> = if let Some(i) = n.as_i64() {
                    Some(
                        i.checked_neg()
                            .map_or_else(|| i.unsigned_abs().into(), Into::into),
                    )
                } else if let Some(u) = n.as_u64() {
                    i64::try_from(-i128::from(u)).ok().map(Into::into)
                } else {
                    None
                };
                Ok(Value::Number(negated.unwrap_or_else(|| {
                    serde_json::Number::from_f64(-n.as_f64().unwrap_or_default())
                        .unwrap_or_else(|| 0.into())
                })))
            }
            _ => Err(syn::Error::new(inner.span(), "only numbers can be negated")),
        },
        Expr::Array(array) => array
            .elems
            .iter()
            .map(literal_json)
            .collect::<syn::Result<Vec<_>>>()
            .map(Value::Array),
        Expr::Group(group) => literal_json(&group.expr),
        Expr::Macro(m)
            if m.mac
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "json") =>
        {
            let text = json_text(m.mac.tokens.clone());
            serde_json::from_str(&text).map_err(|e| {
                syn::Error::new(
                    m.span(),
                    format!("json!(...) does not hold valid JSON: {e}"),
                )
            })
        }
        Expr::Paren(paren) => literal_json(&paren.expr),
        other => Err(syn::Error::new(
            other.span(),
            "expected a literal: a string, number, bool or [list] of those",
        )),
    }
}

/// The JSON text of `json!(...)`'s tokens: token spacing removed where JSON forbids it
/// (`- 1` is how a token stream prints `-1`).
fn json_text(tokens: TokenStream) -> String {
    use proc_macro2::TokenTree;
    let mut out = String::new();
    for tt in tokens {
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    proc_macro2::Delimiter::Brace => ("{", "}"),
                    proc_macro2::Delimiter::Bracket => ("[", "]"),
                    proc_macro2::Delimiter::Parenthesis => ("(", ")"),
                    proc_macro2::Delimiter::None => ("", ""),
                };
                out.push_str(open);
                out.push_str(&json_text(g.stream()));
                out.push_str(close);
            }
            other => out.push_str(&other.to_string()),
        }
    }
    out
}

/// Parses `key(...)` as a nested group with its own allowed keys.
pub fn nested(
    meta: &ParseNestedMeta<'_>,
    marker: &str,
    allowed: &[&str],
    diags: &mut Diagnostics,
    mut on_arg: impl FnMut(&str, &ParseNestedMeta<'_>) -> syn::Result<()>,
) -> syn::Result<()> {
    if !meta.input.peek(syn::token::Paren) {
        return Err(meta.error(format!(
            "expected `{}(...)` with arguments: {}",
            marker.rsplit('(').next().unwrap_or(marker),
            allowed.join(", ")
        )));
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let tokens: TokenStream = content.parse()?;
    let span = meta.path.span();
    parse_args(
        MetaSource::Tokens(&tokens, span),
        marker,
        allowed,
        diags,
        &mut on_arg,
    );
    Ok(())
}

/// Parses `key(...)` like [`nested`], and returns every mistake inside as one error (none
/// is dropped); the caller's attribute stops there, as after any value error.
pub fn group(
    meta: &ParseNestedMeta<'_>,
    marker: &str,
    allowed: &[&str],
    on_arg: impl FnMut(&str, &ParseNestedMeta<'_>) -> syn::Result<()>,
) -> syn::Result<()> {
    let mut inner = Diagnostics::new();
    let ended = nested(meta, marker, allowed, &mut inner, on_arg);
    // The problems found before a value error stopped the group, then that error.
    match (inner.into_syn_result(), ended) {
        (Err(mut found), Err(last)) => {
            found.combine(last);
            Err(found)
        }
        (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
        (Ok(()), Ok(())) => Ok(()),
    }
}

/// Reports a missing required argument at the marker.
pub fn require<T>(
    value: Option<T>,
    source: MetaSource<'_>,
    marker: &str,
    key: &str,
    diags: &mut Diagnostics,
) -> Option<T> {
    if value.is_none() {
        diags.push(
            source.span(),
            format!("#[{marker}(...)] needs `{key} = ...`"),
        );
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `read` on the value of `k` in `#[m(k = <value>, next)]`.
    fn read_value<T>(value: &str, read: impl Fn(&ParseNestedMeta<'_>) -> syn::Result<T>) -> T {
        let attr: syn::Attribute = syn::parse_quote!(#[m(k = VALUE, next)]);
        let text = quote::quote!(#attr).to_string().replace("VALUE", value);
        let attr = syn::parse::Parser::parse_str(syn::Attribute::parse_outer, &text).unwrap();
        let mut out = None;
        attr[0]
            .parse_nested_meta(|meta| {
                if meta.path.is_ident("k") {
                    out = Some(read(&meta)?);
                }
                Ok(())
            })
            .unwrap();
        out.unwrap()
    }

    /// Negated integers stay integers while they fit i64 or u64, and never overflow.
    #[test]
    fn negated_integers_keep_their_value() {
        let json = |text: &str| literal_json(&syn::parse_str::<Expr>(text).unwrap()).unwrap();
        assert_eq!(json("-9223372036854775808"), serde_json::json!(i64::MIN));
        assert_eq!(
            json("-(-9223372036854775808)"),
            serde_json::json!(1u64 << 63)
        );
        assert_eq!(json("-(-5)"), serde_json::json!(5));
        assert_eq!(
            json("-18446744073709551615"),
            serde_json::json!(-18446744073709551615.0)
        );
    }

    #[test]
    fn values_read_token_by_token_equal_what_syn_parses() {
        use quote::ToTokens as _;
        for value in [
            "1",
            "-1",
            "- 2.5",
            "1e3",
            "0x1F",
            "true",
            "false",
            "-true",
            "\"text\"",
            "\"esc\\n\"",
            "r\"raw\"",
            "[1, 2]",
            "\"a\" + \"b\"",
            "1 + 2",
            "-x",
            "json!({})",
        ] {
            let ours = read_value(value, |meta| value_expr(meta.value()?));
            let syns = read_value(value, |meta| meta.value()?.parse::<Expr>());
            assert_eq!(
                ours.to_token_stream().to_string(),
                syns.to_token_stream().to_string(),
                "{value}"
            );
            // The same tree, spans aside (each side parsed its own copy of the text).
            let tree = |e: &Expr| {
                let text = format!("{e:?}").replace(char::is_whitespace, "");
                let mut parts = text.split("bytes(");
                let first = parts.next().unwrap_or_default().to_string();
                parts.fold(first, |tree, part| {
                    tree + part.split_once(')').map_or(part, |(_, rest)| rest)
                })
            };
            assert_eq!(tree(&ours), tree(&syns), "{value}");
        }
        for (value, expected) in [
            ("\"a;b ; ;c\"", vec!["a", "b", "c"]),
            ("\"with \\\"escape\\\";x\"", vec!["with \"escape\"", "x"]),
            ("[\"a\", \"b;c\"]", vec!["a", "b;c"]),
        ] {
            assert_eq!(read_value(value, string_list).value, expected, "{value}");
        }
        assert_eq!(read_value("\"plain\"", string).value, "plain");
        assert_eq!(read_value("\"tab\\t\"", string).value, "tab\t");
    }

    #[test]
    fn string_values_read_the_same_as_syn_decodes_them() {
        for text in [
            r#""plain""#,
            r#""with \"quotes\" and \\ backslash""#,
            r#""tab\tand\nnewline\u{e9}""#,
            r##"r"raw \n stays""##,
            r###"r#"raw "with" quotes"#"###,
            r#""ünïcödé ✓""#,
            r#""""#,
            "\"line\r\ncontinued\"",
        ] {
            let lit: LitStr = syn::parse_str(text).unwrap();
            assert_eq!(lit_str_value(&lit), lit.value(), "{text}");
        }
        // Doc comments reach us as string literals made by proc-macro2.
        let file: syn::File = syn::parse_str("/// A \"doc\" with \\ and é\nstruct S;").unwrap();
        let syn::Item::Struct(s) = &file.items[0] else {
            unreachable!()
        };
        let syn::Meta::NameValue(nv) = &s.attrs[0].meta else {
            unreachable!()
        };
        let syn::Expr::Lit(ExprLit {
            lit: Lit::Str(doc), ..
        }) = &nv.value
        else {
            unreachable!()
        };
        assert_eq!(lit_str_value(doc), " A \"doc\" with \\ and é");
    }
}
