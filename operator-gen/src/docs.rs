//! Descriptions from doc comments, cleaned the way controller-gen cleans Go doc comments:
//! one leading space removed per line, trailing spaces trimmed, blank lines at either end
//! dropped and runs of blank lines collapsed, `TODO` lines dropped and a `---` line ending
//! the text (both outside fenced code blocks), lines joined with `\n`.

/// The description a type or field's doc comment gives: the `///` lines joined as
/// controller-gen joins Go comments; `None` without one.
pub fn description(attrs: &[syn::Attribute]) -> Option<String> {
    let mut raw: Vec<String> = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let syn::Meta::NameValue(nv) = &attr.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            for line in block_lines(&crate::markers::lit_str_value(s)) {
                raw.push(
                    line.strip_prefix(' ')
                        .unwrap_or(line)
                        .trim_end()
                        .to_string(),
                );
            }
        }
    }
    clean(raw)
}

/// The lines of one doc attribute. A block doc comment (`/** ... */`, the only kind whose
/// text spans lines) loses what rustdoc removes: a first line that is blank, a last line
/// that is blank, and the column of `*` that starts every line (but a first line without
/// one), with what precedes it.
fn block_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.len() < 2 {
        return lines;
    }
    if lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    if lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let starred = |l: &&str| l.trim_start().starts_with('*');
    let first_plain = lines.first().is_some_and(|l| !starred(l));
    let rest = if first_plain { &lines[1..] } else { &lines[..] };
    if !rest.is_empty() && rest.iter().all(starred) {
        let from = usize::from(first_plain);
        for line in &mut lines[from..] {
            *line = &line.trim_start()[1..];
        }
    }
    lines
}

fn clean(lines: Vec<String>) -> Option<String> {
    let mut out: Vec<String> = Vec::new();
    let mut in_fence = false;
    for line in lines {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
        } else if !in_fence {
            if trimmed.starts_with("---") {
                break;
            }
            if trimmed.starts_with("TODO") {
                continue;
            }
        }
        if line.is_empty() && out.last().is_none_or(|l| l.is_empty()) {
            continue;
        }
        out.push(line);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    (!out.is_empty()).then(|| out.join("\n"))
}

/// Shortens every description longer than `max` bytes the way controller-gen's
/// `maxDescLen` does: cut at `max`, then back to the last sentence end (kept), else to the
/// last space plus `...`, else a hard cut plus `...`. `max == 0` removes descriptions.
pub fn truncate(text: &str, max: usize) -> Option<String> {
    if max == 0 {
        return None;
    }
    if text.len() <= max {
        return Some(text.to_string());
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &text[..cut];
    if let Some(pos) = head.rfind(['.', '!', '?']) {
        return Some(head[..=pos].to_string());
    }
    if let Some(pos) = head.rfind(char::is_whitespace) {
        return Some(format!("{}...", &head[..pos]));
    }
    Some(format!("{head}..."))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(lines: &[&str]) -> Option<String> {
        clean(lines.iter().map(|l| l.to_string()).collect())
    }

    #[test]
    fn block_doc_comments_lose_their_stars() {
        let item: syn::ItemStruct =
            syn::parse_str("/**\n * Block doc\n * with stars.\n */\nstruct A;").unwrap();
        assert_eq!(
            description(&item.attrs).as_deref(),
            Some("Block doc\nwith stars.")
        );
        let item: syn::ItemStruct =
            syn::parse_str("/** Block doc\n * with stars */\nstruct A;").unwrap();
        assert_eq!(
            description(&item.attrs).as_deref(),
            Some("Block doc\nwith stars")
        );
        // Lines without the column of stars are kept as written.
        let item: syn::ItemStruct = syn::parse_str("/** One\n   two */\nstruct A;").unwrap();
        assert_eq!(description(&item.attrs).as_deref(), Some("One\n  two"));
    }

    #[test]
    fn keeps_line_breaks_and_collapses_blank_runs() {
        assert_eq!(
            doc(&["", "a", "b", "", "", "c", ""]).as_deref(),
            Some("a\nb\n\nc")
        );
    }

    #[test]
    fn drops_todo_lines_and_stops_at_rule() {
        assert_eq!(
            doc(&["a", "TODO: fix", "b", "---", "hidden"]).as_deref(),
            Some("a\nb")
        );
    }

    #[test]
    fn fenced_blocks_keep_everything() {
        assert_eq!(
            doc(&["a", "```", "TODO x", "---", "```"]).as_deref(),
            Some("a\n```\nTODO x\n---\n```")
        );
    }

    #[test]
    fn truncation_prefers_sentences_then_words() {
        assert_eq!(truncate("One. Two three four", 12).as_deref(), Some("One."));
        assert_eq!(truncate("one two three", 9).as_deref(), Some("one two..."));
        assert_eq!(truncate("abcdef", 3).as_deref(), Some("abc..."));
        assert_eq!(truncate("short", 0), None);
    }
}
