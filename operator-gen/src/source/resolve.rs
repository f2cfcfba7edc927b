//! Name resolution across the crate: the [`Skeleton`], every declared type and value item
//! by module and name and every module's imports. It holds no syntax tree, so one serves
//! every thread; the declaration ids it gives are those of the model's types. Types and
//! values (`static`, `const`, `lazy_static!`) are Rust's two namespaces: one `use` brings
//! a name into both, and both are resolved by the same walk over modules and imports.

use rustc_hash::FxHashMap;

use super::FileSummary;
use super::values::ValueItem;

/// The declarations of one namespace, by module and name.
#[derive(Debug, Default)]
struct Names {
    /// module → name → id.
    by_path: FxHashMap<Vec<String>, FxHashMap<String, usize>>,
    /// name → ids (in input order), for crate-wide lookup.
    by_name: FxHashMap<String, Vec<usize>>,
}

impl Names {
    /// Records `name` in `module` as `id`; returns the id it already had there, if any.
    fn insert(&mut self, module: &[String], name: &str, id: usize) -> Option<usize> {
        self.by_name.entry(name.to_string()).or_default().push(id);
        self.by_path
            .entry(module.to_vec())
            .or_default()
            .insert(name.to_string(), id)
    }

    fn lookup(&self, module: &[String], name: &str) -> Option<usize> {
        self.by_path.get(module)?.get(name).copied()
    }
}

/// A declared type as the crate-wide index knows it.
#[derive(Debug)]
pub struct DeclInfo {
    /// Position of its file in the inputs.
    pub file: usize,
    /// Its module path in the crate.
    pub module: Vec<String>,
    /// Its name.
    pub name: String,
}

/// The crate-wide index for name resolution: every declared type by module and name, and
/// every module's imports. It holds no syntax tree, so one skeleton serves every thread.
#[derive(Debug, Default)]
pub struct Skeleton {
    /// Every declared type, by id.
    pub decls: Vec<DeclInfo>,
    /// Declaration ids of each file (consecutive, in the order the files' type items were declared).
    pub file_decls: Vec<std::ops::Range<usize>>,
    /// Every `static`, `const` and `lazy_static!` item, by id (in input order).
    pub values: Vec<ValueItem>,
    // Hash maps with a fast hasher: every type path of every field is resolved through
    // them, and nothing iterates over them, so their order cannot reach the output.
    /// The types, by module and name (ids into `decls`).
    types: Names,
    /// The value items, by module and name (ids into `values`).
    value_names: Names,
    /// module → imported name → full path.
    uses: FxHashMap<Vec<String>, FxHashMap<String, Vec<String>>>,
    /// module → glob-imported module paths.
    globs: FxHashMap<Vec<String>, Vec<Vec<String>>>,
    /// Every module that declares or imports something, and the modules above it.
    modules: rustc_hash::FxHashSet<Vec<String>>,
    /// decl id → its first hand-written serde impl in the sources (trait name, where).
    hand_serde: FxHashMap<usize, (&'static str, crate::place::Loc)>,
}

/// What a type path in the sources refers to.
#[derive(Debug, Clone)]
pub enum Resolved {
    /// A type of the scanned sources, by its id in `Skeleton::decls`.
    Local(usize),
    /// A type from another crate, by its full path as far as the imports tell.
    External(Vec<String>),
    /// Several scanned types share the name and the imports do not say which one is meant.
    Ambiguous(Vec<usize>),
}

impl Skeleton {
    /// Indexes the summaries of all inputs, in input order.
    pub fn build(summaries: Vec<FileSummary>) -> Self {
        let mut sk = Skeleton::default();
        let mut serde_impls = Vec::new();
        for (file_no, summary) in summaries.into_iter().enumerate() {
            serde_impls.extend(summary.serde_impls.into_iter().map(|mut i| {
                i.at.file = file_no as u32;
                i
            }));
            let start = sk.decls.len();
            for (module, name) in summary.decls {
                let id = sk.decls.len();
                sk.types.insert(&module, &name, id);
                sk.decls.push(DeclInfo {
                    file: file_no,
                    module,
                    name,
                });
            }
            sk.file_decls.push(start..sk.decls.len());
            for mut value in summary.values {
                let id = sk.values.len();
                value.at.file = file_no as u32;
                if let Some(first) = sk.value_names.insert(&value.module, &value.name, id) {
                    sk.values[first].declared_twice = true;
                    value.declared_twice = true;
                }
                sk.values.push(value);
            }
            for (module, name, full) in summary.uses {
                sk.uses.entry(module).or_default().insert(name, full);
            }
            for (module, glob) in summary.globs {
                sk.globs.entry(module).or_default().push(glob);
            }
        }
        let mut modules = rustc_hash::FxHashSet::default();
        for module in sk
            .types
            .by_path
            .keys()
            .chain(sk.value_names.by_path.keys())
            .chain(sk.uses.keys())
            .chain(sk.globs.keys())
        {
            for len in 0..=module.len() {
                modules.insert(module[..len].to_vec());
            }
        }
        sk.modules = modules;
        for i in serde_impls {
            if let Resolved::Local(id) = sk.resolve_path(&i.module, i.absolute, &i.self_path) {
                sk.hand_serde.entry(id).or_insert((i.trait_name, i.at));
            }
        }
        sk
    }

    /// The hand-written `impl Serialize` or `impl Deserialize` of declared type `id` in the
    /// sources, if it has one: its trait's name and where it is written.
    pub fn hand_serde(&self, id: usize) -> Option<(&'static str, crate::place::Loc)> {
        self.hand_serde.get(&id).copied()
    }

    /// Resolves the type path of `segments` written in `module` (`absolute`: it starts
    /// with `::`).
    pub fn resolve_path(&self, module: &[String], absolute: bool, segments: &[String]) -> Resolved {
        self.resolve_segments(&self.types, module, segments, absolute, 0)
    }

    /// Resolves the value path of `segments` written in `module` (a `static`, `const` or
    /// `lazy_static!` item); a [`Resolved::Local`] id is an index into
    /// [`values`](Self::values).
    pub fn resolve_value(
        &self,
        module: &[String],
        absolute: bool,
        segments: &[String],
    ) -> Resolved {
        self.resolve_segments(&self.value_names, module, segments, absolute, 0)
    }

    fn resolve_segments(
        &self,
        ns: &Names,
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
                return self.resolve_segments(ns, module, &full, false, depth + 1);
            }
            _ => None,
        };
        if let Some(mut base) = base {
            base.extend(segs[1..segs.len() - 1].iter().cloned());
            if let Some(decl) = self.find_in_module(ns, &base, &name, depth) {
                return Resolved::Local(decl);
            }
            return self
                .through_crate_imports(ns, &base, &name, depth)
                .unwrap_or_else(|| Resolved::External(segs.to_vec()));
        }
        if segs.len() == 1 {
            // Only an import can make a name the crate never declares refer to a local
            // type; `String`, `i32`, `Option` and other foreign names skip the rest.
            let declared = ns.by_name.get(&name);
            if declared.is_some()
                && let Some(decl) = ns.lookup(module, &name)
            {
                return Resolved::Local(decl);
            }
            if let Some(full) = self.uses.get(module).and_then(|u| u.get(&name)) {
                return self.resolve_import(ns, module, full, depth);
            }
            if declared.is_some() {
                for glob in self.globs.get(module).into_iter().flatten() {
                    let found = self
                        .local_module(module, glob)
                        .and_then(|target| self.find_in_module(ns, &target, &name, depth + 1));
                    if let Some(decl) = found {
                        return Resolved::Local(decl);
                    }
                }
            }
            return match declared.map(Vec::as_slice) {
                Some([only]) => Resolved::Local(*only),
                Some(many) if many.len() > 1 => Resolved::Ambiguous(many.to_vec()),
                _ => Resolved::External(segs.to_vec()),
            };
        }
        // `a::b::Name`: `a` may be an import alias or a child module.
        if let Some(full) = self.uses.get(module).and_then(|u| u.get(head)) {
            let mut expanded = full.clone();
            expanded.extend(segs[1..].iter().cloned());
            return self.resolve_import(ns, module, &expanded, depth);
        }
        let mut child = module.to_vec();
        child.extend(segs[..segs.len() - 1].iter().cloned());
        if let Some(decl) = self.find_in_module(ns, &child, &name, depth) {
            return Resolved::Local(decl);
        }
        Resolved::External(segs.to_vec())
    }

    /// The type `module::name`: declared there, or brought there by a `use` (a re-export,
    /// `pub use v1::Spec as Current;`) or a glob import of a module of the crate
    /// (`pub use types::*;`), followed as far as the crate goes.
    fn find_in_module(
        &self,
        ns: &Names,
        module: &[String],
        name: &str,
        depth: usize,
    ) -> Option<usize> {
        if depth > 8 {
            return None;
        }
        if let Some(decl) = ns.lookup(module, name) {
            return Some(decl);
        }
        if let Some(full) = self.uses.get(module).and_then(|u| u.get(name))
            && let Resolved::Local(decl) = self.resolve_import(ns, module, full, depth + 1)
        {
            return Some(decl);
        }
        self.globs
            .get(module)
            .into_iter()
            .flatten()
            .filter_map(|glob| self.local_module(module, glob))
            .find_map(|target| self.find_in_module(ns, &target, name, depth + 1))
    }

    /// `module::name` where the crate brings it in from elsewhere: `module` imports `name`
    /// (`use k8s_openapi::api::core::v1::Toleration;` in the module a `super::Toleration`
    /// names), or a module on the way is an import (`pub use k8s_openapi::apimachinery;`
    /// at the root, then `crate::apimachinery::pkg::apis::meta::v1::Time`).
    fn through_crate_imports(
        &self,
        ns: &Names,
        module: &[String],
        name: &str,
        depth: usize,
    ) -> Option<Resolved> {
        if depth > 8 {
            return None;
        }
        if let Some(full) = self.uses.get(module).and_then(|u| u.get(name)) {
            return Some(self.resolve_import(ns, module, full, depth + 1));
        }
        (0..module.len()).rev().find_map(|at| {
            let full = self.uses.get(&module[..at])?.get(&module[at])?;
            let mut expanded = full.clone();
            expanded.extend(module[at + 1..].iter().cloned());
            expanded.push(name.to_string());
            Some(self.resolve_import(ns, &module[..at], &expanded, depth + 1))
        })
    }

    fn resolve_import(
        &self,
        ns: &Names,
        module: &[String],
        full: &[String],
        depth: usize,
    ) -> Resolved {
        match full.first().map(String::as_str) {
            Some("crate" | "self" | "super") => {
                self.resolve_segments(ns, module, full, false, depth + 1)
            }
            _ => {
                // `use my_crate_module::Type` without `crate::` (2015-style or a child module).
                let mut child = module.to_vec();
                child.extend(full[..full.len() - 1].iter().cloned());
                let name = full.last().expect("non-empty");
                if let Some(decl) = self.find_in_module(ns, &child, name, depth + 1) {
                    return Resolved::Local(decl);
                }
                Resolved::External(full.to_vec())
            }
        }
    }

    /// The paths `name` would have through the glob imports of `module` that reach outside
    /// the crate (`use k8s_openapi::api::core::v1::*;`), in import order: the generator
    /// cannot list another crate's items, so a caller that knows some checks them.
    pub fn through_external_globs<'s>(
        &'s self,
        module: &[String],
        name: &'s str,
    ) -> impl Iterator<Item = Vec<String>> + 's {
        self.globs
            .get(module)
            .into_iter()
            .flatten()
            .filter(|glob| {
                !matches!(
                    glob.first().map(String::as_str),
                    Some("crate" | "self" | "super") | None
                )
            })
            .map(move |glob| {
                let mut path = glob.clone();
                path.push(name.to_string());
                path
            })
    }

    /// The module of the crate a glob import in `module` names (`crate::a::*`,
    /// `super::*`, `self::a::*`, or `a::*` for a child module), or `None` for another
    /// crate's.
    fn local_module(&self, module: &[String], glob: &[String]) -> Option<Vec<String>> {
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
            // A child module, when the crate has one by that name.
            Some(_) => {
                let mut m = module.to_vec();
                m.extend(glob.iter().cloned());
                if !self.is_module(&m) {
                    return None;
                }
                m
            }
            None => return None,
        };
        Some(target)
    }

    /// Whether the crate has a module at `path` (one that declares, imports or holds one
    /// that does).
    fn is_module(&self, path: &[String]) -> bool {
        self.modules.contains(path)
    }
}
