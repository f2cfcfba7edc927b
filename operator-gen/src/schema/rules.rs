//! CEL rules as the schema carries them: adding one to a node, and spelling strings and
//! property names the way CEL in the API server reads them. The marker, type and enum
//! walks all write rules through here.

use crate::api::apiextensions::v1::{JSONSchemaProps, ValidationRule};
use crate::markers::CelRule;
use crate::place::Loc;

pub(super) fn push_rule(schema: &mut JSONSchemaProps, rule: &CelRule) {
    push_rule_from(schema, rule, None);
}

/// [`push_rule`], remembering the marker that wrote the rule.
pub(super) fn push_rule_from(schema: &mut JSONSchemaProps, rule: &CelRule, origin: Option<Loc>) {
    schema
        .x_kubernetes_validations
        .get_or_insert_with(Vec::new)
        .push(ValidationRule {
            origin,
            rule: rule.rule.clone(),
            message: rule.message.clone(),
            message_expression: rule.message_expression.clone(),
            reason: rule.reason.clone(),
            field_path: rule.field_path.clone(),
            optional_old_self: rule.optional_old_self,
        });
}

/// `text` as a single-quoted CEL string literal.
pub(super) fn cel_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('\'');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// Whether CEL in the API server can name the property `name` at all (escaped or not): a
/// name that starts with a letter, `_`, `.`, `-` or `/` and holds only those and digits.
pub(super) fn cel_can_name(name: &str) -> bool {
    let mut chars = name.chars();
    let word = |c: char| c.is_ascii_alphabetic() || matches!(c, '_' | '.' | '-' | '/');
    chars.next().is_some_and(word) && chars.all(|c| word(c) || c.is_ascii_digit())
}

/// A property name as CEL in the API server spells it: names that are not identifiers, or
/// are CEL keywords, are escaped (`__dash__`, `__dot__`, `__slash__`, `__underscores__`,
/// `__namespace__`, ...).
pub(super) fn cel_field(name: &str) -> String {
    if crate::cel::parse::escaped_word(name) {
        return format!("__{name}__");
    }
    name.replace("__", "__underscores__")
        .replace('.', "__dot__")
        .replace('-', "__dash__")
        .replace('/', "__slash__")
}
