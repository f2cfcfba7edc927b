//! `crd()` at compile time: runs operator-gen on the crate's own sources, so the CRD a kind
//! returns is byte for byte the one `operator-gen` writes to `config/crd/bases`.
//!
//! One run serves every kind of a crate: the compiler expands all of a crate's derives in one
//! process, so the first `#[derive(CustomResource)]` runs the generator and the others take
//! its result from [`RUNS`]. A run is keyed by the scanned paths and the length and
//! modification time of every file it read (the sources and `Cargo.toml`), so a long-lived
//! process (rust-analyzer's proc-macro server) runs again after an edit instead of serving a
//! stale CRD. Without it a crate of N kinds ran the whole generator N times.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// The CRD for (`group`, `kind`) as JSON, plus the files read (for rebuild tracking).
pub struct CompiledCrd {
    pub json: String,
    pub plural: String,
    pub files: Vec<PathBuf>,
}

/// Why there is no CRD.
#[derive(Clone)]
pub enum CrdError {
    /// Problems in the crate's sources, located.
    Invalid(Vec<operator_gen::LocatedError>),
    /// Anything else (unreadable files, the kind not found), as a message.
    Other(String),
}

/// What a derive gets back: its CRD, or why there is none.
pub type Compiled = Result<CompiledCrd, CrdError>;

/// Every CRD of a run, by (group, kind): its JSON text and plural.
type Crds = HashMap<(String, String), (String, String)>;

/// Runs kept at once (one per crate and set of paths; more only in a long-lived process).
const KEPT_RUNS: usize = 8;

/// The runs of this process, newest last.
static RUNS: Mutex<Vec<Run>> = Mutex::new(Vec::new());

/// One generator run over a crate's sources.
struct Run {
    key: RunKey,
    /// Every CRD of the run, by (group, kind), as JSON and plural; or why the run failed.
    crds: Arc<Result<Crds, CrdError>>,
    /// The schemas of the crate's types, built when a derive first asks (only crates that
    /// implement `schemars::JsonSchema` do).
    types: Option<Arc<Result<Vec<TypeSchema>, CrdError>>>,
    options: Arc<Result<operator_gen::Options, String>>,
    files: Arc<Vec<PathBuf>>,
    /// Whether a derive already took the files for rebuild tracking (once per run is enough:
    /// cargo's dep-info is per crate).
    tracked: bool,
}

/// What makes two runs the same: the scanned paths and the state of every file read.
#[derive(PartialEq, Eq)]
struct RunKey {
    paths: Vec<PathBuf>,
    stamps: Vec<(PathBuf, u64, Option<SystemTime>)>,
}

/// The paths of every generator run of this process (tests check that kinds share a run).
#[cfg(test)]
static GENERATOR_RUNS: Mutex<Vec<Vec<PathBuf>>> = Mutex::new(Vec::new());

/// Scans `CARGO_MANIFEST_DIR/src` (and `extra`, the file holding the derive, when it lives
/// elsewhere, as in examples and tests) and returns the CRD of `group`/`kind`.
pub fn compile_crd(group: &str, kind: &str, extra: Option<PathBuf>) -> Compiled {
    compile_crd_in(&manifest_dir(), group, kind, extra)
}

/// The directory of the crate being compiled.
fn manifest_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// [`compile_crd`] for the crate at `manifest_dir`.
fn compile_crd_in(
    manifest_dir: &Path,
    group: &str,
    kind: &str,
    extra: Option<PathBuf>,
) -> Compiled {
    let (paths, files, crds) = with_run(manifest_dir, extra, |run| {
        (Arc::clone(&run.crds), take_files(run))
    })
    .map(|(paths, (crds, files))| (paths, files, crds))?;
    let crds = crds.as_ref().as_ref().map_err(Clone::clone)?;
    let (json, plural) = crds
        .get(&(group.to_string(), kind.to_string()))
        .ok_or_else(|| {
            CrdError::Other(format!(
                "operator-gen found no kind {kind} in group {group:?} under {}",
                paths_text(&paths)
            ))
        })?;
    Ok(CompiledCrd {
        json: json.clone(),
        plural: plural.clone(),
        files,
    })
}

/// The files to track for rebuilds, the first time a derive of the run asks.
fn take_files(run: &mut Run) -> Vec<PathBuf> {
    if run.tracked {
        Vec::new()
    } else {
        run.tracked = true;
        run.files.as_ref().clone()
    }
}

/// What the derive of one type needs to implement `schemars::JsonSchema`.
pub struct TypeJsonSchema {
    /// The type's own schema as JSON (a root kind's `openAPIV3Schema`), or the problems
    /// that stop it.
    pub schema: Result<String, Vec<operator_gen::LocatedError>>,
    /// Whether it is a root kind.
    pub kind: bool,
    /// The type derives schemars' `JsonSchema` itself.
    pub derives_json_schema: bool,
    /// Whether the crate's CRDs were generated (else their errors are already reported).
    pub crds_ok: bool,
    /// Files to track for rebuilds (once per run).
    pub files: Vec<PathBuf>,
}

/// The schema of the type named `name` whose name is at `file`:`line` (when the compiler
/// says), from the crate's one run.
pub fn compile_type_schema(
    name: &str,
    file: Option<PathBuf>,
    line: Option<usize>,
) -> Result<TypeJsonSchema, CrdError> {
    compile_type_schema_in(&manifest_dir(), name, file, line)
}

fn compile_type_schema_in(
    manifest_dir: &Path,
    name: &str,
    file: Option<PathBuf>,
    line: Option<usize>,
) -> Result<TypeJsonSchema, CrdError> {
    let (paths, (types, crds_ok, files)) = with_run(manifest_dir, file.clone(), |run| {
        let Run {
            key,
            types,
            options,
            crds,
            ..
        } = &mut *run;
        let types = types
            .get_or_insert_with(|| {
                Arc::new(match options.as_ref() {
                    Ok(options) => run_type_schemas(&key.paths, options),
                    Err(e) => Err(CrdError::Other(e.clone())),
                })
            })
            .clone();
        let crds_ok = crds.is_ok();
        (types, crds_ok, take_files(run))
    })?;
    let types = types.as_ref().as_ref().map_err(Clone::clone)?;
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let file = file.as_deref().map(canonical);
    // By position when the compiler gives one, else by name when it is unique.
    let at = types.iter().find(|t| {
        file.as_ref() == Some(&canonical(&t.file)) && line == Some(t.line) && t.name == name
    });
    let by_name = || {
        let mut named = types.iter().filter(|t| t.name == name);
        match (named.next(), named.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    };
    let found = at.or_else(by_name).ok_or_else(|| {
        CrdError::Other(format!(
            "operator-gen found no type {name} deriving Schema under {}",
            paths_text(&paths)
        ))
    })?;
    Ok(TypeJsonSchema {
        schema: found.schema.clone(),
        kind: found.kind,
        derives_json_schema: found.derives_json_schema,
        crds_ok,
        files,
    })
}

/// The crate's types that derive `Schema` (and its kinds), each with its schema as JSON.
fn run_type_schemas(
    paths: &[PathBuf],
    options: &operator_gen::Options,
) -> Result<Vec<TypeSchema>, CrdError> {
    proc_macro2::fallback::force();
    let result = operator_gen::internals::type_schemas::type_schemas(paths, options);
    proc_macro2::fallback::unforce();
    let found = result.map_err(|e| match e {
        operator_gen::Error::Invalid(errors) => CrdError::Invalid(errors),
        other => CrdError::Other(other.to_string()),
    })?;
    Ok(found
        .into_iter()
        .map(|t| TypeSchema {
            schema: t
                .schema
                .map(|schema| operator_gen::output::to_json(&schema).to_string()),
            kind: t.kind,
            file: t.file,
            line: t.line,
            name: t.name,
            derives_json_schema: t.derives_json_schema,
        })
        .collect())
}

/// A type of the crate as the derive needs it.
struct TypeSchema {
    file: PathBuf,
    line: usize,
    name: String,
    derives_json_schema: bool,
    kind: bool,
    schema: Result<String, Vec<operator_gen::LocatedError>>,
}

/// Finds or makes the run over the crate at `manifest_dir` (plus `extra`, the file of the
/// derive when it lives outside `src`) and hands it to `f`; returns the scanned paths too.
fn with_run<R>(
    manifest_dir: &Path,
    extra: Option<PathBuf>,
    f: impl FnOnce(&mut Run) -> R,
) -> Result<(Vec<PathBuf>, R), CrdError> {
    let src = manifest_dir.join("src");
    let mut paths = Vec::new();
    if src.is_dir() {
        paths.push(src.clone());
    }
    if let Some(file) = extra
        && file.is_file()
    {
        let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        if !canonical(&file).starts_with(canonical(&src)) {
            paths.push(file);
        }
    }
    if paths.is_empty() {
        return Err(CrdError::Other(format!(
            "no sources found under {}",
            src.display()
        )));
    }
    let files: Vec<PathBuf> = operator_gen::internals::source::rust_files(&paths)
        .map_err(|e| CrdError::Other(e.to_string()))?
        .into_iter()
        .map(|(file, _root)| file)
        .collect();
    let manifest = manifest_dir.join("Cargo.toml");
    let key = RunKey {
        paths: paths.clone(),
        stamps: files
            .iter()
            .chain(std::iter::once(&manifest))
            .map(|file| {
                let meta = std::fs::metadata(file).ok();
                (
                    file.clone(),
                    meta.as_ref().map_or(0, std::fs::Metadata::len),
                    meta.and_then(|m| m.modified().ok()),
                )
            })
            .collect(),
    };

    // Held through the run: a second derive waits for the first one's result instead of
    // running the generator beside it.
    let mut runs = RUNS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let at = match runs.iter().position(|run| run.key == key) {
        Some(at) => at,
        None => {
            // The crate's own options, as `cargo xtask manifests` reads them, so `crd()` is
            // what it writes (a kind with float fields derives when the crate allows them).
            let options = if manifest.is_file() {
                operator_gen::Options::from_manifest(&manifest)
            } else {
                Ok(operator_gen::Options::default())
            };
            let crds = Arc::new(match &options {
                Ok(options) => run_generator(&paths, options),
                Err(e) => Err(CrdError::Other(e.clone())),
            });
            if runs.len() == KEPT_RUNS {
                runs.remove(0);
            }
            runs.push(Run {
                key,
                crds,
                types: None,
                options: Arc::new(options),
                files: Arc::new(files),
                tracked: false,
            });
            runs.len() - 1
        }
    };
    let out = f(&mut runs[at]);
    Ok((paths, out))
}

/// Runs the CRD generator once over `paths` with the crate's options, and renders every CRD.
fn run_generator(paths: &[PathBuf], options: &operator_gen::Options) -> Result<Crds, CrdError> {
    #[cfg(test)]
    GENERATOR_RUNS.lock().unwrap().push(paths.to_vec());

    // Parse with proc-macro2's own implementation so spans carry real file positions (for
    // error messages) instead of this macro's call site; switch back before emitting tokens.
    proc_macro2::fallback::force();
    let result = operator_gen::crds(paths, options);
    proc_macro2::fallback::unforce();

    let crds = result.map_err(|e| match e {
        operator_gen::Error::Invalid(errors) => CrdError::Invalid(errors),
        other => CrdError::Other(other.to_string()),
    })?;
    crds.iter()
        .map(|crd| {
            let json = serde_json::to_string(&operator_gen::output::to_json(crd))
                .map_err(|e| CrdError::Other(e.to_string()))?;
            Ok((
                (crd.spec.group.clone(), crd.spec.names.kind.clone()),
                (json, crd.spec.names.plural.clone()),
            ))
        })
        .collect()
}

fn paths_text(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of its own under the system's temporary directory, removed on drop. (Not
    /// the tempfile crate: a proc-macro's dev-dependencies are built for the host, and
    /// tempfile's rustix there differed from the workspace's, one more build of four crates.)
    struct TempDir(PathBuf);

    impl TempDir {
        fn new() -> Self {
            static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let dir = std::env::temp_dir()
                .join(format!("operator-derive-test-{}-{n}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// How many generator runs scanned `dir`'s sources.
    fn runs_over(dir: &Path) -> usize {
        let src = dir.join("src");
        GENERATOR_RUNS
            .lock()
            .unwrap()
            .iter()
            .filter(|paths| paths[0] == src)
            .count()
    }

    fn kind(name: &str) -> String {
        format!(
            "#[derive(CustomResource)]\n\
             #[resource(group = \"x.example.com\", version = \"v1\", kind = \"{name}\")]\n\
             pub struct {name} {{ pub metadata: ObjectMeta, pub spec: {name}Spec }}\n\
             #[derive(Schema)]\n\
             pub struct {name}Spec {{ pub size: i32 }}\n"
        )
    }

    /// Every kind of a crate takes its CRD from one run; an edit makes the next derive run
    /// again and see it; the files to track are handed out once per run.
    #[test]
    fn kinds_of_a_crate_share_one_run_until_a_file_changes() {
        let dir = TempDir::new();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let lib = dir.path().join("src/lib.rs");
        std::fs::write(&lib, format!("{}{}", kind("Alpha"), kind("Beta"))).unwrap();

        let alpha = compile_crd_in(dir.path(), "x.example.com", "Alpha", None)
            .ok()
            .unwrap();
        let beta = compile_crd_in(dir.path(), "x.example.com", "Beta", None)
            .ok()
            .unwrap();
        assert_eq!(runs_over(dir.path()), 1);
        // controller-gen's plurals: flect takes `-eta` for a plural ending already.
        assert_eq!(
            (alpha.plural.as_str(), beta.plural.as_str()),
            ("alphas", "beta")
        );
        assert!(
            alpha.json.contains("\"alphas.x.example.com\""),
            "{}",
            alpha.json
        );
        assert_eq!(alpha.files, vec![lib.clone()]);
        assert!(beta.files.is_empty());

        // A different length is a different key, even within the clock's resolution.
        std::fs::write(&lib, format!("{}{}", kind("Alpha"), kind("Gamma"))).unwrap();
        let missing = compile_crd_in(dir.path(), "x.example.com", "Beta", None);
        assert!(
            matches!(&missing, Err(CrdError::Other(m)) if m.contains("no kind Beta")),
            "Beta was removed"
        );
        let gamma = compile_crd_in(dir.path(), "x.example.com", "Gamma", None)
            .ok()
            .unwrap();
        assert_eq!(gamma.plural, "gammas");
        assert_eq!(runs_over(dir.path()), 2);
    }

    /// The types' schemas come from the same run as the CRDs (built once, on the first
    /// ask), found by file and line, or by name when that is unique.
    #[test]
    fn type_schemas_share_the_run_of_the_crds() {
        let dir = TempDir::new();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        let lib = dir.path().join("src/lib.rs");
        std::fs::write(&lib, format!("{}{}", kind("Alpha"), kind("Beta"))).unwrap();
        compile_crd_in(dir.path(), "x.example.com", "Alpha", None)
            .ok()
            .unwrap();
        let spec = compile_type_schema_in(dir.path(), "BetaSpec", Some(lib.clone()), Some(10))
            .ok()
            .unwrap();
        assert!(!spec.kind && spec.crds_ok && !spec.derives_json_schema);
        let json: serde_json::Value = serde_json::from_str(spec.schema.as_ref().unwrap()).unwrap();
        assert_eq!(json["properties"]["size"]["type"], "integer", "{json}");
        let alpha = compile_type_schema_in(dir.path(), "Alpha", None, None)
            .ok()
            .unwrap();
        assert!(alpha.kind);
        assert_eq!(runs_over(dir.path()), 1);
        let missing = compile_type_schema_in(dir.path(), "Gamma", None, None);
        assert!(
            matches!(&missing, Err(CrdError::Other(m)) if m.contains("no type Gamma deriving Schema")),
            "Gamma is not declared"
        );
    }

    /// A failed run is shared too: its errors reach every kind without running again.
    #[test]
    fn a_failed_run_is_shared() {
        let dir = TempDir::new();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/lib.rs"),
            format!("{}{}", kind("Alpha"), kind("Beta")).replace("pub size: i32", "pub size: f32"),
        )
        .unwrap();
        for name in ["Alpha", "Beta"] {
            let Err(CrdError::Invalid(errors)) =
                compile_crd_in(dir.path(), "x.example.com", name, None)
            else {
                panic!("{name}: the float fields are refused");
            };
            assert_eq!(errors.len(), 2, "{errors:?}");
        }
        assert_eq!(runs_over(dir.path()), 1);
    }
}
