//! operator-gen's modules import one way: no module reaches, through its imports and paths,
//! a module that reaches it back; and the top-level modules import down the order of
//! [`LAYERS`], which is the pipeline's.
//!
//! The test reads the library's sources with syn (not the compiler's view of them): every
//! `use` and every path in non-test code that starts with `crate::`, `super::` or `self::`
//! (or, in a module that declares children, a child's name) is resolved to the module it
//! names, through the crate root's own imports and re-exports when it names an item of the
//! root (`crate::Location` is `place`'s). Macro arguments are read as tokens. Test code is
//! left out: items under `#[cfg(test)]` and the files `tests.rs` and `tests/`. Doc comments
//! are not read: a link in one is no import.
//!
//! A reference from module `a::b::c` to `a::d::e` is an edge `b → d` among the children of
//! `a`; a reference to a module's own ancestor (a `super::Item` of its parent) is no edge.
//! So the check runs at every level: the top-level modules among themselves, and the
//! submodules of each folder among themselves. A strongly connected component of more than
//! one module at any level fails the test, listing its modules and one reference (file,
//! line, path) for every edge inside it. At the top level, an edge from a module to one
//! listed after it in [`LAYERS`] fails too, with its reference.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// A module's path below the crate root (`[]` is the root).
type ModPath = Vec<String>;

/// The sources read: the crate's own, or the copy `MODULE_GRAPH_SRC` names (to look at
/// another state of them, such as an older commit's).
fn src_dir() -> PathBuf {
    match std::env::var_os("MODULE_GRAPH_SRC") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
    }
}

/// The library's source files (not the binary's `main.rs`, not test files), each with the
/// module it is.
fn library_files() -> Vec<(PathBuf, ModPath)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                if name != "tests" {
                    walk(&path, out);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" {
                out.push(path);
            }
        }
    }
    let root = src_dir();
    let mut files = Vec::new();
    walk(&root, &mut files);
    files
        .into_iter()
        .filter_map(|path| {
            let relative = path.strip_prefix(&root).expect("below src").to_path_buf();
            let mut parts: Vec<String> = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let last = parts.pop().expect("a file name");
            let stem = last.trim_end_matches(".rs").to_string();
            if parts.is_empty() && stem == "main" {
                return None;
            }
            if !(parts.is_empty() && stem == "lib") && stem != "mod" {
                parts.push(stem);
            }
            Some((relative, parts))
        })
        .collect()
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        if !attr.path().is_ident("cfg") {
            return false;
        }
        let Ok(list) = attr.meta.require_list() else {
            return false;
        };
        let idents = idents_in(list.tokens.clone());
        idents.iter().any(|i| i == "test") && !idents.iter().any(|i| i == "not")
    })
}

fn idents_in(tokens: TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    for tree in tokens {
        match tree {
            TokenTree::Ident(ident) => out.push(ident.to_string()),
            TokenTree::Group(group) => out.extend(idents_in(group.stream())),
            _ => {}
        }
    }
    out
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item;
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The inline modules (`mod name { ... }`) of non-test code, below `at`.
fn inline_modules(items: &[syn::Item], at: &ModPath, out: &mut BTreeSet<ModPath>) {
    for item in items {
        if let syn::Item::Mod(m) = item
            && !is_test_only(&m.attrs)
            && let Some((_, content)) = &m.content
        {
            let mut path = at.clone();
            path.push(m.ident.to_string());
            out.insert(path.clone());
            inline_modules(content, &path, out);
        }
    }
}

/// A path as written, before resolution.
struct Written {
    segments: Vec<String>,
    line: usize,
    text: String,
}

/// Every path of non-test code in one file, with the module it is written in.
struct Collector {
    module: ModPath,
    found: Vec<(ModPath, Written)>,
}

impl Collector {
    fn add(&mut self, segments: Vec<String>, line: usize, text: String) {
        self.found.push((
            self.module.clone(),
            Written {
                segments,
                line,
                text,
            },
        ));
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, line: usize) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree, line);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut segments = prefix.clone();
                if n.ident != "self" {
                    segments.push(n.ident.to_string());
                }
                let text = format!("use {}", segments.join("::"));
                self.add(segments, line, text);
            }
            syn::UseTree::Rename(r) => {
                let mut segments = prefix.clone();
                if r.ident != "self" {
                    segments.push(r.ident.to_string());
                }
                let text = format!("use {} as {}", segments.join("::"), r.rename);
                self.add(segments, line, text);
            }
            syn::UseTree::Glob(_) => {
                let text = format!("use {}::*", prefix.join("::"));
                self.add(prefix.clone(), line, text);
            }
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(prefix, tree, line);
                }
            }
        }
    }

    /// `crate::a::b` and `super::a` in a macro's tokens.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            if let TokenTree::Group(group) = &trees[i] {
                self.tokens(group.stream());
                i += 1;
                continue;
            }
            let starts = matches!(&trees[i], TokenTree::Ident(id) if id == "crate" || id == "super")
                && !(i >= 1 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == ':'));
            if !starts {
                i += 1;
                continue;
            }
            let TokenTree::Ident(first) = &trees[i] else {
                unreachable!()
            };
            let line = first.span().start().line;
            let mut segments = vec![first.to_string()];
            let mut j = i + 1;
            while j + 2 < trees.len()
                && matches!(&trees[j], TokenTree::Punct(p) if p.as_char() == ':')
                && matches!(&trees[j + 1], TokenTree::Punct(p) if p.as_char() == ':')
            {
                let TokenTree::Ident(next) = &trees[j + 2] else {
                    break;
                };
                segments.push(next.to_string());
                j += 3;
            }
            let text = segments.join("::");
            self.add(segments, line, text);
            i = j;
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if is_test_only(item_attrs(item)) {
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if let Some((_, content)) = &m.content {
            self.module.push(m.ident.to_string());
            for item in content {
                self.visit_item(item);
            }
            self.module.pop();
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test_only(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if u.leading_colon.is_some() {
            return;
        }
        let line = u.use_token.span.start().line;
        self.use_tree(&mut Vec::new(), &u.tree, line);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none()
            && let Some(first) = path.segments.first()
        {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            let text = segments.join("::");
            self.add(segments, first.ident.span().start().line, text);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        self.tokens(mac.tokens.clone());
    }
}

/// One reference from a module to another: where it is written and what.
#[derive(Clone)]
struct Evidence {
    file: PathBuf,
    line: usize,
    text: String,
}

/// The crate's module graph: for each parent module, the edges among its children, each
/// with the first reference found that makes it.
struct Graph {
    levels: BTreeMap<ModPath, BTreeMap<(String, String), Evidence>>,
    /// Every module of the crate.
    modules: BTreeSet<ModPath>,
}

fn module_graph() -> Graph {
    let files = library_files();
    let mut parsed = Vec::new();
    let mut modules: BTreeSet<ModPath> = BTreeSet::new();
    for (relative, module) in &files {
        let text = std::fs::read_to_string(src_dir().join(relative))
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", relative.display()));
        let file = syn::parse_file(&text)
            .unwrap_or_else(|e| panic!("cannot parse {}: {e}", relative.display()));
        modules.insert(module.clone());
        inline_modules(&file.items, module, &mut modules);
        parsed.push((relative.clone(), module.clone(), file));
    }

    // The names the crate root brings into scope with `use`: `crate::Location` is
    // `crate::place::Location`.
    let mut root_aliases: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (_, module, file) in &parsed {
        if !module.is_empty() {
            continue;
        }
        let mut collector = Collector {
            module: Vec::new(),
            found: Vec::new(),
        };
        for item in &file.items {
            if let syn::Item::Use(u) = item
                && !is_test_only(&u.attrs)
            {
                collector.visit_item_use(u);
            }
        }
        for (_, written) in collector.found {
            if let Some(last) = written.segments.last() {
                let name = match written.text.rsplit_once(" as ") {
                    Some((_, rename)) => rename.to_string(),
                    None => last.clone(),
                };
                let mut target = written.segments.clone();
                if target.first().map(String::as_str) == Some("crate") {
                    target.remove(0);
                }
                if modules.contains(&vec![target[0].clone()])
                    && !modules.contains(&vec![name.clone()])
                {
                    root_aliases.insert(name, target);
                }
            }
        }
    }

    let mut levels: BTreeMap<ModPath, BTreeMap<(String, String), Evidence>> = BTreeMap::new();
    for (relative, module, file) in &parsed {
        let mut collector = Collector {
            module: module.clone(),
            found: Vec::new(),
        };
        for item in &file.items {
            collector.visit_item(item);
        }
        for (from, written) in collector.found {
            let Some(mut target) = resolve(&from, &written.segments, &modules) else {
                continue;
            };
            if let Some(first) = target.first()
                && !modules.contains(&vec![first.clone()])
                && let Some(alias) = root_aliases.get(first)
            {
                let mut resolved = alias.clone();
                resolved.extend(target.drain(1..));
                target = resolved;
            }
            // The module the path names: its longest prefix that is a module.
            let to = (0..=target.len())
                .rev()
                .map(|n| target[..n].to_vec())
                .find(|prefix| modules.contains(prefix))
                .unwrap_or_default();
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common < from.len() && common < to.len() {
                levels
                    .entry(from[..common].to_vec())
                    .or_default()
                    .entry((from[common].clone(), to[common].clone()))
                    .or_insert(Evidence {
                        file: Path::new("src").join(relative),
                        line: written.line,
                        text: written.text,
                    });
            }
        }
    }
    Graph { levels, modules }
}

/// The absolute path (below the crate root) a path written in module `at` names, if it names
/// something of this crate.
fn resolve(at: &ModPath, segments: &[String], modules: &BTreeSet<ModPath>) -> Option<Vec<String>> {
    let first = segments.first()?;
    match first.as_str() {
        "crate" => Some(segments[1..].to_vec()),
        "self" => {
            let mut out = at.clone();
            out.extend_from_slice(&segments[1..]);
            Some(out)
        }
        "super" => {
            let mut out = at.clone();
            let mut rest = segments;
            while rest.first().map(String::as_str) == Some("super") {
                out.pop()?;
                rest = &rest[1..];
            }
            out.extend_from_slice(rest);
            Some(out)
        }
        _ => {
            // A child module's name, in scope where it is declared.
            let mut child = at.clone();
            child.push(first.clone());
            if modules.contains(&child) {
                let mut out = at.clone();
                out.extend_from_slice(segments);
                Some(out)
            } else {
                None
            }
        }
    }
}

/// The strongly connected components of a graph (Tarjan), each sorted.
fn components(edges: &BTreeMap<(String, String), Evidence>) -> Vec<Vec<String>> {
    let mut nodes: BTreeSet<&str> = BTreeSet::new();
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        nodes.insert(a);
        nodes.insert(b);
        next.entry(a).or_default().push(b);
    }
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn connect<'a>(v: &'a str, next: &BTreeMap<&'a str, Vec<&'a str>>, s: &mut State<'a>) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in next.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                connect(w, next, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().expect("v is on the stack");
                s.on_stack.remove(w);
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            component.sort();
            s.out.push(component);
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for &v in &nodes {
        if !state.index.contains_key(v) {
            connect(v, &next, &mut state);
        }
    }
    state.out.sort();
    state.out
}

/// The circles among the children of the parents `select` picks, described.
fn circles(select: impl Fn(&ModPath) -> bool) -> String {
    let graph = module_graph();
    let mut report = String::new();
    for (parent, edges) in &graph.levels {
        if !select(parent) {
            continue;
        }
        let prefix = if parent.is_empty() {
            String::new()
        } else {
            format!("{}::", parent.join("::"))
        };
        for component in components(edges) {
            if component.len() < 2 {
                continue;
            }
            let named: Vec<String> = component.iter().map(|m| format!("{prefix}{m}")).collect();
            let _ = writeln!(
                report,
                "\na circle of {} modules: {}",
                component.len(),
                named.join(", ")
            );
            for ((a, b), evidence) in edges {
                if component.contains(a) && component.contains(b) {
                    let _ = writeln!(
                        report,
                        "  {prefix}{a} -> {prefix}{b}: {}:{}: {}",
                        evidence.file.display(),
                        evidence.line,
                        evidence.text
                    );
                }
            }
        }
    }
    report
}

#[test]
fn top_level_modules_import_one_way() {
    let report = circles(|parent| parent.is_empty());
    assert!(
        report.is_empty(),
        "operator-gen's top-level modules import each other in circles (break each circle \
         by moving what both sides need below them, or by turning the back edge around):\n{report}"
    );
}

#[test]
fn submodules_import_one_way() {
    let report = circles(|parent| !parent.is_empty());
    assert!(
        report.is_empty(),
        "submodules of one folder import each other in circles:\n{report}"
    );
}

/// The top-level modules, lowest first: each imports only modules listed before it. The
/// data goes source → lower → schema → crd → generators → sink; the model is below the
/// lowering that writes it and the schema building that reads it, and rendering is below
/// the generators that render their objects. A new module gets its line here.
const LAYERS: &[&str] = &[
    // Below every stage: problems, places, the API server's types, fixed tables.
    "diagnostics",
    "place",
    "api",
    "known_types",
    "plural",
    "threads",
    // The marker grammar, which operator-derive shares, and the doc comments it reads.
    "markers",
    "docs",
    // The stages. Source files: parsed, indexed, serde's reading of the types.
    "bodies",
    "source",
    "serde_attrs",
    // What the lowering makes of them, and the lowering.
    "model",
    "lower",
    // CEL, beside schema building, which compiles every rule with it.
    "cel",
    "schema",
    "crd",
    "render",
    "generators",
    "sink",
    // Beside the stages: the gates judge what they made.
    "gates",
    // The drivers, which call the stages in order: the generator's, and the derive's
    // schemas of single types.
    "pipeline",
    "type_schemas",
    // The other way round: Rust types from CRDs, read back by the pipeline.
    "types_from_crd",
    // What callers outside the crate import (re-exports only): the files, and what the
    // workspace's other crates reuse of the stages.
    "output",
    "internals",
];

/// The edges among the top-level modules that run against [`LAYERS`], described; and the
/// modules the list leaves out or names wrongly.
fn against_the_order(
    edges: &BTreeMap<(String, String), Evidence>,
    modules: &BTreeSet<String>,
) -> String {
    let position = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut report = String::new();
    for m in modules {
        if position(m).is_none() {
            let _ = writeln!(
                report,
                "
{m} is not in LAYERS: give it its place in the order"
            );
        }
    }
    for l in LAYERS {
        if !modules.contains(*l) {
            let _ = writeln!(
                report,
                "
{l} is in LAYERS but is no module of the crate"
            );
        }
    }
    for ((a, b), evidence) in edges {
        if let (Some(from), Some(to)) = (position(a), position(b))
            && to > from
        {
            let _ = writeln!(
                report,
                "
{a} imports {b}, which comes after it in LAYERS: {}:{}: {}",
                evidence.file.display(),
                evidence.line,
                evidence.text
            );
        }
    }
    report
}

#[test]
fn top_level_modules_import_down_the_pipeline() {
    let graph = module_graph();
    let top: BTreeSet<String> = graph
        .modules
        .iter()
        .filter(|m| m.len() == 1)
        .map(|m| m[0].clone())
        .collect();
    let no_edges = BTreeMap::new();
    let edges = graph.levels.get(&Vec::new()).unwrap_or(&no_edges);
    let report = against_the_order(edges, &top);
    assert!(
        report.is_empty(),
        "operator-gen's top-level modules import against the pipeline's order (move what the \
         lower module needs down to it, or below both):\n{report}"
    );
}

/// The check itself: a made-up graph with a circle is found, one without is not.
#[test]
fn circles_are_found() {
    let evidence = Evidence {
        file: PathBuf::from("src/x.rs"),
        line: 1,
        text: String::new(),
    };
    let edges = |pairs: &[(&str, &str)]| -> BTreeMap<(String, String), Evidence> {
        pairs
            .iter()
            .map(|(a, b)| ((a.to_string(), b.to_string()), evidence.clone()))
            .collect()
    };
    let cyclic = components(&edges(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]));
    assert!(cyclic.contains(&vec!["a".into(), "b".into(), "c".into()]));
    let acyclic = components(&edges(&[("a", "b"), ("b", "c"), ("a", "c")]));
    assert!(acyclic.iter().all(|c| c.len() == 1));
    let modules: BTreeSet<ModPath> = [vec!["schema".into()], vec!["schema".into(), "types".into()]]
        .into_iter()
        .collect();
    let at = vec!["schema".to_string(), "apply".to_string()];
    assert_eq!(
        resolve(
            &at,
            &["super".into(), "types".into(), "Wire".into()],
            &modules
        ),
        Some(vec!["schema".into(), "types".into(), "Wire".into()])
    );
    assert_eq!(
        resolve(
            &vec!["schema".to_string()],
            &["types".into(), "Wire".into()],
            &modules
        ),
        Some(vec!["schema".into(), "types".into(), "Wire".into()])
    );
    assert_eq!(
        resolve(&at, &["serde".into(), "Deserialize".into()], &modules),
        None
    );
}

/// The order check itself: an edge down the order passes, one up it is found, and so are
/// modules the list leaves out.
#[test]
fn back_edges_are_found() {
    let evidence = Evidence {
        file: PathBuf::from("src/lower.rs"),
        line: 9,
        text: "use crate::generators::Reads".into(),
    };
    let edge =
        |a: &str, b: &str| BTreeMap::from([((a.to_string(), b.to_string()), evidence.clone())]);
    let all: BTreeSet<String> = LAYERS.iter().map(|l| l.to_string()).collect();
    assert_eq!(against_the_order(&edge("schema", "model"), &all), "");
    let back = against_the_order(&edge("lower", "generators"), &all);
    assert!(
        back.contains("lower imports generators, which comes after it in LAYERS: src/lower.rs:9"),
        "{back}"
    );
    let mut more = all.clone();
    more.insert("extra".into());
    assert!(against_the_order(&BTreeMap::new(), &more).contains("extra is not in LAYERS"));
}
