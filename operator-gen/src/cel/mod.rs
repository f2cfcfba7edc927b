//! CEL rules checked where they are written: each `x-kubernetes-validations` rule is parsed
//! ([`parse`]) and type-checked ([`check`]) against the schema it sits on, so that a rule
//! the API server would refuse when the CRD is installed is an error at its marker instead.

pub mod check;
pub mod parse;

use crate::api::apiextensions::v1::JSONSchemaProps;

/// Why `rule` does not compile on a value of `schema`, as one line: the problem, the column
/// and the part of the rule it is about. `message_expression`, when given, must compile to
/// a string.
pub fn problem(
    rule: &str,
    message_expression: Option<&str>,
    optional_old_self: bool,
    schema: &JSONSchemaProps,
) -> Option<String> {
    let this = check::Ty::of(schema);
    let located = |what: &str, text: &str, at: usize, message: &str| {
        let column = text[..at.min(text.len())].chars().count() + 1;
        let excerpt: String = text[at.min(text.len())..].chars().take(24).collect();
        format!("{what} does not compile: {message} (column {column}: `{excerpt}`)")
    };
    let compile = |text: &str, what: &str| -> Result<check::Ty<'_>, String> {
        let expr = parse::parse(text).map_err(|e| located(what, text, e.at, &e.message))?;
        check::Checker::new(this.clone(), optional_old_self)
            .check(&expr)
            .map_err(|e| located(what, text, e.at, &e.message))
    };
    match compile(rule, "the CEL rule") {
        Err(e) => return Some(e),
        Ok(t) if !matches!(t, check::Ty::Bool | check::Ty::Dyn) => {
            return Some(format!(
                "the CEL rule does not compile: it is {t_a}, and a rule must be a bool",
                t_a = t.article()
            ));
        }
        Ok(_) => {}
    }
    if let Some(m) = message_expression {
        match compile(m, "message_expression") {
            Err(e) => return Some(e),
            Ok(t) if !matches!(t, check::Ty::String | check::Ty::Dyn) => {
                return Some(format!(
                    "message_expression does not compile: it is {t_a}, and it must be a string",
                    t_a = t.article()
                ));
            }
            Ok(_) => {}
        }
    }
    None
}

#[cfg(test)]
mod tests;
