//! The book (`docs/`) and the README are checked like code:
//!
//! - every chapter is in `SUMMARY.md` and every entry of it exists;
//! - every link resolves: a chapter and its heading, a heading of the same page, or a web
//!   address. Links into the repository's sources are not allowed in the book (the built book
//!   has no copy of them: name the file in code instead);
//! - every Rust block is tied to a compiled file: an `{{#include path}}` of one, or an excerpt
//!   whose first line names the file (`// From memcached/src/controller.rs`) and whose other
//!   lines appear in it in order (a line starting `// ...`, or holding `/* ... */`, marks what
//!   is left out); a YAML or TOML block that names its file the same way (`# From ...`) is
//!   checked against it too;
//! - the README stays a front door (at most 200 lines) and its links resolve too.
//!
//! `cargo xtask test` also builds the book with mdbook.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is in the workspace")
        .to_path_buf()
}

fn book_src() -> PathBuf {
    root().join("docs/src")
}

/// The anchor mdbook (and GitHub) give a heading: its text in lower case, spaces as dashes,
/// punctuation other than `-` and `_` dropped.
fn slug(heading: &str) -> String {
    plain_text(heading)
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

/// A heading's text as rendered: code spans keep their text, links their label.
fn plain_text(markdown: &str) -> String {
    let mut out = String::new();
    let mut chars = markdown.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' | '*' => {}
            '[' => {}
            ']' if chars.peek() == Some(&'(') => {
                for c in chars.by_ref() {
                    if c == ')' {
                        break;
                    }
                }
            }
            c => out.push(c),
        }
    }
    out.trim().to_string()
}

/// Lines outside fenced code blocks, with their numbers (1-based).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

fn headings(text: &str) -> BTreeSet<String> {
    prose_lines(text)
        .into_iter()
        .filter_map(|(_, l)| {
            let hashes = l.chars().take_while(|&c| c == '#').count();
            (hashes > 0 && l[hashes..].starts_with(' ')).then(|| slug(&l[hashes..]))
        })
        .collect()
}

/// The targets of inline links `[label](target)` outside code, with their line numbers.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in prose_lines(text) {
        // Code spans are not links.
        let mut visible = String::new();
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                visible.push(c);
            }
        }
        let mut rest = visible.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else {
                break;
            };
            out.push((n, after[..end].trim().to_string()));
            rest = &after[end..];
        }
    }
    out
}

/// `base/../x` without touching the file system; `None` when it climbs above the start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// What is wrong with the links of `file` (its text `text`); `within` is the directory its
/// relative links must stay in (the book's source), or `None` for the README, whose links may
/// point anywhere in the repository.
fn check_links(file: &Path, text: &str, within: Option<&Path>) -> Vec<String> {
    let mut problems = Vec::new();
    let dir = file.parent().expect("a file in a directory");
    let own = headings(text);
    let shown = file
        .strip_prefix(root())
        .unwrap_or(file)
        .display()
        .to_string();
    for (line, target) in links(text) {
        let at = format!("{shown}:{line}: link `{target}`");
        if target.starts_with("http://")
            || target.starts_with("https://")
            || target.starts_with("mailto:")
        {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        if path.is_empty() {
            if let Some(anchor) = anchor
                && !own.contains(anchor)
            {
                problems.push(format!("{at}: no heading `#{anchor}` on this page"));
            }
            continue;
        }
        let Some(resolved) = normalize(&dir.join(path)) else {
            problems.push(format!("{at}: climbs out of the repository"));
            continue;
        };
        if let Some(within) = within
            && !resolved.starts_with(within)
        {
            problems.push(format!(
                "{at}: points outside the book, which the built book has no copy of; name the \
                 file in code (`{path}`) or link to a chapter"
            ));
            continue;
        }
        if !resolved.exists() {
            problems.push(format!("{at}: {} does not exist", resolved.display()));
            continue;
        }
        if let Some(anchor) = anchor {
            let target_text = std::fs::read_to_string(&resolved).unwrap_or_default();
            if !headings(&target_text).contains(anchor) {
                problems.push(format!("{at}: {path} has no heading `#{anchor}`"));
            }
        }
    }
    problems
}

/// What is wrong with the Rust blocks of `file`.
fn check_rust_blocks(file: &Path, text: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let shown = file
        .strip_prefix(root())
        .unwrap_or(file)
        .display()
        .to_string();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let fence = lines[i].trim_start();
        let Some(info) = fence.strip_prefix("```") else {
            i += 1;
            continue;
        };
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && !lines[end].trim_start().starts_with("```") {
            end += 1;
        }
        let block = &lines[start..end];
        let problem = match info.split(',').next() {
            Some("rust") => check_rust_block(file, block),
            Some("yaml" | "toml") => check_data_block(block),
            _ => None,
        };
        if let Some(problem) = problem {
            problems.push(format!("{shown}:{start}: {problem}"));
        }
        i = end + 1;
    }
    problems
}

fn check_rust_block(file: &Path, block: &[&str]) -> Option<String> {
    let code: Vec<&str> = block
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty())
        .collect();
    if !code.is_empty()
        && code
            .iter()
            .all(|l| l.starts_with("{{#include ") || l.starts_with("{{#rustdoc_include "))
    {
        for l in &code {
            let path = l
                .split_whitespace()
                .nth(1)
                .unwrap_or("")
                .trim_end_matches("}}")
                .split(':')
                .next()
                .unwrap_or("");
            let resolved = file.parent()?.join(path);
            if !resolved.is_file() {
                return Some(format!("includes {path}, which does not exist"));
            }
        }
        return None;
    }
    let Some(source) = code.first().and_then(|l| l.strip_prefix("// From ")) else {
        return Some(
            "a Rust block must include a compiled file (`{{#include ../../memcached/src/x.rs:anchor}}`) \
             or be an excerpt whose first line names it (`// From memcached/src/x.rs`)"
                .to_string(),
        );
    };
    let elided = |l: &str| l.starts_with("// ...") || l.contains("/* ... */");
    excerpt_drift(source.trim(), &code[1..], |l| l.trim().to_string(), elided)
}

/// What is wrong with an excerpt of `source`: each of its `lines` that is not `elided`
/// appears in the file in order, both sides compared as `normalize` makes them.
fn excerpt_drift(
    source: &str,
    lines: &[&str],
    normalize: impl Fn(&str) -> String,
    elided: impl Fn(&str) -> bool,
) -> Option<String> {
    let Ok(contents) = std::fs::read_to_string(root().join(source)) else {
        return Some(format!("the excerpt's file {source} does not exist"));
    };
    let mut file_lines = contents.lines().map(&normalize);
    for line in lines.iter().map(|l| normalize(l)) {
        if line.is_empty() || elided(&line) {
            continue;
        }
        if !file_lines.any(|l| l == line) {
            return Some(format!(
                "`{line}` is not in {source} (in this order): the excerpt drifted from it"
            ));
        }
    }
    None
}

/// A YAML or TOML block whose first line names a file (`# From config/x.yaml`) is an excerpt
/// of it: each other line, without a trailing comment, appears in the file in order (`# ...`
/// marks what is left out). Other such blocks are illustrations and are not checked.
fn check_data_block(block: &[&str]) -> Option<String> {
    let start = block.iter().position(|l| !l.trim().is_empty())?;
    let source = block[start].trim().strip_prefix("# From ")?.trim();
    // A line without its trailing comment.
    let strip = |l: &str| l.split("  #").next().unwrap_or(l).trim().to_string();
    excerpt_drift(source, &block[start + 1..], strip, |l| {
        l.starts_with("# ...")
    })
}

fn chapters() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("docs/src is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&book_src(), &mut out);
    out.sort();
    out
}

#[test]
fn every_chapter_is_in_the_summary_and_every_entry_exists() {
    let src = book_src();
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("docs/src/SUMMARY.md");
    let listed: BTreeSet<PathBuf> = links(&summary)
        .into_iter()
        .map(|(_, target)| src.join(target))
        .collect();
    let mut problems: Vec<String> = listed
        .iter()
        .filter(|p| !p.is_file())
        .map(|p| format!("SUMMARY.md lists {}, which does not exist", p.display()))
        .collect();
    for chapter in chapters() {
        if chapter.file_name().is_some_and(|n| n == "SUMMARY.md") {
            continue;
        }
        if !listed.contains(&chapter) {
            problems.push(format!(
                "{} is not in SUMMARY.md, so the book does not show it",
                chapter.display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_book_links_resolve_and_its_rust_is_tied_to_compiled_files() {
    let src = book_src();
    let mut problems = Vec::new();
    for chapter in chapters() {
        let text = std::fs::read_to_string(&chapter).expect("a readable chapter");
        problems.extend(check_links(&chapter, &text, Some(&src)));
        problems.extend(check_rust_blocks(&chapter, &text));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_readme_is_a_front_door_whose_links_resolve() {
    let readme = root().join("README.md");
    let text = std::fs::read_to_string(&readme).expect("README.md");
    let lines = text.lines().count();
    assert!(
        lines <= 200,
        "README.md has {lines} lines; it is the front door (at most 200): move detail into the book"
    );
    let mut problems = check_links(&readme, &text, None);
    problems.extend(check_rust_blocks(&readme, &text));
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checks_catch_what_they_are_for() {
    let file = book_src().join("reference/markers.md");
    // A heading's anchor, as mdbook makes it.
    assert_eq!(
        slug(" Changes that break users: the compatibility gate"),
        "changes-that-break-users-the-compatibility-gate"
    );
    assert_eq!(
        slug(" The image: `cargo xtask image`"),
        "the-image-cargo-xtask-image"
    );
    // A broken anchor, a missing chapter and a link out of the book are each reported.
    let text = "# Title\n\n[a](#title) [b](#nowhere) [c](missing.md) [d](../../README.md) \
                `[e](#not-a-link)` [f](https://example.com)\n";
    let problems = check_links(&file, text, Some(&book_src()));
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].contains("no heading `#nowhere`"));
    assert!(problems[1].contains("does not exist"));
    assert!(problems[2].contains("outside the book"));
    // Rust blocks: free-standing code, a drifted excerpt, a faithful one with elisions.
    let loose = "```rust\nfn main() {}\n```\n";
    assert_eq!(check_rust_blocks(&file, loose).len(), 1);
    let drifted = "```rust\n// From memcached/src/controller.rs\npub const CONTROLLER_NAME: &str = \"other\";\n```\n";
    assert!(check_rust_blocks(&file, drifted)[0].contains("drifted"));
    let faithful = "```rust\n// From memcached/src/controller.rs\npub const CONTROLLER_NAME: &str = \"memcached\";\n// ...\npub const FIELD_MANAGER: &str = \"memcached-operator\";\n```\n";
    assert_eq!(check_rust_blocks(&file, faithful), Vec::<String>::new());
    // A YAML excerpt, faithful and drifted; an illustration without a source is not checked.
    let yaml = "```yaml\n# From config/samples/kustomization.yaml\nresources:\n```\n";
    assert_eq!(check_rust_blocks(&file, yaml), Vec::<String>::new());
    let drifted_yaml = "```yaml\n# From config/samples/kustomization.yaml\nresources: []\n```\n";
    assert!(check_rust_blocks(&file, drifted_yaml)[0].contains("drifted"));
    let illustration = "```toml\n[anything]\nkey = 1\n```\n";
    assert_eq!(check_rust_blocks(&file, illustration), Vec::<String>::new());
    // Out of order is drift too.
    let reordered = "```rust\n// From memcached/src/controller.rs\npub const FIELD_MANAGER: &str = \"memcached-operator\";\npub const CONTROLLER_NAME: &str = \"memcached\";\n```\n";
    assert_eq!(check_rust_blocks(&file, reordered).len(), 1);
}
