//! The API server's CEL budget over a whole schema: every rule compiled on the node it sits
//! on, its cost times the values of that node a request may hold (through the bounds of
//! the lists and maps above it), each rule against the per-rule limit and all of them
//! together against the schema's limit. The schema builder runs it on each version's
//! finished schema.

use std::collections::HashSet;

use crate::api::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool, ValidationRule,
};
use crate::place::Loc;

/// Compiles every CEL rule of `schema` (a version's whole schema) against the node it
/// sits on, as the API server will, and estimates its cost as the API server does: a
/// rule that does not compile, one whose cost times the values it may run on is over the
/// budget, and a schema whose rules are over the budget together are problems at the
/// marker that wrote the rule (`kind` for rules no marker wrote), sorted by message and
/// without repeats; rules whose text is in `skip` were judged already. `place` says where
/// the marker that wrote a rule is, kept beside the schema by its builder.
pub(crate) fn check(
    schema: &JSONSchemaProps,
    kind: Loc,
    skip: &HashSet<String>,
    place: impl Fn(&ValidationRule) -> Option<Loc>,
) -> Vec<(Loc, String)> {
    let mut found = Vec::new();
    let mut total: u64 = 0;
    let mut spenders: Vec<(u64, Loc, String)> = Vec::new();
    walk_rules(
        schema,
        Some(1),
        true,
        &mut Trail::default(),
        &mut |node, rule, cardinality, root, trail| {
            if skip.contains(&rule.rule) {
                return;
            }
            let at = place(rule).unwrap_or(kind);
            // Compiled as written in the schema, which is what the API server compiles.
            let compiled = super::compile(
                &rule.rule,
                rule.message_expression.as_deref(),
                rule.optional_old_self == Some(true),
                node,
                root,
            );
            match compiled {
                Err(problem) => found.push((at, problem)),
                Ok(c) => {
                    let times =
                        cardinality.unwrap_or_else(|| super::cost::fallback_cardinality(node));
                    let spent = c.cost.saturating_mul(times);
                    total = total
                        .saturating_add(spent)
                        .saturating_add(c.message_cost.unwrap_or(0));
                    if spent >= super::cost::SCHEMA_LIMIT / 100 {
                        spenders.push((spent, at, rule.rule.clone()));
                    }
                    if spent > super::cost::RULE_LIMIT {
                        // Which rule, and where in the schema: operator-gen writes
                        // some itself (a map's key rule, an enum's variant rules).
                        let problem = format!(
                            "{} (the rule `{}` at {})",
                            cost_problem(c.cost, times, trail),
                            rule.rule,
                            trail.shown()
                        );
                        found.push((at, problem));
                    }
                    if let Some(m) = c.message_cost
                        && m > super::cost::RULE_LIMIT
                    {
                        found.push((
                        at,
                        format!(
                            "the message expression's estimated cost ({m}) is over the API server's budget of {} by a factor of {}: bound the strings and lists it reads (max_length, max_items)",
                            super::cost::RULE_LIMIT,
                            super::cost::factor_text(m, super::cost::RULE_LIMIT)
                        ),
                    ));
                    }
                }
            }
        },
    );
    if total > super::cost::SCHEMA_LIMIT {
        spenders.sort_by_key(|s| std::cmp::Reverse(s.0));
        let at = spenders.first().map_or(kind, |s| s.1);
        let names: Vec<String> = spenders
            .iter()
            .take(4)
            .map(|(cost, _, rule)| format!("`{rule}` ({cost})"))
            .collect();
        found.push((
            at,
            format!(
                "the CEL rules of this version together have an estimated cost of {total}, over the API server's budget of {} for a schema by a factor of {} (the most expensive: {}): give the lists, maps and strings they run on or read max_items, max_properties and max_length",
                super::cost::SCHEMA_LIMIT,
                super::cost::factor_text(total, super::cost::SCHEMA_LIMIT),
                names.join(", ")
            ),
        ));
    }
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found.dedup();
    found
}

/// Why a rule costs too much: its cost, the values it may run on, the factor, and what to
/// bound.
fn cost_problem(cost: u64, times: u64, trail: &Trail) -> String {
    use super::cost::{RULE_LIMIT, factor_text};
    let unbounded = !trail.unbounded.is_empty();
    format!(
        "the CEL rule's estimated cost, {cost} per value times {times} value{} it may run on{}, is over the API server's budget of {RULE_LIMIT} by a factor of {}: {}",
        if times == 1 { "" } else { "s" },
        if unbounded {
            format!(
                " (a list or map above it has no max_items / max_properties, so the count comes from the request size limit: {})",
                trail
                    .unbounded
                    .iter()
                    .map(|p| shown_path(p))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            String::new()
        },
        factor_text(cost.saturating_mul(times), RULE_LIMIT),
        match (unbounded, cost > 100) {
            (true, true) =>
                "give the lists and maps above it max_items / max_properties, and the strings and lists the rule reads max_length / max_items",
            (true, false) => "give the lists and maps above it max_items / max_properties",
            _ =>
                "give the strings, lists and maps the rule reads max_length, max_items and max_properties",
        }
    )
}

/// Calls `f` with each node of `schema` that carries CEL rules, each rule, how many values
/// of the node a request may hold (`None`: unbounded) and whether the node is a resource's
/// root (the kind's, or an embedded resource). Like the API server, it does not look into
/// `allOf` and the other combinators.
fn walk_rules<'s>(
    schema: &'s JSONSchemaProps,
    cardinality: Option<u64>,
    root: bool,
    trail: &mut Trail,
    f: &mut impl FnMut(&'s JSONSchemaProps, &'s ValidationRule, Option<u64>, bool, &Trail),
) {
    for rule in schema.x_kubernetes_validations.iter().flatten() {
        f(schema, rule, cardinality, root, trail);
    }
    let times = |bound: Option<i64>| -> Option<u64> {
        Some(cardinality?.saturating_mul(bound?.max(0) as u64))
    };
    for (name, child) in schema.properties.iter().flatten() {
        let embedded = child.x_kubernetes_embedded_resource == Some(true);
        trail.enter(&[".", name], false, |trail| {
            walk_rules(child, cardinality, embedded, trail, f)
        });
    }
    if let Some(JSONSchemaPropsOrArray::Schema(items)) = &schema.items {
        let embedded = items.x_kubernetes_embedded_resource == Some(true);
        trail.enter(&["[*]"], schema.max_items.is_none(), |trail| {
            walk_rules(items, times(schema.max_items), embedded, trail, f)
        });
    }
    if let Some(JSONSchemaPropsOrBool::Schema(values)) = &schema.additional_properties {
        let embedded = values.x_kubernetes_embedded_resource == Some(true);
        trail.enter(&["[*]"], schema.max_properties.is_none(), |trail| {
            walk_rules(values, times(schema.max_properties), embedded, trail, f)
        });
    }
}

/// Where [`walk_rules`] is: the path from the schema's root (`.spec.groups[*].config`),
/// and the lists and maps on the way that have no bound on their size.
#[derive(Default)]
struct Trail {
    path: String,
    unbounded: Vec<String>,
}

impl Trail {
    /// Walks into `step` (its pieces joined) for `f`; `unbounded`: the node being left is
    /// a list or map without a bound.
    fn enter(&mut self, step: &[&str], unbounded: bool, f: impl FnOnce(&mut Self)) {
        if unbounded {
            self.unbounded.push(self.path.clone());
        }
        let len = self.path.len();
        for piece in step {
            self.path.push_str(piece);
        }
        f(self);
        self.path.truncate(len);
        if unbounded {
            self.unbounded.pop();
        }
    }

    /// The path, `.` for the root.
    fn shown(&self) -> &str {
        shown_path(&self.path)
    }
}

/// A path of the schema as messages show it: `.` for the root.
fn shown_path(path: &str) -> &str {
    if path.is_empty() { "." } else { path }
}
