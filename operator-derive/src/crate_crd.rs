//! `crd()` at compile time: runs operator-gen on the crate's own sources, so the CRD a kind
//! returns is byte for byte the one `operator-gen` writes to `config/crd/bases`.

use std::path::{Path, PathBuf};

/// The CRD for (`group`, `kind`) as JSON, plus the files read (for rebuild tracking).
pub struct CompiledCrd {
    pub json: String,
    pub files: Vec<PathBuf>,
}

/// Scans `CARGO_MANIFEST_DIR/src` (and `extra`, the file holding the derive, when it lives
/// elsewhere, as in examples and tests) and returns the CRD of `group`/`kind`.
pub fn compile_crd(group: &str, kind: &str, extra: Option<PathBuf>) -> Result<CompiledCrd, String> {
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_default();
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
        return Err(format!("no sources found under {}", src.display()));
    }
    let files = list_files(&paths);

    // Parse with proc-macro2's own implementation so spans carry real file positions (for
    // error messages) instead of this macro's call site; switch back before emitting tokens.
    proc_macro2::fallback::force();
    let result = operator_gen::generate(&paths, &operator_gen::Options::default());
    proc_macro2::fallback::unforce();

    let generated = result.map_err(|e| e.to_string())?;
    let crd = generated
        .crds
        .iter()
        .find(|c| c.spec.group == group && c.spec.names.kind == kind)
        .ok_or_else(|| {
            format!(
                "operator-gen found no kind {kind} in group {group:?} under {}",
                paths_text(&paths)
            )
        })?;
    let json =
        serde_json::to_string(&operator_gen::output::to_json(crd)).map_err(|e| e.to_string())?;
    Ok(CompiledCrd { json, files })
}

fn paths_text(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn list_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out);
        } else {
            out.push(p.clone());
        }
    }
    out.sort();
    out
}
