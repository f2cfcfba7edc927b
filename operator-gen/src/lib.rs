#![warn(missing_docs)]
//! operator-gen: the Rust counterpart of controller-gen.
//!
//! It reads marker attributes (`#[resource]`, `#[validation]`, `#[rbac]`, ...) straight
//! from Rust source files with `syn`, without compiling the operator, and produces
//! CustomResourceDefinitions, RBAC roles and webhook configurations as typed objects
//! ([`api`], in the API server's shapes), rendered to YAML.
//! Each kind of output is a [`Generator`] in [`GENERATORS`]; only those asked for run, and
//! generators of your own run beside them through [`generate_using`].
//!
//! The pipeline runs one way, and its imports with it: source files → `source` (find, read,
//! parse, index) → `lower` (each file's kinds, types and item markers, read with the
//! grammar of `markers`, as the thread-free `model` with its places from `place`) →
//! `schema` (with `cel` for the rules) → `crd` → the generators ([`Generator::build`] from
//! the [`Api`], rendering YAML through `render`) → `sink`, with the gates ([`compat`],
//! [`size`]) beside; `pipeline` calls the stages in that order. `tests/module_graph.rs`
//! checks that each module imports only modules below it in that order, and no module
//! one that reaches it back. The stages are private: what a caller needs is here at the
//! root, in [`api`] for the API server's types, in [`output`] for the files and in
//! [`diagnostics`] for the problems. `docs/src/design/data-flow.md` follows one field
//! marker through these modules.
//! Parsing and building run on every core: syn's trees stay on the thread that parsed
//! them, names resolve through a thread-free index of every file's declarations, and the
//! output does not depend on the number of threads. [`generate`] returns the CRDs as typed objects and
//! every generator's files; [`generate_artifacts`] returns the files alone, each CRD
//! rendered by the thread that built it and dropped right after, which keeps the memory
//! of large APIs down.
//!
//! ```no_run
//! let generated = operator_gen::generate(&["memcached/src".into()], &operator_gen::Options::default())?;
//! for artifact in generated.artifacts() {
//!     println!("{}:\n{}", artifact.file_name, artifact.contents);
//! }
//! # Ok::<(), operator_gen::Error>(())
//! ```
//!
//! The other way round, behind the feature `types-from-crd` (on with the command line's
//! `cli`): `read_crds` and `rust_types` write Rust types with markers from
//! CustomResourceDefinitions (`operator-gen types --from-crd`), which [`generate`] reads
//! back to the same CRDs; `differences` compares two CRDs property by property.
//!
//! The marker grammar is also what `operator-derive` checks at compile time: the derive,
//! and the workspace's other crates, reach the stages they reuse through [`internals`],
//! which is not a stable API.

pub mod api;
mod bodies;
mod cel;
mod crd;
pub mod diagnostics;
mod docs;
mod gates;
mod generators;
pub mod internals;
mod known_types;
mod lower;
mod markers;
mod model;
pub mod output;
mod pipeline;
mod place;
mod plural;
mod render;
mod schema;
mod serde_attrs;
mod sink;
mod source;
mod threads;
mod type_schemas;
#[cfg(feature = "types-from-crd")]
mod types_from_crd;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::api::apiextensions::v1::CustomResourceDefinition;

pub use crd::VERSION_ANNOTATION;
pub use gates::{compat, size};
pub use generators::rbac::RbacRole;
pub use generators::{Artifact, ArtifactKind, GENERATORS, Generator};
pub use known_types::EmbeddedObjectMeta;
pub use markers::{RbacMarker, Scope, WebhookConfigurationMarker, WebhookMarker, WebhookTarget};
pub use model::{Api, Kind, Reads};
pub use place::{Located, Location};
pub use plural::default_plural;
pub use sink::Layout;
#[cfg(feature = "cluster")]
pub use types_from_crd::{ClusterSource, read_crds_from_cluster};
#[cfg(feature = "types-from-crd")]
pub use types_from_crd::{
    CrdDocument, RustTypes, SERVER_METADATA, TypesError, TypesOptions, count_properties, crds_in,
    differences, kind_module, property_of, read_crds, rust_types, rustfmt,
};

use source::SourceFile;

/// Generator settings (controller-gen's `crd:` and `rbac:` options).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Shorten descriptions to this many bytes; `Some(0)` drops them (`crd:maxDescLen`).
    pub max_desc_len: Option<usize>,
    /// Allow `f32`/`f64` fields (`crd:allowDangerousTypes`).
    pub allow_dangerous_types: bool,
    /// Name of the role for `#[rbac]` markers without their own `role_name` (`rbac:roleName`).
    pub role_name: String,
    /// The namespace of `#[rbac]` markers without their own `namespace`: set, they make a
    /// `Role` there instead of the `ClusterRole` (a namespaced project's manager, whose
    /// `PROJECT.toml` says `namespaced = true`, gets `"system"`, which kustomize rewrites to
    /// the deployment's namespace). A marker granting non-resource `urls` is then an error,
    /// since only a ClusterRole can grant those. Not a `Cargo.toml` setting: it is the
    /// project's, passed by `cargo xtask manifests` (or `operator-gen --rbac-namespace`).
    pub rbac_namespace: Option<String>,
    /// The schema of an `ObjectMeta` below a kind's root (`crd:generateEmbeddedObjectMeta`
    /// and more; see [`EmbeddedObjectMeta`]).
    pub embedded_object_meta: EmbeddedObjectMeta,
}

impl Options {
    /// The options a crate sets for itself in its `Cargo.toml`, so that `crd()` from the
    /// derive, `cargo xtask manifests` and `operator-gen --manifest` agree:
    ///
    /// ```toml
    /// [package.metadata.operator-gen]
    /// allow-dangerous-types = true   # crd:allowDangerousTypes
    /// max-desc-len = 0               # crd:maxDescLen
    /// role-name = "manager-role"     # rbac:roleName
    /// embedded-object-meta = "full"  # or "generate-embedded" (crd:generateEmbeddedObjectMeta), "object"
    /// json-schema = false            # no schemars::JsonSchema impls (see JsonSchemaSupport)
    /// ```
    ///
    /// Without that table, the defaults. An unknown key or a wrong type is an error naming
    /// the file and the key.
    pub fn from_manifest(manifest: &Path) -> Result<Options, String> {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields, rename_all = "kebab-case")]
        struct Table {
            allow_dangerous_types: Option<bool>,
            max_desc_len: Option<usize>,
            role_name: Option<String>,
            embedded_object_meta: Option<String>,
            // Read by [`JsonSchemaSupport::from_manifest`]; the generator does not use it.
            #[allow(dead_code)]
            json_schema: Option<bool>,
        }
        let shown = manifest.display();
        let text =
            std::fs::read_to_string(manifest).map_err(|e| format!("cannot read {shown}: {e}"))?;
        let doc: toml::Table = toml::from_str(&text).map_err(|e| format!("{shown}: {e}"))?;
        let Some(table) = doc
            .get("package")
            .and_then(|p| p.get("metadata"))
            .and_then(|m| m.get("operator-gen"))
        else {
            return Ok(Options::default());
        };
        let table: Table = table
            .clone()
            .try_into()
            .map_err(|e| format!("{shown}: [package.metadata.operator-gen]: {e}"))?;
        let defaults = Options::default();
        Ok(Options {
            max_desc_len: table.max_desc_len,
            allow_dangerous_types: table
                .allow_dangerous_types
                .unwrap_or(defaults.allow_dangerous_types),
            role_name: table.role_name.unwrap_or(defaults.role_name),
            rbac_namespace: defaults.rbac_namespace,
            embedded_object_meta: match table.embedded_object_meta.as_deref() {
                None => defaults.embedded_object_meta,
                Some(name) => EmbeddedObjectMeta::from_name(name).ok_or_else(|| {
                    format!(
                        "{shown}: [package.metadata.operator-gen]: embedded-object-meta must be one of {}, not {name:?}",
                        EmbeddedObjectMeta::NAMES.map(|n| format!("\"{n}\"")).join(", ")
                    )
                })?,
            },
        })
    }
}

/// Whether `operator-derive` implements `schemars::JsonSchema` for a crate's kinds and
/// schema types, read from the crate's `Cargo.toml`: yes when the crate depends on
/// `schemars` (it must then depend on `serde_json` too, as every crate with kinds does),
/// unless `[package.metadata.operator-gen] json-schema = false` opts out. When `schemars` is
/// an optional dependency, the impls are compiled under the feature that enables it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonSchemaSupport {
    /// No impls.
    Off,
    /// Impls, with the names below.
    On {
        /// The name the crate knows schemars by (`schemars`, or the key of a renamed one).
        schemars: String,
        /// The name the crate knows serde_json by, if it depends on it.
        serde_json: Option<String>,
        /// The feature the impls are compiled under, for an optional schemars.
        feature: Option<String>,
    },
}

impl JsonSchemaSupport {
    /// Reads `manifest` (a crate's `Cargo.toml`); errors name the file.
    pub fn from_manifest(manifest: &Path) -> Result<JsonSchemaSupport, String> {
        let shown = manifest.display();
        let text =
            std::fs::read_to_string(manifest).map_err(|e| format!("cannot read {shown}: {e}"))?;
        let doc: toml::Table = toml::from_str(&text).map_err(|e| format!("{shown}: {e}"))?;
        let opted_out = doc
            .get("package")
            .and_then(|p| p.get("metadata"))
            .and_then(|m| m.get("operator-gen"))
            .and_then(|t| t.get("json-schema"));
        match opted_out {
            None | Some(toml::Value::Boolean(true)) => {}
            Some(toml::Value::Boolean(false)) => return Ok(JsonSchemaSupport::Off),
            Some(other) => {
                return Err(format!(
                    "{shown}: [package.metadata.operator-gen]: json-schema must be true or false, not {other}"
                ));
            }
        }
        let deps = doc.get("dependencies").and_then(toml::Value::as_table);
        // (name in code, optional) of the dependency on the package `package`.
        let find = |package: &str| {
            deps.into_iter().flatten().find_map(|(key, spec)| {
                let real = spec
                    .get("package")
                    .and_then(toml::Value::as_str)
                    .unwrap_or(key);
                (real == package).then(|| {
                    let optional = spec
                        .get("optional")
                        .and_then(toml::Value::as_bool)
                        .unwrap_or(false);
                    (key.replace('-', "_"), key.clone(), optional)
                })
            })
        };
        let Some((schemars, key, optional)) = find("schemars") else {
            return Ok(JsonSchemaSupport::Off);
        };
        // An optional dependency is enabled by its implicit feature, or by the feature
        // that names it as `dep:<key>` (which removes the implicit one).
        let feature = optional.then(|| {
            let dep = format!("dep:{key}");
            doc.get("features")
                .and_then(toml::Value::as_table)
                .into_iter()
                .flatten()
                .find(|(_, list)| {
                    list.as_array()
                        .is_some_and(|l| l.iter().any(|v| v.as_str() == Some(dep.as_str())))
                })
                .map_or_else(|| key.clone(), |(name, _)| name.clone())
        });
        Ok(JsonSchemaSupport::On {
            schemars,
            serde_json: find("serde_json").map(|(name, _, _)| name),
            feature,
        })
    }
}

impl Default for Options {
    fn default() -> Self {
        Self {
            max_desc_len: None,
            allow_dangerous_types: false,
            role_name: "manager-role".into(),
            rbac_namespace: None,
            embedded_object_meta: EmbeddedObjectMeta::default(),
        }
    }
}

/// A problem in the sources, placed at `file:line:column` with the line's excerpt: the
/// [`Diagnostic`](diagnostics::Diagnostic) of every stage, as it leaves the library.
pub type LocatedError = diagnostics::Diagnostic<Location>;

pub use diagnostics::Origin;

impl LocatedError {
    /// `message` at `span` of `file`, found by `origin`.
    pub(crate) fn of_span(
        file: &SourceFile,
        span: proc_macro2::Span,
        message: String,
        origin: Origin,
    ) -> Self {
        Self::new(Location::of(file, span), message, origin)
    }
}

impl fmt::Display for LocatedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(self, "error", f)
    }
}

/// A finding that does not stop generation, placed as a [`LocatedError`] is: the caller
/// shows it (`file:line:column: warning: ...`) and carries on. A kube-derive kind left in
/// the sources is one: operator-gen writes no CRD for it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Warning(pub LocatedError);

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        render(&self.0, "warning", f)
    }
}

/// `file:line:column: <severity>: message`, the line's excerpt with the place marked, and
/// the help.
fn render(d: &LocatedError, severity: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let at = &d.at;
    write!(
        f,
        "{}:{}:{}: {severity}: {}",
        at.file.display(),
        at.line,
        at.column,
        d.message
    )?;
    let gutter = at.line.to_string().len();
    if let Some(snippet) = &at.snippet {
        let (from, to) = at.highlight;
        writeln!(f)?;
        writeln!(f, "{:gutter$} |", "")?;
        writeln!(f, "{} | {}", at.line, snippet)?;
        write!(
            f,
            "{:gutter$} | {}{}",
            "",
            " ".repeat(from),
            "^".repeat(to.saturating_sub(from).max(1))
        )?;
    }
    if let Some(help) = &d.help {
        write!(f, "\n{:gutter$} = help: {help}", "")?;
    }
    Ok(())
}

/// Why generation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    // The I/O error is part of the message and deliberately not the error's `source`:
    // reporters that print the chain (anyhow's `{:#}`) would say it twice.
    /// A file or directory could not be read.
    #[error("cannot read {path}: {error}")]
    Io {
        /// Which.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The sources have errors, each at its place.
    #[error("{}", render_errors(.0))]
    Invalid(Vec<LocatedError>),
    /// A generator broke its contract (a bug in the generator, not in the sources).
    #[error("the generator `{generator}` is at fault: {message}; nothing was written")]
    Generator {
        /// Its name.
        generator: &'static str,
        /// What it did wrong.
        message: String,
    },
}

impl Error {
    /// [`Error::Invalid`] with `errors` in the order of their places (the errors of the
    /// front half, which stop a run before anything is built: syntax, a type declared
    /// twice).
    pub(crate) fn invalid(mut errors: Vec<LocatedError>) -> Error {
        errors.sort();
        Error::Invalid(errors)
    }
}

fn render_errors(errors: &[LocatedError]) -> String {
    let mut out = String::new();
    for e in errors {
        out.push_str(&e.to_string());
        out.push_str("\n\n");
    }
    out.push_str(&format!(
        "{} error{} in marker attributes or types; nothing was written",
        errors.len(),
        if errors.len() == 1 { "" } else { "s" }
    ));
    out
}

/// What the generators produced: the CRDs as typed objects, ready to use in code, and
/// every generator's files.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    /// One per (group, kind), sorted by group then kind.
    pub crds: Vec<CustomResourceDefinition>,
    /// The files of the generators that ran (the CRDs' own among them), generators in
    /// registration order, CRD files by name.
    pub files: Vec<Artifact>,
    /// The `#[compat(allow = ...)]` markers of the root kinds, for [`compat::Report::apply`].
    pub compat: Vec<compat::Allow>,
    /// What the sources do that generation goes past (a kube-derive kind, which gets no
    /// CRD), in file order: for the caller to show.
    pub warnings: Vec<Warning>,
}

/// Reads the Rust sources under `paths` and runs every generator.
pub fn generate(paths: &[PathBuf], options: &Options) -> Result<Generated, Error> {
    generate_with(paths, options, &ArtifactKind::all())
}

/// [`generate`] with only the generators in `ran`. The CRDs are built (and returned) when
/// one of them reads CRDs; `rbac` alone reads no kind.
pub fn generate_with(
    paths: &[PathBuf],
    options: &Options,
    ran: &[ArtifactKind],
) -> Result<Generated, Error> {
    let inputs = source::read_inputs(paths)?;
    let keep_crds = ran.iter().any(|g| g.generator().reads().crds());
    let made = pipeline::run(&inputs, options, ran, keep_crds)?;
    Ok(Generated {
        crds: made.crds,
        files: made.files,
        compat: made.compat,
        warnings: made.warnings,
    })
}

/// [`generate`] with generators of your own (and any of [`GENERATORS`]): each is one
/// module implementing [`Generator`]. Write its files with
/// [`output::write_all`] and `ArtifactKind::of` of each generator.
pub fn generate_using(
    paths: &[PathBuf],
    options: &Options,
    generators: &[&'static dyn Generator],
) -> Result<Generated, Error> {
    let ran: Vec<ArtifactKind> = generators.iter().map(|g| ArtifactKind::of(*g)).collect();
    generate_with(paths, options, &ran)
}

/// The CRDs of the sources under `paths` as typed objects, and no file (what the derive's
/// `crd()` uses).
pub fn crds(paths: &[PathBuf], options: &Options) -> Result<Vec<CustomResourceDefinition>, Error> {
    let inputs = source::read_inputs(paths)?;
    Ok(pipeline::run(&inputs, options, &[], true)?.crds)
}

/// The files of the generators in `ran` (`generate(paths, options)?.artifacts()` when all
/// run), with each CRD rendered on the thread that built it and dropped right after, so a
/// large API never holds all of its CRD objects in memory. Generators not in `ran` do not
/// run: `rbac` alone reads no kind.
pub fn generate_artifacts(
    paths: &[PathBuf],
    options: &Options,
    ran: &[ArtifactKind],
) -> Result<Vec<Artifact>, Error> {
    Ok(generate_files(paths, options, ran)?.files)
}

/// [`generate_artifacts`] with the rest of [`Generated`] but its `crds`, which stay empty:
/// the files, the warnings and the `#[compat]` markers, each CRD dropped once its file is
/// rendered (the command line uses this).
pub fn generate_files(
    paths: &[PathBuf],
    options: &Options,
    ran: &[ArtifactKind],
) -> Result<Generated, Error> {
    let inputs = source::read_inputs(paths)?;
    let made = pipeline::run(&inputs, options, ran, false)?;
    Ok(Generated {
        crds: made.crds,
        files: made.files,
        compat: made.compat,
        warnings: made.warnings,
    })
}

/// Generates from sources already in memory (`(path, text)` pairs; module paths are taken
/// relative to `root`).
pub fn generate_from_texts(
    root: &Path,
    texts: Vec<(PathBuf, String)>,
    options: &Options,
) -> Result<Generated, Error> {
    let inputs: Vec<source::Input> = texts
        .into_iter()
        .map(|(path, text)| source::Input {
            path,
            root: root.to_path_buf(),
            text,
        })
        .collect();
    let made = pipeline::run(&inputs, options, &ArtifactKind::all(), true)?;
    Ok(Generated {
        crds: made.crds,
        files: made.files,
        compat: made.compat,
        warnings: made.warnings,
    })
}

/// Property tests run `default` cases, or `PROPTEST_CASES` when it is set (for long runs).
#[cfg(test)]
pub(crate) fn test_cases(default: u32) -> proptest::test_runner::Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default);
    proptest::test_runner::Config {
        cases,
        ..proptest::test_runner::Config::default()
    }
}

impl Generated {
    /// All files, in a fixed order: generators in registration order, CRDs by file name.
    pub fn artifacts(&self) -> Vec<Artifact> {
        self.files.clone()
    }

    /// Leaves out the CRDs `drop` picks, and their files: the kinds of types that describe
    /// a CRD someone else installs (types made from a third party's CRD, which a project
    /// compiles and grants RBAC for but never writes the CRD of). The removed CRDs, in order.
    pub fn remove_crds(
        &mut self,
        mut drop: impl FnMut(&CustomResourceDefinition) -> bool,
    ) -> Vec<CustomResourceDefinition> {
        let (removed, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut self.crds)
            .into_iter()
            .partition(|c| drop(c));
        self.crds = kept;
        let names: std::collections::BTreeSet<String> =
            removed.iter().map(generators::crd::crd_file_name).collect();
        self.files
            .retain(|f| !(f.kind == ArtifactKind::CRD && names.contains(&f.file_name)));
        removed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kinds dropped from a run lose their CRD and its file; the rest is untouched.
    #[test]
    fn removed_crds_take_their_files_with_them() {
        let kind = |group: &str, name: &str| {
            format!(
                "#[derive(CustomResource, Serialize, Deserialize)]\n\
                 #[resource(group = \"{group}\", version = \"v1\", kind = \"{name}\", namespaced)]\n\
                 pub struct {name} {{ pub metadata: ObjectMeta, pub spec: {name}Spec }}\n\
                 #[derive(Schema, Serialize, Deserialize)]\n\
                 pub struct {name}Spec {{ pub size: i32 }}\n"
            )
        };
        let texts = vec![
            (
                PathBuf::from("src/mine.rs"),
                kind("web.example.com", "Site"),
            ),
            (
                PathBuf::from("src/external.rs"),
                kind("cert-manager.io", "Certificate"),
            ),
        ];
        let mut generated =
            generate_from_texts(Path::new("src"), texts, &Options::default()).unwrap();
        let crd_files = |g: &Generated| {
            g.files
                .iter()
                .filter(|f| f.kind == ArtifactKind::CRD)
                .map(|f| f.file_name.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            crd_files(&generated),
            [
                "cert-manager.io_certificates.yaml",
                "web.example.com_sites.yaml"
            ]
        );
        let others = generated.files.len() - 2;
        let removed = generated.remove_crds(|c| c.spec.group == "cert-manager.io");
        assert_eq!(removed.len(), 1);
        assert_eq!(removed[0].spec.names.kind, "Certificate");
        assert_eq!(crd_files(&generated), ["web.example.com_sites.yaml"]);
        assert_eq!(generated.crds.len(), 1);
        assert_eq!(generated.files.len(), others + 1);
    }

    fn options(manifest: &str) -> Result<Options, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Cargo.toml");
        std::fs::write(&path, manifest).unwrap();
        Options::from_manifest(&path)
            .map_err(|e| e.replace(&path.display().to_string(), "Cargo.toml"))
    }

    fn json_schema(manifest: &str) -> Result<JsonSchemaSupport, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("Cargo.toml");
        std::fs::write(&path, manifest).unwrap();
        JsonSchemaSupport::from_manifest(&path)
            .map_err(|e| e.replace(&path.display().to_string(), "Cargo.toml"))
    }

    /// The derive implements `JsonSchema` when the crate depends on schemars (under the
    /// feature that enables an optional one), not when it opts out.
    #[test]
    fn json_schema_support_comes_from_the_dependencies() {
        let on = |schemars: &str, serde_json: Option<&str>, feature: Option<&str>| {
            Ok(JsonSchemaSupport::On {
                schemars: schemars.into(),
                serde_json: serde_json.map(Into::into),
                feature: feature.map(Into::into),
            })
        };
        assert_eq!(
            json_schema("[package]\nname = \"x\"\n[dependencies]\nserde_json = \"1\"\n"),
            Ok(JsonSchemaSupport::Off)
        );
        assert_eq!(
            json_schema("[dependencies]\nschemars.workspace = true\nserde_json = \"1\"\n"),
            on("schemars", Some("serde_json"), None)
        );
        assert_eq!(
            json_schema(
                "[dependencies]\njson-schema = { package = \"schemars\", version = \"1\", optional = true }\n"
            ),
            on("json_schema", None, Some("json-schema"))
        );
        assert_eq!(
            json_schema(
                "[dependencies]\nschemars = { version = \"1\", optional = true }\nserde_json = \"1\"\n[features]\nschema = [\"dep:schemars\"]\n"
            ),
            on("schemars", Some("serde_json"), Some("schema"))
        );
        assert_eq!(
            json_schema(
                "[package.metadata.operator-gen]\njson-schema = false\n[dependencies]\nschemars = \"1\"\n"
            ),
            Ok(JsonSchemaSupport::Off)
        );
        assert_eq!(
            json_schema("[package.metadata.operator-gen]\njson-schema = \"no\"\n"),
            Err("Cargo.toml: [package.metadata.operator-gen]: json-schema must be true or false, not \"no\"".into())
        );
        // The generator's own options accept the key.
        assert!(options("[package.metadata.operator-gen]\njson-schema = false\n").is_ok());
    }

    #[test]
    fn options_come_from_the_crates_manifest() {
        let plain = options("[package]\nname = \"x\"\n").unwrap();
        assert_eq!(
            (
                plain.max_desc_len,
                plain.allow_dangerous_types,
                plain.role_name.as_str()
            ),
            (None, false, "manager-role")
        );
        let set = options(
            "[package]\nname = \"x\"\n[package.metadata.operator-gen]\nallow-dangerous-types = true\nmax-desc-len = 40\nrole-name = \"ops\"\n",
        )
        .unwrap();
        assert_eq!(
            (
                set.max_desc_len,
                set.allow_dangerous_types,
                set.role_name.as_str()
            ),
            (Some(40), true, "ops")
        );
        let typo =
            options("[package.metadata.operator-gen]\nallow-dangerous-type = true\n").unwrap_err();
        assert!(
            typo.starts_with(
                "Cargo.toml: [package.metadata.operator-gen]: unknown field `allow-dangerous-type`"
            ),
            "{typo}"
        );
        let wrong =
            options("[package.metadata.operator-gen]\nmax-desc-len = \"40\"\n").unwrap_err();
        assert!(
            wrong.contains("max-desc-len") || wrong.contains("invalid type"),
            "{wrong}"
        );
        assert_eq!(plain.embedded_object_meta, EmbeddedObjectMeta::Full);
        let parity = options(
            "[package.metadata.operator-gen]\nembedded-object-meta = \"generate-embedded\"\n",
        )
        .unwrap();
        assert_eq!(
            parity.embedded_object_meta,
            EmbeddedObjectMeta::GenerateEmbedded
        );
        let unknown = options("[package.metadata.operator-gen]\nembedded-object-meta = \"yes\"\n")
            .unwrap_err();
        assert_eq!(
            unknown,
            "Cargo.toml: [package.metadata.operator-gen]: embedded-object-meta must be one of \"full\", \"generate-embedded\", \"object\", not \"yes\""
        );
    }
}
