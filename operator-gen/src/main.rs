//! `operator-gen`: the generator as a command, for any crate (controller-gen's CLI).

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use clap::builder::{PossibleValue, PossibleValuesParser};

use operator_gen::{ArtifactKind, GENERATORS, Layout, Options, output};

// The generator allocates many small values (syntax trees, schemas, YAML); with mimalloc
// the 1000-kind API of `cargo xtask bench-gen` took 329 ms instead of 578 ms (best of 7).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser, Debug)]
#[command(
    name = "operator-gen",
    version,
    about = "Generate CRDs, RBAC roles and webhook configurations from marker attributes in Rust sources",
    long_about = "Reads #[resource], #[validation], #[schema], #[rbac], #[webhook], ... attributes from the Rust \
                  files under --paths (without compiling them) and writes kubebuilder's config/ layout: \
                  <out>/crd/bases/<group>_<plural>.yaml, <out>/rbac/role.yaml and \
                  <out>/webhook/manifests.yaml. Only the files of the \
                  generators that ran are written or removed: `rbac` never touches crd/bases, and \
                  hand-written files beside role.yaml are left alone. A write is all or nothing, \
                  also when it is interrupted (the next run restores the files an interrupted \
                  one had replaced)."
)]
struct Cli {
    /// What to generate: one generator, or all of them.
    #[arg(value_parser = generators())]
    what: String,
    /// Rust source files or directories to scan (repeatable).
    #[arg(long = "paths", short = 'p', required = true, num_args = 1..)]
    paths: Vec<PathBuf>,
    /// The config directory to write into (kubebuilder layout).
    #[arg(long, default_value = "config", conflicts_with = "stdout")]
    out: PathBuf,
    /// Print the YAML to stdout instead of writing files.
    #[arg(long)]
    stdout: bool,
    /// Write nothing; exit 1 with a diff if the files under --out are stale.
    #[arg(long, conflicts_with = "stdout")]
    check: bool,
    /// Read the options below from this Cargo.toml's [package.metadata.operator-gen] table
    /// (as the derive and `cargo xtask manifests` do); flags given here override it.
    #[arg(long, value_name = "CARGO_TOML")]
    manifest_path: Option<PathBuf>,
    /// Shorten descriptions to this many bytes (0 drops them), like controller-gen's crd:maxDescLen.
    #[arg(long)]
    max_desc_len: Option<usize>,
    /// Allow f32/f64 fields, like controller-gen's crd:allowDangerousTypes.
    #[arg(long)]
    allow_dangerous_types: bool,
    /// Name of the generated ClusterRole/Roles, like controller-gen's rbac:roleName
    /// [default: manager-role].
    #[arg(long)]
    role_name: Option<String>,
    /// Put the rules of #[rbac] markers without their own `namespace` into a Role in this
    /// namespace instead of the ClusterRole (a namespace-scoped manager).
    #[arg(long, value_name = "NAMESPACE", value_parser = namespace_arg)]
    rbac_namespace: Option<String>,
    /// The schema of an ObjectMeta below a kind's root (a pod template's metadata): `full`
    /// keeps every field serde writes; `generate-embedded` is controller-gen's
    /// crd:generateEmbeddedObjectMeta=true (name, namespace, labels, annotations,
    /// finalizers); `object` is controller-gen's default, under which the API server prunes
    /// it all [default: full].
    #[arg(long, value_name = "SHAPE", value_parser = PossibleValuesParser::new(operator_gen::EmbeddedObjectMeta::NAMES))]
    embedded_object_meta: Option<String>,
    /// The compatibility gate: compare the generated CRDs with the CRDs in this YAML file or
    /// directory (a release's config/crd/bases, `kubectl get crd -o yaml` output). Changes
    /// that break stored objects or clients fail the run, nothing written (with --stdout:
    /// nothing printed on stdout; the report is on stderr), unless a
    /// #[compat(allow = "<check>", reason = "...")] on the root kind covers them.
    #[arg(long, value_name = "FILE_OR_DIR")]
    against: Option<PathBuf>,
    /// With --against: the baseline is the CRD another tool made (kube-derive's schemars, a
    /// hand-written one) and this is the move. The changes are sorted into those that lose
    /// data or refuse what the old CRD admitted, which fail the run unless allowed, and those
    /// that are stricter as the Rust type is, which are shown and pass.
    #[arg(long, requires = "against")]
    migrating: bool,
    /// With --against: a CRD (by name, `<plural>.<group>`) whose versions a conversion
    /// webhook converts (repeatable).
    #[arg(long, value_name = "CRD_NAME", requires = "against")]
    converted: Vec<String>,
}

/// The registered generators, and `all`.
fn generators() -> PossibleValuesParser {
    let each = GENERATORS
        .iter()
        .map(|g| PossibleValue::new(g.name()).help(g.help()));
    PossibleValuesParser::new(
        each.chain([
            PossibleValue::new("all").help("every generator"),
            PossibleValue::new("types")
                .help("Rust types with markers from CRDs (see `operator-gen types --help`)"),
        ]),
    )
}

/// `operator-gen types`: Rust types from CustomResourceDefinitions.
#[derive(Parser, Debug)]
#[command(
    name = "operator-gen types",
    version,
    about = "Generate Rust types with operator-rs markers from CustomResourceDefinitions",
    long_about = "Reads the CustomResourceDefinitions in a YAML file (several documents allowed) or in \
                  the .yaml/.yml files of a directory, and writes one Rust module per version of each \
                  CRD (<out>/<group>/<version>/<kind>.rs, with mod.rs and the parent modules), which \
                  `operator-gen crd --paths <out>` reads back to the same CRD. What the types cannot \
                  express is listed in each file's header and on stderr. Nothing is written when any \
                  input has an error; the output directory is replaced whole."
)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["from_crd", "from_cluster"])))]
struct TypesCli {
    /// The CRD YAML file or directory to read (`-`: standard input).
    #[arg(long, value_name = "FILE_OR_DIR")]
    from_crd: Option<PathBuf>,
    /// Read the CRD from the cluster instead: its name (`certificates.cert-manager.io`) or,
    /// as for kubectl, a plural, kind or short name (`certificate`, `cert`), with `.group`
    /// if ambiguous. Repeat for several.
    #[arg(long, value_name = "NAME")]
    from_cluster: Vec<String>,
    /// The kubeconfig for --from-cluster (default: KUBECONFIG, ~/.kube/config, in-cluster).
    #[arg(long, value_name = "FILE")]
    kubeconfig: Option<PathBuf>,
    /// The kubeconfig context for --from-cluster (default: its current context).
    #[arg(long, value_name = "NAME")]
    context: Option<String>,
    /// The directory to write the modules into (replaced whole).
    #[arg(
        long,
        value_name = "SRC_DIR",
        required_unless_present = "stdout",
        conflicts_with = "stdout"
    )]
    out: Option<PathBuf>,
    /// Print the files to stdout instead, each after a `// file: <path>` line.
    #[arg(long)]
    stdout: bool,
    /// The shape of an ObjectMeta below a kind's root that the types will be generated with
    /// (as for `operator-gen crd`): Kubernetes types holding one are recognised only in it.
    #[arg(long, value_name = "SHAPE", value_parser = PossibleValuesParser::new(operator_gen::EmbeddedObjectMeta::NAMES))]
    embedded_object_meta: Option<String>,
}

fn run_types(cli: &TypesCli) -> anyhow::Result<ExitCode> {
    if cli.from_cluster.is_empty() && (cli.kubeconfig.is_some() || cli.context.is_some()) {
        anyhow::bail!(
            "--kubeconfig and --context choose the cluster of --from-cluster; a CRD read with --from-crd comes from its file"
        );
    }
    let (crds, mut command) = match &cli.from_crd {
        Some(path) if path.as_os_str() == "-" => {
            let mut text = String::new();
            std::io::stdin().read_to_string(&mut text)?;
            let stdin = std::path::Path::new("<stdin>");
            let crds = operator_gen::crds_in(&text, stdin)?;
            if crds.is_empty() {
                return Err(operator_gen::TypesError::NoCrd(stdin.into()).into());
            }
            (crds, "operator-gen types --from-crd -".to_owned())
        }
        Some(path) => (
            operator_gen::read_crds(path)?,
            format!("operator-gen types --from-crd {}", path.display()),
        ),
        None => (
            from_cluster(cli)?,
            cli.from_cluster
                .iter()
                .fold("operator-gen types".to_owned(), |command, name| {
                    format!("{command} --from-cluster {name}")
                }),
        ),
    };
    if let Some(shape) = &cli.embedded_object_meta {
        command.push_str(&format!(" --embedded-object-meta {shape}"));
    }
    let options = operator_gen::TypesOptions {
        command,
        embedded_object_meta: cli
            .embedded_object_meta
            .as_deref()
            .and_then(operator_gen::EmbeddedObjectMeta::from_name)
            .unwrap_or_default(),
    };
    let types = operator_gen::rust_types(&crds, &options)?;
    let mut report = String::new();
    for w in &types.warnings {
        report.push_str(&format!("warning: {w}\n"));
    }
    let mut formatted = Vec::new();
    let mut unformatted = false;
    for (path, text) in &types.files {
        match operator_gen::rustfmt(text).and_then(Result::ok) {
            Some(text) => formatted.push((path.clone(), text)),
            None => {
                unformatted = true;
                formatted.push((path.clone(), text.clone()));
            }
        }
    }
    if unformatted {
        report.push_str(
            "warning: rustfmt could not be run (or failed); the files are written unformatted\n",
        );
    }
    if types.floats {
        report.push_str("note: `number` fields became f64: run operator-gen with --allow-dangerous-types on these types\n");
    }
    if cli.stdout {
        let mut out = std::io::stdout().lock();
        for (path, text) in &formatted {
            writeln!(out, "// file: {}", path.display())?;
            out.write_all(text.as_bytes())?;
        }
        out.flush()?;
    } else {
        let out = cli
            .out
            .as_ref()
            .expect("clap requires --out without --stdout");
        write_tree(out, &formatted)?;
        for (path, _) in &formatted {
            report.push_str(&format!("wrote {}\n", out.join(path).display()));
        }
    }
    std::io::stderr().lock().write_all(report.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(feature = "cluster")]
fn from_cluster(cli: &TypesCli) -> anyhow::Result<Vec<operator_gen::CrdDocument>> {
    let source = operator_gen::ClusterSource {
        kubeconfig: cli.kubeconfig.clone(),
        context: cli.context.clone(),
    };
    Ok(operator_gen::read_crds_from_cluster(
        &cli.from_cluster,
        &source,
    )?)
}

#[cfg(not(feature = "cluster"))]
fn from_cluster(_: &TypesCli) -> anyhow::Result<Vec<operator_gen::CrdDocument>> {
    anyhow::bail!(
        "this operator-gen was built without its `cluster` feature, so --from-cluster is not available: \
         install it with the feature (`cargo install operator-gen --features cluster`), or save the CRD \
         and read it (`kubectl get crd NAME -o yaml | operator-gen types --from-crd - ...`)"
    )
}

/// Writes `files` as the whole of `out`: into a new directory beside it, which then takes
/// `out`'s place (the old one removed only after the new one is complete).
fn write_tree(out: &std::path::Path, files: &[(PathBuf, String)]) -> anyhow::Result<()> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", parent.display()))?;
    let name = out
        .file_name()
        .ok_or_else(|| anyhow::anyhow!("--out {} names no directory", out.display()))?
        .to_string_lossy()
        .into_owned();
    // Only a directory this command wrote (or an empty one) is replaced.
    if out.exists() {
        let empty = std::fs::read_dir(out)
            .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", out.display()))?
            .next()
            .is_none();
        let ours = std::fs::read_to_string(out.join("mod.rs"))
            .is_ok_and(|t| t.starts_with("// Generated by `operator-gen types"));
        if !empty && !ours {
            anyhow::bail!(
                "--out {} holds files operator-gen types did not write (no generated mod.rs); \
                 give an empty or new directory; nothing was written",
                out.display()
            );
        }
    }
    let staging = parent.join(format!(".{name}.operator-gen-new"));
    let old = parent.join(format!(".{name}.operator-gen-old"));
    let _ = std::fs::remove_dir_all(&staging);
    let _ = std::fs::remove_dir_all(&old);
    let stage = || -> std::io::Result<()> {
        for (path, text) in files {
            let file = staging.join(path);
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&file, text)?;
        }
        Ok(())
    };
    if let Err(e) = stage() {
        let _ = std::fs::remove_dir_all(&staging);
        anyhow::bail!(
            "cannot write {}: {e}; nothing was written",
            staging.display()
        );
    }
    if out.exists() {
        std::fs::rename(out, &old)
            .map_err(|e| anyhow::anyhow!("cannot replace {}: {e}", out.display()))?;
    }
    if let Err(e) = std::fs::rename(&staging, out) {
        let _ = std::fs::rename(&old, out);
        anyhow::bail!("cannot write {}: {e}; nothing was changed", out.display());
    }
    let _ = std::fs::remove_dir_all(&old);
    Ok(())
}

fn main() -> ExitCode {
    if std::env::args_os().nth(1).is_some_and(|a| a == "types") {
        let cli = TypesCli::parse_from(std::env::args_os().skip(1));
        return match run_types(&cli) {
            Ok(code) => code,
            Err(err) => {
                eprintln!("{err:#}");
                ExitCode::FAILURE
            }
        };
    }
    let cli = Cli::parse();
    match run(&cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("{err:#}");
            ExitCode::FAILURE
        }
    }
}

/// The compatibility gate against the CRDs under `against`, judged as `mode` says; prints
/// the report on stderr, and says whether the run may go on.
fn gate(
    generated: &operator_gen::Generated,
    against: &std::path::Path,
    converted: &[String],
    mode: operator_gen::compat::Mode,
) -> anyhow::Result<bool> {
    use operator_gen::compat;
    let mut files = Vec::new();
    if against.is_dir() {
        for entry in std::fs::read_dir(against)? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(path);
            }
        }
        files.sort();
    } else {
        files.push(against.to_path_buf());
    }
    let mut base = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| anyhow::anyhow!("--against {}: {e}", file.display()))?;
        base.extend(
            compat::read_baseline(&text, &file.display().to_string())
                .map_err(anyhow::Error::msg)?,
        );
    }
    let report = compat::check(generated, &base, |crd| {
        crd.metadata
            .name
            .as_ref()
            .is_some_and(|n| converted.contains(n))
    });
    eprint!("{}", report.render(mode));
    if report.fails_in(mode) {
        eprintln!(
            "{}; nothing was written",
            report.verdict(mode, &against.display().to_string())
        );
        return Ok(false);
    }
    Ok(true)
}

/// The size budgets of the CRD files among `artifacts`: prints what is over, and says
/// whether the run may go on (nothing over what etcd stores).
fn size_budgets(artifacts: &[operator_gen::output::Artifact]) -> anyhow::Result<bool> {
    let crd = ArtifactKind::named("crd").expect("crd is a generator");
    let mut fits = true;
    for a in artifacts.iter().filter(|a| a.kind == crd) {
        // Only files near a budget are parsed: YAML is longer than the JSON measured.
        if a.contents.len() <= operator_gen::size::CLIENT_SIDE_APPLY {
            continue;
        }
        let value: serde_json::Value = serde_yaml::from_str(&a.contents)?;
        if let Some(over) = operator_gen::size::check(&value) {
            fits &= over.severity != operator_gen::compat::Severity::Error;
            eprintln!("{over}");
        }
    }
    Ok(fits)
}

/// Shows what generation went past (a kube-derive kind): said, never a failure.
fn warn(warnings: &[operator_gen::Warning]) {
    for w in warnings {
        eprintln!("{w}\n");
    }
}

/// `--rbac-namespace`: a Kubernetes namespace name.
fn namespace_arg(value: &str) -> Result<String, String> {
    if operator_gen::internals::markers::is_dns_label(value) {
        Ok(value.to_string())
    } else {
        Err(format!(
            "{value:?} is not a namespace name (a lowercase DNS label: a-z, 0-9 and '-', at most 63)"
        ))
    }
}

fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let base = match &cli.manifest_path {
        Some(manifest) => Options::from_manifest(manifest).map_err(anyhow::Error::msg)?,
        None => Options::default(),
    };
    let options = Options {
        max_desc_len: cli.max_desc_len.or(base.max_desc_len),
        allow_dangerous_types: cli.allow_dangerous_types || base.allow_dangerous_types,
        role_name: cli.role_name.clone().unwrap_or(base.role_name),
        rbac_namespace: cli.rbac_namespace.clone().or(base.rbac_namespace),
        // clap accepts only the names.
        embedded_object_meta: cli
            .embedded_object_meta
            .as_deref()
            .and_then(operator_gen::EmbeddedObjectMeta::from_name)
            .unwrap_or(base.embedded_object_meta),
    };
    // The process ends when `run` returns: freeing the files of a large API one by one
    // would only add time, so they are left to the operating system.
    // clap accepts only the registered names and `all`.
    let ran = ArtifactKind::named(&cli.what).map_or_else(ArtifactKind::all, |kind| vec![kind]);
    let ran = &ran[..];
    let artifacts = match &cli.against {
        None => {
            let generated = operator_gen::generate_files(&cli.paths, &options, ran)?;
            warn(&generated.warnings);
            generated.files
        }
        Some(against) => {
            // The gate needs the typed CRDs and the allows, which generate_with keeps.
            if !ran.contains(&ArtifactKind::named("crd").expect("crd is a generator")) {
                anyhow::bail!("--against compares CRDs: run the `crd` generator (or `all`)");
            }
            let generated = operator_gen::generate_with(&cli.paths, &options, ran)?;
            warn(&generated.warnings);
            let mode = if cli.migrating {
                operator_gen::compat::Mode::Migration
            } else {
                operator_gen::compat::Mode::Release
            };
            if !gate(&generated, against, &cli.converted, mode)? {
                return Ok(ExitCode::FAILURE);
            }
            generated.files
        }
    };
    let artifacts = std::mem::ManuallyDrop::new(artifacts);
    if !size_budgets(&artifacts)? {
        return Ok(ExitCode::FAILURE);
    }
    if cli.stdout {
        let mut out = std::io::stdout().lock();
        for a in artifacts.iter() {
            out.write_all(a.contents.as_bytes())?;
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let layout = Layout::kubebuilder(&cli.out);
    if cli.check {
        let drift = output::check(&artifacts, &layout, ran);
        if drift.is_empty() {
            return Ok(ExitCode::SUCCESS);
        }
        for d in &drift {
            eprintln!("{d}");
        }
        eprintln!(
            "generated files are out of date; run operator-gen without --check to update them"
        );
        return Ok(ExitCode::FAILURE);
    }
    // One write for the whole report: stderr is unbuffered, and a large API changes a
    // thousand files.
    let mut report: String = output::recover(&layout)?
        .iter()
        .map(|path| {
            format!(
                "restored {} (an earlier run was interrupted)\n",
                path.display()
            )
        })
        .collect();
    for path in output::write_all(&artifacts, &layout, ran)? {
        let verb = if path.exists() { "wrote" } else { "removed" };
        report.push_str(&format!("{verb} {}\n", path.display()));
    }
    std::io::stderr().lock().write_all(report.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
