//! The README's marker reference is made from the marker table: this test fails when they
//! differ, and `UPDATE_GOLDEN=1` rewrites the README's generated section.

use std::path::Path;

const BEGIN: &str = "<!-- BEGIN generated marker table";
const END: &str = "<!-- END generated marker table -->";

#[test]
fn readme_marker_reference_is_the_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md is readable");
    let begin = readme.find(BEGIN).expect("README has the BEGIN line");
    let body_start = begin + readme[begin..].find('\n').expect("BEGIN line ends") + 1;
    let end = readme.find(END).expect("README has the END line");
    assert!(body_start <= end, "BEGIN comes before END");
    let generated = operator_gen::markers::table::reference_markdown();
    if readme[body_start..end] == generated {
        return;
    }
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let updated = format!("{}{generated}{}", &readme[..body_start], &readme[end..]);
        std::fs::write(&path, updated).expect("README.md is writable");
        return;
    }
    panic!(
        "README.md's marker table is stale; run `UPDATE_GOLDEN=1 cargo test -p operator-gen --test readme`\n\
         generated:\n{generated}"
    );
}
