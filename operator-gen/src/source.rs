//! Stage one of the pipeline: find the Rust files, parse them with syn, and index what the
//! later stages need: type declarations by module, `use` imports, and `#[rbac]` markers.
//! This module and `markers` are the only ones that touch syn's syntax tree.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::Error;

/// One parsed source file.
#[derive(Debug)]
pub struct SourceFile {
    /// The path as given or found (used in error messages).
    pub path: PathBuf,
    pub text: String,
    pub ast: syn::File,
    /// Module path of the file inside its crate (`["api", "v1alpha1"]`).
    pub module: Vec<String>,
}

/// Reads and parses every `.rs` file under `paths` (files are taken as they are), in a
/// fixed order. Syntax errors are reported with their location; nothing is half-read.
pub fn load(paths: &[PathBuf]) -> Result<Vec<SourceFile>, Error> {
    let mut files = rust_files(paths)?;
    files.dedup_by(|a, b| a.0 == b.0);
    let mut parsed = Vec::with_capacity(files.len());
    let mut syntax_errors = Vec::new();
    for (path, root) in files {
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        match parse_text(&path, &root, text) {
            Ok(file) => parsed.push(file),
            Err(located) => syntax_errors.push(located),
        }
    }
    if !syntax_errors.is_empty() {
        return Err(Error::Invalid(syntax_errors));
    }
    Ok(parsed)
}

/// The `.rs` files under `paths` (files are taken as they are), sorted within each
/// directory, each with the root its module path is relative to.
pub fn rust_files(paths: &[PathBuf]) -> Result<Vec<(PathBuf, PathBuf)>, Error> {
    let mut files = Vec::new();
    for root in paths {
        if root.is_file() {
            files.push((
                root.clone(),
                root.parent().map(Path::to_path_buf).unwrap_or_default(),
            ));
        } else if root.is_dir() {
            let mut found = Vec::new();
            walk(root, &mut found).map_err(|source| Error::Io {
                path: root.clone(),
                source,
            })?;
            found.sort();
            files.extend(found.into_iter().map(|f| (f, root.clone())));
        } else {
            return Err(Error::Io {
                path: root.clone(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no such file or directory",
                ),
            });
        }
    }
    Ok(files)
}

/// Parses one file's text; `root` is the directory its module path is relative to.
pub fn parse_text(
    path: &Path,
    root: &Path,
    text: String,
) -> Result<SourceFile, crate::LocatedError> {
    match syn::parse_file(&text) {
        Ok(ast) => Ok(SourceFile {
            module: module_path(path, root),
            path: path.to_path_buf(),
            ast,
            text,
        }),
        Err(err) => {
            let start = err.span().start();
            Err(crate::LocatedError {
                file: path.to_path_buf(),
                line: start.line,
                column: start.column + 1,
                message: format!("Rust syntax error: {err}"),
                snippet: text
                    .lines()
                    .nth(start.line.saturating_sub(1))
                    .map(String::from),
                highlight: (start.column, err.span().end().column.max(start.column + 1)),
            })
        }
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if entry.file_type()?.is_dir() {
            if name.starts_with('.') || name == "target" {
                continue;
            }
            walk(&path, out)?;
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// `src/api/v1alpha1.rs` → `api::v1alpha1`; `lib.rs`, `main.rs` and `mod.rs` name their directory.
fn module_path(path: &Path, root: &Path) -> Vec<String> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "src") && parts.len() > 1 {
        parts.remove(0);
    }
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        let is_dir_module =
            matches!(stem, "mod" | "lib" | "main") || (parts.is_empty() && stem == "build");
        if !is_dir_module {
            parts.push(stem.to_string());
        }
    }
    parts.retain(|p| p != "bin" && p != "examples");
    parts
}

/// A struct, enum or type alias found in the sources.
#[derive(Debug, Clone, Copy)]
pub enum TypeItem<'a> {
    Struct(&'a syn::ItemStruct),
    Enum(&'a syn::ItemEnum),
    Alias(&'a syn::ItemType),
}

impl<'a> TypeItem<'a> {
    pub fn attrs(&self) -> &'a [syn::Attribute] {
        match self {
            TypeItem::Struct(s) => &s.attrs,
            TypeItem::Enum(e) => &e.attrs,
            TypeItem::Alias(t) => &t.attrs,
        }
    }

    pub fn ident(&self) -> &'a syn::Ident {
        match self {
            TypeItem::Struct(s) => &s.ident,
            TypeItem::Enum(e) => &e.ident,
            TypeItem::Alias(t) => &t.ident,
        }
    }

    pub fn generics(&self) -> &'a syn::Generics {
        match self {
            TypeItem::Struct(s) => &s.generics,
            TypeItem::Enum(e) => &e.generics,
            TypeItem::Alias(t) => &t.generics,
        }
    }
}

/// A declared type together with where it lives.
#[derive(Debug, Clone)]
pub struct TypeDecl<'a> {
    pub item: TypeItem<'a>,
    pub module: Vec<String>,
    pub file: &'a SourceFile,
}

impl TypeDecl<'_> {
    pub fn name(&self) -> String {
        self.item.ident().to_string()
    }
}

/// An attribute that carries an `#[rbac]` marker, with its file.
#[derive(Debug, Clone, Copy)]
pub struct RbacSite<'a> {
    pub attr: &'a syn::Attribute,
    pub file: &'a SourceFile,
}

/// Everything found in the sources, indexed for name resolution.
#[derive(Debug, Default)]
pub struct Index<'a> {
    pub decls: Vec<TypeDecl<'a>>,
    /// (module, name) → decl id.
    by_path: BTreeMap<(Vec<String>, String), usize>,
    /// name → decl ids, for crate-wide lookup.
    by_name: BTreeMap<String, Vec<usize>>,
    /// module → imported name → full path.
    uses: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>,
    /// module → glob-imported module paths.
    globs: BTreeMap<Vec<String>, Vec<Vec<String>>>,
    pub rbac: Vec<RbacSite<'a>>,
}

/// What a type path in the sources refers to.
#[derive(Debug, Clone)]
pub enum Resolved {
    /// A type of the scanned sources, by its id in `Index::decls`.
    Local(usize),
    /// A type from another crate, by its full path as far as the imports tell.
    External(Vec<String>),
    /// Several scanned types share the name and the imports do not say which one is meant.
    Ambiguous(Vec<usize>),
}

impl<'a> Index<'a> {
    pub fn build(files: &'a [SourceFile]) -> Self {
        let mut index = Index::default();
        // Module paths are collected first so decls can borrow them for the index's lifetime.
        let mut pending: Vec<(usize, Vec<String>, TypeItem<'a>)> = Vec::new();
        for (file_no, file) in files.iter().enumerate() {
            index.collect_items(file_no, &file.module, &file.ast.items, &mut pending);
        }
        for (file_no, module, item) in pending {
            let id = index.decls.len();
            let decl = TypeDecl {
                item,
                module,
                file: &files[file_no],
            };
            index.by_path.insert((decl.module.clone(), decl.name()), id);
            index.by_name.entry(decl.name()).or_default().push(id);
            index.decls.push(decl);
        }
        for file in files {
            index.collect_rbac(file, &file.ast.items);
        }
        index
    }

    fn collect_items(
        &mut self,
        file_no: usize,
        module: &[String],
        items: &'a [syn::Item],
        pending: &mut Vec<(usize, Vec<String>, TypeItem<'a>)>,
    ) {
        for item in items {
            match item {
                syn::Item::Struct(s) => {
                    pending.push((file_no, module.to_vec(), TypeItem::Struct(s)))
                }
                syn::Item::Enum(e) => pending.push((file_no, module.to_vec(), TypeItem::Enum(e))),
                syn::Item::Type(t) => pending.push((file_no, module.to_vec(), TypeItem::Alias(t))),
                syn::Item::Use(u) => {
                    let mut prefix = Vec::new();
                    self.collect_use(module, &u.tree, &mut prefix);
                }
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        let mut sub = module.to_vec();
                        sub.push(m.ident.to_string());
                        self.collect_items(file_no, &sub, inner, pending);
                    }
                }
                _ => {}
            }
        }
    }

    fn collect_use(&mut self, module: &[String], tree: &syn::UseTree, prefix: &mut Vec<String>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.collect_use(module, &p.tree, prefix);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                full.push(n.ident.to_string());
                self.uses
                    .entry(module.to_vec())
                    .or_default()
                    .insert(n.ident.to_string(), full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                full.push(r.ident.to_string());
                self.uses
                    .entry(module.to_vec())
                    .or_default()
                    .insert(r.rename.to_string(), full);
            }
            syn::UseTree::Glob(_) => {
                self.globs
                    .entry(module.to_vec())
                    .or_default()
                    .push(prefix.clone());
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.collect_use(module, t, prefix);
                }
            }
        }
    }

    fn collect_rbac(&mut self, file: &'a SourceFile, items: &'a [syn::Item]) {
        fn take<'a>(
            out: &mut Vec<RbacSite<'a>>,
            file: &'a SourceFile,
            attrs: &'a [syn::Attribute],
        ) {
            for attr in attrs {
                if crate::markers::marker_name(attr) == Some(crate::markers::RBAC) {
                    out.push(RbacSite { attr, file });
                }
            }
        }
        for item in items {
            match item {
                syn::Item::Fn(f) => take(&mut self.rbac, file, &f.attrs),
                syn::Item::Impl(i) => {
                    take(&mut self.rbac, file, &i.attrs);
                    for it in &i.items {
                        if let syn::ImplItem::Fn(f) = it {
                            take(&mut self.rbac, file, &f.attrs);
                        }
                    }
                }
                syn::Item::Mod(m) => {
                    take(&mut self.rbac, file, &m.attrs);
                    if let Some((_, inner)) = &m.content {
                        self.collect_rbac(file, inner);
                    }
                }
                syn::Item::Struct(s) => take(&mut self.rbac, file, &s.attrs),
                _ => {}
            }
        }
    }

    /// Resolves a type path written in `module`.
    pub fn resolve(&self, module: &[String], path: &syn::Path) -> Resolved {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.resolve_segments(module, &segs, path.leading_colon.is_some(), 0)
    }

    fn resolve_segments(
        &self,
        module: &[String],
        segs: &[String],
        absolute: bool,
        depth: usize,
    ) -> Resolved {
        if depth > 8 || segs.is_empty() {
            return Resolved::External(segs.to_vec());
        }
        if absolute {
            return Resolved::External(segs.to_vec());
        }
        let name = segs.last().expect("non-empty").clone();
        let head = segs[0].as_str();
        // Paths that start at the crate root or move relative to the current module.
        let base: Option<Vec<String>> = match head {
            "crate" => Some(Vec::new()),
            "self" => Some(module.to_vec()),
            "super" => {
                let mut m = module.to_vec();
                let mut rest = segs;
                while rest.first().is_some_and(|s| s == "super") {
                    m.pop();
                    rest = &rest[1..];
                }
                let mut full: Vec<String> = vec!["crate".into()];
                full.extend(m);
                full.extend(rest.iter().cloned());
                return self.resolve_segments(module, &full, false, depth + 1);
            }
            _ => None,
        };
        if let Some(mut base) = base {
            base.extend(segs[1..segs.len() - 1].iter().cloned());
            return match self.lookup(&base, &name) {
                Some(decl) => Resolved::Local(decl),
                None => Resolved::External(segs.to_vec()),
            };
        }
        if segs.len() == 1 {
            if let Some(decl) = self.lookup(module, &name) {
                return Resolved::Local(decl);
            }
            if let Some(full) = self.uses.get(module).and_then(|u| u.get(&name)) {
                return self.resolve_import(module, full, depth);
            }
            for glob in self.globs.get(module).into_iter().flatten() {
                if let Some(decl) = self.glob_lookup(module, glob, &name) {
                    return Resolved::Local(decl);
                }
            }
            return match self.by_name.get(&name).map(Vec::as_slice) {
                Some([only]) => Resolved::Local(*only),
                Some(many) if many.len() > 1 => Resolved::Ambiguous(many.to_vec()),
                _ => Resolved::External(segs.to_vec()),
            };
        }
        // `a::b::Name`: `a` may be an import alias or a child module.
        if let Some(full) = self.uses.get(module).and_then(|u| u.get(head)) {
            let mut expanded = full.clone();
            expanded.extend(segs[1..].iter().cloned());
            return self.resolve_import(module, &expanded, depth);
        }
        let mut child = module.to_vec();
        child.extend(segs[..segs.len() - 1].iter().cloned());
        if let Some(decl) = self.lookup(&child, &name) {
            return Resolved::Local(decl);
        }
        Resolved::External(segs.to_vec())
    }

    fn resolve_import(&self, module: &[String], full: &[String], depth: usize) -> Resolved {
        match full.first().map(String::as_str) {
            Some("crate" | "self" | "super") => {
                self.resolve_segments(module, full, false, depth + 1)
            }
            _ => {
                // `use my_crate_module::Type` without `crate::` (2015-style or a child module).
                let mut child = module.to_vec();
                child.extend(full[..full.len() - 1].iter().cloned());
                if let Some(decl) = self.lookup(&child, full.last().expect("non-empty")) {
                    return Resolved::Local(decl);
                }
                Resolved::External(full.to_vec())
            }
        }
    }

    fn glob_lookup(&self, module: &[String], glob: &[String], name: &str) -> Option<usize> {
        let target: Vec<String> = match glob.first().map(String::as_str) {
            Some("crate") => glob[1..].to_vec(),
            Some("self") => {
                let mut m = module.to_vec();
                m.extend(glob[1..].iter().cloned());
                m
            }
            Some("super") => {
                let mut m = module.to_vec();
                let mut rest = glob;
                while rest.first().is_some_and(|s| s == "super") {
                    m.pop();
                    rest = &rest[1..];
                }
                m.extend(rest.iter().cloned());
                m
            }
            _ => return None,
        };
        self.lookup(&target, name)
    }

    fn lookup(&self, module: &[String], name: &str) -> Option<usize> {
        self.by_path
            .get(&(module.to_vec(), name.to_string()))
            .copied()
    }
}
