//! CEL rules as the schema carries them: adding one to a node, where the markers that
//! wrote them are ([`RulePlaces`], beside the schema), and spelling strings and property
//! names the way CEL in the API server reads them. The marker, type and enum walks all
//! write rules through here.

use crate::api::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool, ValidationRule,
};
use crate::markers::CelRule;
use crate::place::Loc;

/// Where the markers that wrote CEL rules are, kept beside the schema: a rule a marker
/// wrote carries only its number here ([`ValidationRule::mark`]), which follows it through
/// the copies and rewrites of the build; the checks of the finished schema report there.
#[derive(Debug, Default)]
pub(crate) struct RulePlaces(Vec<Loc>);

impl RulePlaces {
    /// A new number for a rule written by the marker at `at`.
    fn mark(&mut self, at: Loc) -> u32 {
        self.0.push(at);
        (self.0.len() - 1) as u32
    }

    /// Where the marker that wrote `rule` is, if a marker did.
    pub(crate) fn of(&self, rule: &ValidationRule) -> Option<Loc> {
        rule.mark.map(|m| self.0[m as usize])
    }
}

pub(super) fn push_rule(schema: &mut JSONSchemaProps, rule: &CelRule) {
    push(schema, rule, None);
}

/// [`push_rule`], remembering in `places` that the marker at `at` wrote the rule.
pub(super) fn push_rule_from(
    schema: &mut JSONSchemaProps,
    rule: &CelRule,
    places: &mut RulePlaces,
    at: Loc,
) {
    push(schema, rule, Some(places.mark(at)));
}

fn push(schema: &mut JSONSchemaProps, rule: &CelRule, mark: Option<u32>) {
    schema
        .x_kubernetes_validations
        .get_or_insert_with(Vec::new)
        .push(ValidationRule {
            mark,
            rule: rule.rule.clone(),
            message: rule.message.clone(),
            message_expression: rule.message_expression.clone(),
            reason: rule.reason.clone(),
            field_path: rule.field_path.clone(),
            optional_old_self: rule.optional_old_self,
        });
}

/// Calls `f` with every CEL rule of `s`, at every depth.
pub(super) fn visit_rules(s: &JSONSchemaProps, f: &mut impl FnMut(&ValidationRule)) {
    s.x_kubernetes_validations
        .iter()
        .flatten()
        .for_each(&mut *f);
    for c in s.properties.iter().flat_map(|p| p.values()) {
        visit_rules(c, f);
    }
    if let Some(JSONSchemaPropsOrArray::Schema(i)) = &s.items {
        visit_rules(i, f);
    }
    if let Some(JSONSchemaPropsOrBool::Schema(v)) = &s.additional_properties {
        visit_rules(v, f);
    }
    for c in s.all_of.iter().flatten() {
        visit_rules(c, f);
    }
}

/// [`visit_rules`], mutably.
pub(super) fn visit_rules_mut(s: &mut JSONSchemaProps, f: &mut impl FnMut(&mut ValidationRule)) {
    s.x_kubernetes_validations
        .iter_mut()
        .flatten()
        .for_each(&mut *f);
    for c in s.properties.iter_mut().flat_map(|p| p.values_mut()) {
        visit_rules_mut(c, f);
    }
    if let Some(JSONSchemaPropsOrArray::Schema(i)) = &mut s.items {
        visit_rules_mut(i, f);
    }
    if let Some(JSONSchemaPropsOrBool::Schema(v)) = &mut s.additional_properties {
        visit_rules_mut(v, f);
    }
    for c in s.all_of.iter_mut().flatten() {
        visit_rules_mut(c, f);
    }
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
