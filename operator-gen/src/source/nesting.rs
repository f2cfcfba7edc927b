//! The limit on nesting. syn's parser, the schema builder and the writers recurse once per
//! level of nesting, so a file with a type nested a thousand deep (`Vec<Vec<...>>`), modules
//! nested as deep, or thousands of nested parentheses in a `const` or a marker value would
//! overflow the stack and abort the process. The tokens are checked first, without
//! recursion, and such a file is refused with the place where the limit is passed.

use proc_macro2::{Spacing, Span, TokenStream};
use syn::buffer::Cursor;

/// Levels of nesting a file may have: brackets, braces and parentheses, and the angle
/// brackets of generic arguments, counted together. Real APIs stay far below it (the
/// Kubernetes types nest about a dozen deep); the stack stays far from full at it.
pub const MAX_NESTING: usize = 128;

/// Where `tokens` first nest deeper than [`MAX_NESTING`], with the message to report.
pub fn check_nesting(tokens: &TokenStream) -> Result<(), (Span, String)> {
    let buffer = syn::buffer::TokenBuffer::new2(tokens.clone());
    check_nesting_at(buffer.begin(), MAX_NESTING)
}

/// [`check_nesting`] on tokens syn has buffered: the walk borrows them, so a file's tokens
/// are not copied (the generator checks every file this way, inside its parse).
pub fn check_nesting_at(tokens: Cursor<'_>, max: usize) -> Result<(), (Span, String)> {
    /// One open group: where its walk is, its depth, and the angle brackets open in its
    /// token sequence.
    struct Level<'c> {
        at: Cursor<'c>,
        depth: usize,
        angles: usize,
        /// The previous token was a `-` or `=` joined to the next one (`->`, `=>`).
        arrow: bool,
    }
    let mut stack = vec![Level {
        at: tokens,
        depth: 0,
        angles: 0,
        arrow: false,
    }];
    let too_deep = |span: Span| {
        Err((
            span,
            format!(
                "nesting deeper than {max} levels (brackets, braces, parentheses and generic arguments together): operator-gen reads no deeper; flatten it, for example with a named type or module in between"
            ),
        ))
    };
    while let Some(level) = stack.last_mut() {
        let at = level.at;
        if at.eof() {
            stack.pop();
            continue;
        }
        let arrow = std::mem::take(&mut level.arrow);
        if let Some((inside, _, span, next)) = at.any_group() {
            level.at = next;
            let depth = level.depth + level.angles + 1;
            if depth > max {
                return too_deep(span.open());
            }
            stack.push(Level {
                at: inside,
                depth,
                angles: 0,
                arrow: false,
            });
        } else if let Some((p, next)) = at.punct() {
            level.at = next;
            let joint = p.spacing() == Spacing::Joint;
            let following = match next.punct() {
                Some((n, _)) if joint => Some(n.as_char()),
                _ => None,
            };
            match p.as_char() {
                // `<=` and `<<` are operators, not generic arguments.
                '<' if !matches!(following, Some('=' | '<')) => {
                    level.angles += 1;
                    if level.depth + level.angles > max {
                        return too_deep(p.span());
                    }
                }
                '>' if !arrow && following != Some('=') => {
                    level.angles = level.angles.saturating_sub(1);
                }
                // Generic arguments never span a `;`: a stray `<` (a comparison in a
                // `const`) counts no further.
                ';' => level.angles = 0,
                '-' | '=' if joint => level.arrow = true,
                _ => {}
            }
        } else if let Some((_, next)) = at.lifetime() {
            level.at = next;
        } else if let Some((_, next)) = at.token_tree() {
            level.at = next;
        } else {
            stack.pop();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, max: usize) -> Result<(), (usize, usize)> {
        let tokens: TokenStream = text.parse().unwrap();
        let buffer = syn::buffer::TokenBuffer::new2(tokens);
        check_nesting_at(buffer.begin(), max).map_err(|(span, _)| {
            let start = span.start();
            (start.line, start.column)
        })
    }

    #[test]
    fn groups_and_generic_arguments_count_together() {
        assert_eq!(check("struct A { x: Vec<Option<i32>> }", 3), Ok(()));
        // `{` is 1, `Vec<` 2, `Option<` 3, `Box<` 4.
        assert_eq!(
            check("struct A { x: Vec<Option<Box<i32>>> }", 3),
            Err((1, 28))
        );
        assert_eq!(check("mod a { mod b { mod c { } } }", 3), Ok(()));
        assert_eq!(
            check("mod a { mod b { mod c { mod d {} } } }", 3),
            Err((1, 30))
        );
        assert_eq!(check("const X: i32 = ((((1))));", 3), Err((1, 18)));
    }

    #[test]
    fn operators_are_not_generic_arguments() {
        // Arrows, comparisons and shifts leave the count as it was.
        let text = "fn f(a: i32) -> bool { a <= 1 && a >= 0 }\n\
                    const A: bool = 1 < 2; const B: bool = 1 < 2; const C: bool = 1 < 2;\n\
                    const D: u32 = 1 << 2 >> 1;\n\
                    fn g() -> Vec<Vec<u8>> { match 1 { _ => vec![] } }\n";
        assert_eq!(check(text, 3), Ok(()));
    }

    #[test]
    fn thousands_of_levels_are_refused_without_recursion() {
        let deep_type = format!(
            "struct A {{ x: {}i32{} }}",
            "Vec<".repeat(5_000),
            ">".repeat(5_000)
        );
        assert!(check(&deep_type, MAX_NESTING).is_err());
        let deep_parens = format!(
            "const X: i32 = {}1{};",
            "(".repeat(5_000),
            ")".repeat(5_000)
        );
        assert!(check(&deep_parens, MAX_NESTING).is_err());
        let deep_mods = format!("{}{}", "mod m { ".repeat(2_000), "}".repeat(2_000));
        assert!(check(&deep_mods, MAX_NESTING).is_err());
    }
}
