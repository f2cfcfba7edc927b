//! `cargo operator`: start an operator project and add kinds and webhooks to it (kubebuilder's
//! `init`, `create api` and `create webhook`). Installed as `cargo-operator`, cargo runs it as
//! `cargo operator ...`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use cargo_operator::{
    ApiOptions, EditOptions, ExternalOptions, ExternalSource, InitOptions, KeptNames, Source,
    UpdateOptions, WebhookOptions,
};
use clap::{ArgGroup, Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "cargo operator",
    bin_name = "cargo operator",
    version,
    about = "Scaffolding for Kubernetes operators on kube-rs (kubebuilder's init, create api and create webhook)"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Start a project: the operator crate, cargo xtask, config/, PROJECT.toml, README, .ci/run.
    Init(Init),
    /// Add to the project around the current directory.
    Create {
        #[command(subcommand)]
        what: Create,
    },
    /// Bring the project around the current directory to this cargo-operator's scaffold
    /// (kubebuilder's `alpha update`): the commands PROJECT.toml records are replayed by the
    /// cargo-operator that scaffolded the project and by this one, and the difference is
    /// merged three ways into the project (conflicts marked and named); the external kinds'
    /// types (`create api --external`) are made again from the CRD files PROJECT.toml
    /// records. Needs a git work tree without uncommitted changes.
    Update(Update),
    /// Change what `init` chose for the project around the current directory, rewriting the
    /// files the scaffold wrote for it (kubebuilder's `edit`): the manager's scope. Refuses,
    /// writing nothing, when a file it must change was edited where the scaffold's lines are.
    Edit(Edit),
}

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("scope").args(["namespaced", "cluster_scoped"]).required(true)))]
struct Edit {
    /// Make the manager namespace-scoped: the #[rbac] markers' rules become a Role in the
    /// operator's namespace (PROJECT.toml's `namespaced = true`), bound by a RoleBinding, and
    /// the Deployment sets WATCH_NAMESPACE to its own namespace.
    #[arg(long)]
    namespaced: bool,
    /// Make the manager cluster-scoped again (the default of `init`): a ClusterRole and
    /// ClusterRoleBinding, watching every namespace.
    #[arg(long)]
    cluster_scoped: bool,
}

#[derive(Args, Debug)]
struct Update {
    /// The cargo-operator version that scaffolded the project, when PROJECT.toml has no
    /// cli-version.
    #[arg(long, value_name = "VERSION")]
    from_version: Option<String>,
    /// A cargo-operator binary of that version, used instead of `cargo install`ing it.
    #[arg(long, value_name = "PATH")]
    from_scaffolder: Option<PathBuf>,
}

#[derive(Args, Debug)]
struct Init {
    /// The project's directory: missing, or empty but for dot-files such as .git.
    #[arg(default_value = ".")]
    dir: PathBuf,
    /// Suffix of every API group: `--group cache` becomes cache.<domain>.
    #[arg(long)]
    domain: String,
    /// The project's and its operator crate's name (a DNS label). Default: the directory's name.
    #[arg(long)]
    project_name: Option<String>,
    /// Depend on operator-rs's crates in this checkout. Default: the checkout this
    /// cargo-operator was built from, if it was built from one; else the published crates of
    /// its own version.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["operator_rs_git", "operator_rs_version"])]
    operator_rs_path: Option<PathBuf>,
    /// Depend on operator-rs's crates from this git repository.
    #[arg(long, value_name = "URL", conflicts_with = "operator_rs_version")]
    operator_rs_git: Option<String>,
    /// With --operator-rs-git: this revision.
    #[arg(
        long,
        requires = "operator_rs_git",
        conflicts_with = "operator_rs_branch"
    )]
    operator_rs_rev: Option<String>,
    /// With --operator-rs-git: this branch.
    #[arg(long, requires = "operator_rs_git")]
    operator_rs_branch: Option<String>,
    /// Depend on operator-rs's published crates of this version.
    #[arg(long, value_name = "VERSION")]
    operator_rs_version: Option<String>,
    /// A namespace-scoped manager (kubebuilder's `init --namespaced`): the #[rbac] markers'
    /// rules make a Role in the operator's namespace instead of a ClusterRole, bound by a
    /// RoleBinding, and the Deployment sets WATCH_NAMESPACE to its own namespace so the
    /// controllers watch only it. `cargo operator edit` changes it later.
    #[arg(long)]
    namespaced: bool,
}

#[derive(Subcommand, Debug)]
enum Create {
    /// A kind of one version: its types, controller, registration, sample, roles, cluster test
    /// and PROJECT.toml entry (a new version of a kind: its types and sample). With
    /// --external --from-crd FILE: a kind of another project's CRD, its types generated from
    /// the file.
    Api(Api),
    /// Webhooks of a kind: defaulting and validation of one version (a handler with its
    /// `#[webhook]` marker and tests, registered in `webhooks::all()`), and conversion between
    /// the kind's versions through a hub. The first webhook also adds the webhook server to
    /// `main` and config/webhook, config/certmanager and their wiring in config/default.
    Webhook(Webhook),
}

#[derive(Args, Debug)]
#[command(
    after_help = "A kind of another project's CRD (kubebuilder's --external-api-path): \
    cargo operator create api --external --from-crd <FILE> [--kind <Kind>] [--group <api group>] \
    [--version <version>] [--no-controller], or --from-cluster <NAME> [--kubeconfig <FILE>] \
    [--context <NAME>] instead of --from-crd to read the CRD from a cluster. Its Rust types are generated from the CRD into \
    src/api/external/ (every version), the CRD is copied to config/crd/external/ for the local \
    control plane only, PROJECT.toml records it as an [[external]] (no CRD in config/crd), and a \
    controller for it is scaffolded with a cluster test. `cargo operator update` generates the \
    types again from the recorded file (for --from-cluster, the copy)."
)]
#[command(group(clap::ArgGroup::new("external_source").args(["from_crd", "from_cluster"])))]
struct Api {
    /// The API group without the domain (a DNS label): cache. With --external: the CRD's
    /// API group (cert-manager.io), needed only when the file has the kind in two groups.
    #[arg(long, required_unless_present = "external")]
    group: Option<String>,
    /// The version: v1, v1alpha1, v2beta1, ... With --external: the version the controller
    /// uses (default: the CRD's storage version; types are made for every version).
    #[arg(long, required_unless_present = "external")]
    version: Option<String>,
    /// The kind, UpperCamelCase: Memcached. With --external: needed only when the file has
    /// more than one CRD.
    #[arg(long, required_unless_present = "external")]
    kind: Option<String>,
    /// The kind is another project's (a third-party operator's), described by the CRD in
    /// --from-crd or --from-cluster: its types are generated, its CRD never written to
    /// config/crd.
    #[arg(long, requires = "external_source", conflicts_with_all = ["namespaced", "cluster", "finalizer", "field_manager", "event_reporter"])]
    external: bool,
    /// With --external: the CRD's YAML file (several documents allowed), kept where it is
    /// and recorded in PROJECT.toml, relative to the project when inside it.
    #[arg(long, value_name = "FILE", requires = "external")]
    from_crd: Option<PathBuf>,
    /// With --external: read the CRD from the cluster of the kubeconfig instead, by name
    /// (certificates.cert-manager.io) or, as for kubectl, a plural, kind or short name; it is
    /// saved in config/crd/external/ and recorded from there.
    #[arg(long, value_name = "NAME", requires = "external")]
    from_cluster: Option<String>,
    /// With --from-cluster: the kubeconfig (default: KUBECONFIG, ~/.kube/config, in-cluster).
    #[arg(long, value_name = "FILE", requires = "from_cluster")]
    kubeconfig: Option<PathBuf>,
    /// With --from-cluster: the kubeconfig's context (default: its current one).
    #[arg(long, value_name = "NAME", requires = "from_cluster")]
    context: Option<String>,
    /// Namespaced objects (the default).
    #[arg(long, conflicts_with = "cluster")]
    namespaced: bool,
    /// Cluster-scoped objects.
    #[arg(long)]
    cluster: bool,
    /// Only the types, no controller.
    #[arg(long)]
    no_controller: bool,
    /// The finalizer the controller puts on objects, kept from an operator that ran before
    /// (objects that carry it stay deletable). Default: <group>.<domain>/finalizer.
    #[arg(long, value_name = "NAME")]
    finalizer: Option<String>,
    /// The field manager of the controller's applies, kept from an operator that ran before
    /// (its applies own the fields the old one owned). Default: the project's name.
    #[arg(long, value_name = "NAME")]
    field_manager: Option<String>,
    /// The reporting controller of the controller's events. Default: the field manager.
    #[arg(long, value_name = "NAME")]
    event_reporter: Option<String>,
}

#[derive(Args, Debug)]
#[command(group(
    ArgGroup::new("kinds")
        .args(["defaulting", "validation", "conversion"])
        .required(true)
        .multiple(true)
))]
struct Webhook {
    /// The kind's API group without the domain: cache.
    #[arg(long)]
    group: String,
    /// The kind's version the webhooks are for; with --conversion, the hub every other
    /// version converts through.
    #[arg(long)]
    version: String,
    /// The kind (it must be in PROJECT.toml: `create api` first).
    #[arg(long)]
    kind: String,
    /// A defaulting (mutating) admission webhook.
    #[arg(long)]
    defaulting: bool,
    /// A validating admission webhook.
    #[arg(long, alias = "programmatic-validation")]
    validation: bool,
    /// A conversion webhook between --version (the hub) and the --spoke versions.
    #[arg(long, requires = "spoke")]
    conversion: bool,
    /// With --conversion: the other versions of the kind, comma-separated: v2,v3.
    #[arg(long, value_delimiter = ',', requires = "conversion")]
    spoke: Vec<String>,
}

fn main() -> ExitCode {
    // `cargo operator x` runs `cargo-operator operator x`.
    let mut args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "operator") {
        args.remove(1);
    }
    let cli = Cli::parse_from(args);
    match run(cli.command) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Cmd) -> Result<ExitCode> {
    let cwd = std::env::current_dir().context("the current directory")?;
    match command {
        Cmd::Init(init) => {
            let source = source(&init, &cwd)?;
            cargo_operator::init(&InitOptions {
                dir: cargo_operator::absolute(&cwd, &init.dir),
                domain: init.domain,
                project_name: init.project_name,
                source,
                namespaced: init.namespaced,
            })
            .map(|()| ExitCode::SUCCESS)
        }
        Cmd::Edit(edit) => cargo_operator::edit(&EditOptions {
            cwd,
            namespaced: edit.namespaced,
        })
        .map(|()| ExitCode::SUCCESS),
        Cmd::Update(update) => cargo_operator::update(&UpdateOptions {
            cwd,
            from_version: update.from_version,
            from_scaffolder: update.from_scaffolder,
        }),
        Cmd::Create {
            what: Create::Api(api),
        } if api.external => cargo_operator::create_external_api(&ExternalOptions {
            cwd,
            source: match (api.from_crd, api.from_cluster) {
                (Some(file), None) => ExternalSource::File(file),
                (None, Some(name)) => ExternalSource::Cluster {
                    name,
                    source: operator_gen::ClusterSource {
                        kubeconfig: api.kubeconfig,
                        context: api.context,
                    },
                },
                _ => anyhow::bail!("--external needs one of --from-crd and --from-cluster"),
            },
            group: api.group,
            version: api.version,
            kind: api.kind,
            controller: !api.no_controller,
        })
        .map(|()| ExitCode::SUCCESS),
        Cmd::Create {
            what: Create::Api(api),
        } => cargo_operator::create_api(&ApiOptions {
            cwd,
            group: api.group.context("--group is required")?,
            version: api.version.context("--version is required")?,
            kind: api.kind.context("--kind is required")?,
            cluster_scoped: api.cluster,
            controller: !api.no_controller,
            kept: KeptNames {
                finalizer: api.finalizer,
                field_manager: api.field_manager,
                event_reporter: api.event_reporter,
            },
        })
        .map(|()| ExitCode::SUCCESS),
        Cmd::Create {
            what: Create::Webhook(webhook),
        } => cargo_operator::create_webhook(&WebhookOptions {
            cwd,
            group: webhook.group,
            version: webhook.version,
            kind: webhook.kind,
            defaulting: webhook.defaulting,
            validation: webhook.validation,
            conversion: webhook.conversion,
            spokes: webhook.spoke,
        })
        .map(|()| ExitCode::SUCCESS),
    }
}

fn source(init: &Init, cwd: &Path) -> Result<Source> {
    if let Some(url) = &init.operator_rs_git {
        return Ok(Source::Git {
            url: url.clone(),
            rev: init.operator_rs_rev.clone(),
            branch: init.operator_rs_branch.clone(),
        });
    }
    if let Some(version) = &init.operator_rs_version {
        return Ok(Source::Version(version.clone()));
    }
    let (path, given) = match &init.operator_rs_path {
        Some(path) => (cargo_operator::absolute(cwd, path), true),
        None => (
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .context("cargo-operator's checkout")?
                .to_path_buf(),
            false,
        ),
    };
    if !path.join("operator-runtime/Cargo.toml").is_file() {
        if given {
            bail!(
                "--operator-rs-path {}: not a checkout of operator-rs (no operator-runtime/Cargo.toml)",
                path.display()
            );
        }
        // Installed from a registry (`cargo install cargo-operator`): its own release.
        if !path.join("Cargo.toml").is_file() && !path.join(".git").exists() {
            let version = env!("CARGO_PKG_VERSION");
            eprintln!(
                "using operator-rs's published crates of version {version} (cargo-operator's \
                 own; --operator-rs-version picks another)"
            );
            return Ok(Source::Version(version.to_string()));
        }
        bail!(
            "the operator-rs checkout this cargo-operator was built from ({}) has no \
             operator-runtime any more; pass --operator-rs-path, --operator-rs-git or \
             --operator-rs-version",
            path.display()
        );
    }
    if !given {
        eprintln!(
            "using operator-rs's crates from {} (the checkout cargo-operator was built from)",
            path.display()
        );
    }
    Ok(Source::Path(path))
}
