//! Rust types from CustomResourceDefinitions (`operator-gen types --from-crd`): the other
//! way round from the rest of the crate. Each version of each CRD becomes one module of
//! Rust types with operator-rs markers, which operator-gen reads back to the same CRD.
//!
//! The stage reads CRDs from YAML (`read_crds`, each document placed by file and number),
//! picks a Rust type for every sub-schema (`emit.rs`: structs named after their fields,
//! enums for string `enum`s, maps, Kubernetes types recognised by their schema in
//! `known.rs`), adds the markers for what the type does not say, and spells the files
//! (`text.rs`). What no Rust type or marker says is never dropped silently: it is listed in
//! the file's header and returned as a warning. [`differences`] compares two CRDs property
//! by property, for the round trip.

#[cfg(feature = "cluster")]
mod cluster;
mod emit;
mod known;
mod text;

#[cfg(feature = "cluster")]
pub use cluster::{ClusterSource, read_crds_from_cluster};

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::api::apiextensions::v1::{CustomResourceDefinition, JSONSchemaProps};
use crate::known_types::{API_VERSION_DESCRIPTION, EmbeddedObjectMeta, KIND_DESCRIPTION};
use crate::plural::default_plural;
use emit::{Emitter, Pos, Spelling, marker_attrs, render_fields, render_items};
use text::{pascal, snake, string_lit};

/// One CustomResourceDefinition as read: where from, typed, and as written.
#[derive(Debug, Clone)]
pub struct CrdDocument {
    /// The file; for a CRD read from a cluster, `crd/<name>`.
    pub file: PathBuf,
    /// The document's number in the file, from 1; 0 for a CRD read from a cluster.
    pub document: usize,
    /// The CRD.
    pub crd: CustomResourceDefinition,
    /// The document as written (JSON), to compare with and to find what the typed CRD does
    /// not hold.
    pub raw: Value,
}

/// Why no types were made.
#[derive(Debug, thiserror::Error)]
pub enum TypesError {
    /// A file or directory could not be read.
    #[error("cannot read {path}: {error}")]
    Io {
        /// Which.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A document is no YAML.
    #[error("{}: not YAML: {message}", place(file, *document))]
    Yaml {
        /// The file.
        file: PathBuf,
        /// The document's number, from 1.
        document: usize,
        /// The parser's message.
        message: String,
    },
    /// A document is a CustomResourceDefinition the types cannot be made from.
    #[error("{}: {message}", place(file, *document))]
    Invalid {
        /// The file.
        file: PathBuf,
        /// The document's number, from 1.
        document: usize,
        /// What is wrong.
        message: String,
    },
    /// The input holds no CustomResourceDefinition.
    #[error("{0}: no CustomResourceDefinition in it")]
    NoCrd(PathBuf),
    /// The cluster could not be reached, or does not have the CRD asked for.
    #[error("{0}")]
    Cluster(String),
}

/// The metadata the API server keeps of its own, in a CRD saved from a cluster (`kubectl get
/// -o yaml`): not the kind's, so not read.
pub const SERVER_METADATA: &[&str] = &[
    "creationTimestamp",
    "generation",
    "managedFields",
    "resourceVersion",
    "selfLink",
    "uid",
];

/// Where a document is, for messages: `file: document n`, or `crd/<name>` for a CRD read
/// from a cluster (document 0).
fn place(file: &Path, document: usize) -> String {
    if document == 0 {
        file.display().to_string()
    } else {
        format!("{}: document {document}", file.display())
    }
}

/// The settings of a run.
#[derive(Debug, Clone)]
pub struct TypesOptions {
    /// The command line the header of each file names.
    pub command: String,
    /// How the CRDs will be generated from the types: each `ObjectMeta` below a kind's
    /// root is recognised as k8s-openapi's only where it has this shape.
    pub embedded_object_meta: EmbeddedObjectMeta,
}

impl Default for TypesOptions {
    fn default() -> Self {
        TypesOptions {
            command: "operator-gen types".into(),
            embedded_object_meta: EmbeddedObjectMeta::default(),
        }
    }
}

/// The generated sources.
#[derive(Debug, Clone, Default)]
pub struct RustTypes {
    /// `(path below the output directory, contents)`, sorted by path: one module per
    /// version of each CRD, and the `mod.rs` and parent modules that declare them.
    pub files: Vec<(PathBuf, String)>,
    /// What the types do not express, one line each (`file: document: path: what`).
    pub warnings: Vec<String>,
    /// Whether a `number` became an `f64`: operator-gen then needs
    /// `--allow-dangerous-types` (`allow-dangerous-types = true` in the crate's manifest).
    pub floats: bool,
}

/// The CRDs in `path`: a YAML file (several documents allowed) or a directory, whose
/// `.yaml` and `.yml` files are read in name order (subdirectories too). In a directory,
/// documents of other kinds are passed over; a file named on its own must hold a CRD.
pub fn read_crds(path: &Path) -> Result<Vec<CrdDocument>, TypesError> {
    let io = |error| TypesError::Io {
        path: path.to_path_buf(),
        error,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    let mut files = Vec::new();
    if meta.is_dir() {
        yaml_files(path, &mut files)?;
    } else {
        files.push(path.to_path_buf());
    }
    let mut out = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|error| TypesError::Io {
            path: file.clone(),
            error,
        })?;
        out.extend(crds_in(&text, file)?);
    }
    if out.is_empty() {
        return Err(TypesError::NoCrd(path.to_path_buf()));
    }
    Ok(out)
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), TypesError> {
    let io = |error| TypesError::Io {
        path: dir.to_path_buf(),
        error,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(io)?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            yaml_files(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
    Ok(())
}

/// The CRDs among the YAML documents of `text` (read from `file`).
pub fn crds_in(text: &str, file: &Path) -> Result<Vec<CrdDocument>, TypesError> {
    use serde::Deserialize as _;
    let mut out = Vec::new();
    for (i, document) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let number = i + 1;
        let value = Value::deserialize(document).map_err(|e| TypesError::Yaml {
            file: file.to_path_buf(),
            document: number,
            message: e.to_string(),
        })?;
        if value.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
            continue;
        }
        let invalid = |message: String| TypesError::Invalid {
            file: file.to_path_buf(),
            document: number,
            message,
        };
        match value.get("apiVersion").and_then(Value::as_str) {
            Some("apiextensions.k8s.io/v1") => {}
            other => {
                return Err(invalid(format!(
                    "a CustomResourceDefinition of apiVersion {other:?}: only apiextensions.k8s.io/v1 is read"
                )));
            }
        }
        let crd: CustomResourceDefinition = serde_json::from_value(value.clone()).map_err(|e| {
            invalid(format!(
                "not a CustomResourceDefinition: {e} (a kustomize patch is not read: name the bases)"
            ))
        })?;
        out.push(CrdDocument {
            file: file.to_path_buf(),
            document: number,
            crd,
            raw: value,
        });
    }
    Ok(out)
}

/// `rustfmt --edition 2024` over `text` (the program `$RUSTFMT` names, else `rustfmt`):
/// `None` when it cannot be run, else the formatted text or rustfmt's complaint. The CLI
/// formats the files it writes with it, and the tests hold the files to it.
pub fn rustfmt(text: &str) -> Option<Result<String, String>> {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new(std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into()))
        .args(["--edition", "2024", "--emit", "stdout", "--quiet"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = text.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().ok()?;
    let written = writer.join().ok()?;
    Some(match (output.status.success(), written) {
        (true, Ok(())) => String::from_utf8(output.stdout).map_err(|e| e.to_string()),
        (_, Err(e)) => Err(format!("writing to rustfmt: {e}")),
        (false, _) => Err(String::from_utf8_lossy(&output.stderr).into_owned()),
    })
}

/// Where [`rust_types`] puts the module of one version of a kind, below the output
/// directory: `<group>/<version>/<kind>.rs`, each in snake case (`cert-manager.io`, `v1`,
/// `Certificate`: `cert_manager_io/v1/certificate.rs`).
pub fn kind_module(group: &str, version: &str, kind: &str) -> PathBuf {
    PathBuf::from(group_module(group))
        .join(snake(version))
        .join(format!("{}.rs", snake(kind)))
}

fn group_module(group: &str) -> String {
    snake(&group.replace(['.', '-'], "_"))
}

/// Rust types for every version of every CRD in `crds`. Two CRDs of one group and kind are
/// an error.
pub fn rust_types(crds: &[CrdDocument], options: &TypesOptions) -> Result<RustTypes, TypesError> {
    let known = known::KnownTypes::shared(options.embedded_object_meta);
    let mut files: BTreeMap<PathBuf, String> = BTreeMap::new();
    // Module tree: group module -> version -> kind modules.
    let mut tree: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    let mut seen: BTreeMap<(String, String), (PathBuf, usize)> = BTreeMap::new();
    let mut out = RustTypes::default();
    for doc in crds {
        let spec = &doc.crd.spec;
        let invalid = |message: String| TypesError::Invalid {
            file: doc.file.clone(),
            document: doc.document,
            message,
        };
        if let Some((file, n)) = seen.insert(
            (spec.group.clone(), spec.names.kind.clone()),
            (doc.file.clone(), doc.document),
        ) {
            return Err(invalid(format!(
                "{} of group {} is also defined in {}",
                spec.names.kind,
                spec.group,
                place(&file, n)
            )));
        }
        if spec.versions.is_empty() {
            return Err(invalid("the CRD has no versions".into()));
        }
        let mut crd_notes = unread(doc);
        let group_mod = group_module(&spec.group);
        let kind_mod = snake(&spec.names.kind);
        for version in &spec.versions {
            let version_mod = snake(&version.name);
            let (text, notes) =
                version_module(doc, version, &known, options, &crd_notes, &mut out.floats)?;
            let rel = kind_module(&spec.group, &version.name, &spec.names.kind);
            for note in notes {
                out.warnings.push(format!(
                    "{}: {} {}: {note}",
                    place(&doc.file, doc.document),
                    spec.names.kind,
                    version.name
                ));
            }
            files.insert(rel, text);
            tree.entry(group_mod.clone())
                .or_default()
                .entry(version_mod)
                .or_default()
                .push(kind_mod.clone());
        }
        for note in crd_notes.drain(..) {
            out.warnings.push(format!(
                "{}: {}: {note}",
                place(&doc.file, doc.document),
                spec.names.kind
            ));
        }
    }
    let header = format!(
        "// Generated by `{}`: the modules of the Rust types, one per version of each CRD.\n",
        options.command
    );
    let mods = |names: Vec<String>| -> String {
        let mut text = header.clone();
        text.push('\n');
        for name in names {
            let _ = writeln!(text, "pub mod {name};");
        }
        text
    };
    files.insert("mod.rs".into(), mods(tree.keys().cloned().collect()));
    for (group, versions) in &tree {
        files.insert(
            format!("{group}.rs").into(),
            mods(versions.keys().cloned().collect()),
        );
        for (version, kinds) in versions {
            let mut kinds = kinds.clone();
            kinds.sort();
            kinds.dedup();
            files.insert(
                PathBuf::from(group).join(format!("{version}.rs")),
                mods(kinds),
            );
        }
    }
    out.files = files.into_iter().collect();
    Ok(out)
}

/// What the CRD says outside what operator-gen's API types hold (a conversion strategy,
/// the status, unknown keys): each a note.
fn unread(doc: &CrdDocument) -> Vec<String> {
    let typed = serde_json::to_value(&doc.crd).expect("a CRD serializes");
    let mut raw = doc.raw.clone();
    // The API server's default (what a CRD read from a cluster has): the same as none.
    if let Some(spec) = raw.get_mut("spec").and_then(Value::as_object_mut)
        && spec.get("conversion") == Some(&serde_json::json!({"strategy": "None"}))
    {
        spec.remove("conversion");
    }
    let mut missing = Vec::new();
    absent(&raw, &typed, "", &mut missing);
    if let Some(p) = doc.crd.spec.preserve_unknown_fields {
        missing.push(format!(".spec.preserveUnknownFields ({p})"));
    }
    missing
        .into_iter()
        .filter(|path| {
            // Written by the tools, not part of the kind.
            !path.starts_with(".metadata.annotations.controller-gen.kubebuilder.io/version")
                && !SERVER_METADATA
                    .iter()
                    .any(|key| path.starts_with(&format!(".metadata.{key}")))
                && path != ".status"
        })
        .map(|path| format!("{path} is not expressed: operator-rs types have no place for it"))
        .collect()
}

/// The paths in `raw` that `typed` lacks.
fn absent(raw: &Value, typed: &Value, path: &str, out: &mut Vec<String>) {
    match (raw, typed) {
        (Value::Object(r), Value::Object(t)) => {
            for (key, value) in r {
                let at = format!("{path}.{key}");
                match t.get(key) {
                    Some(tv) => absent(value, tv, &at, out),
                    None if value.is_null() => {}
                    None => out.push(at),
                }
            }
        }
        (Value::Array(r), Value::Array(t)) => {
            for (i, (rv, tv)) in r.iter().zip(t).enumerate() {
                absent(rv, tv, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The module of one version: its header, imports, root kind and items, and the notes.
fn version_module(
    doc: &CrdDocument,
    version: &crate::api::apiextensions::v1::CustomResourceDefinitionVersion,
    known: &known::KnownTypes,
    options: &TypesOptions,
    crd_notes: &[String],
    floats: &mut bool,
) -> Result<(String, Vec<String>), TypesError> {
    let crd = &doc.crd;
    let spec = &crd.spec;
    let kind = &spec.names.kind;
    let invalid = |message: String| TypesError::Invalid {
        file: doc.file.clone(),
        document: doc.document,
        message,
    };
    let Some(root) = version
        .schema
        .as_ref()
        .and_then(|s| s.open_api_v3_schema.as_ref())
    else {
        return Err(invalid(format!("version {} has no schema", version.name)));
    };
    if crate::markers::kind_name_problem(kind).is_some()
        || pascal(kind) != *kind && !kind.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return Err(invalid(format!("the kind `{kind}` is no Rust type name")));
    }
    let mut em = Emitter::new(known, kind);
    let mut notes: Vec<String> = Vec::new();

    // The root: apiVersion, kind and metadata are operator-gen's own.
    let mut rest: JSONSchemaProps = root.clone();
    rest.description = None;
    if rest.type_.as_deref() == Some("object") {
        rest.type_ = None;
    } else {
        notes.push(format!(
            "the root schema's type is {:?}, not object: written as object",
            rest.type_
        ));
        rest.type_ = None;
    }
    let mut properties = rest.properties.take().unwrap_or_default();
    let mut required = rest.required.take().unwrap_or_default();
    // Go types whose `metadata` has no `omitempty` put it in the root's `required`.
    let metadata_required = match required.iter().position(|r| r == "metadata") {
        Some(i) => {
            required.remove(i);
            true
        }
        None => false,
    };
    for (name, expected) in [
        ("apiVersion", API_VERSION_DESCRIPTION),
        ("kind", KIND_DESCRIPTION),
    ] {
        match properties.remove(name) {
            Some(p) if p.type_.as_deref() == Some("string") && p.description.as_deref().map(normalize) == Some(normalize(expected)) => {
                let mut left = p.clone();
                left.type_ = None;
                left.description = None;
                if left != JSONSchemaProps::default() {
                    notes.push(format!(".{name}: operator-gen writes its own schema; {} is not expressed", serde_json::to_string(&left).unwrap_or_default()));
                }
            }
            Some(p) => notes.push(format!(".{name}: operator-gen writes its own schema (a string with the standard description), not {}", serde_json::to_string(&p).unwrap_or_default())),
            None => notes.push(format!(".{name}: operator-gen always writes it (a string with the standard description)")),
        }
    }
    match properties.remove("metadata") {
        Some(m) if m == typed_object() => {}
        Some(m) => notes.push(format!(".metadata: operator-gen writes `type: object` for a kind's metadata (the API server owns it), not {}", serde_json::to_string(&m).unwrap_or_default())),
        None => notes.push(".metadata: operator-gen always writes it (`type: object`)".into()),
    }
    let hint_kind = kind.clone();
    let fields = em.fields(&properties, &required, kind, "", &|json| match json {
        "spec" => Some(format!("{hint_kind}Spec")),
        "status" => Some(format!("{hint_kind}Status")),
        _ => Some(format!("{hint_kind}{}", pascal(json))),
    });
    let root_markers = em.markers(rest, false, "", Pos::Field, true);
    notes.append(&mut em.notes);
    *floats |= em.floats;

    let mut used = em.used.clone();
    used.insert("k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta".into());
    let (spelling, uses) = Spelling::new(&used, &em.items, &[kind.as_str()]);
    let mut lost = Vec::new();
    let mut body = String::new();

    // The root kind.
    if let Some(d) = &root.description {
        let mut dropped = Vec::new();
        body.push_str(&text::doc_comment(d, "", &mut dropped));
        lost.extend(dropped.into_iter().map(|d| format!("{kind}: {d}")));
    }
    body.push_str("#[derive(CustomResource, Clone, Debug, PartialEq)]\n");
    body.push_str(&resource_attr(doc, version, &mut notes));
    body.push_str(&marker_attrs(&root_markers, ""));
    let meta = spelling.ty(&emit::Ty::Known(
        "k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta".into(),
    ));
    let required_marker = if metadata_required {
        "    #[validation(required)]\n"
    } else {
        ""
    };
    let _ = write!(
        body,
        "pub struct {kind} {{\n{required_marker}    pub metadata: {meta},\n"
    );
    if !fields.is_empty() {
        body.push('\n');
        body.push_str(&render_fields(false, kind, &fields, &spelling, &mut lost));
    }
    body.push_str("}\n");
    body.push_str(&render_items(&em.items, &spelling, &mut lost));
    lost.sort();
    lost.dedup();
    notes.extend(lost);

    // The header, with everything the types do not say.
    let mut text = String::new();
    let _ = writeln!(
        text,
        "// Generated by `{}`\n// from {}: CustomResourceDefinition {}, version {}.",
        options.command,
        match doc.document {
            0 => format!("{} in the cluster", doc.file.display()),
            n => format!("{} (document {n})", doc.file.display()),
        },
        crd.metadata.name.as_deref().unwrap_or(&spec.group),
        version.name
    );
    text.push_str("// Generate again from the CRD rather than editing by hand.\n");
    if em.floats {
        text.push_str("// `number` fields are f64: operator-gen reads them with --allow-dangerous-types (allow-dangerous-types = true in [package.metadata.operator-gen]).\n");
    }
    if options.embedded_object_meta != EmbeddedObjectMeta::default() {
        let _ = writeln!(
            text,
            "// Kubernetes types holding an ObjectMeta were recognised in the shape embedded-object-meta = {:?}: set it in [package.metadata.operator-gen] (operator-gen: --embedded-object-meta {}).",
            options.embedded_object_meta.name(),
            options.embedded_object_meta.name()
        );
    }
    let all_notes: Vec<&String> = crd_notes.iter().chain(&notes).collect();
    if !all_notes.is_empty() {
        text.push_str(
            "//\n// What these types cannot say exactly (the CRD operator-gen writes from them differs there):\n",
        );
        for note in &all_notes {
            for (i, line) in note.lines().enumerate() {
                let _ = writeln!(text, "//{} {line}", if i == 0 { " -" } else { "  " });
            }
        }
    }
    text.push('\n');
    let mut imports: Vec<String> = uses.iter().map(|u| format!("use {u};")).collect();
    // A kind whose fields are all maps and Kubernetes types derives nothing but its root.
    if body.contains("#[derive(Schema") {
        imports.push("use operator_derive::{CustomResource, Schema};".into());
        imports.push("use serde::{Deserialize, Serialize};".into());
    } else {
        imports.push("use operator_derive::CustomResource;".into());
    }
    if body.contains("BTreeMap<") {
        imports.push("use std::collections::BTreeMap;".into());
    }
    imports.sort();
    for i in imports {
        let _ = writeln!(text, "{i}");
    }
    text.push('\n');
    text.push_str(&body);
    Ok((text, notes))
}

fn typed_object() -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some("object".into()),
        ..Default::default()
    }
}

/// `#[resource(...)]`, `#[subresource(...)]` and `#[printcolumn(...)]` of a version.
fn resource_attr(
    doc: &CrdDocument,
    version: &crate::api::apiextensions::v1::CustomResourceDefinitionVersion,
    notes: &mut Vec<String>,
) -> String {
    let spec = &doc.crd.spec;
    let names = &spec.names;
    let mut args = vec![
        format!("group = {}", string_lit(&spec.group)),
        format!("version = {}", string_lit(&version.name)),
        format!("kind = {}", string_lit(&names.kind)),
    ];
    match spec.scope.as_str() {
        "Namespaced" => args.push("namespaced".into()),
        other => args.push(format!("scope = {}", string_lit(other))),
    }
    if names.plural != default_plural(&names.kind) {
        args.push(format!("plural = {}", string_lit(&names.plural)));
    }
    match &names.singular {
        Some(s) if *s != names.kind.to_lowercase() => {
            args.push(format!("singular = {}", string_lit(s)))
        }
        Some(_) => {}
        None => {
            notes.push("spec.names.singular: operator-gen always writes the lower-case kind".into())
        }
    }
    if names.list_kind.as_deref() != Some(&format!("{}List", names.kind)) {
        notes.push(format!(
            "spec.names.listKind {:?}: operator-gen always writes `{}List`",
            names.list_kind, names.kind
        ));
    }
    let list = |items: &[String]| string_lit(&items.join(";"));
    if let Some(short) = names.short_names.as_ref().filter(|s| !s.is_empty()) {
        args.push(format!("shortnames = {}", list(short)));
    }
    if let Some(categories) = names.categories.as_ref().filter(|s| !s.is_empty()) {
        args.push(format!("categories = {}", list(categories)));
    }
    if spec.versions.len() > 1 && version.storage {
        args.push("storage".into());
    }
    if !version.served {
        args.push("served = false".into());
    }
    match (version.deprecated, &version.deprecation_warning) {
        (Some(true), Some(w)) => args.push(format!("deprecated = {}", string_lit(w))),
        (Some(true), None) => args.push("deprecated".into()),
        (_, Some(_)) => {
            notes.push("a deprecationWarning on a version that is not deprecated".into())
        }
        _ => {}
    }
    if let Some(fields) = version.selectable_fields.as_ref().filter(|f| !f.is_empty()) {
        let paths: Vec<String> = fields.iter().map(|f| string_lit(&f.json_path)).collect();
        args.push(format!("selectable_fields = [{}]", paths.join(", ")));
    }
    let meta = &doc.crd.metadata;
    let pairs = |map: &BTreeMap<String, String>| -> Vec<String> {
        map.iter()
            .filter(|(k, _)| {
                *k != "controller-gen.kubebuilder.io/version" && *k != crate::VERSION_ANNOTATION
            })
            .map(|(k, v)| string_lit(&format!("{k}={v}")))
            .collect()
    };
    if let Some(a) = &meta.annotations {
        let a = pairs(a);
        if !a.is_empty() {
            args.push(format!("annotations = [{}]", a.join(", ")));
        }
    }
    if let Some(l) = &meta.labels {
        let l = pairs(l);
        if !l.is_empty() {
            args.push(format!("labels = [{}]", l.join(", ")));
        }
    }
    let columns = version
        .additional_printer_columns
        .as_ref()
        .is_some_and(|c| !c.is_empty());
    match &version.subresources {
        None if columns => notes.push(
            "subresources: operator-gen writes `subresources: {}` for a version with print columns and no subresource (as controller-gen does); the CRD has none".into(),
        ),
        Some(sub) if sub.status.is_none() && sub.scale.is_none() && !columns => notes.push(
            "subresources: `{}` without print columns is not written back (nothing in it)".into(),
        ),
        _ => {}
    }
    // One argument a line when they do not fit on one (rustfmt leaves attributes with
    // lists in them as they are).
    let one_line = format!("#[resource({})]", args.join(", "));
    let mut out = if one_line.len() <= 100 {
        format!("{one_line}\n")
    } else {
        format!("#[resource(\n    {}\n)]\n", args.join(",\n    "))
    };
    if let Some(sub) = &version.subresources {
        if sub.status.is_some() {
            out.push_str("#[subresource(status)]\n");
        }
        if let Some(scale) = &sub.scale {
            let mut a = vec![
                format!("spec_path = {}", string_lit(&scale.spec_replicas_path)),
                format!("status_path = {}", string_lit(&scale.status_replicas_path)),
            ];
            if let Some(s) = &scale.label_selector_path {
                a.push(format!("selector_path = {}", string_lit(s)));
            }
            let _ = writeln!(out, "#[subresource(scale({}))]", a.join(", "));
        }
    }
    for column in version.additional_printer_columns.iter().flatten() {
        let mut a = vec![
            format!("name = {}", string_lit(&column.name)),
            format!("type = {}", string_lit(&column.type_)),
            format!("json_path = {}", string_lit(&column.json_path)),
        ];
        if let Some(d) = &column.description {
            a.push(format!("description = {}", string_lit(d)));
        }
        if let Some(f) = &column.format {
            a.push(format!("format = {}", string_lit(f)));
        }
        if let Some(p) = column.priority.filter(|p| *p != 0) {
            a.push(format!("priority = {p}"));
        }
        let _ = writeln!(out, "#[printcolumn({})]", a.join(", "));
    }
    out
}

/// Whitespace runs as one space, ends trimmed: descriptions are compared so.
pub fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The number of properties (schema nodes under `properties`) in a CRD's schemas, or in a
/// schema: what [`differences`] are counted against.
pub fn count_properties(v: &Value) -> usize {
    match v {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| {
                let own = if k == "properties" {
                    v.as_object().map_or(0, |p| p.len())
                } else {
                    0
                };
                own + count_properties(v)
            })
            .sum(),
        Value::Array(items) => items.iter().map(count_properties).sum(),
        _ => 0,
    }
}

/// The property one of [`differences`]' paths is in: the path up to its last
/// `properties.<name>` (or the path before its `:` when it is outside any schema).
pub fn property_of(path: &str) -> String {
    match path.rfind(".properties.") {
        Some(i) => {
            let rest = &path[i + ".properties.".len()..];
            let end = rest.find(['.', '[', ':']).unwrap_or(rest.len());
            path[..i + ".properties.".len() + end].to_string()
        }
        None => path.split(':').next().unwrap_or(path).to_string(),
    }
}

/// Every place where two CRDs (as JSON) differ, as `path: original X, generated Y`:
/// numbers compared as numbers, descriptions after whitespace normalisation, the tools'
/// version annotations left out.
pub fn differences(original: &Value, generated: &Value) -> Vec<String> {
    let strip = |v: &Value| {
        let mut v = v.clone();
        if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
            if let Some(Value::Object(a)) = meta.get_mut("annotations") {
                a.remove("controller-gen.kubebuilder.io/version");
                a.remove(crate::VERSION_ANNOTATION);
            }
            if meta
                .get("annotations")
                .is_some_and(|a| a.as_object().is_some_and(|a| a.is_empty()))
            {
                meta.remove("annotations");
            }
            meta.remove("creationTimestamp");
        }
        if let Some(map) = v.as_object_mut() {
            map.remove("status");
        }
        v
    };
    let mut out = Vec::new();
    compare(&strip(original), &strip(generated), "", &mut out);
    out
}

fn compare(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    let show = |v: &Value| {
        let s = v.to_string();
        if s.len() > 120 {
            let mut cut = 117;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            format!("{}...", &s[..cut])
        } else {
            s
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for key in keys {
                let at = format!("{path}.{key}");
                match (x.get(key), y.get(key)) {
                    (Some(p), Some(q)) => compare(p, q, &at, out),
                    (Some(p), None) => {
                        out.push(format!("{at}: original {}, generated absent", show(p)))
                    }
                    (None, Some(q)) => {
                        out.push(format!("{at}: original absent, generated {}", show(q)))
                    }
                    (None, None) => {}
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if path.ends_with(".required") => {
            // A set: its order means nothing (operator-gen sorts it).
            let mut x: Vec<String> = x.iter().map(Value::to_string).collect();
            let mut y: Vec<String> = y.iter().map(Value::to_string).collect();
            x.sort();
            y.sort();
            if x != y {
                out.push(format!(
                    "{path}: original [{}], generated [{}]",
                    x.join(","),
                    y.join(",")
                ));
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            if x.len() != y.len() {
                out.push(format!(
                    "{path}: original {} items, generated {}",
                    x.len(),
                    y.len()
                ));
            }
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                compare(p, q, &format!("{path}[{i}]"), out);
            }
        }
        (Value::Number(x), Value::Number(y)) if x.as_f64() == y.as_f64() => {}
        (Value::String(x), Value::String(y))
            if x == y || (path.ends_with(".description") && normalize(x) == normalize(y)) => {}
        (x, y) if x == y => {}
        (x, y) => out.push(format!(
            "{path}: original {}, generated {}",
            show(x),
            show(y)
        )),
    }
}
