//! `cargo xtask beside-kopium`: operator-rs's `types --from-crd` and kopium side by side on
//! the CRD corpus of `testdata/crd-corpus/corpus.yaml`.
//!
//! For every served version of every CRD of the corpus, both tools make Rust types, and each
//! tool's types are turned back into a CRD by the tool's own road:
//! - operator-rs: `operator_gen::rust_types`, then `operator_gen::crds` on those sources;
//! - kopium (installed from crates.io on first use, into `~/.cache/operator-rs/kopium`): its
//!   output, with doc comments and `schema = "derived"`, compiled in one crate per project
//!   (one Cargo workspace, one target directory) with kube's derive, schemars and k8s-openapi,
//!   whose program prints `CustomResourceExt::crd()` of each kind. A project whose crate does
//!   not compile is built again one crate per CRD, and a CRD whose crate does not compile has
//!   its versions counted as without kopium's CRD, with the compiler's first error among
//!   kopium's failures.
//!
//! Then, per CRD, the keywords of the original schemas are counted by kind (value
//! validations, enums, CEL rules, defaults, descriptions, list and map types) and a keyword is
//! kept when the tool's schema has the same keyword with the same value at the same path
//! (an enum that only adds `null` to the original's values, as kopium's optional enums do,
//! counts as kept).
//! The properties identical after the round trip are counted as in the corpus test. The
//! tables go to stdout and to `<target>/beside-kopium.md`. Needs Go (for the module proxy),
//! and is not part of the test suite.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use serde_json::Value;

use operator_xtask::root;

/// The flags given to kopium besides the file and the version: doc comments kept as
/// descriptions, and the schema derived by kube-derive (schemars) rather than disabled.
const KOPIUM_FLAGS: &[&str] = &["--docs", "--schema=derived"];

/// The kinds of keyword counted, each with its keywords.
const KINDS: &[(&str, &[&str])] = &[
    (
        "validations",
        &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minLength",
            "maxLength",
            "pattern",
            "minItems",
            "maxItems",
            "minProperties",
            "maxProperties",
            "format",
        ],
    ),
    ("enums", &["enum"]),
    ("CEL rules", &["x-kubernetes-validations"]),
    ("defaults", &["default"]),
    ("descriptions", &["description"]),
    (
        "list/map types",
        &[
            "x-kubernetes-list-type",
            "x-kubernetes-list-map-keys",
            "x-kubernetes-map-type",
        ],
    ),
];

#[derive(Debug, serde::Deserialize)]
struct Corpus {
    projects: Vec<Project>,
}

#[derive(Debug, serde::Deserialize)]
struct Project {
    name: String,
    module: String,
    version: String,
    crds: Vec<String>,
}

/// What one tool keeps of one CRD (all its served versions).
#[derive(Debug, Default, Clone)]
struct Kept {
    /// Per kind of keyword (in [`KINDS`]'s order).
    keywords: Vec<usize>,
    /// Properties identical after the round trip.
    identical: usize,
}

impl Kept {
    fn new() -> Self {
        Kept {
            keywords: vec![0; KINDS.len()],
            identical: 0,
        }
    }

    fn add(&mut self, other: &Kept) {
        for (a, b) in self.keywords.iter_mut().zip(&other.keywords) {
            *a += b;
        }
        self.identical += other.identical;
    }
}

/// One CRD's counts.
#[derive(Debug, Clone)]
struct Row {
    crd: String,
    versions: usize,
    original: Kept,
    operator_rs: Kept,
    kopium: Kept,
    /// Served versions kopium's output did not give a CRD for (kopium or the compile failed).
    kopium_missing: usize,
}

/// One served version of a CRD, as the comparison needs it.
struct Version {
    project: String,
    crd: String,
    name: String,
    original: Value,
    operator_rs: Option<Value>,
    /// The key kopium's program prints the kind's CRD under (`project/crd/version`).
    key: String,
}

/// A kopium source: its module path in the crate and the kind's Rust name.
struct KopiumKind {
    project: String,
    key: String,
    /// `project::crd_module::version_module`.
    module: Vec<String>,
    /// The kind's Rust type: the kind, or the `root` kopium gives it (`TcpRoute` for
    /// `TCPRoute`).
    kind: String,
    text: String,
}

pub fn beside_kopium() -> Result<()> {
    let started = Instant::now();
    let root = root();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { root.join(t) })
        .unwrap_or_else(|| root.join("target"));
    let work = target.join("beside-kopium");
    let (kopium, kopium_version) = kopium()?;
    eprintln!(
        "kopium {kopium_version} ({}), flags {KOPIUM_FLAGS:?}",
        kopium.display()
    );

    let path = root.join("testdata/crd-corpus/corpus.yaml");
    let corpus: Corpus = serde_yaml::from_str(&std::fs::read_to_string(&path)?)
        .with_context(|| path.display().to_string())?;
    for dir in ["crds", "operator-rs"] {
        std::fs::create_dir_all(work.join(dir))?;
    }

    let mut versions: Vec<Version> = Vec::new();
    let mut kopium_kinds: Vec<KopiumKind> = Vec::new();
    let mut kopium_failures: Vec<String> = Vec::new();
    let mut crds_of: Vec<(String, Vec<(String, usize)>)> = Vec::new();
    for project in &corpus.projects {
        eprintln!("{}: {}@{}", project.name, project.module, project.version);
        let module_dir = envtest::gomod::download(&project.module, &project.version)
            .map_err(|e| anyhow::anyhow!("{}: {e}", project.name))?;
        let mut docs = Vec::new();
        for path in &project.crds {
            docs.extend(
                operator_gen::read_crds(&module_dir.join(path))
                    .map_err(|e| anyhow::anyhow!("{}: {e}", project.name))?,
            );
        }
        // operator-rs: the types, and the CRDs operator-gen makes of them.
        let types = operator_gen::rust_types(&docs, &operator_gen::TypesOptions::default())
            .map_err(|e| anyhow::anyhow!("{}: {e}", project.name))?;
        let dir = work.join("operator-rs").join(module_name(&project.name));
        if dir.exists() {
            std::fs::remove_dir_all(&dir)?;
        }
        for (path, text) in &types.files {
            let file = dir.join(path);
            std::fs::create_dir_all(file.parent().unwrap())?;
            std::fs::write(&file, text)?;
        }
        let generated = operator_gen::crds(
            std::slice::from_ref(&dir),
            &operator_gen::Options {
                allow_dangerous_types: types.floats,
                ..operator_gen::Options::default()
            },
        )
        .map_err(|e| anyhow::anyhow!("{}: operator-gen refuses the types: {e}", project.name))?;

        let mut crds = Vec::new();
        for doc in &docs {
            let spec = &doc.crd.spec;
            let name = doc.crd.metadata.name.clone().unwrap_or_default();
            let ours = generated
                .iter()
                .find(|c| c.spec.group == spec.group && c.spec.names.kind == spec.names.kind)
                .map(|c| serde_json::to_value(c).unwrap());
            let file = work.join("crds").join(format!("{name}.yaml"));
            std::fs::write(&file, serde_yaml::to_string(&doc.raw)?)?;
            let mut served = 0;
            for version in spec.versions.iter().filter(|v| v.served) {
                served += 1;
                let key = format!("{}/{}/{}", project.name, name, version.name);
                let original = version_schema(&doc.raw, &version.name);
                let operator_rs = ours.as_ref().map(|c| version_schema(c, &version.name));
                versions.push(Version {
                    project: project.name.clone(),
                    crd: name.clone(),
                    name: version.name.clone(),
                    original,
                    operator_rs,
                    key: key.clone(),
                });
                let mut args: Vec<String> = vec![
                    "-f".into(),
                    file.display().to_string(),
                    "--api-version".into(),
                    version.name.clone(),
                ];
                args.extend(KOPIUM_FLAGS.iter().map(|s| s.to_string()));
                let out = Command::new(&kopium).args(&args).output()?;
                if !out.status.success() {
                    kopium_failures.push(format!(
                        "{key}: kopium fails: {}",
                        String::from_utf8_lossy(&out.stderr).trim()
                    ));
                    continue;
                }
                let text = String::from_utf8(out.stdout)?;
                // kopium derives `CustomResource` on the spec's struct: a CRD without `spec`
                // (cloudnative-pg's FailoverQuorum has only `status`) gets none, so no CRD.
                if !text.lines().any(|l| l.trim_start().starts_with("#[kube(")) {
                    kopium_failures.push(format!(
                        "{key}: kopium's output has no `CustomResource` (the schema has no `spec`)"
                    ));
                    continue;
                }
                kopium_kinds.push(KopiumKind {
                    project: project.name.clone(),
                    key,
                    module: vec![
                        module_name(&project.name),
                        module_name(&name),
                        module_name(&version.name),
                    ],
                    text,
                    kind: String::new(),
                });
                let k = kopium_kinds.last_mut().unwrap();
                k.kind = root_type(&k.text).unwrap_or_else(|| spec.names.kind.clone());
            }
            crds.push((name, served));
        }
        crds_of.push((project.name.clone(), crds));
    }
    let generation = started.elapsed();
    eprintln!(
        "{} versions of {} CRDs generated by both tools in {generation:.1?}",
        versions.len(),
        crds_of.iter().map(|(_, c)| c.len()).sum::<usize>()
    );

    // kopium's round trip: its types compiled, their CRDs printed. One crate per project
    // (the whole corpus in one crate needs more than 9 GB to compile), all in one workspace
    // with one target directory, built one after another; a project whose crate does not
    // compile is built again one crate per CRD; a CRD whose crate does not compile has its
    // versions counted as without kopium's CRD.
    let mut kopium_crds: BTreeMap<String, Value> = BTreeMap::new();
    let mut compile_failures: Vec<String> = Vec::new();
    // Kept between runs, its files written only when they change: a run again (after a
    // change to the counting) finds the crates built.
    let crates = work.join("kopium");
    std::fs::create_dir_all(&crates)?;
    write_workspace(&crates)?;
    for (project, _) in &crds_of {
        let some: Vec<&KopiumKind> = kopium_kinds
            .iter()
            .filter(|k| &k.project == project)
            .collect();
        if some.is_empty() {
            continue;
        }
        let e = match build_and_run(&crates, &target, &module_name(project), &some) {
            Ok(found) => {
                kopium_crds.extend(found);
                continue;
            }
            Err(e) => e,
        };
        eprintln!("{project}: kopium's crate {e}");
        let crds: BTreeSet<&String> = some.iter().map(|k| &k.module[1]).collect();
        if crds.len() == 1 {
            compile_failures.push(format!("{project}: {e}"));
            continue;
        }
        // Then one crate per CRD, so that one CRD's output that does not compile does not
        // take its project's others with it.
        eprintln!("{project}: one crate per CRD");
        for crd in crds {
            let one: Vec<&KopiumKind> = some
                .iter()
                .copied()
                .filter(|k| &k.module[1] == crd)
                .collect();
            let name = format!("{}_{crd}", module_name(project));
            match build_and_run(&crates, &target, &name, &one) {
                Ok(found) => kopium_crds.extend(found),
                Err(e) => {
                    eprintln!("{project}/{crd}: kopium's crate {e}");
                    compile_failures.push(format!("{project}/{crd}: {e}"));
                }
            }
        }
    }

    // The counts.
    let mut rows: BTreeMap<(String, String), Row> = BTreeMap::new();
    for v in &versions {
        let row = rows
            .entry((v.project.clone(), v.crd.clone()))
            .or_insert_with(|| Row {
                crd: v.crd.clone(),
                versions: 0,
                original: Kept::new(),
                operator_rs: Kept::new(),
                kopium: Kept::new(),
                kopium_missing: 0,
            });
        row.versions += 1;
        let mut found = Vec::new();
        keywords(&v.original, &mut Vec::new(), &mut found);
        let properties = operator_gen::count_properties(&v.original);
        let mut original = Kept::new();
        for (kind, _, _) in &found {
            original.keywords[*kind] += 1;
        }
        original.identical = properties;
        row.original.add(&original);
        if let Some(ours) = &v.operator_rs {
            row.operator_rs.add(&kept(&v.original, ours, &found));
        }
        let theirs = kopium_crds
            .get(&v.key)
            .map(|crd| version_schema(crd, &v.name));
        match theirs {
            Some(theirs) => row.kopium.add(&kept(&v.original, &theirs, &found)),
            None => row.kopium_missing += 1,
        }
    }

    // The tables.
    let took = started.elapsed();
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# operator-rs beside kopium on the CRD corpus\n\n\
         kopium {kopium_version}, `kopium -f <crd> --api-version <version> {}`, its output \
         compiled with kube (derive), schemars and k8s-openapi and its CRDs printed by \
         `CustomResourceExt::crd()`; operator-rs: `operator-gen types --from-crd`, then \
         `operator-gen` on the types. Every served version of every CRD. A keyword is kept when \
         the round-tripped schema has it with the same value at the same path (descriptions \
         compared after whitespace normalisation; an enum that only adds `null` to the \
         original's values counts as kept). Cells: \
         original / operator-rs / kopium.\n",
        KOPIUM_FLAGS.join(" ")
    );
    let header = {
        let mut h = String::from("| project | CRDs | versions | without kopium's CRD |");
        for (kind, _) in KINDS {
            let _ = write!(h, " {kind} |");
        }
        h.push_str(" properties identical (operator-rs / kopium) |\n|---|---:|---:|---:|");
        for _ in KINDS {
            h.push_str("---:|");
        }
        h.push_str("---:|\n");
        h
    };
    let mut summary = header.clone();
    let mut total = (0, 0, Kept::new(), Kept::new(), Kept::new());
    let mut total_missing = 0;
    let mut per_crd = String::new();
    for (project, crds) in &crds_of {
        let mut sums = (0, Kept::new(), Kept::new(), Kept::new());
        let mut missing_of_project = 0;
        let _ = writeln!(
            per_crd,
            "\n### {project}\n\n| CRD | versions |{} properties identical (operator-rs / kopium) |\n|---|---:|{}---:|",
            KINDS
                .iter()
                .map(|(k, _)| format!(" {k} |"))
                .collect::<String>(),
            "---:|".repeat(KINDS.len())
        );
        for (crd, _) in crds {
            let Some(row) = rows.get(&(project.clone(), crd.clone())) else {
                continue;
            };
            sums.0 += row.versions;
            sums.1.add(&row.original);
            sums.2.add(&row.operator_rs);
            sums.3.add(&row.kopium);
            missing_of_project += row.kopium_missing;
            let missing = if row.kopium_missing > 0 {
                format!(" ({} versions without kopium's CRD)", row.kopium_missing)
            } else {
                String::new()
            };
            let _ = writeln!(
                per_crd,
                "| {}{missing} | {} |{} {} |",
                row.crd,
                row.versions,
                cells(&row.original, &row.operator_rs, &row.kopium),
                identical(&row.original, &row.operator_rs, &row.kopium)
            );
        }
        let _ = writeln!(
            summary,
            "| {project} | {} | {} | {missing_of_project} |{} {} |",
            crds.len(),
            sums.0,
            cells(&sums.1, &sums.2, &sums.3),
            identical(&sums.1, &sums.2, &sums.3)
        );
        total.0 += crds.len();
        total.1 += sums.0;
        total.2.add(&sums.1);
        total.3.add(&sums.2);
        total.4.add(&sums.3);
        total_missing += missing_of_project;
    }
    let _ = writeln!(
        summary,
        "| all | {} | {} | {total_missing} |{} {} |",
        total.0,
        total.1,
        cells(&total.2, &total.3, &total.4),
        identical(&total.2, &total.3, &total.4)
    );
    md.push_str(&summary);
    let _ = writeln!(md, "\n## Per CRD");
    md.push_str(&per_crd);
    if !kopium_failures.is_empty() || !compile_failures.is_empty() {
        let _ = writeln!(md, "\n## kopium's failures\n");
        for f in kopium_failures.iter().chain(&compile_failures) {
            let _ = writeln!(md, "- {}", f.replace('\n', " "));
        }
    }
    let _ = writeln!(
        md,
        "\nBoth tools generated the types in {generation:.1?}; the whole command took {took:.1?}."
    );
    println!("{summary}");
    for f in kopium_failures.iter().chain(&compile_failures) {
        println!("- {f}");
    }
    let out = target.join("beside-kopium.md");
    std::fs::write(&out, &md)?;
    println!(
        "took {took:.1?}; the tables per project and per CRD: {}",
        out.display()
    );
    Ok(())
}

fn cells(original: &Kept, ours: &Kept, theirs: &Kept) -> String {
    (0..KINDS.len())
        .map(|i| {
            format!(
                " {} / {} / {} |",
                original.keywords[i], ours.keywords[i], theirs.keywords[i]
            )
        })
        .collect()
}

fn identical(original: &Kept, ours: &Kept, theirs: &Kept) -> String {
    let share = |n: usize| 100.0 * n as f64 / original.identical.max(1) as f64;
    format!(
        "{} of {}: {:.1} % / {:.1} %",
        ours.identical,
        original.identical,
        share(ours.identical),
        share(theirs.identical)
    )
}

/// kopium: from its cache, or installed from crates.io into it first. Its path and version.
fn kopium() -> Result<(PathBuf, String)> {
    let cache = match std::env::var_os("HOME") {
        Some(home) => PathBuf::from(home).join(".cache/operator-rs/kopium"),
        None => root().join("target/kopium"),
    };
    let bin = cache.join("bin/kopium");
    if !bin.exists() {
        eprintln!(
            "installing kopium from crates.io into {} (once; a few minutes)",
            cache.display()
        );
        let status = Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
            .args(["install", "kopium", "--locked", "--root"])
            .arg(&cache)
            .status()?;
        if !status.success() {
            bail!("cargo install kopium failed");
        }
    }
    let out = Command::new(&bin).arg("--version").output()?;
    let version = String::from_utf8_lossy(&out.stdout)
        .trim()
        .trim_start_matches("kopium ")
        .to_string();
    Ok((bin, version))
}

/// The Rust module name of a project, CRD or version.
fn module_name(name: &str) -> String {
    let mut m: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if m.starts_with(|c: char| c.is_ascii_digit()) {
        m.insert(0, '_');
    }
    m
}

/// The Rust type kopium names the kind's root when it is not the kind: the `root = "…"` of its
/// `#[kube(…)]` attribute.
fn root_type(text: &str) -> Option<String> {
    text.lines()
        .filter(|l| l.trim_start().starts_with("#[kube("))
        .find_map(|l| {
            let rest = &l[l.find("root = \"")? + "root = \"".len()..];
            Some(rest[..rest.find('"')?].to_string())
        })
}

/// The `openAPIV3Schema` of `version` in a CRD (as JSON).
fn version_schema(crd: &Value, version: &str) -> Value {
    crd["spec"]["versions"]
        .as_array()
        .and_then(|vs| vs.iter().find(|v| v["name"] == version))
        .map(|v| v["schema"]["openAPIV3Schema"].clone())
        .unwrap_or(Value::Null)
}

/// Writes `text` to `file` (and its directory) unless it holds that already, so that cargo
/// does not build again what it built.
fn write_if_changed(file: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(file).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::create_dir_all(file.parent().unwrap()).map_err(|e| e.to_string())?;
    std::fs::write(file, text).map_err(|e| e.to_string())
}

/// The Cargo workspace of kopium's crates: every directory in it is a member crate. kube's
/// derive alone (no client), and k8s-openapi with `schemars`, without which its types (the
/// `Condition` kopium uses, for one) do not implement `JsonSchema`.
fn write_workspace(crates: &Path) -> Result<()> {
    write_if_changed(
        &crates.join("Cargo.toml"),
        "[workspace]\nmembers = [\"*\"]\nresolver = \"2\"\n\n\
         [workspace.dependencies]\n\
         kube = { version = \"5\", default-features = false, features = [\"derive\"] }\n\
         k8s-openapi = { version = \"0.29\", features = [\"v1_36\", \"schemars\"] }\n\
         schemars = \"1\"\n\
         serde = { version = \"1\", features = [\"derive\"] }\n\
         serde_json = \"1\"\n\n\
         [profile.dev]\ndebug = false\nincremental = false\n",
    )
    .map_err(anyhow::Error::msg)?;
    // The repository's lock file, for the same kube, k8s-openapi and schemars.
    if !crates.join("Cargo.lock").exists() {
        std::fs::copy(root().join("Cargo.lock"), crates.join("Cargo.lock"))?;
    }
    Ok(())
}

/// Builds the crate `name` of kopium's workspace `crates` with `kinds` and runs its program:
/// each kind's CRD by its key; or the compiler's first error.
fn build_and_run(
    crates: &Path,
    target: &Path,
    name: &str,
    kinds: &[&KopiumKind],
) -> Result<BTreeMap<String, Value>, String> {
    let package = format!("kopium-{}", name.replace('_', "-"));
    let crate_name = package.replace('-', "_");
    let dir = crates.join(&package);
    let src = dir.join("src");
    // The module tree below the crate's root: crd -> version (the project is the crate).
    let mut tree: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for k in kinds {
        let module = &k.module[1..];
        for depth in 0..module.len() {
            tree.entry(module[..depth].to_vec())
                .or_default()
                .insert(module[depth].clone());
        }
        write_if_changed(&src.join(module.join("/") + ".rs"), &k.text)?;
    }
    for (parent, children) in &tree {
        let mut text = String::new();
        if parent.is_empty() {
            let _ = write!(
                text,
                "//! kopium's types of the CRD corpus's {name}.\n#![allow(warnings)]\n\n"
            );
        }
        for c in children {
            let _ = writeln!(text, "pub mod {c};");
        }
        let file = if parent.is_empty() {
            src.join("lib.rs")
        } else {
            src.join(parent.join("/") + ".rs")
        };
        write_if_changed(&file, &text)?;
    }
    // A kind whose `crd()` panics is left out (and said on stderr), not the whole crate.
    let mut main = String::from(
        "//! Prints `key<TAB>CRD as JSON` for every kind.\nuse kube::CustomResourceExt as _;\n\n\
         fn print(key: &str, crd: fn() -> String) {\n\
         \x20   match std::panic::catch_unwind(crd) {\n\
         \x20       Ok(json) => println!(\"{key}\\t{json}\"),\n\
         \x20       Err(_) => eprintln!(\"{key}: crd() panics\"),\n\
         \x20   }\n\
         }\n\nfn main() {\n",
    );
    for k in kinds {
        let _ = writeln!(
            main,
            "    print({:?}, || serde_json::to_string(&{crate_name}::{}::{}::crd()).unwrap());",
            k.key,
            k.module[1..].join("::"),
            k.kind
        );
    }
    main.push_str("}\n");
    write_if_changed(&src.join("main.rs"), &main)?;
    write_if_changed(
        &dir.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"{package}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
             publish = false\n\n[dependencies]\n\
             kube.workspace = true\nk8s-openapi.workspace = true\nschemars.workspace = true\n\
             serde.workspace = true\nserde_json.workspace = true\n"
        ),
    )?;
    let build_target = target.join("beside-kopium/target");
    let started = Instant::now();
    eprintln!("building kopium's types of {name} ({} kinds)", kinds.len());
    let out = Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
        .args(["build", "--quiet", "-j", "2", "-p", &package])
        .current_dir(crates)
        .env("CARGO_TARGET_DIR", &build_target)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        std::fs::write(dir.join("build-errors.txt"), stderr.as_bytes())
            .map_err(|e| e.to_string())?;
        let lines: Vec<&str> = stderr.lines().collect();
        let count = lines.iter().filter(|l| l.starts_with("error")).count();
        let first = lines
            .iter()
            .position(|l| l.starts_with("error"))
            .map(|i| {
                // The error and where it is.
                let at = lines[i + 1..]
                    .iter()
                    .take(3)
                    .find(|l| l.trim_start().starts_with("-->"))
                    .map(|l| format!(" ({})", l.trim()))
                    .unwrap_or_default();
                format!("{}{at}", lines[i])
            })
            .unwrap_or_else(|| stderr.trim().to_string());
        return Err(format!(
            "does not compile ({count} error lines; first: {first}; all in {})",
            dir.join("build-errors.txt").display()
        ));
    }
    eprintln!("built in {:.1?}", started.elapsed());
    let out = Command::new(build_target.join("debug").join(&package))
        .output()
        .map_err(|e| e.to_string())?;
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        return Err(format!(
            "its program fails: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let (key, json) = l.split_once('\t').ok_or(l.to_string())?;
            Ok((
                key.to_string(),
                serde_json::from_str(json).map_err(|e| e.to_string())?,
            ))
        })
        .collect()
}

/// The counted keywords of `schema` (every subschema): kind, path (as keys), keyword.
fn keywords(schema: &Value, path: &mut Vec<String>, out: &mut Vec<(usize, Vec<String>, String)>) {
    let Value::Object(map) = schema else {
        return;
    };
    for key in map.keys() {
        if let Some(kind) = KINDS.iter().position(|(_, ks)| ks.contains(&key.as_str())) {
            out.push((kind, path.clone(), key.clone()));
        }
    }
    let mut child = |path: &mut Vec<String>, segments: &[&str], value: &Value| {
        for s in segments {
            path.push(s.to_string());
        }
        keywords(value, path, out);
        for _ in segments {
            path.pop();
        }
    };
    if let Some(Value::Object(props)) = map.get("properties") {
        for (name, value) in props {
            child(path, &["properties", name], value);
        }
    }
    for key in ["items", "additionalProperties", "not"] {
        if let Some(value) = map.get(key).filter(|v| v.is_object()) {
            child(path, &[key], value);
        }
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(items)) = map.get(key) {
            for (i, value) in items.iter().enumerate() {
                child(path, &[key, &i.to_string()], value);
            }
        }
    }
}

/// The subschema at `path` (keys, array indices as numbers).
fn at<'a>(schema: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(schema, |v, s| match v {
        Value::Array(items) => s.parse::<usize>().ok().and_then(|i| items.get(i)),
        _ => v.get(s),
    })
}

/// JSON equality with numbers compared as numbers and descriptions after whitespace
/// normalisation.
fn same(key: &str, a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) if key == "description" => {
            x.split_whitespace().eq(y.split_whitespace())
        }
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same("", p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, p)| y.get(k).is_some_and(|q| same("", p, q)))
        }
        _ => a == b,
    }
}

/// What `generated` keeps of `original`'s keywords `found`, and its properties identical.
fn kept(original: &Value, generated: &Value, found: &[(usize, Vec<String>, String)]) -> Kept {
    let mut out = Kept::new();
    for (kind, path, key) in found {
        let a = at(original, path).and_then(|s| s.get(key));
        let b = at(generated, path).and_then(|s| s.get(key));
        // An optional enum of kopium's allows `null` besides the original's values (and is
        // `nullable`): the values it allows are the original's, so the enum is kept. (The
        // property is not identical all the same.)
        let b = match (key.as_str(), a, b) {
            ("enum", Some(Value::Array(x)), Some(Value::Array(y))) if !x.contains(&Value::Null) => {
                Some(Value::Array(
                    y.iter().filter(|v| !v.is_null()).cloned().collect(),
                ))
            }
            _ => b.cloned(),
        };
        if let (Some(a), Some(b)) = (a, &b)
            && same(key, a, b)
        {
            out.keywords[*kind] += 1;
        }
    }
    let wrap = |v: &Value| serde_json::json!({ "schema": v });
    let differing: BTreeSet<String> = operator_gen::differences(&wrap(original), &wrap(generated))
        .iter()
        .filter(|d| d.contains(".properties."))
        .map(|d| operator_gen::property_of(d))
        .collect();
    out.identical = operator_gen::count_properties(original).saturating_sub(differing.len());
    out
}
