//! The README's marker references are made from the marker tables: this test fails when
//! they differ, and `UPDATE_GOLDEN=1` rewrites the README's generated sections.

use std::path::Path;

/// Each generated section: the name in its BEGIN/END lines and what it must hold.
fn sections() -> [(&'static str, String); 3] {
    [
        (
            "marker table",
            operator_gen::markers::table::reference_markdown(),
        ),
        (
            "webhook table",
            operator_gen::markers::webhook::reference_markdown(),
        ),
        (
            "compatibility checks",
            operator_gen::compat::reference_markdown(),
        ),
    ]
}

#[test]
fn readme_marker_reference_is_the_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let mut readme = std::fs::read_to_string(&path).expect("README.md is readable");
    let mut stale = Vec::new();
    for (name, generated) in sections() {
        let begin_line = format!("<!-- BEGIN generated {name}");
        let end_line = format!("<!-- END generated {name} -->");
        let begin = readme
            .find(&begin_line)
            .unwrap_or_else(|| panic!("README has no {begin_line:?} line"));
        let body_start = begin + readme[begin..].find('\n').expect("BEGIN line ends") + 1;
        let end = readme
            .find(&end_line)
            .unwrap_or_else(|| panic!("README has no {end_line:?} line"));
        assert!(body_start <= end, "{name}: BEGIN comes before END");
        if readme[body_start..end] != generated {
            stale.push(format!("{name}:\n{generated}"));
            readme = format!("{}{generated}{}", &readme[..body_start], &readme[end..]);
        }
    }
    if stale.is_empty() {
        return;
    }
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, readme).expect("README.md is writable");
        return;
    }
    panic!(
        "README.md's generated tables are stale; run `UPDATE_GOLDEN=1 cargo test -p operator-gen --test readme`\n{}",
        stale.join("\n")
    );
}
