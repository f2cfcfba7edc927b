//! The book's reference tables (markers, webhook arguments, compatibility checks) are made
//! from the tables in the code: this test fails when they differ, and `UPDATE_GOLDEN=1`
//! rewrites the generated sections of the chapters.

use std::path::Path;

/// Each generated section: the chapter (under `docs/src`), the name in its BEGIN/END lines
/// and what it must hold.
fn sections() -> [(&'static str, &'static str, String); 3] {
    [
        (
            "reference/markers.md",
            "marker table",
            operator_gen::internals::markers::table::reference_markdown(),
        ),
        (
            "reference/markers.md",
            "webhook table",
            operator_gen::internals::markers::webhook::reference_markdown(),
        ),
        (
            "reference/generated-files.md",
            "compatibility checks",
            operator_gen::compat::reference_markdown(),
        ),
    ]
}

#[test]
fn the_book_reference_tables_are_the_code_tables() {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/src");
    let mut stale = Vec::new();
    for (chapter, name, generated) in sections() {
        let path = book.join(chapter);
        let mut text = std::fs::read_to_string(&path).expect("the chapter is readable");
        let begin_line = format!("<!-- BEGIN generated {name}");
        let end_line = format!("<!-- END generated {name} -->");
        let begin = text
            .find(&begin_line)
            .unwrap_or_else(|| panic!("docs/src/{chapter} has no {begin_line:?} line"));
        let body_start = begin + text[begin..].find('\n').expect("BEGIN line ends") + 1;
        let end = text
            .find(&end_line)
            .unwrap_or_else(|| panic!("docs/src/{chapter} has no {end_line:?} line"));
        assert!(body_start <= end, "{name}: BEGIN comes before END");
        if text[body_start..end] == generated {
            continue;
        }
        stale.push(format!("{name} (docs/src/{chapter}):\n{generated}"));
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            text = format!("{}{generated}{}", &text[..body_start], &text[end..]);
            std::fs::write(&path, text).expect("the chapter is writable");
        }
    }
    if stale.is_empty() || std::env::var_os("UPDATE_GOLDEN").is_some() {
        return;
    }
    panic!(
        "the book's generated tables are stale; run `UPDATE_GOLDEN=1 cargo test -p operator-gen --test readme`\n{}",
        stale.join("\n")
    );
}
