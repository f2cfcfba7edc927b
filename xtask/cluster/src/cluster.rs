//! The commands that talk to a cluster: `envtest up|down|status|env` (the local control plane),
//! `install` / `uninstall` (the CRDs, kubebuilder's `make install`) and `run` (the operator out of
//! cluster, `make run`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Duration;

use anyhow::{Context as _, Result, bail};
use clap::{Args, Subcommand};
use envtest::plane::{self, Options};
use envtest::webhooks::WebhookConfigurations;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

use operator_xtask::root;

#[derive(Subcommand, Debug)]
pub enum EnvtestCmd {
    /// Build the components on first use, start them, wait until the cluster is usable, and print
    /// `export KUBECONFIG=...` (use: eval "$(cargo xtask envtest up)").
    Up {
        /// Simulated (kwok) nodes to create.
        #[arg(long, default_value_t = 3)]
        nodes: usize,
        /// Serve the API server's profiles at /debug/pprof (off by default), e.g. for
        /// `go tool pprof` with the admin certificate of target/envtest/pki during a benchmark.
        #[arg(long)]
        profiling: bool,
    },
    /// Stop every component started by `up` and remove the control plane's state.
    Down,
    /// Report each component, the API server's readiness and the log files.
    Status,
    /// Print `export KUBECONFIG=...` for the running control plane.
    Env,
    /// Build the components if they are not cached yet, without starting them.
    Build,
}

/// Which cluster to talk to.
#[derive(Args, Debug, Clone, Default)]
pub struct Target {
    /// Kubeconfig file to use (its current context). Without it: KUBECONFIG, ~/.kube/config,
    /// in-cluster config, and last the local control plane if it is running.
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
}

/// Where the local control plane keeps its state: `$ENVTEST_STATE_DIR`, else `target/envtest` of
/// this workspace, so each checkout has its own control plane.
pub fn state_dir() -> PathBuf {
    match std::env::var_os("ENVTEST_STATE_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => root().join("target").join("envtest"),
    }
}

pub(crate) fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")
}

pub fn envtest(cmd: EnvtestCmd) -> Result<ExitCode> {
    let dir = state_dir();
    let rt = runtime()?;
    match cmd {
        EnvtestCmd::Up { nodes, profiling } => {
            let mut options = Options::new(&dir);
            options.nodes = nodes;
            options.profiling = profiling;
            match rt.block_on(plane::start(&options))? {
                Some(plane) => {
                    let state = plane.detach();
                    eprintln!(
                        "envtest: Kubernetes v{} is up at {} ({} kwok nodes); stop it with `cargo xtask envtest down`",
                        state.kubernetes_version, state.server, nodes
                    );
                }
                None => {
                    eprintln!("envtest: already running ({})", dir.display());
                    let profiled = plane::read_state(&dir)?.is_some_and(|state| {
                        state.components.iter().any(|c| {
                            c.name == "kube-apiserver"
                                && c.args.iter().any(|a| a == "--profiling=true")
                        })
                    });
                    if profiling && !profiled {
                        eprintln!(
                            "envtest: the running API server was started without --profiling; \
                             `cargo xtask envtest down` first to start one with it"
                        );
                    }
                }
            }
            print_env(&dir)?;
        }
        EnvtestCmd::Down => {
            if rt.block_on(plane::stop(&dir))? {
                eprintln!("envtest: stopped; removed {}", dir.display());
            } else {
                eprintln!("envtest: no control plane was running ({})", dir.display());
            }
        }
        EnvtestCmd::Status => {
            let Some(state) = plane::read_state(&dir)? else {
                eprintln!("envtest: not running (no state in {})", dir.display());
                return Ok(ExitCode::FAILURE);
            };
            let components = plane::component_status(&state);
            println!(
                "Kubernetes v{} at {} (kubeconfig {})",
                state.kubernetes_version,
                state.server,
                state.kubeconfig.display()
            );
            for c in &components {
                println!(
                    "  {:<24} {:<8} pid {:<8} port {:<6} log {}",
                    c.name,
                    if c.running { "running" } else { "STOPPED" },
                    c.pid,
                    c.port,
                    c.log.display()
                );
            }
            let ready = rt.block_on(plane::api_ready(&state));
            match &ready {
                Ok(()) => println!("  API server ready (/readyz ok)"),
                Err(e) => println!("  API server NOT ready: {e}"),
            }
            if ready.is_err() || components.iter().any(|c| !c.running) {
                return Ok(ExitCode::FAILURE);
            }
        }
        EnvtestCmd::Env => {
            if plane::read_state(&dir)?.is_none() {
                bail!(
                    "the local control plane is not running ({}); start it with `cargo xtask envtest up`",
                    dir.display()
                );
            }
            print_env(&dir)?;
        }
        EnvtestCmd::Build => {
            let bins = envtest::components::ensure_built()?;
            eprintln!("envtest: binaries in {}", bins.dir.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_env(dir: &Path) -> Result<()> {
    let state = plane::read_state(dir)?.context("the control plane state disappeared")?;
    println!("export KUBECONFIG={}", state.kubeconfig.display());
    Ok(())
}

/// A client for the target cluster, with the kubeconfig path it came from (if any) and a
/// description for messages. Fails with what to do when nothing is configured or reachable.
#[derive(Clone)]
pub struct Connected {
    pub client: Client,
    pub kubeconfig: Option<PathBuf>,
    pub source: String,
    /// Whether its API server runs on this machine (a loopback address), so that it can
    /// call a webhook server here.
    pub local: bool,
}

impl std::fmt::Debug for Connected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connected")
            .field("kubeconfig", &self.kubeconfig)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

pub async fn connect(target: &Target) -> Result<Connected> {
    let options = KubeConfigOptions::default();
    let home_config = std::env::var_os("HOME").map(|h| Path::new(&h).join(".kube/config"));
    let (config, kubeconfig, source) = if let Some(path) = &target.kubeconfig {
        let kc = Kubeconfig::read_from(path)
            .with_context(|| format!("reading kubeconfig {}", path.display()))?;
        let config = Config::from_custom_kubeconfig(kc, &options)
            .await
            .with_context(|| format!("using kubeconfig {}", path.display()))?;
        (
            config,
            Some(path.clone()),
            format!("--kubeconfig {}", path.display()),
        )
    } else if std::env::var_os("KUBECONFIG").is_some_and(|v| !v.is_empty())
        || home_config.as_ref().is_some_and(|p| p.is_file())
        || std::env::var_os("KUBERNETES_SERVICE_HOST").is_some()
    {
        let config = Config::from_kubeconfig(&options)
            .await
            .or_else(|kubeconfig_err| Config::incluster().map_err(|_| kubeconfig_err))
            .context("loading the kubeconfig (KUBECONFIG, ~/.kube/config, in-cluster)")?;
        let path = std::env::var_os("KUBECONFIG")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or(home_config.filter(|p| p.is_file()));
        let source = match &path {
            Some(p) => format!("kubeconfig {}", p.display()),
            None => "in-cluster configuration".to_string(),
        };
        (config, path, source)
    } else if let Some(state) = plane::read_state(&state_dir())? {
        eprintln!(
            "no KUBECONFIG or ~/.kube/config; using the local control plane ({})",
            state.kubeconfig.display()
        );
        let kc = Kubeconfig::read_from(&state.kubeconfig)?;
        let config = Config::from_custom_kubeconfig(kc, &options).await?;
        let source = format!("the local control plane ({})", state.kubeconfig.display());
        (config, Some(state.kubeconfig), source)
    } else {
        bail!(
            "no cluster to talk to: no --kubeconfig, KUBECONFIG, ~/.kube/config or in-cluster \
             configuration, and the local control plane is not running. Start it with \
             `cargo xtask envtest up`"
        );
    };
    let url = config.cluster_url.clone();
    let client = Client::try_from(config).context("building the Kubernetes client")?;
    let version = tokio::time::timeout(Duration::from_secs(15), client.apiserver_version()).await;
    match version {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => bail!(
            "cannot reach the cluster at {url} (from {source}): {e}. If it is the local control \
             plane, start it with `cargo xtask envtest up`"
        ),
        Err(_) => bail!(
            "the cluster at {url} (from {source}) did not answer within 15s. If it is the local \
             control plane, start it with `cargo xtask envtest up`"
        ),
    }
    let local = matches!(
        url.host(),
        Some("127.0.0.1" | "localhost" | "[::1]" | "::1")
    );
    Ok(Connected {
        client,
        kubeconfig,
        source,
        local,
    })
}

fn crd_dir() -> PathBuf {
    root().join("config").join("crd").join("bases")
}

/// Applies config/crd/bases to `client`'s cluster and waits until each CRD is Established.
pub async fn install_crds(client: &Client) -> Result<Vec<String>> {
    Ok(envtest::crds::install_dir(client, &crd_dir(), Duration::from_secs(60)).await?)
}

/// Applies the copies of other projects' CRDs that the project's external kinds come from
/// (`config/crd/external`, written by `cargo operator create api --external`), when there
/// are any. Only to the local control plane: a real cluster has them from the operator that
/// owns them, so no kustomization names them.
pub async fn install_external_crds(client: &Client) -> Result<Vec<String>> {
    let dir = root().join(operator_xtask::project::EXTERNAL_CRDS);
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    Ok(envtest::crds::install_dir(client, &dir, Duration::from_secs(60)).await?)
}

/// The CRDs the cluster serves, as the compatibility gate's baseline (with their
/// `status.storedVersions`), and the name of the cluster.
pub async fn live_crds(
    target: &Target,
) -> Result<(String, Vec<operator_gen::compat::BaselineCrd>)> {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    let cluster = connect(target).await?;
    let api: kube::Api<CustomResourceDefinition> = kube::Api::all(cluster.client.clone());
    let list = api
        .list(&Default::default())
        .await
        .with_context(|| format!("listing the CRDs of {}", cluster.source))?;
    let mut crds = Vec::new();
    for crd in list.items {
        let name = crd.metadata.name.clone().unwrap_or_default();
        let value = serde_json::to_value(&crd)?;
        crds.push(
            operator_gen::compat::BaselineCrd::from_value(value)
                .map_err(|e| anyhow::anyhow!("CRD {name} of {}: {e}", cluster.source))?,
        );
    }
    Ok((cluster.source, crds))
}

/// `cargo xtask manifests [--check] --against-cluster`.
pub fn manifests_against(check: bool, target: &Target) -> Result<ExitCode> {
    let (source, crds) = runtime()?.block_on(live_crds(target))?;
    operator_xtask::manifests::manifests(
        check,
        &operator_xtask::baseline::Against::Cluster { source, crds },
    )
}

pub fn install(target: &Target) -> Result<ExitCode> {
    runtime()?.block_on(async {
        let cluster = connect(target).await?;
        for name in install_crds(&cluster.client).await? {
            eprintln!(
                "customresourcedefinition {name} applied and Established ({})",
                cluster.source
            );
        }
        if cluster.local {
            for name in install_external_crds(&cluster.client).await? {
                eprintln!(
                    "customresourcedefinition {name} (external, from {}) applied and \
                     Established ({}: a local control plane, where no other operator installs it)",
                    operator_xtask::project::EXTERNAL_CRDS,
                    cluster.source
                );
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

pub fn uninstall(target: &Target) -> Result<ExitCode> {
    runtime()?.block_on(async {
        let cluster = connect(target).await?;
        let crds = envtest::crds::read_crds(&crd_dir())?;
        let deleted =
            envtest::crds::uninstall(&cluster.client, &crds, Duration::from_secs(60)).await?;
        for crd in &crds {
            let name = crd.metadata.name.as_deref().unwrap_or_default();
            if deleted.iter().any(|d| d == name) {
                eprintln!("customresourcedefinition {name} deleted");
            } else {
                eprintln!("customresourcedefinition {name} was not installed");
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// The port the operator's webhook server listens on by default (controller-runtime's 9443).
const WEBHOOK_PORT: u16 = 9443;

/// Builds the operator and runs it in the foreground against the target cluster (after
/// installing the CRDs, as `make run` depends on `make install`).
///
/// On a cluster whose API server runs on this machine (the local control plane), the
/// project's webhooks are served too: a development certificate is made, the generated
/// webhook configurations are installed pointing at this machine's port 9443 with its CA
/// bundle, and they are removed when the operator exits (Ctrl-C included). Elsewhere the
/// API server cannot reach this process, so webhooks are off, as kubebuilder users run
/// `make run ENABLE_WEBHOOKS=false`. `ENABLE_WEBHOOKS` set by the user decides either way.
pub fn run(target: &Target, operator_args: &[String]) -> Result<ExitCode> {
    let rt = runtime()?;
    let cluster = rt.block_on(async {
        let cluster = connect(target).await?;
        install_crds(&cluster.client).await?;
        if cluster.local {
            install_external_crds(&cluster.client).await?;
        }
        anyhow::Ok(cluster)
    })?;
    let project = operator_xtask::project::Project::load(&operator_xtask::root())?;
    eprintln!(
        "running {} ({}) against {}",
        project.project_name,
        project.bin(),
        cluster.source
    );
    // Every target of the workspace, as the front end built it before handing `run` over and
    // as `cargo xtask test` builds it: features are resolved over what a build selects, so
    // building this binary alone (or without the tests, whose dev-dependencies count) would
    // build again the few dozen crates whose features differ. Nothing is left to build here
    // unless a file changed since.
    operator_xtask::run_step(
        "cargo build --workspace --all-targets",
        operator_xtask::cargo().args(["build", "--workspace", "--all-targets"]),
    )?;
    let binary = operator_xtask::target_dir()?
        .join("debug")
        .join(project.bin());
    let mut cmd = Command::new(&binary);
    cmd.args(operator_args);
    if let Some(path) = &cluster.kubeconfig {
        cmd.env("KUBECONFIG", path);
    }
    let manifests = root().join("config").join("webhook").join("manifests.yaml");
    let served = match std::env::var_os("ENABLE_WEBHOOKS") {
        Some(_) => None,
        None if cluster.local && manifests.is_file() => {
            let dir = root().join("target").join("dev-webhook-certs");
            let pki = envtest::certs::Pki::generate(&dir)
                .context("making the development webhook certificate")?;
            let configurations = WebhookConfigurations::read(&manifests)?.served_at(
                &format!("https://127.0.0.1:{WEBHOOK_PORT}"),
                pki.ca.cert_pem.as_bytes(),
            );
            rt.block_on(configurations.apply(&cluster.client))?;
            eprintln!(
                "webhooks on: served on port {WEBHOOK_PORT} with a development certificate ({}); the API server calls them there until the operator exits",
                dir.display()
            );
            cmd.env("ENABLE_WEBHOOKS", "true")
                .env("WEBHOOK_CERT_PATH", &dir)
                .env("WEBHOOK_CERT_NAME", file_name(&pki.serving.cert_path))
                .env("WEBHOOK_CERT_KEY", file_name(&pki.serving.key_path));
            Some(configurations)
        }
        None => {
            eprintln!(
                "webhooks off (ENABLE_WEBHOOKS=false): the API server of {} cannot reach this machine; set ENABLE_WEBHOOKS=true and --webhook-cert-path to serve them anyway",
                cluster.source
            );
            cmd.env("ENABLE_WEBHOOKS", "false");
            None
        }
    };
    let status = match &served {
        // Ctrl-C reaches the operator too (one process group): wait for it to stop, then
        // take the configurations down, so nothing calls a server that is gone.
        Some(configurations) => {
            let status = rt.block_on(wait_through_signals(cmd));
            let removed = rt.block_on(configurations.delete(&cluster.client));
            match removed {
                Ok(()) => eprintln!("webhook configurations removed"),
                Err(e) => eprintln!(
                    "could not remove the webhook configurations ({e}); `cargo xtask run` installs them again, and `cargo xtask envtest down` drops the whole cluster"
                ),
            }
            status?
        }
        None => cmd
            .status()
            .with_context(|| format!("starting {}", binary.display()))?,
    };
    Ok(if status.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn file_name(path: &Path) -> &std::ffi::OsStr {
    path.file_name().unwrap_or_default()
}

/// Runs `cmd` to its end. Ctrl-C (SIGINT) does not stop this process meanwhile: it reaches
/// the child, which shuts down; SIGTERM sent here is passed on.
async fn wait_through_signals(cmd: Command) -> Result<std::process::ExitStatus> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupts = signal(SignalKind::interrupt())?;
    let mut terminations = signal(SignalKind::terminate())?;
    let mut child = tokio::process::Command::from(cmd)
        .spawn()
        .context("starting the operator")?;
    loop {
        tokio::select! {
            status = child.wait() => return Ok(status?),
            _ = interrupts.recv() => {}
            _ = terminations.recv() => {
                let pid = child.id().and_then(|id| rustix::process::Pid::from_raw(id as i32));
                if let Some(pid) = pid {
                    let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
                }
            }
        }
    }
}

/// Used by `cargo xtask test`: the control plane this run started (stopped at the end), or none
/// when one was already running (left running).
pub struct TestPlane {
    started: Option<envtest::ControlPlane>,
    pub kubeconfig: PathBuf,
}

impl std::fmt::Debug for TestPlane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestPlane")
            .field("started_here", &self.started.is_some())
            .field("kubeconfig", &self.kubeconfig)
            .finish()
    }
}

pub fn test_plane_up() -> Result<TestPlane> {
    let rt = runtime()?;
    let dir = state_dir();
    let started = rt.block_on(plane::start(&Options::new(&dir)))?;
    let state = plane::read_state(&dir)?.context("the control plane state disappeared")?;
    match &started {
        Some(_) => eprintln!("envtest: control plane up at {}", state.server),
        None => eprintln!(
            "envtest: reusing the running control plane at {} (left running afterwards)",
            state.server
        ),
    }
    let plane = TestPlane {
        started,
        kubeconfig: state.kubeconfig.clone(),
    };
    let target = Target {
        kubeconfig: Some(state.kubeconfig),
    };
    // The same path as `cargo xtask install`, so the test run proves the command too.
    let installed = rt.block_on(async {
        let cluster = connect(&target).await?;
        for name in install_crds(&cluster.client).await? {
            eprintln!("envtest: installed CRD {name}");
        }
        for name in install_external_crds(&cluster.client).await? {
            eprintln!(
                "envtest: installed CRD {name} (external, from {})",
                operator_xtask::project::EXTERNAL_CRDS
            );
        }
        anyhow::Ok(())
    });
    drop(rt);
    if let Err(err) = installed {
        let _ = plane.down();
        return Err(err);
    }
    Ok(plane)
}

impl TestPlane {
    pub fn down(self) -> Result<()> {
        if let Some(plane) = self.started {
            runtime()?.block_on(plane.stop())?;
            eprintln!("envtest: control plane stopped");
        }
        Ok(())
    }
}

/// Runs `cmd` with KUBECONFIG pointing at the test control plane.
pub fn with_kubeconfig<'a>(cmd: &'a mut Command, plane: &TestPlane) -> &'a mut Command {
    cmd.env("KUBECONFIG", &plane.kubeconfig)
}
