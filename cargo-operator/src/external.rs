//! `cargo operator create api --external --from-crd FILE`: a kind someone else's operator
//! owns (kubebuilder's `create api --external-api-path`). Its Rust types are generated from
//! its CRD by operator-gen (`src/api/external/`), a copy of the CRD goes to
//! `config/crd/external/` for the local control plane (never into a kustomization: real
//! clusters get it from the operator that owns it), the kind is recorded as an
//! `[[external]]` in `PROJECT.toml` (so `cargo xtask manifests` writes no CRD for it), and
//! a controller for it is scaffolded unless `--no-controller`.
//!
//! The whole of `src/api/external/` is generated from every `[[external]]`'s CRD file at
//! once, so that kinds of one group share their modules; `cargo operator update` generates
//! it, and the copies, again from the files as they are then.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use operator_gen::CrdDocument;
use operator_xtask::project::{self, EXTERNAL_CRDS, Project};
use serde_json::Value;

use crate::names::snake_case;
use crate::plan::{Plan, insert_before_anchor, insert_block_before_anchor};
use crate::{finish, load_project, slashed, template, toml_string};

/// Where the external kinds' modules are, below the operator crate's `src`.
pub(crate) const EXTERNAL_SRC: &str = "api/external";

/// The declaration of the external kinds' modules in `src/api/mod.rs`. Their doc comments
/// are the other projects' descriptions, written for their docs: neither clippy's nor
/// rustdoc's style lints (a bare URL, a list's lazy continuation line) judge them.
const EXTERNAL_MOD: &str = "/// Kinds of other projects' CRDs: their types, generated from the CRD files in \
PROJECT.toml's\n/// `[[external]]` entries by `cargo operator create api --external` (`cargo operator \
update`\n/// makes them again). Not to be edited: the next update replaces them.\n\
#[allow(clippy::all, rustdoc::all)]\npub mod external;\n";

/// What `create api --external` is asked for.
#[derive(Debug, Clone)]
pub struct ExternalOptions {
    /// Where to look for `PROJECT.toml` (it and the directories above it).
    pub cwd: PathBuf,
    /// Where the CRD is read from.
    pub source: ExternalSource,
    /// The CRD's API group (`cert-manager.io`), when the file holds one kind in two groups.
    pub group: Option<String>,
    /// The version the controller uses; default the CRD's storage version.
    pub version: Option<String>,
    /// The kind, when the file holds more than one.
    pub kind: Option<String>,
    /// Scaffold a controller for the kind.
    pub controller: bool,
}

/// Where `create api --external` reads the CRD.
#[derive(Debug, Clone)]
pub enum ExternalSource {
    /// A CRD file (several YAML documents allowed), relative to `cwd`; recorded in
    /// `PROJECT.toml` where it is.
    File(PathBuf),
    /// A CRD of a running cluster, by name (as `operator-gen types --from-cluster` takes
    /// it); saved as the project's copy in `config/crd/external/`, which is recorded.
    Cluster {
        /// The CRD's name, or a plural, kind or short name.
        name: String,
        /// The kubeconfig and context to use instead of kubectl's defaults.
        source: operator_gen::ClusterSource,
    },
}

/// `cargo operator create api --external`.
pub fn create_external_api(options: &ExternalOptions) -> Result<()> {
    let (root, project) = load_project(&options.cwd, "create api")?;
    let (docs, recorded) = match &options.source {
        ExternalSource::File(from_crd) => {
            let file = crate::absolute(&options.cwd, from_crd);
            let recorded = file
                .strip_prefix(&root)
                .map(Path::to_path_buf)
                .unwrap_or_else(|_| file.clone());
            (read(&file, &recorded).context("--from-crd")?, recorded)
        }
        ExternalSource::Cluster { name, source } => {
            let mut docs = operator_gen::read_crds_from_cluster(std::slice::from_ref(name), source)
                .context("--from-cluster")?;
            let recorded = docs
                .first()
                .map(copy_path)
                .context("--from-cluster: no CRD")?;
            if root.join(&recorded).exists() {
                bail!(
                    "--from-cluster: {} is there already; it is where the CRD read from the \
                     cluster is kept: move it away first",
                    recorded.display()
                );
            }
            // As `cargo operator update` will read it: the copy's one document.
            for doc in &mut docs {
                doc.file = recorded.clone();
                doc.document = 1;
            }
            (docs, recorded)
        }
    };
    let doc = pick(
        &docs,
        &recorded,
        options.group.as_deref(),
        options.kind.as_deref(),
    )?;
    let spec = &doc.crd.spec;
    let (group, kind) = (spec.group.clone(), spec.names.kind.clone());
    let version = match &options.version {
        Some(v) => {
            if !spec.versions.iter().any(|x| x.name == *v) {
                bail!(
                    "--version {v}: {kind} ({group}) in {} has versions {}",
                    recorded.display(),
                    spec.versions
                        .iter()
                        .map(|x| x.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            v.clone()
        }
        None => spec
            .versions
            .iter()
            .find(|x| x.storage)
            .or(spec.versions.first())
            .map(|x| x.name.clone())
            .with_context(|| format!("{kind} ({group}) has no versions"))?,
    };
    if let Some(e) = project
        .externals
        .iter()
        .find(|e| e.group == group && e.kind == kind)
    {
        bail!(
            "{} already has the external kind {group} {kind} (from {}); `cargo operator \
             update` generates its types again from that file",
            project::FILE,
            e.crd.display()
        );
    }
    if let Some(r) = project
        .resources
        .iter()
        .find(|r| project.api_group(r) == group && r.kind == kind)
    {
        bail!(
            "{group} {kind} is this project's own kind (in {}), not an external one",
            r.api.display()
        );
    }
    let kind_snake = snake_case(&kind);
    if options.controller {
        let taken = project
            .resources
            .iter()
            .filter(|r| r.controller.is_some())
            .map(|r| (project.api_group(r), &r.kind))
            .chain(
                project
                    .externals
                    .iter()
                    .filter(|e| e.controller.is_some())
                    .map(|e| (e.group.clone(), &e.kind)),
            )
            .find(|(_, k)| snake_case(k) == kind_snake);
        if let Some((other_group, other)) = taken {
            bail!(
                "{other_group} {other} has a controller already, in the module \
                 controllers::{kind_snake}; the scaffold keeps one controller module per kind \
                 name: add this kind with --no-controller"
            );
        }
    }

    let crate_dir = project.operator.path.clone();
    let crate_ident = project.operator.package.replace('-', "_");
    let src = crate_dir.join("src");
    let mut all = project_docs(&root, &project)?;
    all.push(doc.clone());
    let types = generate(&root, &project, &all)?;

    let mut plan = Plan::new(&root);
    let external_dir = src.join(EXTERNAL_SRC);
    for (rel, text) in types {
        let path = external_dir.join(rel);
        if plan.exists(&path) {
            plan.edit(path, |_| Ok(text))?;
        } else {
            plan.create(path, text);
        }
    }
    plan.edit(src.join("api/mod.rs"), |t| {
        if t.lines().any(|l| l.trim() == "pub mod external;") {
            return Ok(t.to_string());
        }
        insert_block_before_anchor(t, "// +operator:scaffold:groups", EXTERNAL_MOD)
    })?;
    plan.create(copy_path(doc), copy_text(doc));
    let module = operator_gen::kind_module(&group, &version, &kind);
    let api_file = external_dir.join(&module);
    let controller_file = src.join("controllers").join(format!("{kind_snake}.rs"));

    if options.controller {
        let types_path = module_path(&module);
        let namespaced = spec.scope == "Namespaced";
        let test_scope = if namespaced {
            format!("let api: Api<{kind}> = Api::namespaced(env.client(), ns.name());")
        } else {
            format!("let api: Api<{kind}> = Api::all(env.client());")
        };
        let minimal = minimal_fields(doc, &version);
        let vars: &[(&str, &str)] = &[
            ("project_name", &project.project_name),
            ("crate_ident", &crate_ident),
            ("kind", &kind),
            ("version", &version),
            ("api_group", &group),
            ("plural", &spec.names.plural),
            ("kind_lower", &kind.to_lowercase()),
            ("kind_snake", &kind_snake),
            ("field_manager", &project.project_name),
            ("event_reporter", &project.project_name),
            ("types_path", &format!("crate::{types_path}")),
            ("types_path_test", &format!("{crate_ident}::{types_path}")),
            ("test_scope", &test_scope),
            ("minimal_fields", &minimal),
        ];
        let render = |t: &str| template::render(t, vars);
        plan.create(&controller_file, render(template::external::CONTROLLER));
        plan.edit(src.join("controllers/mod.rs"), |t| {
            let t = insert_before_anchor(
                t,
                "// +operator:scaffold:controller-modules",
                &format!("pub mod {kind_snake};"),
            )?;
            insert_before_anchor(
                &t,
                "// +operator:scaffold:controllers",
                &format!("{kind_snake}::start,"),
            )
        })?;
        plan.create(
            crate_dir
                .join("tests")
                .join(format!("{kind_snake}_controller.rs")),
            render(template::external::CONTROLLER_TEST),
        );
    }

    plan.edit(project::FILE, |t| {
        let mut entry = format!(
            "\n[[external]]\ncrd = {}\ngroup = {}\nversion = {}\nkind = {}\npath = {}\napi = {}\n",
            toml_string(&slashed(&recorded)),
            toml_string(&group),
            toml_string(&version),
            toml_string(&kind),
            toml_string(&slashed(&crate_dir)),
            toml_string(&slashed(&api_file)),
        );
        if options.controller {
            entry += &format!("controller = {}\n", toml_string(&slashed(&controller_file)));
        }
        entry += &format!("namespaced = {}\n", spec.scope == "Namespaced");
        Ok(format!("{}\n{entry}", t.trim_end_matches('\n')))
    })?;

    finish(plan, &root)?;
    eprintln!(
        "created the external kind {group}/{version} {kind} ({}, types of every version of its \
         CRD){}; its CRD is copied to {} for the local control plane only\nnext: `cargo xtask \
         test` runs every test{}; `cargo operator update` makes the types again from {}",
        api_file.display(),
        if options.controller {
            format!(" and its controller ({})", controller_file.display())
        } else {
            String::new()
        },
        copy_path(doc).display(),
        if options.controller {
            ", the new controller's cluster test included"
        } else {
            ""
        },
        recorded.display()
    );
    Ok(())
}

/// The CRDs of `file`, each named by `recorded` (how `PROJECT.toml` and the generated files'
/// headers spell it).
fn read(file: &Path, recorded: &Path) -> Result<Vec<CrdDocument>> {
    if file.is_dir() {
        bail!(
            "{} is a directory; name the CRD file (a YAML file, several documents allowed)",
            recorded.display()
        );
    }
    let mut docs = operator_gen::read_crds(file).map_err(|e| {
        anyhow::anyhow!(
            "{}",
            e.to_string()
                .replace(&file.display().to_string(), &recorded.display().to_string())
        )
    })?;
    for doc in &mut docs {
        doc.file = recorded.to_path_buf();
    }
    Ok(docs)
}

/// The one CRD of `docs` that `group` and `kind` name (either may be left out while only one
/// matches); else an error that lists them.
fn pick<'a>(
    docs: &'a [CrdDocument],
    recorded: &Path,
    group: Option<&str>,
    kind: Option<&str>,
) -> Result<&'a CrdDocument> {
    let matching: Vec<&CrdDocument> = docs
        .iter()
        .filter(|d| group.is_none_or(|g| d.crd.spec.group == g))
        .filter(|d| kind.is_none_or(|k| d.crd.spec.names.kind == k))
        .collect();
    let list = |docs: &mut dyn Iterator<Item = &CrdDocument>| {
        docs.map(|d| {
            format!(
                "--group {} --kind {}",
                d.crd.spec.group, d.crd.spec.names.kind
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
    };
    let asked = match (group, kind) {
        (Some(g), Some(k)) => format!("--group {g} --kind {k}"),
        (Some(g), None) => format!("--group {g}"),
        (None, Some(k)) => format!("--kind {k}"),
        (None, None) => String::new(),
    };
    match matching.as_slice() {
        [one] => Ok(one),
        [] => bail!(
            "{} has no CustomResourceDefinition of {asked}; it has: {}",
            recorded.display(),
            list(&mut docs.iter())
        ),
        more => bail!(
            "{} has {} CustomResourceDefinitions{}; pick one with {}",
            recorded.display(),
            more.len(),
            if asked.is_empty() {
                String::new()
            } else {
                format!(" of {asked}")
            },
            list(&mut more.iter().copied())
        ),
    }
}

/// The CRDs of the project's `[[external]]` kinds, read again from their files.
pub(crate) fn project_docs(root: &Path, project: &Project) -> Result<Vec<CrdDocument>> {
    let mut out = Vec::new();
    for e in &project.externals {
        let at = e.describe();
        let file = root.join(&e.crd);
        if !file.is_file() {
            bail!(
                "{at}: its CRD file {} is gone; put it back (or a newer one) there, or change \
                 `crd` to where it is now",
                e.crd.display()
            );
        }
        let docs = read(&file, &e.crd).with_context(|| at.clone())?;
        let doc = pick(&docs, &e.crd, Some(&e.group), Some(&e.kind)).with_context(|| at.clone())?;
        if !doc.crd.spec.versions.iter().any(|v| v.name == e.version) {
            bail!(
                "{at}: {} no longer has version {} (it has {}); change `version` and the \
                 controller that uses it",
                e.crd.display(),
                e.version,
                doc.crd
                    .spec
                    .versions
                    .iter()
                    .map(|v| v.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        out.push(doc.clone());
    }
    Ok(out)
}

/// The files of `src/api/external/` (paths relative to it) for `docs`, formatted.
pub(crate) fn generate(
    root: &Path,
    project: &Project,
    docs: &[CrdDocument],
) -> Result<Vec<(PathBuf, String)>> {
    let manifest = root.join(&project.operator.path).join("Cargo.toml");
    let options = operator_gen::Options::from_manifest(&manifest).map_err(anyhow::Error::msg)?;
    let files: BTreeSet<String> = docs.iter().map(|d| d.file.display().to_string()).collect();
    let types = operator_gen::rust_types(
        docs,
        &operator_gen::TypesOptions {
            command: format!(
                "cargo operator create api --external --from-crd {}",
                files.into_iter().collect::<Vec<_>>().join(" ")
            ),
            embedded_object_meta: options.embedded_object_meta,
        },
    )?;
    if types.floats && !options.allow_dangerous_types {
        bail!(
            "the CRD has `number` fields, which become f64, and {} does not allow them: add \
             `allow-dangerous-types = true` under [package.metadata.operator-gen] there, then \
             run this again; nothing was changed",
            manifest.display()
        );
    }
    for w in &types.warnings {
        eprintln!("warning: {w}");
    }
    types
        .files
        .into_iter()
        .map(|(path, text)| {
            let text = match operator_gen::rustfmt(&text) {
                Some(Ok(formatted)) => formatted,
                Some(Err(problem)) => bail!(
                    "rustfmt refused the types of {} (a bug in operator-gen types): {problem}",
                    path.display()
                ),
                None => text,
            };
            Ok((path, text))
        })
        .collect()
}

/// `cargo operator update`'s part for the external kinds: their types made again from the
/// CRD files `PROJECT.toml` records, as they are now, replacing `src/api/external/` (files
/// no longer made are removed), and their copies in `config/crd/external/` refreshed. Every
/// file is made before the first is written. The files that changed, relative to `root`.
pub(crate) fn regenerate(root: &Path, project: &Project) -> Result<Vec<PathBuf>> {
    if project.externals.is_empty() {
        return Ok(Vec::new());
    }
    let docs = project_docs(root, project)?;
    let dir = project.operator.path.join("src").join(EXTERNAL_SRC);
    let mut wanted: Vec<(PathBuf, String)> = generate(root, project, &docs)?
        .into_iter()
        .map(|(rel, text)| (dir.join(rel), text))
        .collect();
    wanted.extend(docs.iter().map(|d| (copy_path(d), copy_text(d))));
    let mut changed = Vec::new();
    for (rel, text) in &wanted {
        let at = root.join(rel);
        if std::fs::read_to_string(&at).is_ok_and(|now| now == *text) {
            continue;
        }
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        let tmp = at.with_extension("update-tmp");
        std::fs::write(&tmp, text).with_context(|| format!("writing {}", tmp.display()))?;
        std::fs::rename(&tmp, &at).with_context(|| format!("writing {}", at.display()))?;
        changed.push(rel.clone());
    }
    // Modules of versions or kinds the CRDs no longer have.
    let kept: BTreeSet<&PathBuf> = wanted.iter().map(|(rel, _)| rel).collect();
    let mut dirs = vec![root.join(&dir)];
    while let Some(at) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&at) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
            if path.is_dir() {
                dirs.push(path);
            } else if !kept.contains(&rel) {
                std::fs::remove_file(&path)
                    .with_context(|| format!("removing {}", path.display()))?;
                changed.push(rel);
            }
        }
    }
    changed.sort();
    Ok(changed)
}

/// Where the project keeps its copy of `doc`'s CRD.
pub(crate) fn copy_path(doc: &CrdDocument) -> PathBuf {
    Path::new(EXTERNAL_CRDS).join(format!(
        "{}_{}.yaml",
        doc.crd.spec.group, doc.crd.spec.names.plural
    ))
}

/// The copy of `doc`'s CRD: as written, but for what the API server keeps for itself.
pub(crate) fn copy_text(doc: &CrdDocument) -> String {
    let mut raw = doc.raw.clone();
    if let Value::Object(map) = &mut raw {
        map.remove("status");
        if let Some(Value::Object(meta)) = map.get_mut("metadata") {
            for key in operator_gen::SERVER_METADATA {
                meta.remove(*key);
            }
        }
    }
    let from = if doc.file == copy_path(doc) {
        // Read from a cluster: this copy is the file the types are made from.
        "read from a cluster by `cargo operator create api --external\n# --from-cluster`; \
         `cargo operator update` makes the types again from this file"
            .to_owned()
    } else {
        format!(
            "copied from {} by `cargo operator create api --external`\n# (and again by \
             `cargo operator update`)",
            slashed(&doc.file)
        )
    };
    format!(
        "# {}'s CustomResourceDefinition, {from}. Applied to the local control plane only \
         (cargo xtask\n# test, install, run): real clusters get it from the operator that owns \
         the kind.\n{}",
        doc.crd.spec.names.kind,
        serde_yaml::to_string(&raw).expect("a CRD is YAML")
    )
}

/// `cert_manager_io/v1/certificate.rs` as a module path below `api::external`.
fn module_path(module: &Path) -> String {
    let mut parts = vec!["api".to_string(), "external".to_string()];
    parts.extend(
        module
            .with_extension("")
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("::")
}

/// The fields of a `version` object of `doc`'s kind that its schema requires (and `spec`),
/// with placeholder values, as JSON object entries after `metadata` (`,\n"spec": {...}`);
/// empty when there are none.
fn minimal_fields(doc: &CrdDocument, version: &str) -> String {
    let schema = doc
        .raw
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .and_then(|vs| {
            vs.iter()
                .find(|v| v.get("name").and_then(Value::as_str) == Some(version))
        })
        .and_then(|v| v.pointer("/schema/openAPIV3Schema"));
    let Some(schema) = schema else {
        return String::new();
    };
    let required = required_of(schema);
    let mut out = String::new();
    if let Some(Value::Object(props)) = schema.get("properties") {
        for (name, prop) in props {
            if matches!(name.as_str(), "apiVersion" | "kind" | "metadata" | "status") {
                continue;
            }
            if name == "spec" || required.contains(name.as_str()) {
                let value = serde_json::to_string_pretty(&placeholder(prop, 0))
                    .expect("JSON")
                    .replace('\n', "\n        ");
                out += &format!(",\n        {}: {value}", Value::String(name.clone()));
            }
        }
    }
    out
}

fn required_of(schema: &Value) -> BTreeSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// A value `schema` admits, as far as its type, enum, bounds and required fields go.
fn placeholder(schema: &Value, depth: usize) -> Value {
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    let number = |key: &str| schema.get(key).and_then(Value::as_f64);
    if schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return Value::from(1);
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("object") if depth < 8 => {
            let mut map = serde_json::Map::new();
            if let Some(Value::Object(props)) = schema.get("properties") {
                for name in required_of(schema) {
                    if let Some(prop) = props.get(name) {
                        map.insert(name.to_string(), placeholder(prop, depth + 1));
                    }
                }
            }
            Value::Object(map)
        }
        Some("array") => {
            let n = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let item = schema
                .get("items")
                .map_or(Value::Null, |i| placeholder(i, depth + 1));
            Value::Array(vec![item; n as usize])
        }
        Some("integer") => {
            let min = number("minimum").unwrap_or(0.0).max(0.0) as i64;
            let exclusive = schema.get("exclusiveMinimum") == Some(&Value::Bool(true));
            Value::from(if exclusive { min + 1 } else { min })
        }
        Some("number") => Value::from(number("minimum").unwrap_or(0.0).max(0.0)),
        Some("boolean") => Value::Bool(false),
        Some("string") => match schema.get("format").and_then(Value::as_str) {
            Some("date-time") => Value::from("2024-01-01T00:00:00Z"),
            Some("date") => Value::from("2024-01-01"),
            _ => {
                let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
                let max = schema.get("maxLength").and_then(Value::as_u64);
                let mut s = "example".to_string();
                while (s.len() as u64) < min {
                    s.push('x');
                }
                if let Some(max) = max {
                    s.truncate(max.max(min.max(1)) as usize);
                }
                Value::from(s)
            }
        },
        _ => Value::Object(Default::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_satisfy_types_enums_and_bounds() {
        let schema = serde_json::json!({
            "type": "object",
            "required": ["name", "mode", "size", "tags", "when"],
            "properties": {
                "name": { "type": "string", "maxLength": 3 },
                "mode": { "type": "string", "enum": ["Fast", "Slow"] },
                "size": { "type": "integer", "minimum": 2, "exclusiveMinimum": true },
                "tags": { "type": "array", "minItems": 1, "items": { "type": "string" } },
                "when": { "type": "string", "format": "date-time" },
                "optional": { "type": "string" }
            }
        });
        assert_eq!(
            placeholder(&schema, 0),
            serde_json::json!({
                "name": "exa",
                "mode": "Fast",
                "size": 3,
                "tags": ["example"],
                "when": "2024-01-01T00:00:00Z"
            })
        );
        assert_eq!(
            module_path(Path::new("cert_manager_io/v1/certificate.rs")),
            "api::external::cert_manager_io::v1::certificate"
        );
    }
}
