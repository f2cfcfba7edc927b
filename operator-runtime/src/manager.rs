//! What controller-runtime's manager gives a Go operator: leader election on a Lease, the
//! Prometheus endpoint, health and readiness probes, and one shutdown signal for all of it.
//! The operator builds a [`Manager`] ([`Manager::from_flags`] from the standard flags) and
//! hands [`Manager::run`] a function that starts its controllers; the manager calls it at
//! once, on every instance, with a [`Runtime`]: the stop signal the controllers must honour,
//! the readiness they report, and whether this instance leads. Failover is warm, as
//! controller-runtime's since its "warm replicas": a standby's controllers list and watch
//! from the start, so its caches are synced (and `/readyz` says so) while the leader runs,
//! and only their reconciles wait for the lease ([`Runtime::elected`]); the instance that
//! takes over reconciles from a synced cache instead of listing everything first.
//!
//! `/metrics` is served as [`MetricsSecurity`] says: HTTPS with authentication and
//! authorization unless `--metrics-secure=false` for a manager made [`from
//! flags`](Manager::from_flags); plain HTTP for one made with [`Manager::new`] (tests, and
//! callers that build [`ManagerOptions`] by hand) unless [`Manager::metrics_security`] says
//! otherwise.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use kube::Client;
use kube_lease_manager::{LeaseManagerBuilder, LeaseManagerError};
use tokio_util::sync::CancellationToken;
use tracing::{error, info};

use crate::metrics::Metrics;
use crate::secure_metrics::{MetricsSecurity, MetricsServerError, SecureServer, auth::ApiReviews};

/// Leader election parameters (controller-runtime's defaults: 15 s lease).
#[derive(Debug, Clone)]
pub struct LeaderElection {
    /// The namespace of the Lease: the operator's own.
    pub namespace: String,
    /// The Lease's name, the same for every instance of the operator.
    pub lease_name: String,
    /// Unique per instance; the pod name in a cluster.
    pub identity: String,
    /// How long a lease lasts without renewal before another instance may take it.
    pub lease_duration: Duration,
    /// Renew this long before the lease would expire.
    pub renew_grace: Duration,
}

/// What the manager runs and how (`ManagerFlags::options` makes one from the standard
/// flags).
#[derive(Debug, Clone)]
pub struct ManagerOptions {
    /// The operator's name: with the instance's identity, the field manager of its Lease
    /// writes.
    pub name: String,
    /// Where `/metrics` is served (`None`: not served); over HTTPS or HTTP as the
    /// [`MetricsSecurity`] given to [`Manager::metrics_security`] says.
    pub metrics_addr: Option<SocketAddr>,
    /// Where `/healthz` and `/readyz` are served (`None`: not served).
    pub health_addr: Option<SocketAddr>,
    /// Elect a leader before starting the controllers (`None`: start them at once).
    pub leader_election: Option<LeaderElection>,
    /// How the controllers reconcile (`--sync-period`, `--reconcile-debounce`); handed to
    /// them in the [`Runtime`].
    pub reconcile: ReconcileSettings,
}

/// `--progress-reports`' default: progress reports per second, per controller.
pub const DEFAULT_PROGRESS_REPORTS: u32 = 5;

/// How controllers reconcile, from the manager's flags: each controller takes them from
/// [`Runtime::reconcile`], builds its `Controller` with [`controller_config`](Self::controller_config)
/// and ends a successful reconcile with [`requeue`](Self::requeue).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReconcileSettings {
    /// Reconcile every object again this long after its last reconcile (`None`: only on
    /// changes). controller-runtime's cache resync, 10 hours by default.
    pub sync_period: Option<Duration>,
    /// Quiet time after an object's last event before it is reconciled: a burst of events
    /// (a rollout, pods starting) makes one reconcile instead of one per event.
    pub debounce: Duration,
    /// Progress reports ([`Context::write_progress`](crate::controller::Context::write_progress))
    /// a controller sends per second, all its objects together (a second's worth at once);
    /// 0 sends none. What a report says is superseded by the next write, so under a storm
    /// of changes most wait, and the API server spends itself on the changes.
    pub progress_reports: u32,
}

impl Default for ReconcileSettings {
    /// The flags' defaults: a 10-hour sync period, 500 ms of debounce, 5 progress reports a
    /// second.
    fn default() -> Self {
        Self {
            sync_period: Some(Duration::from_secs(10 * 3600)),
            debounce: Duration::from_millis(500),
            progress_reports: DEFAULT_PROGRESS_REPORTS,
        }
    }
}

impl ReconcileSettings {
    /// Changes only, at once: what tests that count reconciles want.
    pub fn immediate() -> Self {
        Self {
            sync_period: None,
            debounce: Duration::ZERO,
            progress_reports: DEFAULT_PROGRESS_REPORTS,
        }
    }

    /// A kube-rs controller configuration with the debounce set (concurrency left as kube's
    /// default; set it on the result).
    pub fn controller_config(&self) -> kube::runtime::controller::Config {
        kube::runtime::controller::Config::default().debounce(self.debounce)
    }

    /// What a successful reconcile of the object with this `uid` returns: come back after the
    /// sync period (plus up to 10%, spread by uid, so that objects created together do not
    /// all come due at once), or on the next change when there is none.
    pub fn requeue(&self, uid: Option<&str>) -> kube::runtime::controller::Action {
        match self.sync_delay(uid) {
            Some(delay) => kube::runtime::controller::Action::requeue(delay),
            None => kube::runtime::controller::Action::await_change(),
        }
    }

    /// When the object with this `uid` is next resynced: the sync period plus up to 10%,
    /// spread by uid (`None`: no periodic resyncs).
    pub fn sync_delay(&self, uid: Option<&str>) -> Option<Duration> {
        use std::hash::{Hash, Hasher};
        let period = self.sync_period?;
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        uid.hash(&mut hasher);
        let spread = (hasher.finish() % 1000) as f64 / 10_000.0;
        Some(period.mul_f64(1.0 + spread))
    }
}

/// Why the manager stopped before it was asked to.
#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    /// A server (metrics, probes) could not listen on its address.
    #[error("cannot serve {what} on {addr}: {source}")]
    Bind {
        /// Which server.
        what: &'static str,
        /// The address asked for.
        addr: SocketAddr,
        /// Why it could not.
        source: std::io::Error,
    },
    /// The Lease could not be read or written.
    #[error("leader election: {0}")]
    LeaderElection(#[from] LeaseManagerError),
    /// Another instance holds the lease now: this one stops, as controller-runtime's does.
    #[error("lost the leader lease; exiting so that another instance takes over")]
    LostLeadership,
    /// The secure metrics server could not start.
    #[error(transparent)]
    MetricsServer(#[from] MetricsServerError),
    /// The webhook server could not start.
    #[error("starting the webhook server: {0}")]
    Webhooks(#[from] crate::webhook::WebhookError),
    /// The webhook server stopped with an error.
    #[error("the webhook server failed: {0}")]
    WebhookServer(String),
    /// A flag's value is wrong ([`Manager::from_flags`]).
    #[error(transparent)]
    Flags(#[from] crate::flags::FlagError),
    /// No client could be made from the kubeconfig ([`Manager::from_flags`]).
    #[error(transparent)]
    Connect(#[from] crate::ConnectError),
}

/// Something the manager does not run but `/readyz` waits for, such as the webhook server
/// ([`crate::webhook::Readiness`]); see [`Manager::ready_check`].
pub trait ReadyCheck: std::fmt::Debug + Send + Sync + 'static {
    /// Named in `/readyz`'s answer while not ready.
    fn name(&self) -> &str;
    /// Whether it is ready now; `/readyz` answers 200 once every check is.
    fn is_ready(&self) -> bool;
}

/// Readiness shared with the probe endpoint: ready while no controller is started, and
/// while started controllers have all synced their caches, and every check passes.
#[derive(Debug, Default)]
struct Probe {
    ready: AtomicBool,
    /// Controllers that took a [`Synced`] handle and have not reported yet.
    pending: AtomicUsize,
    checks: Vec<Arc<dyn ReadyCheck>>,
}

impl Probe {
    fn set_ready(&self, ready: bool) {
        self.ready.store(ready, Ordering::Relaxed);
    }
}

/// What the controllers get from the manager when they start.
#[derive(Debug, Clone)]
pub struct Runtime {
    stop: CancellationToken,
    probe: Arc<Probe>,
    metrics: Arc<Metrics>,
    reconcile: ReconcileSettings,
    elected: CancellationToken,
}

impl Runtime {
    /// Completes once this instance leads (at once without leader election), as
    /// controller-runtime's `Elected()`: the controllers' reconciles wait for it, and so must
    /// anything else of the operator's that writes.
    pub fn elected(&self) -> impl Future<Output = ()> + Send + Sync + use<> {
        self.elected.clone().cancelled_owned()
    }

    /// Whether this instance leads now (see [`elected`](Self::elected)).
    pub fn is_elected(&self) -> bool {
        self.elected.is_cancelled()
    }

    /// The leadership signal as a token, cancelled once this instance leads.
    pub(crate) fn elected_token(&self) -> CancellationToken {
        self.elected.clone()
    }

    /// Completes when the controllers must stop (shutdown, or the lease lost).
    pub fn stopped(&self) -> impl Future<Output = ()> + Send + Sync + use<> {
        self.stop.clone().cancelled_owned()
    }

    /// The stop signal as a token (for code that takes one).
    pub fn stop_token(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// A handle one controller calls once its watch caches are synced. `/readyz` answers 200
    /// once every handle taken has reported: take them all before the first `await`.
    pub fn synced(&self) -> Synced {
        self.probe.pending.fetch_add(1, Ordering::SeqCst);
        self.probe.set_ready(false);
        Synced {
            probe: Some(self.probe.clone()),
        }
    }

    /// The operator's metrics.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// How the controllers reconcile, as the flags said.
    pub fn reconcile(&self) -> ReconcileSettings {
        self.reconcile
    }
}

/// Reports one controller's caches synced (see [`Runtime::synced`]); dropping it unreported
/// leaves the operator not ready.
#[derive(Debug)]
pub struct Synced {
    probe: Option<Arc<Probe>>,
}

impl Synced {
    /// The caches are synced.
    pub fn done(mut self) {
        if let Some(probe) = self.probe.take()
            && probe.pending.fetch_sub(1, Ordering::SeqCst) == 1
        {
            info!("watch caches synced");
            probe.set_ready(true);
        }
    }
}

/// The manager: its options, how `/metrics` is served, what else `/readyz` waits for, and the webhook
/// server it then owns (bound before the controllers start, served by every instance,
/// leader or not, waited for by `/readyz`, counted in the manager's metrics and stopped after
/// the controllers). An operator's `main` hands over its handlers and nothing else:
///
/// ```no_run
/// # async fn demo(client: kube::Client, flags: operator_runtime::ManagerFlags, webhook: operator_runtime::WebhookFlags) -> Result<(), Box<dyn std::error::Error>> {
/// use operator_runtime::{Manager, Metrics};
/// use std::sync::Arc;
/// let options = flags.options("my-operator", "my-operator-lock")?;
/// Manager::new(client, Arc::new(Metrics::new()), options)
///     .metrics_security(flags.metrics_security())
///     .webhooks(webhook.options(), operator_runtime::webhook::Webhooks::new())
///     .run(|runtime| async move { runtime.stopped().await })
///     .await?;
/// # Ok(()) }
/// ```
pub struct Manager {
    client: Client,
    metrics: Arc<Metrics>,
    options: ManagerOptions,
    security: MetricsSecurity,
    checks: Vec<Arc<dyn ReadyCheck>>,
    webhooks: Option<(crate::webhook::WebhookOptions, crate::webhook::Webhooks)>,
    rotator: Option<crate::webhook::CertRotator>,
    shutdown: Option<CancellationToken>,
}

impl std::fmt::Debug for Manager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Manager")
            .field("options", &self.options)
            .field("checks", &self.checks)
            .field("webhooks", &self.webhooks)
            .field("rotator", &self.rotator)
            .finish_non_exhaustive()
    }
}

impl Manager {
    /// A manager of `client` (its requests counted in `metrics`, as
    /// [`connect`](crate::connect) sets it up) with the flags' `options`; `/metrics` over
    /// plain HTTP until [`Manager::metrics_security`] says otherwise, stopped by SIGTERM or
    /// SIGINT until [`Manager::shutdown`] says otherwise.
    pub fn new(client: Client, metrics: Arc<Metrics>, options: ManagerOptions) -> Self {
        Self {
            client,
            metrics,
            options,
            security: MetricsSecurity::Plain,
            checks: Vec::new(),
            webhooks: None,
            rotator: None,
            shutdown: None,
        }
    }

    /// A manager as the standard flags say: a client from `--kubeconfig` (or kubectl's
    /// order) counting its requests in new [`Metrics`], the flags' options
    /// ([`ManagerFlags::options`](crate::ManagerFlags::options) with `name` and
    /// `default_lease`) and `/metrics` served as `--metrics-secure` says. The controllers
    /// get the client from [`Manager::client`].
    pub async fn from_flags(
        flags: &crate::ManagerFlags,
        name: &str,
        default_lease: &str,
    ) -> Result<Self, ManagerError> {
        let options = flags.options(name, default_lease)?;
        let metrics = Arc::new(Metrics::new());
        let client = crate::connect(flags.kubeconfig.as_deref(), metrics.clone()).await?;
        Ok(Self::new(client, metrics, options).metrics_security(flags.metrics_security()))
    }

    /// The manager's client (its requests counted in the manager's metrics).
    pub fn client(&self) -> Client {
        self.client.clone()
    }

    /// The manager's metrics, served on `/metrics`: an operator registers its own here.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// How `/metrics` is served ([`ManagerFlags::metrics_security`](crate::ManagerFlags::metrics_security)).
    pub fn metrics_security(mut self, security: MetricsSecurity) -> Self {
        self.security = security;
        self
    }

    /// Something else `/readyz` waits for.
    pub fn ready_check(mut self, check: Arc<dyn ReadyCheck>) -> Self {
        self.checks.push(check);
        self
    }

    /// Serves `webhooks` with `options` (counted in the manager's metrics unless `options`
    /// name others).
    pub fn webhooks(
        mut self,
        options: crate::webhook::WebhookOptions,
        webhooks: crate::webhook::Webhooks,
    ) -> Self {
        self.webhooks = Some((options, webhooks));
        self
    }

    /// Serves `webhooks` with the certificate the flags say: from files
    /// (`--webhook-cert-path`, cert-manager's) or kept by the operator in a Secret
    /// (`--webhook-cert-secret`, see [`Manager::cert_rotator`]).
    pub fn webhooks_from_flags(
        self,
        flags: &crate::WebhookFlags,
        webhooks: crate::webhook::Webhooks,
    ) -> Result<Self, crate::flags::FlagError> {
        Ok(match flags.source()? {
            crate::flags::WebhookCertSource::Files(options) => self.webhooks(options, webhooks),
            crate::flags::WebhookCertSource::Secret(rotator) => self
                .webhooks(flags.options(), webhooks)
                .cert_rotator(rotator),
        })
    }

    /// Keeps the webhook server's certificate without cert-manager: a
    /// [`CertRotator`](crate::webhook::CertRotator) with these options runs beside the
    /// server, which presents the rotator's certificate (whatever
    /// [`WebhookOptions::certificates`](crate::webhook::WebhookOptions) says), and `/readyz`
    /// waits until the configurations carry its CA bundle.
    pub fn cert_rotator(mut self, options: crate::webhook::RotatorOptions) -> Self {
        self.rotator = Some(crate::webhook::CertRotator::new(
            self.client.clone(),
            options,
        ));
        self
    }

    /// Stops when `shutdown` is cancelled instead of on signals.
    pub fn shutdown(mut self, shutdown: CancellationToken) -> Self {
        self.shutdown = Some(shutdown);
        self
    }

    /// Runs the operator until shutdown (SIGTERM or SIGINT, or [`Manager::shutdown`]'s token:
    /// then it stops gracefully, releasing the lease) or until leadership is lost (an error,
    /// as in controller-runtime: the process should exit). `controllers` is called once, at
    /// the start, on every instance (with leader election the controllers' caches fill on a
    /// standby too, and their reconciles wait until it leads: [`Runtime::elected`]), and must
    /// return when its [`Runtime::stopped`] completes.
    pub async fn run<F, Fut>(self, controllers: F) -> Result<(), ManagerError>
    where
        F: FnOnce(Runtime) -> Fut,
        Fut: Future<Output = ()>,
    {
        let shutdown = self.shutdown.unwrap_or_else(crate::shutdown_on_signals);
        let mut checks = self.checks;
        let mut webhook_server = None;
        // A child token: the server stops after the controllers, so that the last requests
        // during a rollout are still answered.
        let webhook_stop = shutdown.child_token();
        let mut rotator = None;
        if let Some((mut options, webhooks)) = self.webhooks {
            options.metrics.get_or_insert_with(|| self.metrics.clone());
            if let Some(keeper) = self.rotator {
                options.certificates = keeper.certificates();
                checks.push(Arc::new(keeper.readiness()));
                rotator = Some(tokio::spawn(keeper.run(webhook_stop.clone())));
            }
            let server = crate::webhook::WebhookServer::bind(options, webhooks).await?;
            checks.push(Arc::new(server.readiness()));
            webhook_server = Some(tokio::spawn(server.run(webhook_stop.clone())));
        }
        let result = run_manager(
            self.client,
            self.metrics,
            self.options,
            self.security,
            checks,
            shutdown,
            controllers,
        )
        .await;
        webhook_stop.cancel();
        if let Some(rotator) = rotator {
            let _ = rotator.await;
        }
        if let Some(server) = webhook_server {
            server
                .await
                .map_err(|e| ManagerError::WebhookServer(e.to_string()))?;
        }
        result
    }
}

/// What [`Manager::run`] does once the webhook server (if any) runs: serves the probes and
/// `/metrics` (as `security` says), elects a leader if asked, and runs `controllers` until
/// `shutdown` is cancelled (then stops gracefully, releasing the lease) or leadership is lost
/// (an error, as in controller-runtime: the process should exit).
async fn run_manager<F, Fut>(
    client: Client,
    metrics: Arc<Metrics>,
    options: ManagerOptions,
    security: MetricsSecurity,
    checks: Vec<Arc<dyn ReadyCheck>>,
    shutdown: CancellationToken,
    controllers: F,
) -> Result<(), ManagerError>
where
    F: FnOnce(Runtime) -> Fut,
    Fut: Future<Output = ()>,
{
    let probe = Arc::new(Probe {
        checks,
        ..Probe::default()
    });
    // Servers stop with the manager, whatever ends it.
    let servers = shutdown.child_token();
    let _stop_servers = servers.clone().drop_guard();
    if let Some(addr) = options.health_addr {
        let app = Router::new()
            .route("/healthz", get(|| async { "ok" }))
            .route("/readyz", get(readyz))
            .with_state(probe.clone());
        serve(addr, "health probes", app, servers.clone()).await?;
    }
    if let Some(addr) = options.metrics_addr {
        match &security {
            MetricsSecurity::Plain => {
                let app = Router::new()
                    .route("/metrics", get(serve_metrics))
                    .with_state(metrics.clone());
                serve(addr, "metrics", app, servers.clone()).await?;
            }
            MetricsSecurity::Secure(secure) => {
                // The certificate first: a bad one is an error before the port is taken.
                let reviews = Arc::new(ApiReviews::new(client.clone(), secure.auth.review_timeout));
                let server = SecureServer::new(metrics.clone(), secure, reviews)?;
                let listener = bind(addr, "metrics").await?;
                let local = listener.local_addr().unwrap_or(addr);
                info!(
                    url = %crate::secure_metrics::describe(local, &security),
                    "serving metrics to callers allowed to get /metrics"
                );
                server.spawn(listener, servers.clone());
            }
        }
    }

    let elected = CancellationToken::new();
    let Some(election) = options.leader_election else {
        elected.cancel();
        let running = run_controllers(
            controllers,
            metrics,
            options.reconcile,
            shutdown,
            probe,
            elected,
        );
        running.await;
        return Ok(());
    };

    let manager = LeaseManagerBuilder::new(client, &election.lease_name)
        .with_namespace(&election.namespace)
        .with_identity(&election.identity)
        .with_duration(election.lease_duration.as_secs())
        .with_grace(election.renew_grace.as_secs())
        .with_field_manager(lease_field_manager(&options.name, &election.identity))
        .build()
        .await?;
    let (mut leading, lease_task) = manager.watch().await;
    info!(lease = %election.lease_name, namespace = %election.namespace, identity = %election.identity, "waiting for the leader lease; the watches start meanwhile");
    let acquired = |elected: &CancellationToken| {
        info!(identity = %election.identity, "acquired the leader lease");
        metrics.set_leader(true);
        elected.cancel();
    };
    // The controllers start at once (their caches fill and sync on a standby too); they stop
    // on shutdown or when the lease is lost, whichever comes first.
    let stop = shutdown.child_token();
    let mut lost = false;
    {
        let controller = run_controllers(
            controllers,
            metrics.clone(),
            options.reconcile,
            stop.clone(),
            probe,
            elected.clone(),
        );
        tokio::pin!(controller);
        if *leading.borrow_and_update() {
            acquired(&elected);
        }
        loop {
            tokio::select! {
                () = &mut controller => break,
                changed = leading.changed(), if !lost => {
                    let leads = changed.is_ok() && *leading.borrow_and_update();
                    if leads && !elected.is_cancelled() {
                        acquired(&elected);
                    } else if !leads && elected.is_cancelled() {
                        error!("lost the leader lease; stopping the controllers");
                        lost = true;
                        stop.cancel();
                    } else if changed.is_err() {
                        error!("the leader election stopped; stopping the controllers");
                        lost = true;
                        stop.cancel();
                    }
                }
            }
        }
    }
    metrics.set_leader(false);
    // Dropping the receiver makes the lease task release the lease (if still ours) and end.
    drop(leading);
    match lease_task.await {
        Ok(Err(e)) if !lost => error!(error = %e, "releasing the leader lease"),
        _ => {}
    }
    if lost {
        Err(ManagerError::LostLeadership)
    } else {
        if elected.is_cancelled() {
            info!("released the leader lease");
        }
        Ok(())
    }
}

/// The field manager of one instance's Lease writes: its own, so that two instances that
/// try to take a free lease at the same moment conflict at the API server (server-side
/// apply refuses the second `holderIdentity` owned by another manager) instead of both
/// believing they lead until the next renewal. At most 128 bytes, the API server's limit.
fn lease_field_manager(name: &str, identity: &str) -> String {
    // The identity is what makes it unique: the name gives way first.
    let room = 128usize.saturating_sub(identity.len() + 1);
    let manager = format!("{}-{identity}", prefix(name, room));
    prefix(&manager, 128).to_owned()
}

/// The longest prefix of `s` of at most `max` bytes that ends at a character boundary.
fn prefix(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

async fn run_controllers<F, Fut>(
    controllers: F,
    metrics: Arc<Metrics>,
    reconcile: ReconcileSettings,
    stop: CancellationToken,
    probe: Arc<Probe>,
    elected: CancellationToken,
) where
    F: FnOnce(Runtime) -> Fut,
    Fut: Future<Output = ()>,
{
    let runtime = Runtime {
        stop,
        probe: probe.clone(),
        metrics,
        reconcile,
        elected,
    };
    let running = controllers(runtime);
    if probe.pending.load(Ordering::SeqCst) == 0 {
        // Nothing to wait for (no controller took a `Synced` handle before starting).
        probe.set_ready(true);
    }
    running.await;
    probe.set_ready(false);
}

async fn serve(
    addr: SocketAddr,
    what: &'static str,
    app: Router,
    stop: CancellationToken,
) -> Result<(), ManagerError> {
    let listener = bind(addr, what).await?;
    let local = listener.local_addr().unwrap_or(addr);
    info!(%local, "serving {what}");
    tokio::spawn(async move {
        let result = axum::serve(listener, app)
            .with_graceful_shutdown(async move { stop.cancelled().await })
            .await;
        if let Err(e) = result {
            error!(error = %e, "{what} server failed");
        }
    });
    Ok(())
}

async fn bind(
    addr: SocketAddr,
    what: &'static str,
) -> Result<tokio::net::TcpListener, ManagerError> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ManagerError::Bind { what, addr, source })
}

async fn readyz(State(probe): State<Arc<Probe>>) -> (StatusCode, String) {
    if !probe.ready.load(Ordering::Relaxed) {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "watch caches not synced".into(),
        );
    }
    if let Some(check) = probe.checks.iter().find(|check| !check.is_ready()) {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{} not ready", check.name()),
        );
    }
    (StatusCode::OK, "ok".into())
}

async fn serve_metrics(
    State(metrics): State<Arc<Metrics>>,
) -> ([(axum::http::HeaderName, &'static str); 1], String) {
    metrics_response(&metrics)
}

/// The body of `/metrics`, in OpenMetrics text.
pub(crate) fn metrics_response(
    metrics: &Metrics,
) -> ([(axum::http::HeaderName, &'static str); 1], String) {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        metrics.encode(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    #[test]
    fn each_instance_writes_its_lease_as_a_field_manager_of_its_own() {
        let a = lease_field_manager("memcached-operator", "pod-a_1f2e");
        let b = lease_field_manager("memcached-operator", "pod-b_9c0d");
        assert_eq!(a, "memcached-operator-pod-a_1f2e");
        assert_ne!(a, b);
        // A long name gives way to the identity, within the API server's 128 bytes.
        let long = "é".repeat(100);
        let m = lease_field_manager(&long, "pod-a_1f2e");
        assert!(m.len() <= 128 && m.ends_with("-pod-a_1f2e"), "{m}");
        assert_ne!(m, lease_field_manager(&long, "pod-b_9c0d"));
    }

    /// A client that is never used: without leader election the manager makes no request.
    fn unused_client() -> Client {
        Client::try_from(kube::Config::new("http://127.0.0.1:9".parse().unwrap())).unwrap()
    }

    fn free_addr() -> SocketAddr {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
    }

    /// The status code of `GET path`, once the server answers.
    async fn status(addr: SocketAddr, path: &str) -> u16 {
        for _ in 0..200 {
            if let Ok(mut stream) = tokio::net::TcpStream::connect(addr).await {
                let request =
                    format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
                stream.write_all(request.as_bytes()).await.unwrap();
                let mut response = String::new();
                stream.read_to_string(&mut response).await.unwrap();
                return response[9..12].parse().unwrap();
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("nothing serves {addr}");
    }

    #[tokio::test]
    async fn ready_once_every_controller_has_synced_and_stopped_with_the_manager() {
        let health = free_addr();
        let metrics_addr = free_addr();
        let options = ManagerOptions {
            name: "test-operator".into(),
            metrics_addr: Some(metrics_addr),
            health_addr: Some(health),
            leader_election: None,
            reconcile: Default::default(),
        };
        let shutdown = CancellationToken::new();
        let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
        let (second_tx, second_rx) = tokio::sync::oneshot::channel::<()>();
        let manager = tokio::spawn(
            Manager::new(unused_client(), Arc::new(Metrics::new()), options)
                .shutdown(shutdown.clone())
                .run(|runtime| {
                    let (first, second) = (runtime.synced(), runtime.synced());
                    async move {
                        first_rx.await.unwrap();
                        first.done();
                        second_rx.await.unwrap();
                        second.done();
                        runtime.stopped().await;
                    }
                }),
        );
        assert_eq!(status(health, "/healthz").await, 200);
        assert_eq!(status(health, "/readyz").await, 503);
        first_tx.send(()).unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            status(health, "/readyz").await,
            503,
            "one controller is still syncing"
        );
        second_tx.send(()).unwrap();
        let mut code = 0;
        for _ in 0..100 {
            code = status(health, "/readyz").await;
            if code == 200 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(code, 200);
        assert_eq!(status(metrics_addr, "/metrics").await, 200);

        shutdown.cancel();
        tokio::time::timeout(Duration::from_secs(5), manager)
            .await
            .expect("the manager stops with its controllers")
            .unwrap()
            .unwrap();
        let mut closed = false;
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(health).await.is_err() {
                closed = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(closed, "the probe server stops with the manager");
    }

    #[tokio::test]
    async fn controllers_that_report_nothing_are_ready_when_started() {
        let health = free_addr();
        let options = ManagerOptions {
            name: "test-operator".into(),
            metrics_addr: None,
            health_addr: Some(health),
            leader_election: None,
            reconcile: Default::default(),
        };
        let shutdown = CancellationToken::new();
        let manager = tokio::spawn(
            Manager::new(unused_client(), Arc::new(Metrics::new()), options)
                .shutdown(shutdown.clone())
                .run(|runtime| runtime.stopped()),
        );
        assert_eq!(status(health, "/readyz").await, 200);
        shutdown.cancel();
        manager.await.unwrap().unwrap();
    }

    #[derive(Debug)]
    struct Flag(AtomicBool);

    impl ReadyCheck for Flag {
        fn name(&self) -> &str {
            "the flag"
        }

        fn is_ready(&self) -> bool {
            self.0.load(Ordering::SeqCst)
        }
    }

    #[tokio::test]
    async fn readyz_waits_for_every_check() {
        let health = free_addr();
        let options = ManagerOptions {
            name: "test-operator".into(),
            metrics_addr: None,
            health_addr: Some(health),
            leader_election: None,
            reconcile: Default::default(),
        };
        let flag = Arc::new(Flag(AtomicBool::new(false)));
        let shutdown = CancellationToken::new();
        let manager = tokio::spawn(
            Manager::new(unused_client(), Arc::new(Metrics::new()), options)
                .ready_check(flag.clone())
                .shutdown(shutdown.clone())
                .run(|runtime| runtime.stopped()),
        );
        assert_eq!(status(health, "/readyz").await, 503);
        flag.0.store(true, Ordering::SeqCst);
        assert_eq!(status(health, "/readyz").await, 200);
        flag.0.store(false, Ordering::SeqCst);
        assert_eq!(status(health, "/readyz").await, 503);
        shutdown.cancel();
        manager.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn a_taken_address_is_an_error_that_names_it() {
        let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = taken.local_addr().unwrap();
        let options = ManagerOptions {
            name: "test-operator".into(),
            metrics_addr: Some(addr),
            health_addr: None,
            leader_election: None,
            reconcile: Default::default(),
        };
        let err = Manager::new(unused_client(), Arc::new(Metrics::new()), options)
            .shutdown(CancellationToken::new())
            .run(|runtime| runtime.stopped())
            .await
            .unwrap_err();
        assert!(
            err.to_string()
                .starts_with(&format!("cannot serve metrics on {addr}")),
            "{err}"
        );
    }
}
