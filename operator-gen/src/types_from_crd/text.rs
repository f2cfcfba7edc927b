//! The spelling of generated Rust: identifiers from JSON names, literals from JSON values,
//! doc comments from descriptions.

use serde_json::Value;

/// Rust's keywords (strict and reserved, edition 2024), which a field or module may not be
/// named.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// The words of a JSON name: split at `_`, `-`, `.`, other punctuation and at case changes
/// (`podIPs` → `pod`, `i`, `ps`; `HTTPRoute` → `http`, `route`), in lower case.
fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if !current.is_empty() {
                out.push(std::mem::take(&mut current));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|p| chars[p]);
        let next = chars.get(i + 1).copied();
        // The plural of an acronym (`IPs`, `CIDRs`) stays one word.
        let plural_acronym =
            next == Some('s') && chars.get(i + 2).is_none_or(|n| !n.is_ascii_lowercase());
        let boundary = c.is_ascii_uppercase()
            && prev.is_some_and(|p| {
                p.is_ascii_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_ascii_uppercase()
                        && next.is_some_and(|n| n.is_ascii_lowercase())
                        && !plural_acronym)
            });
        if boundary && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        current.push(c.to_ascii_lowercase());
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// `snake_case` for a field or module, never a keyword nor starting with a digit.
pub fn snake(name: &str) -> String {
    let mut s = words(name).join("_");
    if s.is_empty() {
        s = "field".into();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if KEYWORDS.contains(&s.as_str()) || s == "_" {
        s.push('_');
    }
    s
}

/// `PascalCase` for a type or variant, never starting with a digit.
pub fn pascal(name: &str) -> String {
    let mut s: String = words(name)
        .iter()
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(first) => first.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect();
    if s.is_empty() {
        s = "Empty".into();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'V');
    }
    if s == "Self" {
        s.push('_');
    }
    s
}

/// The name serde's `rename_all = "camelCase"` gives the field `snake`.
pub fn serde_camel(snake: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The singular of a plural field name, for the type of its items: `containers` →
/// `container`, `policies` → `policy`, `addresses` → `address`; a word that does not look
/// plural gets `Item`.
pub fn singular(name: &str) -> String {
    if let Some(stem) = name.strip_suffix("ies")
        && stem.len() > 1
    {
        return format!("{stem}y");
    }
    for end in ["sses", "xes", "ches", "shes"] {
        if name.ends_with(end) {
            return name[..name.len() - 2].to_string();
        }
    }
    if let Some(stem) = name.strip_suffix('s')
        && stem.len() > 1
        && !stem.ends_with(['s', 'u', 'i'])
    {
        return stem.to_string();
    }
    format!("{name}Item")
}

/// A Rust string literal holding `s`: raw where that reads better (backslashes, quotes,
/// no newline), else escaped.
pub fn string_lit(s: &str) -> String {
    if (s.contains('\\') || s.contains('"'))
        && !s.contains(['\n', '\r'])
        && !s.chars().any(char::is_control)
    {
        let mut hashes = String::new();
        while s.contains(&format!("\"{hashes}")) {
            hashes.push('#');
        }
        return format!("r{hashes}\"{s}\"{hashes}");
    }
    format!("{s:?}")
}

/// A number literal: an integer where the value is one (`integer` says the schema's type is
/// integer, where operator-gen requires one), else a float that reads back the same.
pub fn number_lit(n: f64, integer: bool) -> String {
    // Every whole f64 in i64's range is an i64 exactly (2^63 itself is not in it): a bound
    // such as Go's `math.MaxInt64` written as a float (9223372036854775000) stays an integer
    // on an integer field, which is the only kind of bound operator-gen admits there.
    const I64_END: f64 = 9_223_372_036_854_775_808.0;
    if n.fract() == 0.0 && integer && (-I64_END..I64_END).contains(&n) {
        format!("{}", n as i64)
    } else if n.fract() == 0.0 && n.abs() < 9.0e15 {
        format!("{}.0", n as i64)
    } else {
        format!("{n:?}")
    }
}

/// A marker value for any JSON value: a literal where operator-gen reads one (strings,
/// numbers, booleans, lists of them), `json!(...)` for the rest.
pub fn json_lit(v: &Value) -> String {
    match v {
        Value::String(s) => string_lit(s),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Array(items) if items.iter().all(is_scalar) => {
            let inner: Vec<String> = items.iter().map(json_lit).collect();
            format!("[{}]", inner.join(", "))
        }
        other => format!("json!({other})"),
    }
}

fn is_scalar(v: &Value) -> bool {
    matches!(v, Value::String(_) | Value::Bool(_) | Value::Number(_))
}

/// `///` lines for a description, at `indent`. A line that operator-gen's doc reading would
/// change (one that starts with `---` or `TODO`, which it drops as controller-gen does) is
/// reported in `lost`.
pub fn doc_comment(description: &str, indent: &str, lost: &mut Vec<String>) -> String {
    let mut out = String::new();
    let mut in_fence = false;
    for line in description.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        } else if !in_fence && (trimmed.starts_with("---") || trimmed.starts_with("TODO")) {
            lost.push(format!(
                "a description line starting with `{}` (operator-gen drops it from doc comments, as controller-gen does)",
                if trimmed.starts_with("---") { "---" } else { "TODO" }
            ));
        }
        if line.trim().is_empty() {
            out.push_str(&format!("{indent}///\n"));
        } else {
            out.push_str(&format!("{indent}/// {}\n", line.trim_end()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(snake("podIPs"), "pod_ips");
        assert_eq!(snake("serviceCIDRsFor"), "service_cidrs_for");
        assert_eq!(snake("HTTPServer"), "http_server");
        assert_eq!(snake("apiVersion"), "api_version");
        assert_eq!(snake("type"), "type_");
        assert_eq!(snake("x-kubernetes-foo"), "x_kubernetes_foo");
        assert_eq!(snake("3d"), "_3d");
        assert_eq!(pascal("HTTPRoute"), "HttpRoute");
        assert_eq!(pascal("jobTemplate"), "JobTemplate");
        assert_eq!(pascal("a-b"), "AB");
        assert_eq!(pascal(""), "Empty");
        assert_eq!(pascal("1.0"), "V10");
        assert_eq!(serde_camel("api_version"), "apiVersion");
        assert_eq!(serde_camel("pod_ips"), "podIps");
        assert_eq!(singular("policies"), "policy");
        assert_eq!(singular("containers"), "container");
        assert_eq!(singular("addresses"), "address");
        assert_eq!(singular("status"), "statusItem");
    }

    #[test]
    fn literals() {
        assert_eq!(string_lit("a\"b"), "r#\"a\"b\"#");
        assert_eq!(string_lit(r"^\d+$"), r#"r"^\d+$""#);
        assert_eq!(string_lit("a\nb"), "\"a\\nb\"");
        assert_eq!(number_lit(3.0, true), "3");
        assert_eq!(number_lit(3.0, false), "3.0");
        assert_eq!(number_lit(0.5, false), "0.5");
        // Go's math.MaxInt64 as a CRD writes it, read as an f64.
        assert_eq!(
            number_lit(9223372036854775000.0, true),
            "9223372036854774784"
        );
        assert_eq!(number_lit(9.3e18, true), "9.3e18");
        assert_eq!(json_lit(&serde_json::json!(["a", 1])), "[\"a\", 1]");
        assert_eq!(
            json_lit(&serde_json::json!({"a": null})),
            "json!({\"a\":null})"
        );
    }
}
