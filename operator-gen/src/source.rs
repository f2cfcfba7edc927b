//! Stage one of the pipeline: find the Rust files, parse them with syn, and index what the
//! later stages need: type declarations and value items (`static`, `const`,
//! `lazy_static!`) by module, `use` imports, and `#[rbac]` markers.
//! Syntax trees stay on the thread that parsed them (see `pipeline`); what crosses threads
//! is the [`Skeleton`], which resolves names without them.

use std::path::{Path, PathBuf};

use crate::Error;
use crate::diagnostics::Diagnostic;

mod nesting;
mod resolve;
mod values;

pub use nesting::{MAX_NESTING, check_nesting};
pub use resolve::{Resolved, Skeleton};
pub use values::{Value, ValueItem};

/// One parsed source file.
#[derive(Debug)]
pub struct SourceFile {
    /// The path as given or found (used in error messages).
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// Its syntax tree.
    pub ast: syn::File,
    /// Module path of the file inside its crate (`["api", "v1alpha1"]`).
    pub module: Vec<String>,
    /// Where each line starts in `text`, found on first use (for the excerpts of
    /// locations: a file with many markers would otherwise be scanned once per marker).
    line_starts: std::cell::OnceCell<Vec<usize>>,
}

impl SourceFile {
    /// Line `line` (1-based) of the text, without its line break.
    pub fn line(&self, line: usize) -> Option<&str> {
        let starts = self.line_starts.get_or_init(|| line_starts(&self.text));
        line_of(&self.text, starts, line)
    }
}

/// Where each line of `text` starts.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

/// Line `line` (1-based) of `text`, whose lines start at `starts`, without its line break.
fn line_of<'t>(text: &'t str, starts: &[usize], line: usize) -> Option<&'t str> {
    let start = *starts.get(line.checked_sub(1)?)?;
    let end = starts.get(line).map_or(text.len(), |next| next - 1);
    let text = &text[start..end];
    Some(text.strip_suffix('\r').unwrap_or(text))
}

/// A place in a parsed file: made here, where the syntax is, so that [`Location`] knows
/// nothing of files or trees.
impl crate::place::Location {
    /// Where `span` is in `file`.
    pub(crate) fn of(file: &SourceFile, span: proc_macro2::Span) -> Self {
        let loc = crate::place::Loc::of(0, span);
        Self::at(&file.path, file.line(loc.line as usize), loc)
    }
}

/// The inputs' texts, to turn the model's places ([`Loc`](crate::place::Loc)) into
/// messages with their excerpts, on any thread, without the syntax trees.
pub(crate) struct Sources<'a> {
    inputs: &'a [Input],
    /// Where each input's lines start, found on first use.
    lines: Vec<std::sync::OnceLock<Vec<usize>>>,
}

impl<'a> Sources<'a> {
    pub(crate) fn new(inputs: &'a [Input]) -> Self {
        Self {
            inputs,
            lines: inputs.iter().map(|_| std::sync::OnceLock::new()).collect(),
        }
    }

    /// `loc` as a place with its file's path and its line's text.
    pub(crate) fn location(&self, loc: crate::place::Loc) -> crate::place::Location {
        let input = &self.inputs[loc.file as usize];
        let starts = self.lines[loc.file as usize].get_or_init(|| line_starts(&input.text));
        let line = line_of(&input.text, starts, loc.line as usize);
        crate::place::Location::at(&input.path, line, loc)
    }

    /// The problems, placed.
    pub(crate) fn located(
        &self,
        problems: impl IntoIterator<Item = crate::diagnostics::Diagnostic<crate::place::Loc>>,
    ) -> Vec<crate::LocatedError> {
        problems
            .into_iter()
            .map(|p| p.map_at(|at| self.location(at)))
            .collect()
    }
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
            walk(root, &mut found).map_err(|(path, error)| Error::Io { path, error })?;
            found.sort();
            files.extend(found.into_iter().map(|f| (f, root.clone())));
        } else {
            return Err(Error::Io {
                path: root.clone(),
                error: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no such file or directory",
                ),
            });
        }
    }
    Ok(files)
}

/// Parses one file's text; `root` is the directory its module path is relative to.
// A syntax error ends the run: the size of the error does not matter on that path.
#[allow(clippy::result_large_err)]
pub fn parse_text(
    path: &Path,
    root: &Path,
    text: String,
) -> Result<SourceFile, crate::LocatedError> {
    match parse_items(&text) {
        Ok(ast) => Ok(SourceFile {
            line_starts: std::cell::OnceCell::new(),
            module: module_path(path, root),
            path: path.to_path_buf(),
            ast,
            text,
        }),
        Err(err) => Err(err.map_at(|span| {
            let loc = crate::place::Loc::of(0, span);
            let line = text.lines().nth((loc.line as usize).saturating_sub(1));
            crate::place::Location::at(path, line, loc)
        })),
    }
}

/// A syntax error, at its span.
fn syntax_error(err: syn::Error) -> Diagnostic {
    Diagnostic::new(
        err.span(),
        format!("Rust syntax error: {err}"),
        crate::Origin::Source,
    )
}

/// Parses a file as `syn::parse_file` does, except that function bodies are left out:
/// operator-gen reads items and their attributes, never statements, and in an operator's
/// crate the statements are most of the tokens. They are blanked in the text before lexing
/// (`bodies`) and emptied in the tokens after it. A body's syntax errors are the
/// compiler's to report. Nesting deeper than [`MAX_NESTING`] is refused before parsing.
pub fn parse_items(text: &str) -> Result<syn::File, Diagnostic> {
    let mut content = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut shebang = None;
    if content.starts_with("#!") && !content[2..].trim_start().starts_with('[') {
        let end = content.find('\n').unwrap_or(content.len());
        shebang = Some(content[..end].to_string());
        content = &content[end..];
    }
    // Bodies blanked in the text are not even lexed; the token pass below empties them in
    // any case, and it alone decides.
    let blanked = crate::bodies::blank_fn_bodies(content);
    let tokens: proc_macro2::TokenStream = blanked
        .as_deref()
        .unwrap_or(content)
        .parse()
        .map_err(|e: proc_macro2::LexError| {
            // proc-macro2 says only "cannot parse string into token stream".
            Diagnostic::new(
                e.span(),
                "Rust syntax error: the file does not split into tokens: a `(`, `[` or `{` that is never closed (or a closing one without its opening one), or a string, character or block comment that never ends",
                crate::Origin::Source,
            )
        })?;
    // The nesting is checked on syn's own buffer of the tokens, before syn parses them.
    let mut too_deep = None;
    let parsed = syn::parse::Parser::parse2(
        |input: syn::parse::ParseStream<'_>| {
            if let Err(found) = nesting::check_nesting_at(input.cursor(), MAX_NESTING) {
                too_deep = Some(found);
                // Take the rest, unread, so the parse ends here without an error of its own.
                input.parse::<proc_macro2::TokenStream>()?;
                return Ok(None);
            }
            input.parse::<syn::File>().map(Some)
        },
        without_fn_bodies(tokens),
    )
    .map_err(syntax_error)?;
    let Some(mut file) = parsed else {
        let (span, message) = too_deep.expect("set when nothing was parsed");
        return Err(Diagnostic::new(span, message, crate::Origin::Source));
    };
    file.shebang = shebang;
    Ok(file)
}

/// `tokens` with the body of every `fn name ...` item emptied (`{}`, with the body's span),
/// at this level and inside `impl`, `trait` and `mod` blocks.
pub(crate) fn without_fn_bodies(tokens: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    without_fn_bodies_in(tokens, 0)
}

/// [`without_fn_bodies`] at `depth` containers deep; past [`MAX_NESTING`] the tokens are left
/// as they are (the nesting check refuses them), so the recursion stays bounded.
fn without_fn_bodies_in(
    tokens: proc_macro2::TokenStream,
    depth: usize,
) -> proc_macro2::TokenStream {
    if depth > MAX_NESTING {
        return tokens;
    }
    use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
    #[derive(PartialEq)]
    enum Seen {
        Nothing,
        /// `fn`, waiting for the name (a fn pointer type has none).
        Fn,
        /// `fn name`: the next brace group is the body.
        NamedFn,
        /// `impl`, `trait` or `mod`: the next brace group holds items.
        Container,
    }
    let mut seen = Seen::Nothing;
    let mut out: Vec<TokenTree> = Vec::new();
    for tt in tokens {
        let tt = match tt {
            TokenTree::Ident(ident) => {
                seen = match seen {
                    Seen::Fn => Seen::NamedFn,
                    // `-> impl Trait` in a signature is not a container.
                    Seen::NamedFn => Seen::NamedFn,
                    _ if ident == "fn" => Seen::Fn,
                    _ if ident == "impl" || ident == "trait" || ident == "mod" => Seen::Container,
                    other => other,
                };
                TokenTree::Ident(ident)
            }
            TokenTree::Group(group) if group.delimiter() == Delimiter::Brace => {
                let stream = match seen {
                    Seen::NamedFn => Some(TokenStream::new()),
                    Seen::Container => Some(without_fn_bodies_in(group.stream(), depth + 1)),
                    _ => None,
                };
                seen = Seen::Nothing;
                match stream {
                    Some(stream) => {
                        let mut replaced = Group::new(Delimiter::Brace, stream);
                        replaced.set_span(group.span());
                        TokenTree::Group(replaced)
                    }
                    None => TokenTree::Group(group),
                }
            }
            TokenTree::Punct(punct) => {
                if punct.as_char() == ';' {
                    seen = Seen::Nothing;
                }
                TokenTree::Punct(punct)
            }
            other => {
                if seen == Seen::Fn {
                    seen = Seen::Nothing;
                }
                other
            }
        };
        out.push(tt);
    }
    out.into_iter().collect()
}

/// The `.rs` files under `dir`; an error names the directory or entry that could not be
/// read, not the root the walk started from.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), (PathBuf, std::io::Error)> {
    let at = |e| (dir.to_path_buf(), e);
    for entry in std::fs::read_dir(dir).map_err(at)? {
        let entry = entry.map_err(at)?;
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let file_type = entry.file_type().map_err(|e| (path.clone(), e))?;
        if file_type.is_dir() {
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
    /// A struct.
    Struct(&'a syn::ItemStruct),
    /// An enum.
    Enum(&'a syn::ItemEnum),
    /// A type alias.
    Alias(&'a syn::ItemType),
}

impl<'a> TypeItem<'a> {
    /// Its attributes.
    pub fn attrs(&self) -> &'a [syn::Attribute] {
        match self {
            TypeItem::Struct(s) => &s.attrs,
            TypeItem::Enum(e) => &e.attrs,
            TypeItem::Alias(t) => &t.attrs,
        }
    }

    /// Its name.
    pub fn ident(&self) -> &'a syn::Ident {
        match self {
            TypeItem::Struct(s) => &s.ident,
            TypeItem::Enum(e) => &e.ident,
            TypeItem::Alias(t) => &t.ident,
        }
    }

    /// Its generic parameters.
    pub fn generics(&self) -> &'a syn::Generics {
        match self {
            TypeItem::Struct(s) => &s.generics,
            TypeItem::Enum(e) => &e.generics,
            TypeItem::Alias(t) => &t.generics,
        }
    }
}

/// A file to generate from: its path, the directory its module path is relative to, and
/// its text.
#[derive(Debug, Clone)]
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// The directory the module path is taken from (the crate's `src/`).
    pub root: PathBuf,
    /// Its text.
    pub text: String,
}

/// Reads every `.rs` file under `paths` (see [`rust_files`]).
pub fn read_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, Error> {
    let mut files = rust_files(paths)?;
    files.dedup_by(|a, b| a.0 == b.0);
    files
        .into_iter()
        .map(|(path, root)| {
            let bytes = std::fs::read(&path).map_err(|error| Error::Io {
                path: path.clone(),
                error,
            })?;
            let text = String::from_utf8(bytes)
                .map_err(|e| Error::Invalid(vec![not_utf8(&path, e.as_bytes(), e.utf8_error())]))?;
            Ok(Input { path, root, text })
        })
        .collect()
}

/// The error for a file that is not UTF-8, at its first bad byte (line and column count
/// the characters before it, as for every other error).
fn not_utf8(path: &Path, bytes: &[u8], error: std::str::Utf8Error) -> crate::LocatedError {
    let at = error.valid_up_to();
    let before = String::from_utf8_lossy(&bytes[..at]);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count();
    let line_end = bytes[at..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(bytes.len(), |i| at + i);
    let place = crate::place::Location {
        file: path.to_path_buf(),
        line: before.matches('\n').count() + 1,
        column: column + 1,
        snippet: Some(String::from_utf8_lossy(&bytes[line_start..line_end]).into_owned()),
        highlight: (column, column + 1),
    };
    crate::LocatedError::new(
        place,
        format!(
            "the file is not UTF-8: byte 0x{:02x} here does not start a UTF-8 character (Rust sources must be UTF-8)",
            bytes[at]
        ),
        crate::Origin::Source,
    )
}

impl Input {
    /// Parses the file.
    #[allow(clippy::result_large_err)] // as for parse_text
    pub fn parse(&self) -> Result<SourceFile, crate::LocatedError> {
        parse_text(&self.path, &self.root, self.text.clone())
    }
}

/// What one file declares, in a form that crosses threads: the crate-wide [`Skeleton`] is
/// built from these while the syntax trees stay with the thread that parsed them.
#[derive(Debug, Default)]
pub struct FileSummary {
    /// (module, name) of each struct, enum and type alias, in [`type_items`] order.
    pub decls: Vec<(Vec<String>, String)>,
    /// (module, imported name, full path), in source order.
    pub uses: Vec<(Vec<String>, String, Vec<String>)>,
    /// (module, glob-imported module path).
    pub globs: Vec<(Vec<String>, Vec<String>)>,
    /// Hand-written `impl Serialize for T` / `impl Deserialize for T`, in source order.
    pub serde_impls: Vec<SerdeImpl>,
    /// The `static`, `const` and `lazy_static!` items, in source order.
    pub values: Vec<ValueItem>,
}

/// A hand-written `impl Serialize for T` or `impl<'de> Deserialize<'de> for T`: what `T`
/// looks like on the wire is then that code's, which the generator cannot read.
#[derive(Debug, Clone)]
pub struct SerdeImpl {
    /// The module the impl is written in.
    pub module: Vec<String>,
    /// `T`'s path as written.
    pub self_path: Vec<String>,
    /// Whether that path starts with `::`.
    pub absolute: bool,
    /// `Serialize` or `Deserialize`.
    pub trait_name: &'static str,
    /// Where the impl's trait is named (its file set when the skeleton is built).
    pub at: crate::place::Loc,
}

/// `impl [<...>] [serde::]Serialize|Deserialize[<'de>] for T` as a [`SerdeImpl`].
fn serde_impl(module: &[String], item: &syn::ItemImpl) -> Option<SerdeImpl> {
    let (_, trait_path, _) = item.trait_.as_ref()?;
    let last = trait_path.segments.last()?;
    let trait_name = match last.ident.to_string().as_str() {
        "Serialize" => "Serialize",
        "Deserialize" => "Deserialize",
        _ => return None,
    };
    let syn::Type::Path(self_ty) = &*item.self_ty else {
        return None;
    };
    if self_ty.qself.is_some() {
        return None;
    }
    use syn::spanned::Spanned as _;
    Some(SerdeImpl {
        module: module.to_vec(),
        self_path: self_ty
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect(),
        absolute: self_ty.path.leading_colon.is_some(),
        trait_name,
        at: crate::place::Loc::of(0, trait_path.span()),
    })
}

/// Calls `visit` with every item of `items` and the module it is declared in; an inline
/// module's items come right after the module.
fn visit_items<'a>(
    module: &[String],
    items: &'a [syn::Item],
    visit: &mut impl FnMut(&[String], &'a syn::Item),
) {
    for item in items {
        visit(module, item);
        if let syn::Item::Mod(m) = item
            && let Some((_, inner)) = &m.content
        {
            let mut sub = module.to_vec();
            sub.push(m.ident.to_string());
            visit_items(&sub, inner, visit);
        }
    }
}

impl<'a> TypeItem<'a> {
    /// `item` when it declares a struct, enum or type alias.
    fn of(item: &'a syn::Item) -> Option<Self> {
        match item {
            syn::Item::Struct(s) => Some(TypeItem::Struct(s)),
            syn::Item::Enum(e) => Some(TypeItem::Enum(e)),
            syn::Item::Type(t) => Some(TypeItem::Alias(t)),
            _ => None,
        }
    }
}

/// The structs, enums and type aliases of a file, inline modules included, in source order.
pub fn type_items(file: &SourceFile) -> Vec<TypeItem<'_>> {
    let mut out = Vec::new();
    visit_items(&[], &file.ast.items, &mut |_, item| {
        out.extend(TypeItem::of(item))
    });
    out
}

/// The declarations (in [`type_items`] order) and imports of `file`.
pub fn summarize(file: &SourceFile) -> FileSummary {
    fn collect_use(
        module: &[String],
        tree: &syn::UseTree,
        prefix: &mut Vec<String>,
        out: &mut FileSummary,
    ) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                collect_use(module, &p.tree, prefix, out);
                prefix.pop();
            }
            // `use a::b::{self}` imports `b` itself, as `b` or under its `as` name.
            syn::UseTree::Name(n) if n.ident == "self" => {
                if let Some(last) = prefix.last() {
                    out.uses
                        .push((module.to_vec(), last.clone(), prefix.clone()));
                }
            }
            syn::UseTree::Name(n) => {
                let mut full = prefix.clone();
                full.push(n.ident.to_string());
                out.uses.push((module.to_vec(), n.ident.to_string(), full));
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                out.uses.push((module.to_vec(), r.rename.to_string(), full));
            }
            syn::UseTree::Glob(_) => out.globs.push((module.to_vec(), prefix.clone())),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    collect_use(module, t, prefix, out);
                }
            }
        }
    }
    let mut out = FileSummary::default();
    visit_items(&file.module, &file.ast.items, &mut |module, item| {
        out.values.extend(values::value_items(module, item));
        if let Some(t) = TypeItem::of(item) {
            out.decls.push((module.to_vec(), t.ident().to_string()));
        } else if let syn::Item::Use(u) = item {
            collect_use(module, &u.tree, &mut Vec::new(), &mut out);
        } else if let syn::Item::Impl(i) = item {
            out.serde_impls.extend(serde_impl(module, i));
        } else if let syn::Item::Const(c) = item
            && let syn::Expr::Block(block) = &*c.expr
        {
            // `const _: () = { impl Serialize for T { ... } };`
            for stmt in &block.block.stmts {
                if let syn::Stmt::Item(syn::Item::Impl(i)) = stmt {
                    out.serde_impls.extend(serde_impl(module, i));
                }
            }
        }
    });
    out
}

/// The attributes named `marker` (`rbac`, `webhook`, ...) on the items such markers sit on
/// (functions, impls and their functions, modules and structs), in file order; and those on
/// other items (an enum, a const, ...), where the attribute macro refuses them.
pub fn item_markers<'a>(
    file: &'a SourceFile,
    marker: &str,
) -> (Vec<&'a syn::Attribute>, Vec<&'a syn::Attribute>) {
    let (mut placed, mut misplaced): (Vec<&syn::Attribute>, Vec<&syn::Attribute>) =
        (Vec::new(), Vec::new());
    visit_items(&[], &file.ast.items, &mut |_, item| match item {
        syn::Item::Fn(f) => placed.extend(&f.attrs),
        syn::Item::Impl(i) => {
            placed.extend(&i.attrs);
            for it in &i.items {
                if let syn::ImplItem::Fn(f) = it {
                    placed.extend(&f.attrs);
                }
            }
        }
        syn::Item::Mod(m) => placed.extend(&m.attrs),
        syn::Item::Struct(s) => placed.extend(&s.attrs),
        syn::Item::Enum(e) => misplaced.extend(&e.attrs),
        syn::Item::Const(c) => misplaced.extend(&c.attrs),
        syn::Item::Static(s) => misplaced.extend(&s.attrs),
        syn::Item::Trait(t) => misplaced.extend(&t.attrs),
        syn::Item::Type(t) => misplaced.extend(&t.attrs),
        syn::Item::Union(u) => misplaced.extend(&u.attrs),
        syn::Item::Use(u) => misplaced.extend(&u.attrs),
        _ => {}
    });
    let ours = |a: &&syn::Attribute| crate::markers::marker_name(a) == Some(marker);
    placed.retain(ours);
    misplaced.retain(ours);
    (placed, misplaced)
}

/// Whether one of `attrs` is a `#[derive(...)]` naming `name` (by its last path segment:
/// `Schema`, `operator_derive::Schema`).
pub fn derives(attrs: &[syn::Attribute], name: &str) -> bool {
    derive_names(attrs).iter().any(|d| d == name)
}

/// The last path segment of every trait `attrs` derive.
pub(crate) fn derive_names(attrs: &[syn::Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .filter_map(|a| {
            a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .ok()
        })
        .flatten()
        .filter_map(|p| p.segments.last().map(|s| s.ident.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens as _;

    fn items_of(text: &str) -> String {
        parse_items(text).unwrap().into_token_stream().to_string()
    }

    #[test]
    fn function_bodies_are_left_out_and_everything_else_is_kept() {
        let text = r#"#!/usr/bin/env run-cargo-script
            pub struct S { pub callback: fn(i32) -> i32, pub n: [u8; { 2 + 2 }] }
            #[rbac(groups = "apps", resources = "deployments", verbs = "get")]
            pub async fn reconcile(x: i32) -> impl Future<Output = ()> { let y = x + 1; todo!() }
            impl S {
                #[rbac(groups = "", resources = "pods", verbs = "list")]
                fn method(&self) -> Result<(), E> { self.n.len(); Ok(()) }
                const C: i32 = { 3 };
            }
            trait T { fn required(&self); fn provided(&self) { body() } }
            mod inner { pub fn f() { g() } pub struct Inner; }
            static F: fn() = { || {} };
        "#;
        let parsed = parse_items(text).unwrap();
        assert_eq!(
            parsed.shebang.as_deref(),
            Some("#!/usr/bin/env run-cargo-script")
        );
        let items = items_of(text);
        for kept in [
            "callback : fn (i32) -> i32",
            "[u8 ; { 2 + 2 }]",
            "# [rbac (groups = \"apps\"",
            "pub async fn reconcile (x : i32) -> impl Future < Output = () > { }",
            "# [rbac (groups = \"\" , resources = \"pods\"",
            "fn method (& self) -> Result < () , E > { }",
            "const C : i32 = { 3 } ;",
            "fn required (& self) ;",
            "fn provided (& self) { }",
            "pub fn f () { } pub struct Inner ;",
            "static F : fn () = { | | { } } ;",
        ] {
            assert!(items.contains(kept), "missing `{kept}` in {items}");
        }
        for gone in ["let y", "todo", "self . n . len", "body ()", "g ()"] {
            assert!(!items.contains(gone), "`{gone}` still in {items}");
        }
    }

    #[test]
    fn an_unreadable_directory_is_named_itself() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not_a_dir");
        std::fs::write(&file, "").unwrap();
        // read_dir on a file fails as on a directory without permission (which root reads).
        let (path, _) = walk(&file, &mut Vec::new()).unwrap_err();
        assert_eq!(path, file);
    }

    #[test]
    fn syntax_errors_outside_bodies_keep_their_position() {
        let syntax = |text: &str| parse_items(text).unwrap_err();
        let err = syntax("pub struct A {\n  x: i32,\n  y: ,\n}\n");
        assert_eq!(err.at.start().line, 3);
        let err = syntax("fn f() {\n");
        assert!(
            err.message
                .contains("a `(`, `[` or `{` that is never closed"),
            "{}",
            err.message
        );
        // Statements are not parsed, so an error inside a body is the compiler's to report.
        assert!(parse_items("fn f() { let = ; }").is_ok());
    }
}
