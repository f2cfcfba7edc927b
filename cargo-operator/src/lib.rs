//! `cargo operator`: kubebuilder's `init`, `create api` and `create webhook` for operators on
//! kube-rs.
//!
//! - [`init`] makes a workspace: the operator crate (its `main` on `operator-runtime`, no kinds
//!   yet), `cargo xtask`, the `config/` kustomize tree, `PROJECT.toml`, a README and `.ci/run`;
//! - [`create_api`] adds one kind of one version: its types with markers, a controller with
//!   its `#[rbac]` markers and a finalizer, its registration, a sample, the admin, editor and
//!   viewer roles, the kustomize entries, a cluster test and the `PROJECT.toml` entry; a second
//!   version of a kind adds only its types and sample;
//! - [`create_external_api`] adds a kind of someone else's CRD (`create api --external
//!   --from-crd FILE`): its types generated from the CRD into `src/api/external/`, a copy of
//!   the CRD for the local control plane only, a controller for it with a cluster test, and
//!   the `[[external]]` entry of `PROJECT.toml`, which keeps its CRD out of `config/crd`;
//! - [`create_webhook`] adds a defaulting and/or validating webhook for one kind and version
//!   (a `#[webhook]`-marked handler with unit tests, its registration) and/or the conversion of
//!   a kind between its versions through a hub (`From` impls, the CRD's conversion patch); the
//!   first webhook of a project also adds the webhook server to `main` and the `webhook`,
//!   `certmanager` and `default` kustomize wiring;
//! - [`edit`] changes what `init` chose (so far the manager's scope, `--namespaced` or
//!   `--cluster-scoped`), rewriting the blocks of the files the scaffold wrote for it.
//!
//! All check every name before anything is written, write the whole change or none of it, and
//! end by running the generator (`cargo xtask manifests`), so the project is complete at once.

mod external;
pub mod names;
pub mod plan;
mod scope;
pub mod template;
mod update;
mod webhook;

pub use external::{ExternalOptions, ExternalSource, create_external_api};
pub use update::{UpdateOptions, update};
pub use webhook::{WebhookOptions, create_webhook};

use std::path::{Component, Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use anyhow::{Context as _, Result, bail};
use operator_xtask::project::{self, Project};

use names::{Gvk, check_domain, check_project_name};
use plan::{Plan, insert_before_anchor};

/// The `create api` calls of the example project (after `init --domain example.com`):
/// a namespaced kind, its second version, and a cluster-scoped kind in a second group.
/// `testdata/scaffold` is this project, committed; `cargo xtask test` makes it fresh and runs
/// its tests.
pub const EXAMPLE_APIS: &[&[&str]] = &[
    &[
        "--group",
        "webapp",
        "--version",
        "v1",
        "--kind",
        "Guestbook",
    ],
    &[
        "--group",
        "webapp",
        "--version",
        "v2",
        "--kind",
        "Guestbook",
    ],
    &[
        "--group",
        "infra",
        "--version",
        "v1alpha1",
        "--kind",
        "Backup",
        "--cluster",
    ],
];

/// The `create webhook` calls of the example project, after [`EXAMPLE_APIS`]: a defaulting
/// and a validating webhook for the namespaced kind's first version.
pub const EXAMPLE_WEBHOOKS: &[&[&str]] = &[&[
    "--group",
    "webapp",
    "--version",
    "v1",
    "--kind",
    "Guestbook",
    "--defaulting",
    "--validation",
]];

/// The `create webhook` calls that give the example project every kind of webhook, after
/// [`EXAMPLE_WEBHOOKS`]: the cluster-scoped kind's defaulting webhook, then its validating
/// one in a later call (adding to what the first wrote), and a conversion webhook for the
/// namespaced kind with its second version as the spoke. This repository's test suite
/// scaffolds its project from the packaged crates with all of them, so that project's own
/// `cargo xtask test` builds, lints and tests each; the committed scaffold
/// (`testdata/scaffold`) stays the one the getting-started guide makes.
pub const MORE_WEBHOOKS: &[&[&str]] = &[
    &[
        "--group",
        "infra",
        "--version",
        "v1alpha1",
        "--kind",
        "Backup",
        "--defaulting",
    ],
    &[
        "--group",
        "infra",
        "--version",
        "v1alpha1",
        "--kind",
        "Backup",
        "--validation",
    ],
    &[
        "--group",
        "webapp",
        "--version",
        "v1",
        "--kind",
        "Guestbook",
        "--conversion",
        "--spoke",
        "v2",
    ],
];

/// The unit tests a project with [`EXAMPLE_WEBHOOKS`] and [`MORE_WEBHOOKS`] has for its
/// webhooks, as `cargo test` names them (the crate's `webhooks` module, then the version and
/// the kind): one per handler and conversion, and the server's.
pub const MORE_WEBHOOKS_UNIT_TESTS: &[&str] = &[
    "webhooks::tests::every_configured_webhook_path_is_served",
    "webhooks::v1::guestbook::tests::the_defaulter_leaves_a_guestbook_as_it_is",
    "webhooks::v1::guestbook::tests::the_validator_admits_a_guestbook_created_or_updated",
    "webhooks::v1alpha1::backup::tests::the_defaulter_leaves_a_backup_as_it_is",
    "webhooks::v1alpha1::backup::tests::the_validator_admits_a_backup_created_or_updated",
    "webhooks::v1::guestbook_conversion::tests::a_guestbook_converted_to_v2_and_back_is_unchanged",
];

/// Where the scaffolded project gets operator-rs's crates from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A checkout of operator-rs (written relative to the project when it can be).
    Path(PathBuf),
    /// A git repository, at a revision or branch (else its default branch).
    Git {
        url: String,
        rev: Option<String>,
        branch: Option<String>,
    },
    /// Published crates of this version.
    Version(String),
}

/// operator-rs's crates a project uses: the name the project's code calls it by, its package
/// on crates.io, and its directory in a checkout.
const CRATES: &[(&str, &str, &str)] = &[
    ("operator-derive", "operator-derive", "operator-derive"),
    ("operator-runtime", "operator-runtime", "operator-runtime"),
    ("operator-xtask", "operator-xtask", "xtask"),
    (
        "operator-xtask-cluster",
        "operator-xtask-cluster",
        "xtask/cluster",
    ),
    ("envtest", "operator-envtest", "envtest"),
];

impl Source {
    /// The `[workspace.dependencies]` lines for operator-rs's crates, for a project at `root`.
    fn dependencies(&self, root: &Path) -> String {
        CRATES
            .iter()
            .map(|(name, package, dir)| {
                let mut spec = match self {
                    Source::Path(base) => {
                        let path = relative_to(root, &base.join(dir));
                        format!("{{ path = {}", toml_string(&path.to_string_lossy()))
                    }
                    Source::Git { url, rev, branch } => {
                        let mut spec = format!("{{ git = {}", toml_string(url));
                        if let Some(rev) = rev {
                            spec += &format!(", rev = {}", toml_string(rev));
                        }
                        if let Some(branch) = branch {
                            spec += &format!(", branch = {}", toml_string(branch));
                        }
                        spec
                    }
                    Source::Version(v) => format!("{{ version = {}", toml_string(v)),
                };
                if name != package {
                    spec += &format!(", package = {}", toml_string(package));
                }
                format!("{name} = {spec} }}\n")
            })
            .collect::<String>()
            .trim_end()
            .to_string()
    }
}

fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// `to` as seen from `from` (both absolute), through `..` where needed; `to` itself when they
/// share nothing but the root.
fn relative_to(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<Component> = from.components().collect();
    let to_parts: Vec<Component> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    if common <= 1 {
        return to.to_path_buf();
    }
    let mut out = PathBuf::new();
    for _ in common..from.len() {
        out.push("..");
    }
    for part in &to_parts[common..] {
        out.push(part);
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// `path` made absolute against `cwd`, with `.` and `..` resolved without touching the disk
/// (the directory may not exist yet).
pub fn absolute(cwd: &Path, path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in cwd.join(path).components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// What `init` is asked for.
#[derive(Debug, Clone)]
pub struct InitOptions {
    /// The project's directory (absolute): missing or empty but for dot-files such as `.git`.
    pub dir: PathBuf,
    /// Suffix of every API group.
    pub domain: String,
    /// Default: the directory's name.
    pub project_name: Option<String>,
    pub source: Source,
    /// A namespace-scoped manager: Roles in its namespace instead of ClusterRoles, watching
    /// only that namespace (kubebuilder's `init --namespaced`).
    pub namespaced: bool,
}

/// `cargo operator init`: a new project in `options.dir`.
pub fn init(options: &InitOptions) -> Result<()> {
    let dir = &options.dir;
    let project_name = match &options.project_name {
        Some(name) => name.clone(),
        None => dir
            .file_name()
            .and_then(|n| n.to_str())
            .context("the directory has no name to take the project's from; pass --project-name")?
            .to_string(),
    };
    check_project_name(&project_name).with_context(|| {
        if options.project_name.is_none() {
            format!(
                "the project is named after its directory ({}); pass --project-name",
                dir.display()
            )
        } else {
            "--project-name".to_string()
        }
    })?;
    check_domain(&options.domain)?;
    if dir.exists() {
        if !dir.is_dir() {
            bail!("{} exists and is not a directory", dir.display());
        }
        let mut entries = std::fs::read_dir(dir)
            .with_context(|| format!("cannot read {}", dir.display()))?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| !name.starts_with('.'))
            .collect::<Vec<_>>();
        if !entries.is_empty() {
            entries.sort();
            bail!(
                "{} is not empty ({}); init starts a project in an empty directory",
                dir.display(),
                entries.join(", ")
            );
        }
    }

    let crate_ident = project_name.replace('-', "_");
    let dependencies = options.source.dependencies(dir);
    let vars: &[(&str, &str)] = &[
        ("project_name", &project_name),
        ("crate_name", &project_name),
        ("crate_dir", &project_name),
        ("crate_ident", &crate_ident),
        ("domain", &options.domain),
        ("operator_rs_dependencies", &dependencies),
        ("cli_version", env!("CARGO_PKG_VERSION")),
    ];
    let mut plan = Plan::new(dir);
    for (path, template) in template::INIT {
        let path = match path.strip_prefix("crate/") {
            Some(rest) => format!("{project_name}/{rest}"),
            None => path.to_string(),
        };
        let text = scope::init_text(&path, &template::render(template, vars), options.namespaced)?;
        if path == ".ci/run" {
            plan.create_executable(path, text);
        } else {
            plan.create(path, text);
        }
    }
    finish(plan, dir)?;
    eprintln!(
        "created {project_name} in {}\nnext: cd {} && cargo operator create api --group <group> \
         --version v1alpha1 --kind <Kind>",
        dir.display(),
        dir.display()
    );
    Ok(())
}

/// What `edit` is asked for.
#[derive(Debug, Clone)]
pub struct EditOptions {
    /// Where to look for `PROJECT.toml` (it and the directories above it).
    pub cwd: PathBuf,
    /// The manager's scope: its own namespace (`--namespaced`) or the cluster
    /// (`--cluster-scoped`).
    pub namespaced: bool,
}

/// `cargo operator edit`: changes a setting of the project around `options.cwd` that `init`
/// chose, rewriting the files the scaffold wrote for it (kubebuilder's `edit`). So far the
/// manager's scope: `--namespaced` makes the manager's binding a RoleBinding to the Role that
/// `cargo xtask manifests` now makes of the `#[rbac]` markers in the operator's namespace,
/// and sets `WATCH_NAMESPACE` to the pod's namespace; `--cluster-scoped` undoes it. A file
/// changed by hand where the scaffold's lines were is named and nothing is written.
pub fn edit(options: &EditOptions) -> Result<()> {
    let (root, project) = load_project(&options.cwd, "edit")?;
    if options.namespaced {
        let cluster_kinds: Vec<String> = project
            .resources
            .iter()
            .filter(|r| !r.namespaced && r.controller.is_some())
            .map(|r| format!("{}/{} {}", r.group, r.version, r.kind))
            .chain(
                project
                    .externals
                    .iter()
                    .filter(|e| !e.namespaced && e.controller.is_some())
                    .map(|e| format!("{}/{} {}", e.group, e.version, e.kind)),
            )
            .collect();
        if !cluster_kinds.is_empty() {
            bail!(
                "the project has controllers of cluster-scoped kinds ({}), which a \
                 namespace-scoped manager cannot watch: its Role in its own namespace grants no \
                 cluster-scoped kind; the project stays cluster-scoped",
                cluster_kinds.join(", ")
            );
        }
    }
    let was = project.namespaced;
    let mut plan = Plan::new(&root);
    scope::plan_edit(&mut plan, options.namespaced)?;
    finish(plan, &root)?;
    let scope = if options.namespaced {
        "namespace-scoped: Roles in the operator's namespace, watching only that namespace"
    } else {
        "cluster-scoped: ClusterRoles, watching every namespace"
    };
    if was == options.namespaced {
        eprintln!("the manager was {scope} already; the scaffold's files agree");
    } else {
        eprintln!(
            "the manager is {scope}\nnext: review `git diff`; markers with their own \
             `namespace` keep it{}",
            if root.join("dist/chart").is_dir() {
                "; `cargo xtask helm` makes the chart again"
            } else {
                ""
            }
        );
    }
    Ok(())
}

/// What `create api` is asked for.
#[derive(Debug, Clone)]
pub struct ApiOptions {
    /// Where to look for `PROJECT.toml` (it and the directories above it).
    pub cwd: PathBuf,
    pub group: String,
    pub version: String,
    pub kind: String,
    /// Cluster-scoped instead of namespaced.
    pub cluster_scoped: bool,
    /// Scaffold the controller (for a new kind).
    pub controller: bool,
    /// Names the controller keeps from an operator that ran before it.
    pub kept: KeptNames,
}

/// Names a new controller takes over from an operator that already ran in clusters, so that
/// live objects stay its own: the finalizer on them, the field manager owning their fields,
/// the reporter its events are selected by. `None` is the scaffold's default.
#[derive(Debug, Clone, Default)]
pub struct KeptNames {
    /// Default `<api group>/finalizer`.
    pub finalizer: Option<String>,
    /// Default the project's name.
    pub field_manager: Option<String>,
    /// Default the field manager.
    pub event_reporter: Option<String>,
}

impl KeptNames {
    /// The names by their `PROJECT.toml` key (`project::KEPT_NAMES`, the flags without `--`).
    fn entries(&self) -> [(&'static str, Option<&str>); 3] {
        let values = [&self.finalizer, &self.field_manager, &self.event_reporter];
        std::array::from_fn(|i| (project::KEPT_NAMES[i], values[i].as_deref()))
    }
}

/// The root and project file of the project around `cwd`, for `cargo operator <command>`.
pub(crate) fn load_project(cwd: &Path, command: &str) -> Result<(PathBuf, Project)> {
    let root = operator_xtask::find_root(cwd).with_context(|| {
        format!(
            "no {} in {} or above: run `cargo operator {command}` inside a project \
             (`cargo operator init` makes one)",
            project::FILE,
            cwd.display()
        )
    })?;
    let project = Project::load(&root)?;
    Ok((root, project))
}

/// `cargo operator create api`: one kind of one version in the project around `options.cwd`.
pub fn create_api(options: &ApiOptions) -> Result<()> {
    let (root, project) = load_project(&options.cwd, "create api")?;
    let gvk = Gvk::new(
        &options.group,
        &options.version,
        &options.kind,
        &project.domain,
    )?;
    let namespaced = !options.cluster_scoped;
    let same = |r: &&project::Resource| r.kind == gvk.kind;
    if let Some(r) = project
        .resources
        .iter()
        .filter(same)
        .find(|r| r.group == gvk.group && r.version == gvk.version)
    {
        bail!(
            "{} already has {}/{} {} (in {}); add another version or kind instead",
            project::FILE,
            r.group,
            r.version,
            r.kind,
            r.api.display()
        );
    }
    if let Some(r) = project
        .resources
        .iter()
        .filter(same)
        .find(|r| r.group != gvk.group)
    {
        bail!(
            "kind {} exists already in group {} ({}); the scaffold keeps one module per kind \
             name, so choose another kind name",
            gvk.kind,
            r.group,
            r.api.display()
        );
    }
    let earlier = project
        .resources
        .iter()
        .filter(same)
        .find(|r| r.group == gvk.group);
    if let Some(r) = earlier
        && r.namespaced != namespaced
    {
        bail!(
            "{}/{} {} is {}; every version of a kind has one scope (drop or add --cluster)",
            r.group,
            r.version,
            r.kind,
            if r.namespaced {
                "namespaced"
            } else {
                "cluster-scoped"
            }
        );
    }
    let new_kind = earlier.is_none();
    let with_controller = new_kind && options.controller;
    if project.namespaced && !namespaced && with_controller {
        bail!(
            "{}/{} {}: {} (--no-controller)",
            gvk.group,
            gvk.version,
            gvk.kind,
            project::cluster_kind_in_namespaced_project()
        );
    }
    let kept = &options.kept;
    for (key, value) in kept.entries() {
        let Some(value) = value else { continue };
        if !with_controller {
            bail!(
                "--{key} names the kind's controller, and this call makes none ({})",
                if new_kind {
                    "--no-controller"
                } else {
                    "a new version of a kind with one"
                }
            );
        }
        project::check_kept_name(key, value)
            .map_err(|problem| anyhow::anyhow!("--{key} {value:?}: {problem}"))?;
    }
    let field_manager = kept
        .field_manager
        .clone()
        .unwrap_or_else(|| project.project_name.clone());
    let event_reporter = kept
        .event_reporter
        .clone()
        .unwrap_or_else(|| field_manager.clone());
    let finalizer = kept
        .finalizer
        .clone()
        .unwrap_or_else(|| format!("{}/finalizer", gvk.api_group));

    let crate_dir = project.operator.path.clone();
    let crate_ident = project.operator.package.replace('-', "_");
    let src = crate_dir.join("src");
    let api_dir = src.join("api").join(&gvk.group_mod).join(&gvk.version);
    let api_file = api_dir.join(format!("{}.rs", gvk.kind_snake));
    let controller_file = src
        .join("controllers")
        .join(format!("{}.rs", gvk.kind_snake));

    let mut flags = String::new();
    flags += if namespaced {
        ",\n    namespaced"
    } else {
        ",\n    scope = \"Cluster\""
    };
    if new_kind {
        // The first version stores; a later one is added as served only.
        flags += ",\n    storage";
    }
    let test_scope = if namespaced {
        format!(
            "let api: Api<{}> = Api::namespaced(env.client(), ns.name());",
            gvk.kind
        )
    } else {
        format!("let api: Api<{}> = Api::all(env.client());", gvk.kind)
    };
    let vars: &[(&str, &str)] = &[
        ("project_name", &project.project_name),
        ("crate_ident", &crate_ident),
        ("group", &gvk.group),
        ("version", &gvk.version),
        ("kind", &gvk.kind),
        ("api_group", &gvk.api_group),
        ("plural", &gvk.plural),
        ("kind_lower", &gvk.kind_lower),
        ("kind_snake", &gvk.kind_snake),
        ("group_mod", &gvk.group_mod),
        ("resource_flags", &flags),
        ("field_manager", &field_manager),
        ("event_reporter", &event_reporter),
        ("finalizer", &finalizer),
        ("test_scope", &test_scope),
    ];
    let render = |template: &str| template::render(template, vars);

    let mut plan = Plan::new(&root);
    // The types, and the modules that reach them.
    plan.edit(src.join("api/mod.rs"), |t| {
        insert_before_anchor(
            t,
            "// +operator:scaffold:groups",
            &format!("pub mod {};", gvk.group_mod),
        )
    })?;
    let group_mod = src.join("api").join(&gvk.group_mod).join("mod.rs");
    if !plan.exists(&group_mod) {
        plan.create(&group_mod, render(template::GROUP_MOD));
    }
    plan.edit(&group_mod, |t| {
        insert_before_anchor(
            t,
            "// +operator:scaffold:versions",
            &format!("pub mod {};", gvk.version),
        )
    })?;
    let version_mod = api_dir.join("mod.rs");
    if !plan.exists(&version_mod) {
        plan.create(&version_mod, render(template::VERSION_MOD));
    }
    plan.edit(&version_mod, |t| {
        let t = insert_before_anchor(
            t,
            "// +operator:scaffold:kinds",
            &format!("mod {};", gvk.kind_snake),
        )?;
        insert_before_anchor(
            &t,
            "// +operator:scaffold:kinds",
            &format!("pub use {}::*;", gvk.kind_snake),
        )
    })?;
    plan.create(&api_file, render(template::TYPES));

    // The controller, its registration and its cluster test.
    if with_controller {
        plan.create(&controller_file, render(template::CONTROLLER));
        plan.edit(src.join("controllers/mod.rs"), |t| {
            let t = insert_before_anchor(
                t,
                "// +operator:scaffold:controller-modules",
                &format!("pub mod {};", gvk.kind_snake),
            )?;
            insert_before_anchor(
                &t,
                "// +operator:scaffold:controllers",
                &format!("{}::start,", gvk.kind_snake),
            )
        })?;
        plan.create(
            crate_dir
                .join("tests")
                .join(format!("{}_controller.rs", gvk.kind_snake)),
            render(template::CONTROLLER_TEST),
        );
    }

    // config/: the CRD (generated below), the sample, the roles.
    plan.edit("config/crd/kustomization.yaml", |t| {
        insert_before_anchor(
            t,
            "# +operator:scaffold:crds",
            &format!("- bases/{}_{}.yaml", gvk.api_group, gvk.plural),
        )
    })?;
    let sample = format!("{}_{}_{}.yaml", gvk.group, gvk.version, gvk.kind_lower);
    plan.create(
        Path::new("config/samples").join(&sample),
        render(template::SAMPLE),
    );
    plan.edit("config/samples/kustomization.yaml", |t| {
        insert_before_anchor(t, "# +operator:scaffold:samples", &format!("- {sample}"))
    })?;
    if new_kind {
        for (role, role_template) in template::ROLES {
            let file = format!("{}_{}_{role}_role.yaml", gvk.group, gvk.kind_lower);
            plan.create(Path::new("config/rbac").join(&file), render(role_template));
            plan.edit("config/rbac/kustomization.yaml", |t| {
                insert_before_anchor(t, "# +operator:scaffold:rbac-roles", &format!("- {file}"))
            })?;
        }
    }

    // The project file.
    plan.edit(project::FILE, |t| {
        let mut entry = format!(
            "\n[[resource]]\ngroup = {}\nversion = {}\nkind = {}\npath = {}\napi = {}\n",
            toml_string(&gvk.group),
            toml_string(&gvk.version),
            toml_string(&gvk.kind),
            toml_string(&slashed(&crate_dir)),
            toml_string(&slashed(&api_file)),
        );
        if with_controller {
            entry += &format!("controller = {}\n", toml_string(&slashed(&controller_file)));
        }
        entry += &format!("namespaced = {namespaced}\n");
        for (key, value) in kept.entries() {
            if let Some(value) = value {
                entry += &format!("{key} = {}\n", toml_string(value));
            }
        }
        Ok(format!(
            "{}{entry}",
            t.trim_end_matches('\n').to_string() + "\n"
        ))
    })?;

    finish(plan, &root)?;
    eprintln!(
        "created {}/{} {} ({}){}\nnext: edit its types, then `cargo xtask manifests`; \
         `cargo xtask test` runs every test, the new kind's cluster test included",
        gvk.api_group,
        gvk.version,
        gvk.kind,
        api_file.display(),
        if with_controller {
            format!(" and its controller ({})", controller_file.display())
        } else {
            String::new()
        }
    );
    Ok(())
}

/// A project path as `PROJECT.toml` spells it.
fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Formats the plan's Rust, writes it, and runs the generator; undoes everything if any step
/// fails.
fn finish(mut plan: Plan, root: &Path) -> Result<()> {
    plan.format_rust(rustfmt)?;
    let applied = plan.apply()?;
    let generated = operator_xtask::manifests::manifests_after_scaffolding(root);
    match generated {
        Ok(code) if code == ExitCode::SUCCESS => Ok(()),
        other => {
            applied.undo();
            let why = match other {
                Err(err) => format!("{err:#}"),
                Ok(_) => "see the errors above".to_string(),
            };
            bail!(
                "the scaffold was written but `cargo xtask manifests` failed on it ({why}); \
                 nothing was changed"
            )
        }
    }
}

/// `text` as rustfmt (the toolchain's, edition 2024) formats it; unchanged, with a warning
/// once, when there is no rustfmt.
fn rustfmt(text: &str) -> Result<String> {
    use std::io::Write as _;
    let child = Command::new(std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into()))
        .args(["--edition", "2024", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        static WARNED: std::sync::Once = std::sync::Once::new();
        WARNED.call_once(|| eprintln!("warning: no rustfmt; the Rust files are left unformatted"));
        return Ok(text.to_string());
    };
    child
        .stdin
        .take()
        .context("rustfmt's stdin")?
        .write_all(text.as_bytes())
        .context("writing to rustfmt")?;
    let out = child.wait_with_output().context("running rustfmt")?;
    if !out.status.success() {
        bail!(
            "rustfmt refused the scaffold (a bug in cargo-operator's templates): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    String::from_utf8(out.stdout).context("rustfmt's output is not UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_written_relative_to_the_project() {
        assert_eq!(
            relative_to(Path::new("/r/testdata/scaffold"), Path::new("/r/envtest")),
            Path::new("../../envtest")
        );
        assert_eq!(
            relative_to(Path::new("/home/a/p"), Path::new("/opt/operator-rs")),
            Path::new("/opt/operator-rs")
        );
        assert_eq!(
            absolute(Path::new("/w/x"), Path::new("../y/./z")),
            Path::new("/w/y/z")
        );
    }

    #[test]
    fn each_source_form_names_every_crate() {
        let git = Source::Git {
            url: "https://example.com/operator-rs.git".into(),
            rev: Some("abc".into()),
            branch: None,
        };
        let deps = git.dependencies(Path::new("/p"));
        assert_eq!(deps.lines().count(), CRATES.len());
        assert!(deps.contains(
            "operator-runtime = { git = \"https://example.com/operator-rs.git\", rev = \"abc\" }"
        ));
        let deps = Source::Version("0.1.0".into()).dependencies(Path::new("/p"));
        assert!(deps.contains("envtest = { version = \"0.1.0\", package = \"operator-envtest\" }"));
        assert!(deps.contains("operator-derive = { version = \"0.1.0\" }"));
        let deps = Source::Path("/p/vendor/ors".into()).dependencies(Path::new("/p/app"));
        assert!(
            deps.contains("operator-xtask-cluster = { path = \"../vendor/ors/xtask/cluster\" }")
        );
    }
}
