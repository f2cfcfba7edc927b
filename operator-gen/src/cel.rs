//! CEL rules checked where they are written: each `x-kubernetes-validations` rule is parsed
//! ([`parse`]) and type-checked ([`check`]) against the schema it sits on, so that a rule
//! the API server would refuse when the CRD is installed is an error at its marker instead.

pub(crate) mod budget;
pub mod check;
pub mod cost;
pub mod parse;

use crate::api::apiextensions::v1::JSONSchemaProps;

/// A rule that compiles, with its worst-case costs as the API server estimates them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compiled {
    /// The rule's cost for one value (before the node's cardinality).
    pub cost: u64,
    /// The message expression's cost, when there is one.
    pub message_cost: Option<u64>,
}

/// Why `rule` does not compile on a value of `schema`, as one line: the problem, the column
/// and the part of the rule it is about. `message_expression`, when given, must compile to
/// a string.
pub fn problem(
    rule: &str,
    message_expression: Option<&str>,
    optional_old_self: bool,
    schema: &JSONSchemaProps,
) -> Option<String> {
    compile(rule, message_expression, optional_old_self, schema, false).err()
}

/// Compiles `rule` (and `message_expression`) on a value of `schema` as the API server does
/// and estimates their costs; `root` says the node is a kind's root or an embedded resource.
pub fn compile(
    rule: &str,
    message_expression: Option<&str>,
    optional_old_self: bool,
    schema: &JSONSchemaProps,
    root: bool,
) -> Result<Compiled, String> {
    let this = check::Ty::of(schema);
    let located = |what: &str, text: &str, at: usize, message: &str| {
        let column = text[..at.min(text.len())].chars().count() + 1;
        let excerpt: String = text[at.min(text.len())..].chars().take(24).collect();
        format!("{what} does not compile: {message} (column {column}: `{excerpt}`)")
    };
    let compile_one = |text: &str, what: &str| -> Result<(check::Ty<'_>, u64), String> {
        let expr = parse::parse(text).map_err(|e| located(what, text, e.at, &e.message))?;
        let mut checker = check::Checker::new(this.clone(), optional_old_self);
        let t = checker
            .check(&expr)
            .map_err(|e| located(what, text, e.at, &e.message))?;
        let cost = cost::Estimator::new(schema, root, &checker.types).cost(&expr);
        Ok((t, cost))
    };
    let cost = match compile_one(rule, "the CEL rule")? {
        (t, _) if !matches!(t, check::Ty::Bool | check::Ty::Dyn) => {
            return Err(format!(
                "the CEL rule does not compile: it is {}, and a rule must be a bool",
                t.article()
            ));
        }
        (_, cost) => cost,
    };
    let message_cost = match message_expression {
        None => None,
        Some(m) => match compile_one(m, "message_expression")? {
            (t, _) if !matches!(t, check::Ty::String | check::Ty::Dyn) => {
                return Err(format!(
                    "message_expression does not compile: it is {}, and it must be a string",
                    t.article()
                ));
            }
            (_, cost) => Some(cost),
        },
    };
    Ok(Compiled { cost, message_cost })
}

#[cfg(test)]
mod tests;
