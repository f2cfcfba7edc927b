//! The body scan's tests: tokens and spans outside bodies unchanged, bodies blanked, and
//! every trap (strings, chars, lifetimes, raw strings, nested comments) handled.

use proc_macro2::{TokenStream, TokenTree};

use super::blank_fn_bodies;

/// Every token with its kind, text and line:column span, groups opened and closed.
fn shape(tokens: TokenStream, out: &mut Vec<String>) {
    for tt in tokens {
        let span = |s: proc_macro2::Span| {
            let (a, b) = (s.start(), s.end());
            format!("{}:{}-{}:{}", a.line, a.column, b.line, b.column)
        };
        match tt {
            TokenTree::Group(g) => {
                out.push(format!("open {:?} {}", g.delimiter(), span(g.span())));
                shape(g.stream(), out);
                out.push("close".into());
            }
            TokenTree::Ident(i) => out.push(format!("ident {i} {}", span(i.span()))),
            TokenTree::Punct(p) => out.push(format!(
                "punct {} {:?} {}",
                p.as_char(),
                p.spacing(),
                span(p.span())
            )),
            TokenTree::Literal(l) => out.push(format!("literal {l} {}", span(l.span()))),
        }
    }
}

/// What syn gets from `text`: its tokens with bodies emptied, as [`shape`] lists them.
fn items(text: &str) -> Result<Vec<String>, String> {
    let tokens: TokenStream = text.parse().map_err(|e| format!("{e:?}"))?;
    let mut out = Vec::new();
    shape(crate::source::without_fn_bodies(tokens), &mut out);
    Ok(out)
}

/// Checks that blanking `text` changes nothing syn gets; returns whether it blanked.
pub(crate) fn check(text: &str) -> Result<bool, String> {
    let Some(blanked) = blank_fn_bodies(text) else {
        return Ok(false);
    };
    if blanked.lines().count() != text.lines().count() {
        return Err("line count changed".into());
    }
    let Ok(original) = items(text) else {
        // Text the lexer refuses: the generator reports its syntax error either way.
        return Ok(true);
    };
    let after = items(&blanked)?;
    if original != after {
        let at = original
            .iter()
            .zip(&after)
            .position(|(a, b)| a != b)
            .unwrap_or(original.len().min(after.len()));
        return Err(format!(
            "differs at token {at}: {:?} vs {:?}",
            original.get(at),
            after.get(at)
        ));
    }
    Ok(true)
}

#[test]
fn bodies_are_blanked_where_the_token_pass_empties_them_and_nowhere_else() {
    let text = r####"
//! Crate docs with a brace { and a quote ".
#![allow(unused)]
/// A doc with `fn hidden() { }` in it.
pub fn plain(x: i32) -> i32 { let s = "}"; let c = '}'; let r = r#"}"#; x + 1 }
pub fn generic<'a, T: Fn(&'a str) -> bool>(f: T) -> impl Fn() + 'a where T: 'a {
'outer: loop { break 'outer; }
let _ = b'{'; let _ = b"{"; let _ = br##"}"##; let _ = c"}"; let _ = '\''; let _ = '\u{7d}';
/* nested /* } */ { */ move || {}
}
pub struct S { pub f: fn(i32) -> i32, pub g: [u8; { 4 }] }
impl S {
/// Method docs.
#[rbac(groups = "apps", resources = "deployments", verbs = "get")]
pub async fn method(&self) -> Result<(), ()> { if true { Ok(()) } else { Err(()) } }
const C: usize = { fn inner() {} 3 };
}
trait T { fn required(&self); fn provided(&self) { let é = "ünï"; } }
mod m { fn nested() { let x = 1; } pub mod deeper { pub fn f() { loop {} } } }
extern "C" { fn external(x: i32); }
macro_rules! m { () => { fn made() { 1 } }; }
const F: fn() = { fn local() {} local };
fn r#type() { r#match() }
fn unicode_ñame() { "ü" }
static X: &str = "fn fake() { }";
fn last() { /* unterminated? no */ }
"####;
    assert_eq!(check(text), Ok(true));
    let blanked = blank_fn_bodies(text).unwrap();
    for kept in [
        "pub struct S { pub f: fn(i32) -> i32, pub g: [u8; { 4 }] }",
        "const C: usize = { fn inner() {} 3 };",
        "macro_rules! m { () => { fn made() { 1 } }; }",
        "const F: fn() = { fn local() {} local };",
        "static X: &str = \"fn fake() { }\";",
        "fn required(&self);",
    ] {
        assert!(blanked.contains(kept), "{kept} was changed:\n{blanked}");
    }
    for gone in [
        "x + 1",
        "'outer",
        "nested /*",
        "Ok(())",
        "let é",
        "let x = 1",
        "loop {}",
        "r#match",
        "\"ü\"",
    ] {
        assert!(
            !blanked.contains(gone),
            "{gone} was not blanked:\n{blanked}"
        );
    }
}

#[test]
fn files_without_function_bodies_are_not_scanned() {
    assert!(!super::has_bodies(
        "pub struct S { pub f: i32 }\npub fn empty() {}\nfn also() { }"
    ));
    assert!(!super::has_bodies("pub trait T { fn a(&self); }"));
    assert!(super::has_bodies("pub fn f() { 1 }"));
    assert!(super::has_bodies(
        "pub fn empty() {}\npub fn f() -> i32 {\n    1\n}"
    ));
}

#[test]
fn text_the_scan_does_not_understand_is_left_as_it_is() {
    for text in [
        "fn a() { \"unterminated }",
        "fn a() { /* unterminated }",
        "fn a() { ( }",
        "fn a() { } }",
        "struct S;",
        "fn a();",
    ] {
        assert_eq!(blank_fn_bodies(text), None, "{text}");
    }
}

#[test]
fn every_rust_file_of_the_workspace_reaches_syn_unchanged() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in [
        "operator-gen",
        "operator-derive",
        "memcached",
        "xtask",
        "envtest",
        "testdata",
    ] {
        files.extend(crate::source::rust_files(&[root.join(dir)]).unwrap());
    }
    let mut blanked = 0;
    for (path, _) in &files {
        let text = std::fs::read_to_string(path).unwrap();
        match check(&text) {
            Ok(b) => blanked += usize::from(b),
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    assert!(
        blanked > 50,
        "only {blanked} of {} files had bodies",
        files.len()
    );
}

/// The same check on a large body of real Rust: the sources of every registry package
/// `Cargo.lock` pins (what building this workspace downloaded into cargo's registry), so
/// the corpus is the same on every machine and moves only with the lock file; or the
/// directory named by `OPERATOR_GEN_CORPUS`. Checked on every core; about half a minute,
/// so `cargo xtask test` runs it and plain `cargo test` does not.
#[test]
#[ignore = "reads the sources of every package in Cargo.lock; run by cargo xtask test"]
fn corpus_reaches_syn_unchanged() {
    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let (roots, pinned) = match std::env::var_os("OPERATOR_GEN_CORPUS") {
        Some(dir) => (vec![std::path::PathBuf::from(dir)], None),
        None => {
            let (roots, pinned) = pinned_sources(&workspace);
            (roots, Some(pinned))
        }
    };
    if let Some(pinned) = pinned {
        // Packages for other platforms (windows-sys and the like) are never downloaded.
        assert!(
            roots.len() * 3 >= pinned * 2,
            "only {} of the {pinned} registry packages in Cargo.lock are in cargo's registry \
             (build the workspace first, or set OPERATOR_GEN_CORPUS)",
            roots.len()
        );
    }
    let files = crate::source::rust_files(&roots).unwrap();
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (blanked, mut failures) = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..workers)
            .map(|_| scope.spawn(|| check_files(&files, &next)))
            .collect();
        let mut all = (0, Vec::new());
        for worker in workers {
            let (blanked, failures) = worker.join().unwrap();
            all.0 += blanked;
            all.1.extend(failures);
        }
        all
    });
    failures.sort();
    eprintln!(
        "{} packages, {} files, {blanked} blanked, {} differ",
        roots.len(),
        files.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        blanked > 1000,
        "only {blanked} files with bodies in {roots:?}"
    );
}

/// Checks the files of `files` whose index `next` hands out, until none is left: how many
/// had bodies blanked, and the failures.
fn check_files(
    files: &[(std::path::PathBuf, std::path::PathBuf)],
    next: &std::sync::atomic::AtomicUsize,
) -> (usize, Vec<String>) {
    let (mut blanked, mut failures) = (0, Vec::new());
    while let Some((path, _)) = files.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed)) {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        match check(&text) {
            Ok(b) => blanked += usize::from(b),
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    (blanked, failures)
}

/// The source directories in cargo's registry of the registry packages `Cargo.lock` of
/// `workspace` pins, and how many such packages it names.
fn pinned_sources(workspace: &std::path::Path) -> (Vec<std::path::PathBuf>, usize) {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(std::env::var_os("HOME").expect("HOME")).join(".cargo")
        });
    let indexes: Vec<std::path::PathBuf> =
        std::fs::read_dir(cargo_home.join("registry").join("src"))
            .map(|dir| dir.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
    let lock: toml::Table = std::fs::read_to_string(workspace.join("Cargo.lock"))
        .unwrap()
        .parse()
        .unwrap();
    let mut pinned = 0;
    let mut roots = Vec::new();
    for package in lock["package"].as_array().unwrap() {
        let from_registry = package
            .get("source")
            .and_then(|s| s.as_str())
            .is_some_and(|s| s.starts_with("registry+"));
        if !from_registry {
            continue;
        }
        pinned += 1;
        let dir = format!(
            "{}-{}",
            package["name"].as_str().unwrap(),
            package["version"].as_str().unwrap()
        );
        if let Some(found) = indexes.iter().map(|i| i.join(&dir)).find(|d| d.is_dir()) {
            roots.push(found);
        }
    }
    (roots, pinned)
}
