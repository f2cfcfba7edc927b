//! `crd()` at compile time: runs operator-gen on the crate's own sources, so the CRD a kind
//! returns is byte for byte the one `operator-gen` writes to `config/crd/bases`.

use std::path::{Path, PathBuf};

/// The CRD for (`group`, `kind`) as JSON, plus the files read (for rebuild tracking).
pub struct CompiledCrd {
    pub json: String,
    pub plural: String,
    pub files: Vec<PathBuf>,
}

/// Why there is no CRD.
pub enum CrdError {
    /// Problems in the crate's sources, located.
    Invalid(Vec<operator_gen::LocatedError>),
    /// Anything else (unreadable files, the kind not found), as a message.
    Other(String),
}

/// Scans `CARGO_MANIFEST_DIR/src` (and `extra`, the file holding the derive, when it lives
/// elsewhere, as in examples and tests) and returns the CRD of `group`/`kind`.
pub fn compile_crd(
    group: &str,
    kind: &str,
    extra: Option<PathBuf>,
) -> Result<CompiledCrd, CrdError> {
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
        return Err(CrdError::Other(format!(
            "no sources found under {}",
            src.display()
        )));
    }
    let files: Vec<PathBuf> = operator_gen::source::rust_files(&paths)
        .map_err(|e| CrdError::Other(e.to_string()))?
        .into_iter()
        .map(|(file, _root)| file)
        .collect();

    // The crate's own options, as `cargo xtask manifests` reads them, so `crd()` is what
    // it writes (a kind with float fields derives when the crate allows them).
    let manifest = manifest_dir.join("Cargo.toml");
    let options = if manifest.is_file() {
        operator_gen::Options::from_manifest(&manifest).map_err(CrdError::Other)?
    } else {
        operator_gen::Options::default()
    };

    // Parse with proc-macro2's own implementation so spans carry real file positions (for
    // error messages) instead of this macro's call site; switch back before emitting tokens.
    proc_macro2::fallback::force();
    let result = operator_gen::generate_with(&paths, &options, &[operator_gen::ArtifactKind::CRD]);
    proc_macro2::fallback::unforce();

    let generated = result.map_err(|e| match e {
        operator_gen::Error::Invalid(errors) => CrdError::Invalid(errors),
        other => CrdError::Other(other.to_string()),
    })?;
    let crd = generated
        .crds
        .iter()
        .find(|c| c.spec.group == group && c.spec.names.kind == kind)
        .ok_or_else(|| {
            CrdError::Other(format!(
                "operator-gen found no kind {kind} in group {group:?} under {}",
                paths_text(&paths)
            ))
        })?;
    let json = serde_json::to_string(&operator_gen::output::to_json(crd))
        .map_err(|e| CrdError::Other(e.to_string()))?;
    Ok(CompiledCrd {
        json,
        plural: crd.spec.names.plural.clone(),
        files,
    })
}

fn paths_text(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
