//! Starting, inspecting and stopping the control plane.
//!
//! A running control plane is described by `state.json` in its state directory: the pid, binary
//! and log of each component. `up`, `status` and `down` may run in different processes, so that
//! file is the only link between them; it is rewritten after each component starts, so a failure
//! half-way (or a killed `up`) still leaves enough behind for `down` to stop everything.
//! Its parts: `process` (spawning, watching and stopping the components' processes) and
//! `access` (the kubeconfig, the admin client, readiness and the simulated nodes).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Namespace, Node, ServiceAccount};
use kube::api::Api;
use kube::{Client, Config};
use serde::{Deserialize, Serialize};

mod access;
mod process;

use access::{KWOK_NODE_ANNOTATION, create_nodes, node_ready, readyz, write_kubeconfig};
pub use access::{admin_client, admin_config, log_tail};
use process::{RESTART_GRACE, STOP_GRACE, is_running, remove_dir, spawn_process, stop_components};

use crate::Error;
use crate::certs::{CertPair, Pki};
use crate::components::{self, Binaries, KUBERNETES_VERSION, human};

/// Service addresses of the cluster; the API server's certificate names the first one. A /16,
/// not a /24: every Memcached has a Service, and the operator benchmark creates a thousand.
const SERVICE_CIDR: &str = "10.0.0.0/16";
/// Pod addresses handed out by kwok; apart from the service range.
const POD_CIDR: &str = "10.244.0.1/16";
const STATE_FILE: &str = "state.json";

/// How to start a control plane.
#[derive(Debug, Clone)]
pub struct Options {
    /// Holds state.json, the kubeconfig, certificates, etcd's data and the logs.
    pub state_dir: PathBuf,
    /// Simulated nodes (kwok) for Pods to be scheduled on.
    pub nodes: usize,
    /// How long to wait for the whole control plane to become ready.
    pub ready_timeout: Duration,
    /// Serve the API server's `/debug/pprof` (`--profiling`), for finding where it spends
    /// its CPU; off by default, as in a production cluster's hardening guides.
    pub profiling: bool,
    /// Flags for the API server after its own (a flag given twice takes the later value),
    /// kept across [`ControlPlane::restart`]: say, `--watch-cache-sizes=<resource>#0` for a
    /// test whose watches must expire.
    pub apiserver_args: Vec<String>,
}

impl Options {
    pub fn new(state_dir: impl Into<PathBuf>) -> Self {
        Self {
            state_dir: state_dir.into(),
            nodes: 3,
            ready_timeout: Duration::from_secs(120),
            profiling: false,
            apiserver_args: Vec::new(),
        }
    }
}

/// What `state.json` records about a running control plane.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct State {
    pub kubernetes_version: String,
    pub state_dir: PathBuf,
    pub kubeconfig: PathBuf,
    pub server: String,
    pub components: Vec<ComponentState>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ComponentState {
    pub name: String,
    pub pid: i32,
    pub exe: PathBuf,
    pub log: PathBuf,
    /// The port it serves on (loopback).
    pub port: u16,
    /// Its command line, for restarts.
    #[serde(default)]
    pub args: Vec<String>,
}

/// What `status` found for one component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentStatus {
    pub name: String,
    pub pid: i32,
    pub port: u16,
    pub running: bool,
    pub log: PathBuf,
}

/// A control plane started by this process. Dropping it does not stop it: call [`ControlPlane::stop`]
/// (or `cargo xtask envtest down` from anywhere).
#[derive(Debug)]
pub struct ControlPlane {
    pub state: State,
    /// Our own children, reaped on stop so none is left a zombie while this process lives.
    children: Vec<Child>,
}

impl ControlPlane {
    pub fn kubeconfig(&self) -> &Path {
        &self.state.kubeconfig
    }

    /// An admin client for this control plane.
    pub async fn client(&self) -> Result<Client, Error> {
        admin_client(&self.state.kubeconfig).await
    }

    /// The admin client configuration, for clients of one's own (impersonating, counting, ...).
    pub async fn config(&self) -> Result<Config, Error> {
        admin_config(&self.state.kubeconfig).await
    }

    /// Stops one component (SIGTERM, then SIGKILL if it has not exited ten seconds later) and
    /// starts it again with the same command line, ports and certificates; returns once it runs
    /// again. For tests of what survives an API server restart.
    pub async fn restart(&mut self, name: &str) -> Result<(), Error> {
        let index = self
            .state
            .components
            .iter()
            .position(|c| c.name == name)
            .ok_or_else(|| Error::Start(format!("no component named {name}")))?;
        let component = self.state.components[index].clone();
        stop_components(std::slice::from_ref(&component), RESTART_GRACE).await?;
        if let Some(i) = self
            .children
            .iter()
            .position(|c| c.id() as i32 == component.pid)
        {
            let mut old = self.children.remove(i);
            let _ = old.wait();
        }
        let (child, pid) = spawn_process(&component.exe, &component.args, &component.log, true)?;
        self.children.push(child);
        self.state.components[index].pid = pid;
        save_state(&self.state)
    }

    /// Stops every component (etcd last; SIGKILL for any still there 0.3 s after SIGTERM: the
    /// state is thrown away) and removes the state directory.
    pub async fn stop(mut self) -> Result<(), Error> {
        let result = stop_state(&self.state).await;
        for mut child in std::mem::take(&mut self.children) {
            let _ = child.wait();
        }
        result
    }

    /// Lets the control plane outlive this value and this process (`cargo xtask envtest up`);
    /// `cargo xtask envtest down` or [`stop`] with its state directory stops it.
    pub fn detach(mut self) -> State {
        self.children.clear();
        self.state.clone()
    }
}

impl Drop for ControlPlane {
    /// A control plane that was neither stopped nor detached (a test that panicked, say) is
    /// killed, so no process outlives its owner.
    fn drop(&mut self) {
        if self.children.is_empty() {
            return;
        }
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.state.state_dir);
    }
}

/// Reads the state of the control plane in `state_dir`, if one was started there.
pub fn read_state(state_dir: &Path) -> Result<Option<State>, Error> {
    let path = state_dir.join(STATE_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map(Some).map_err(|e| {
            Error::Start(format!(
                "{} is not a control-plane state file ({e}); remove {} and retry",
                path.display(),
                state_dir.display()
            ))
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::io(&path, e)),
    }
}

/// The processes of a recorded control plane, and whether each still runs.
pub fn component_status(state: &State) -> Vec<ComponentStatus> {
    state
        .components
        .iter()
        .map(|c| ComponentStatus {
            name: c.name.clone(),
            pid: c.pid,
            port: c.port,
            running: is_running(c),
            log: c.log.clone(),
        })
        .collect()
}

/// Asks the API server whether it is ready (`/readyz`).
pub async fn api_ready(state: &State) -> Result<(), Error> {
    let client = admin_client(&state.kubeconfig).await?;
    readyz(&client).await
}

/// Starts a control plane in `options.state_dir`. If one is already running there and healthy,
/// returns `Ok(None)` and leaves it alone; a dead or half-started one is cleaned up first.
pub async fn start(options: &Options) -> Result<Option<ControlPlane>, Error> {
    if let Some(state) = read_state(&options.state_dir)? {
        let all_running = component_status(&state).iter().all(|c| c.running);
        if all_running && api_ready(&state).await.is_ok() {
            return Ok(None);
        }
        eprintln!(
            "envtest: the control plane recorded in {} is not healthy; stopping what is left of it",
            options.state_dir.display()
        );
        stop_state(&state).await?;
    } else if options.state_dir.exists() {
        // Left over from a failed start: only logs remain there.
        remove_dir(&options.state_dir)?;
    }

    let binaries = components::ensure_built()?;
    let mut starting = Starting {
        state: State {
            kubernetes_version: KUBERNETES_VERSION.to_string(),
            state_dir: options.state_dir.clone(),
            kubeconfig: options.state_dir.join("kubeconfig"),
            server: String::new(),
            components: Vec::new(),
        },
        children: Vec::new(),
    };
    match starting.run(options, &binaries).await {
        Ok(()) => Ok(Some(ControlPlane {
            state: starting.state.clone(),
            children: std::mem::take(&mut starting.children),
        })),
        Err(err) => {
            let logs: Vec<String> = starting
                .state
                .components
                .iter()
                .map(|c| format!("  {}: {}", c.name, c.log.display()))
                .collect();
            let _ = starting.abort().await;
            if logs.is_empty() {
                Err(err)
            } else {
                Err(Error::Start(format!("{err}\nlogs:\n{}", logs.join("\n"))))
            }
        }
    }
}

/// Stops the control plane recorded in `state_dir`. Returns false if none was recorded there.
pub async fn stop(state_dir: &Path) -> Result<bool, Error> {
    match read_state(state_dir)? {
        Some(state) => {
            stop_state(&state).await?;
            Ok(true)
        }
        None => {
            if state_dir.exists() {
                remove_dir(state_dir)?;
            }
            Ok(false)
        }
    }
}

struct Starting {
    state: State,
    children: Vec<Child>,
}

impl Drop for Starting {
    /// Normally the children have been handed over (success) or stopped (`abort`) by now. If a
    /// panic unwinds through `start`, kill them here so no stray process is left behind.
    fn drop(&mut self) {
        for child in &mut self.children {
            if let Ok(None) = child.try_wait() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

struct Ports {
    etcd: u16,
    etcd_peer: u16,
    apiserver: u16,
    controller_manager: u16,
    scheduler: u16,
    kwok: u16,
}

impl Starting {
    async fn run(&mut self, options: &Options, bins: &Binaries) -> Result<(), Error> {
        let dir = options.state_dir.clone();
        for sub in ["logs", "pki", "etcd"] {
            std::fs::create_dir_all(dir.join(sub)).map_err(|e| Error::io(&dir.join(sub), e))?;
        }
        let pki = Pki::generate(&dir.join("pki"))?;
        let ports = free_ports()?;
        let server = format!("https://127.0.0.1:{}", ports.apiserver);
        self.state.server = server.clone();

        let kubeconfig = |file: &str, user: &CertPair| -> Result<PathBuf, Error> {
            let path = dir.join(file);
            write_kubeconfig(&path, &server, &pki.ca.cert_path, user)?;
            Ok(path)
        };
        let admin_kubeconfig = kubeconfig("kubeconfig", &pki.admin)?;
        let kcm_kubeconfig =
            kubeconfig("pki/controller-manager.kubeconfig", &pki.controller_manager)?;
        let scheduler_kubeconfig = kubeconfig("pki/scheduler.kubeconfig", &pki.scheduler)?;
        let kwok_kubeconfig = kubeconfig("pki/kwok.kubeconfig", &pki.kwok)?;
        let p = |path: &Path| path.display().to_string();
        let loopback = |port: u16| format!("http://127.0.0.1:{port}");
        // What service accounts outside kube-system (operators under test) ask, for
        // `envtest::audit`. A fresh log per start.
        let audit_policy = dir.join("audit-policy.yaml");
        std::fs::write(&audit_policy, crate::audit::POLICY)
            .map_err(|e| Error::io(&audit_policy, e))?;
        let audit_log = dir.join("logs/audit.log");
        if audit_log.exists() {
            std::fs::remove_file(&audit_log).map_err(|e| Error::io(&audit_log, e))?;
        }

        self.spawn(
            bins,
            "etcd",
            ports.etcd,
            vec![
                "--name=envtest".into(),
                format!("--data-dir={}", p(&dir.join("etcd"))),
                format!("--listen-client-urls={}", loopback(ports.etcd)),
                format!("--advertise-client-urls={}", loopback(ports.etcd)),
                format!("--listen-peer-urls={}", loopback(ports.etcd_peer)),
                format!(
                    "--initial-advertise-peer-urls={}",
                    loopback(ports.etcd_peer)
                ),
                format!("--initial-cluster=envtest={}", loopback(ports.etcd_peer)),
                // Test data: durability across a machine crash is not worth the fsyncs.
                "--unsafe-no-fsync=true".into(),
                "--log-level=warn".into(),
            ],
        )?;

        self.spawn(
            bins,
            "kube-apiserver",
            ports.apiserver,
            vec![
                format!("--etcd-servers={}", loopback(ports.etcd)),
                "--bind-address=127.0.0.1".into(),
                "--advertise-address=127.0.0.1".into(),
                format!("--secure-port={}", ports.apiserver),
                format!("--cert-dir={}", p(&dir.join("pki"))),
                format!("--tls-cert-file={}", p(&pki.serving.cert_path)),
                format!("--tls-private-key-file={}", p(&pki.serving.key_path)),
                format!("--client-ca-file={}", p(&pki.ca.cert_path)),
                "--authorization-mode=RBAC".into(),
                format!("--service-cluster-ip-range={SERVICE_CIDR}"),
                "--service-account-issuer=https://kubernetes.default.svc.cluster.local".into(),
                format!("--service-account-key-file={}", p(&pki.service_account_pub)),
                format!(
                    "--service-account-signing-key-file={}",
                    p(&pki.service_account_key)
                ),
                "--allow-privileged=true".into(),
                // The `kubernetes` Service cannot point at a loopback address; nothing in the
                // control plane needs its endpoints.
                "--endpoint-reconciler-type=none".into(),
                format!("--profiling={}", options.profiling),
                format!("--audit-policy-file={}", p(&audit_policy)),
                format!("--audit-log-path={}", p(&audit_log)),
                "--audit-log-maxsize=500".into(),
                "--audit-log-maxbackup=1".into(),
                // The default, said here because readers rely on it: each event is written
                // before the response completes, so the log is complete for every answered
                // request and nothing is lost when `down` kills the API server.
                "--audit-log-mode=blocking".into(),
            ]
            .into_iter()
            .chain(options.apiserver_args.iter().cloned())
            .collect(),
        )?;
        let client = admin_client(&admin_kubeconfig).await?;
        self.wait("the API server to be ready (/readyz)", options, || {
            let client = client.clone();
            async move { readyz(&client).await.is_ok().then_some(()) }
        })
        .await?;

        let kcm_args = |port: u16, kubeconfig: &Path| {
            vec![
                format!("--kubeconfig={}", p(kubeconfig)),
                format!("--authentication-kubeconfig={}", p(kubeconfig)),
                format!("--authorization-kubeconfig={}", p(kubeconfig)),
                "--bind-address=127.0.0.1".into(),
                format!("--secure-port={port}"),
                "--leader-elect=false".into(),
            ]
        };
        let mut args = kcm_args(ports.controller_manager, &kcm_kubeconfig);
        args.extend([
            format!("--cert-dir={}", p(&dir.join("pki/controller-manager"))),
            // Each controller acts as its own service account, as in a kubeadm cluster; this needs
            // the token signing key and the CA to put into the tokens' namespaces.
            "--use-service-account-credentials=true".into(),
            format!(
                "--service-account-private-key-file={}",
                p(&pki.service_account_key)
            ),
            format!("--root-ca-file={}", p(&pki.ca.cert_path)),
            format!("--cluster-signing-cert-file={}", p(&pki.ca.cert_path)),
            format!("--cluster-signing-key-file={}", p(&pki.ca.key_path)),
            format!("--service-cluster-ip-range={SERVICE_CIDR}"),
            "--cluster-name=envtest".into(),
            // A test cluster is judged by how fast it converges; the defaults (20 QPS, 5 syncs)
            // are sized for sharing a production API server.
            "--kube-api-qps=200".into(),
            "--kube-api-burst=400".into(),
            "--concurrent-deployment-syncs=10".into(),
            "--concurrent-replicaset-syncs=10".into(),
        ]);
        self.spawn(
            bins,
            "kube-controller-manager",
            ports.controller_manager,
            args,
        )?;

        let mut args = kcm_args(ports.scheduler, &scheduler_kubeconfig);
        args.extend([
            format!("--cert-dir={}", p(&dir.join("pki/scheduler"))),
            "--kube-api-qps=200".into(),
            "--kube-api-burst=400".into(),
        ]);
        self.spawn(bins, "kube-scheduler", ports.scheduler, args)?;

        let (key, value) = KWOK_NODE_ANNOTATION;
        self.spawn(
            bins,
            "kwok",
            ports.kwok,
            vec![
                format!("--kubeconfig={}", p(&kwok_kubeconfig)),
                format!("--config={}", p(&bins.kwok_config())),
                "--manage-all-nodes=false".into(),
                format!("--manage-nodes-with-annotation-selector={key}={value}"),
                format!("--cidr={POD_CIDR}"),
                "--node-ip=127.0.0.1".into(),
                format!("--node-port={}", ports.kwok),
                format!("--server-address=127.0.0.1:{}", ports.kwok),
                "--node-lease-duration-seconds=40".into(),
            ],
        )?;

        create_nodes(&client, options.nodes).await?;
        self.wait("the default service account", options, || {
            let sas: Api<ServiceAccount> = Api::namespaced(client.clone(), "default");
            async move { sas.get_opt("default").await.ok().flatten().map(|_| ()) }
        })
        .await?;
        let nodes: Api<Node> = Api::all(client.clone());
        let want = options.nodes;
        self.wait(&format!("{want} kwok nodes to be Ready"), options, || {
            let nodes = nodes.clone();
            async move {
                let list = nodes.list(&Default::default()).await.ok()?;
                let ready = list.items.iter().filter(|n| node_ready(n)).count();
                (ready >= want).then_some(())
            }
        })
        .await?;
        let namespaces: Api<Namespace> = Api::all(client);
        namespaces.get("default").await?;
        Ok(())
    }

    fn spawn(
        &mut self,
        bins: &Binaries,
        name: &str,
        port: u16,
        args: Vec<String>,
    ) -> Result<(), Error> {
        let exe = bins.path(name);
        let log = self
            .state
            .state_dir
            .join("logs")
            .join(format!("{name}.log"));
        let (child, pid) = spawn_process(&exe, &args, &log, false)?;
        eprintln!(
            "envtest: started {name} (pid {pid}, port {port}, log {})",
            log.display()
        );
        self.state.components.push(ComponentState {
            name: name.to_string(),
            pid,
            exe,
            log,
            port,
            args,
        });
        self.children.push(child);
        self.save()
    }

    fn save(&self) -> Result<(), Error> {
        save_state(&self.state)
    }

    /// Polls `probe` until it yields, failing early when a component exits.
    async fn wait<F, Fut>(&mut self, what: &str, options: &Options, probe: F) -> Result<(), Error>
    where
        F: Fn() -> Fut,
        Fut: std::future::Future<Output = Option<()>>,
    {
        let started = Instant::now();
        loop {
            if probe().await.is_some() {
                return Ok(());
            }
            for (child, component) in self.children.iter_mut().zip(&self.state.components) {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(Error::Start(format!(
                        "{} exited ({status}) while waiting for {what}; its log {} ends with:\n{}",
                        component.name,
                        component.log.display(),
                        log_tail(&component.log, 20)
                    )));
                }
            }
            if started.elapsed() > options.ready_timeout {
                return Err(Error::Start(format!(
                    "timed out after {} waiting for {what}",
                    human(options.ready_timeout)
                )));
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Stops what was started and removes everything but the logs.
    async fn abort(&mut self) -> Result<(), Error> {
        let result = stop_components(&self.state.components, STOP_GRACE).await;
        for child in &mut self.children {
            let _ = child.wait();
        }
        let entries = std::fs::read_dir(&self.state.state_dir)
            .map_err(|e| Error::io(&self.state.state_dir, e))?;
        for entry in entries.flatten() {
            if entry.file_name() != "logs" {
                let path = entry.path();
                if path.is_dir() {
                    let _ = std::fs::remove_dir_all(&path);
                } else {
                    let _ = std::fs::remove_file(&path);
                }
            }
        }
        result
    }
}

fn save_state(state: &State) -> Result<(), Error> {
    let path = state.state_dir.join(STATE_FILE);
    let tmp = path.with_extension("json.tmp");
    let json = serde_json::to_vec_pretty(state).expect("state serialises");
    std::fs::write(&tmp, json).map_err(|e| Error::io(&tmp, e))?;
    std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))
}

async fn stop_state(state: &State) -> Result<(), Error> {
    stop_components(&state.components, STOP_GRACE).await?;
    remove_dir(&state.state_dir)
}

fn free_ports() -> Result<Ports, Error> {
    // Hold all listeners until every port is chosen so the six are distinct.
    let listeners: Vec<TcpListener> = (0..6)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<_, _>>()
        .map_err(|e| Error::Start(format!("cannot bind a loopback port: {e}")))?;
    let ports: Vec<u16> = listeners
        .iter()
        .map(|l| l.local_addr().map(|a| a.port()))
        .collect::<Result<_, _>>()
        .map_err(|e| Error::Start(format!("cannot read a loopback port: {e}")))?;
    Ok(Ports {
        etcd: ports[0],
        etcd_peer: ports[1],
        apiserver: ports[2],
        controller_manager: ports[3],
        scheduler: ports[4],
        kwok: ports[5],
    })
}
