//! The values the crate declares in `static`, `const` and `lazy_static!` items, as far as
//! they can be read without compiling the crate: a regular expression compiled from a
//! literal pattern, a string or number literal, or a path to another such item. Attributes
//! of the validation crates name these items instead of writing the value
//! (`#[validate(regex(path = *SEMVER_RE))]`, `range(min = MIN_REPLICAS)`); the markers are
//! resolved against them once the crate-wide [`Skeleton`](super::Skeleton) is built.

use crate::place::Loc;

/// What a value item holds, as far as the generator can tell from its syntax.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A string literal, or `concat!` of literals.
    Str(String),
    /// A number literal (negated or not).
    Number(serde_json::Number),
    /// Another item, by its path as written in the item's module.
    Path {
        /// Whether the path starts with `::`.
        absolute: bool,
        /// Its segments.
        segments: Vec<String>,
    },
    /// A regular expression compiled from the inner value (`Regex::new("...")`, in a
    /// `Lazy`, `LazyLock` or `lazy_static!`).
    Regex(Box<Value>),
    /// Code that only runs in the operator, described for a message ("a call to `build`").
    Code(String),
}

/// A `static`, `const` or `lazy_static!` item of the sources.
#[derive(Debug, Clone)]
pub struct ValueItem {
    /// The module it is declared in.
    pub module: Vec<String>,
    /// Its name.
    pub name: String,
    /// `static`, `const` or `lazy_static!`.
    pub what: &'static str,
    /// What it holds.
    pub value: Value,
    /// Where its name is (its file set when the skeleton is built).
    pub at: Loc,
    /// Whether its module declares another value item by the same name (under `#[cfg]`s,
    /// which the generator does not evaluate).
    pub declared_twice: bool,
}

/// The value items `item` declares in `module`: one for a `static` or `const`, one per
/// `static ref` of a `lazy_static!` invocation, none for anything else.
pub(super) fn value_items(module: &[String], item: &syn::Item) -> Vec<ValueItem> {
    let one = |ident: &syn::Ident, what, expr: &syn::Expr| ValueItem {
        module: module.to_vec(),
        name: ident.to_string(),
        what,
        value: read(expr),
        at: Loc::of(0, ident.span()),
        declared_twice: false,
    };
    match item {
        // `const _: () = { ... };` holds impls, not a value anyone names.
        syn::Item::Const(c) if c.ident != "_" => vec![one(&c.ident, "const", &c.expr)],
        syn::Item::Static(s) => vec![one(&s.ident, "static", &s.expr)],
        syn::Item::Macro(m) if last_segment(&m.mac.path) == "lazy_static" => {
            syn::parse::Parser::parse2(lazy_statics, m.mac.tokens.clone())
                .unwrap_or_default()
                .iter()
                .map(|(ident, expr)| one(ident, "lazy_static!", expr))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The `static ref NAME: Type = expr;` items of a `lazy_static!` invocation.
fn lazy_statics(input: syn::parse::ParseStream<'_>) -> syn::Result<Vec<(syn::Ident, syn::Expr)>> {
    let mut out = Vec::new();
    while !input.is_empty() {
        input.call(syn::Attribute::parse_outer)?;
        input.parse::<syn::Visibility>()?;
        input.parse::<syn::Token![static]>()?;
        input.parse::<syn::Token![ref]>()?;
        let name: syn::Ident = input.parse()?;
        input.parse::<syn::Token![:]>()?;
        input.parse::<syn::Type>()?;
        input.parse::<syn::Token![=]>()?;
        let expr: syn::Expr = input.parse()?;
        if !input.is_empty() {
            input.parse::<syn::Token![;]>()?;
        }
        out.push((name, expr));
    }
    Ok(out)
}

fn last_segment(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// The last two segments of a path (`Regex::new` of `regex::Regex::new`).
fn last_two(path: &syn::Path) -> Option<(String, String)> {
    let n = path.segments.len();
    (n >= 2).then(|| {
        (
            path.segments[n - 2].ident.to_string(),
            path.segments[n - 1].ident.to_string(),
        )
    })
}

/// What an item's initializer holds. Understood: literals, `concat!` of literals, paths,
/// `Regex::new(p)` (and `RegexBuilder::new(p).build()`) with `.unwrap()` or `.expect(..)`,
/// inside `Lazy::new(|| ...)`, `LazyLock::new(|| ...)` or `LazyCell::new(|| ...)`, and
/// `lazy_regex!("...")` / `regex!("...")`; anything else is [`Value::Code`].
pub fn read(expr: &syn::Expr) -> Value {
    use syn::Expr;
    match expr {
        Expr::Lit(_) | Expr::Unary(_) => match crate::markers::literal_json(expr) {
            Ok(serde_json::Value::String(s)) => Value::Str(s),
            Ok(serde_json::Value::Number(n)) => Value::Number(n),
            _ => Value::Code("an expression that is neither a string nor a number".into()),
        },
        Expr::Paren(p) => read(&p.expr),
        Expr::Group(g) => read(&g.expr),
        Expr::Reference(r) => read(&r.expr),
        Expr::Path(p) if p.qself.is_none() => Value::Path {
            absolute: p.path.leading_colon.is_some(),
            segments: p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect(),
        },
        Expr::Macro(m) => read_macro(&m.mac),
        Expr::Closure(c) if c.inputs.is_empty() => read(&c.body),
        Expr::Block(b) => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => read(e),
            _ => Value::Code("a block of statements".into()),
        },
        Expr::Call(call) => {
            let Expr::Path(f) = &*call.func else {
                return Value::Code("a call".into());
            };
            let shown = path_text(&f.path);
            match (last_two(&f.path), call.args.len()) {
                (Some((ty, new)), 1)
                    if new == "new" && matches!(ty.as_str(), "Lazy" | "LazyLock" | "LazyCell") =>
                {
                    match &call.args[0] {
                        init @ Expr::Closure(_) => read(init),
                        // `Lazy::new(build_regex)` calls the function when first used.
                        init => Value::Code(format!("a call to `{}`", expression_text(init))),
                    }
                }
                (Some((ty, new)), 1) if new == "new" && ty == "Regex" => {
                    Value::Regex(Box::new(read(&call.args[0])))
                }
                _ => Value::Code(format!("a call to `{shown}`")),
            }
        }
        Expr::MethodCall(m) => {
            let method = m.method.to_string();
            match method.as_str() {
                "unwrap" | "expect" => match read(&m.receiver) {
                    read @ (Value::Regex(_) | Value::Code(_)) => read,
                    _ => Value::Code(format!("a call to `.{method}()`")),
                },
                "build" if m.args.is_empty() => match &*m.receiver {
                    Expr::Call(call)
                        if call.args.len() == 1
                            && matches!(&*call.func, Expr::Path(f)
                                if last_two(&f.path).is_some_and(|(t, n)| t == "RegexBuilder" && n == "new")) =>
                    {
                        Value::Regex(Box::new(read(&call.args[0])))
                    }
                    receiver if builds_a_regex(receiver) => Value::Code(
                        "a `RegexBuilder` with options (case, multi-line, ...) that its pattern does not carry"
                            .into(),
                    ),
                    _ => Value::Code("a call to `.build()`".into()),
                },
                _ => Value::Code(format!("a call to `.{method}()`")),
            }
        }
        other => Value::Code(format!("`{}`", expression_text(other))),
    }
}

/// Whether a method chain starts at `RegexBuilder::new(...)`.
fn builds_a_regex(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::MethodCall(m) => builds_a_regex(&m.receiver),
        syn::Expr::Call(call) => matches!(&*call.func, syn::Expr::Path(f)
            if last_two(&f.path).is_some_and(|(t, n)| t == "RegexBuilder" && n == "new")),
        _ => false,
    }
}

/// `concat!("a", "b")`, `lazy_regex!("...")`, `regex!("...")`.
fn read_macro(mac: &syn::Macro) -> Value {
    let name = last_segment(&mac.path);
    match name.as_str() {
        "concat" => concat(mac).map_or_else(
            || Value::Code("a `concat!` of more than literals".into()),
            Value::Str,
        ),
        // lazy_regex's macros take the pattern and, after it, flags the pattern does not
        // carry (`"a+"i`): only a plain literal is read.
        "lazy_regex" | "regex" => match syn::parse2::<syn::LitStr>(mac.tokens.clone()) {
            Ok(lit) if lit.suffix().is_empty() => {
                Value::Regex(Box::new(Value::Str(crate::markers::lit_str_value(&lit))))
            }
            _ => Value::Code(format!(
                "`{name}!` with flags or arguments its pattern does not carry"
            )),
        },
        _ => Value::Code(format!("the macro `{name}!`")),
    }
}

/// The text of `concat!` over literals, or `None` when an argument is not one.
fn concat(mac: &syn::Macro) -> Option<String> {
    let args = mac
        .parse_body_with(syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
        .ok()?;
    let mut out = String::new();
    for arg in &args {
        match arg {
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Str(s) => out.push_str(&crate::markers::lit_str_value(s)),
                syn::Lit::Char(c) => out.push(c.value()),
                syn::Lit::Int(i) => out.push_str(i.base10_digits()),
                syn::Lit::Float(f) => out.push_str(f.base10_digits()),
                syn::Lit::Bool(b) => out.push_str(if b.value { "true" } else { "false" }),
                _ => return None,
            },
            syn::Expr::Macro(m) if last_segment(&m.mac.path) == "concat" => {
                out.push_str(&concat(&m.mac)?);
            }
            _ => return None,
        }
    }
    Some(out)
}

fn path_text(path: &syn::Path) -> String {
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    format!(
        "{}{}",
        if path.leading_colon.is_some() {
            "::"
        } else {
            ""
        },
        segments.join("::")
    )
}

/// An expression as a message quotes it (cut after 40 characters).
fn expression_text(expr: &syn::Expr) -> String {
    let text = crate::markers::code_text(expr);
    if text.chars().count() > 40 {
        format!("{}...", text.chars().take(40).collect::<String>())
    } else {
        text
    }
}
