//! Writing templates as YAML: the objects are edited as `serde_yaml` values with markers
//! where Helm's directives go ([`Tpl`]), and the small edits every rule makes of them (a key
//! or list items under a condition, a key after another).

use anyhow::{Context as _, Result, bail};
use serde_yaml::{Mapping, Value};

/// Template text with placeholders: a marker (`__HELM_<n>__`) stands where a template
/// directive goes, so that the objects can be written as YAML first. A marker alone on its
/// line (a mapping key with no value, or a list item) becomes the directive's lines; one
/// inside a line is replaced by the directive. `{indent}` in a directive is the line's
/// indentation, `{indent2}` two more.
#[derive(Default)]
pub(super) struct Tpl {
    directives: Vec<String>,
}

impl Tpl {
    pub(super) fn marker(&mut self, directive: impl Into<String>) -> String {
        self.directives.push(directive.into());
        format!("__HELM_{}__", self.directives.len() - 1)
    }

    /// A mapping key that stands for its directive's lines.
    pub(super) fn key(&mut self, directive: impl Into<String>) -> Value {
        Value::String(self.marker(directive))
    }

    /// The text of `value`, markers replaced, `{{` of the objects' own text escaped.
    pub(super) fn render(&self, value: &Value) -> Result<String> {
        let yaml = serde_yaml::to_string(value).context("writing a template")?;
        let yaml = yaml.replace("{{", "{{ \"{{\" }}");
        let mut out = String::new();
        for line in yaml.lines() {
            let body = line.trim_start();
            let indent = line.len() - body.len();
            let alone = body
                .strip_suffix(": null")
                .or_else(|| body.strip_prefix("- "))
                .and_then(|m| {
                    let (n, end, start) = self.index(m)?;
                    (start == 0 && end == m.len()).then_some(n)
                });
            let fill = |d: &str| {
                d.replace("{indent}", &indent.to_string())
                    .replace("{indent2}", &(indent + 2).to_string())
            };
            match alone {
                Some(n) => {
                    for l in fill(&self.directives[n]).lines() {
                        out.push_str(&" ".repeat(indent));
                        out.push_str(l);
                        out.push('\n');
                    }
                }
                None => {
                    let mut rest = line;
                    while let Some((n, end, start)) = self.index(rest) {
                        out.push_str(&rest[..start]);
                        out.push_str(&fill(&self.directives[n]));
                        rest = &rest[end..];
                    }
                    out.push_str(rest);
                    out.push('\n');
                }
            }
        }
        if out.contains("__HELM_") {
            bail!("a placeholder was left in a template (an object's text has `__HELM_`)");
        }
        Ok(out)
    }

    /// The first marker in `s`: its number, where it ends and where it starts.
    fn index(&self, s: &str) -> Option<(usize, usize, usize)> {
        let mut from = 0;
        while let Some(at) = s[from..].find("__HELM_") {
            let start = from + at;
            let digits = &s[start + 7..];
            let len = digits.chars().take_while(char::is_ascii_digit).count();
            if len > 0 && digits[len..].starts_with("__") {
                let n: usize = digits[..len].parse().ok()?;
                if n < self.directives.len() {
                    return Some((n, start + 7 + len + 2, start));
                }
            }
            from = start + 7;
        }
        None
    }
}

pub(super) fn s(v: &str) -> Value {
    Value::String(v.to_string())
}

pub(super) fn get<'a>(m: &'a Mapping, path: &[&str]) -> Option<&'a Value> {
    let mut v = m.get(path[0])?;
    for k in &path[1..] {
        v = v.get(*k)?;
    }
    Some(v)
}

pub(super) fn get_mut<'a>(m: &'a mut Mapping, path: &[&str]) -> Option<&'a mut Value> {
    let mut v = m.get_mut(path[0])?;
    for k in &path[1..] {
        v = v.get_mut(*k)?;
    }
    Some(v)
}

/// `map` with `key` between an `if` and its `end` (kept in its place).
pub(super) fn wrap_key(map: &mut Mapping, key: &str, condition: &str, tpl: &mut Tpl) {
    if !map.contains_key(key) {
        return;
    }
    let old = std::mem::take(map);
    for (k, v) in old {
        if k.as_str() == Some(key) {
            map.insert(tpl.key(format!("{{{{- if {condition} }}}}")), Value::Null);
            map.insert(k, v);
            map.insert(tpl.key("{{- end }}"), Value::Null);
        } else {
            map.insert(k, v);
        }
    }
}

/// `map` with `key: value` after `after` (at the end when there is no `after`).
pub(super) fn insert_after(map: &mut Mapping, after: &str, key: Value, value: Value) {
    if !map.contains_key(after) {
        map.insert(key, value);
        return;
    }
    let old = std::mem::take(map);
    let mut pending = Some((key, value));
    for (k, v) in old {
        let here = k.as_str() == Some(after);
        map.insert(k, v);
        if here && let Some((k, v)) = pending.take() {
            map.insert(k, v);
        }
    }
}

/// Items of `list` between an `if` and its `end` where `pick` says so.
pub(super) fn wrap_items(
    list: &mut Vec<Value>,
    condition: &str,
    tpl: &mut Tpl,
    pick: impl Fn(&Value) -> bool,
) {
    let old = std::mem::take(list);
    for item in old {
        if pick(&item) {
            list.push(s(&tpl.marker(format!("{{{{- if {condition} }}}}"))));
            list.push(item);
            list.push(s(&tpl.marker("{{- end }}")));
        } else {
            list.push(item);
        }
    }
}
