//! What controller-runtime's manager gives a Go operator: leader election on a Lease, the
//! Prometheus endpoint, health and readiness probes, and one shutdown signal for all of it.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use kube::Client;
use kube_lease_manager::{LeaseManagerBuilder, LeaseManagerError};
use tokio_util::sync::CancellationToken;
use tracing::{error, info};

use crate::controller::{self, Settings};
use crate::metrics::Metrics;

/// Leader election parameters (controller-runtime's defaults: 15 s lease).
#[derive(Debug, Clone)]
pub struct LeaderElection {
    pub namespace: String,
    pub lease_name: String,
    /// Unique per instance; the pod name in a cluster.
    pub identity: String,
    pub lease_duration: Duration,
    /// Renew this long before the lease would expire.
    pub renew_grace: Duration,
}

#[derive(Debug, Clone)]
pub struct ManagerOptions {
    pub metrics_addr: Option<SocketAddr>,
    pub health_addr: Option<SocketAddr>,
    pub leader_election: Option<LeaderElection>,
    pub controller: Settings,
}

#[derive(Debug, thiserror::Error)]
pub enum ManagerError {
    #[error("cannot serve {what} on {addr}: {source}")]
    Bind {
        what: &'static str,
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("leader election: {0}")]
    LeaderElection(#[from] LeaseManagerError),
    #[error("lost the leader lease; exiting so that another instance takes over")]
    LostLeadership,
}

/// Readiness shared with the probe endpoint.
#[derive(Debug, Default)]
struct Probe {
    ready: AtomicBool,
}

/// Runs the operator until `shutdown` is cancelled (then stops gracefully, releasing the lease),
/// or until leadership is lost (an error, as in controller-runtime: the process should exit).
pub async fn run(
    client: Client,
    metrics: Arc<Metrics>,
    options: ManagerOptions,
    shutdown: CancellationToken,
) -> Result<(), ManagerError> {
    let probe = Arc::new(Probe::default());
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
        let app = Router::new()
            .route("/metrics", get(serve_metrics))
            .with_state(metrics.clone());
        serve(addr, "metrics", app, servers.clone()).await?;
    }

    let Some(election) = options.leader_election else {
        run_controller(client, metrics, options.controller, shutdown, probe).await;
        return Ok(());
    };

    // A standby instance is healthy and ready: it must not block a rollout.
    probe.ready.store(true, Ordering::Relaxed);
    let manager = LeaseManagerBuilder::new(client.clone(), &election.lease_name)
        .with_namespace(&election.namespace)
        .with_identity(&election.identity)
        .with_duration(election.lease_duration.as_secs())
        .with_grace(election.renew_grace.as_secs())
        .with_field_manager(controller::FIELD_MANAGER)
        .build()
        .await?;
    let (mut leading, lease_task) = manager.watch().await;
    info!(lease = %election.lease_name, namespace = %election.namespace, identity = %election.identity, "waiting for the leader lease");
    loop {
        if *leading.borrow_and_update() {
            break;
        }
        tokio::select! {
            _ = shutdown.cancelled() => {
                drop(leading);
                let _ = lease_task.await;
                return Ok(());
            }
            changed = leading.changed() => {
                if changed.is_err() {
                    return Err(ManagerError::LostLeadership);
                }
            }
        }
    }
    info!(identity = %election.identity, "acquired the leader lease");
    metrics.set_leader(true);
    probe.ready.store(false, Ordering::Relaxed);

    // The controller stops on shutdown or when the lease is lost, whichever comes first.
    let stop = shutdown.child_token();
    let mut lost = false;
    {
        let controller = run_controller(
            client,
            metrics.clone(),
            options.controller,
            stop.clone(),
            probe,
        );
        tokio::pin!(controller);
        loop {
            tokio::select! {
                _ = &mut controller => break,
                changed = leading.changed(), if !lost => {
                    if changed.is_err() || !*leading.borrow_and_update() {
                        error!("lost the leader lease; stopping the controller");
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
        info!("released the leader lease");
        Ok(())
    }
}

async fn run_controller(
    client: Client,
    metrics: Arc<Metrics>,
    settings: Settings,
    stop: CancellationToken,
    probe: Arc<Probe>,
) {
    let ready = probe.clone();
    controller::run(
        client,
        metrics,
        settings,
        async move { stop.cancelled().await },
        move || {
            info!("watch caches synced");
            ready.ready.store(true, Ordering::Relaxed);
        },
    )
    .await;
    probe.ready.store(false, Ordering::Relaxed);
}

async fn serve(
    addr: SocketAddr,
    what: &'static str,
    app: Router,
    stop: CancellationToken,
) -> Result<(), ManagerError> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ManagerError::Bind { what, addr, source })?;
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

async fn readyz(State(probe): State<Arc<Probe>>) -> (StatusCode, &'static str) {
    if probe.ready.load(Ordering::Relaxed) {
        (StatusCode::OK, "ok")
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, "watch caches not synced")
    }
}

async fn serve_metrics(
    State(metrics): State<Arc<Metrics>>,
) -> ([(axum::http::HeaderName, &'static str); 1], String) {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        metrics.encode(),
    )
}
