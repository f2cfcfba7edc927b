#![warn(missing_docs)]
//! What controller-runtime's manager gives a Go operator, for operators on kube-rs. Every
//! operator needs these parts and none of them is about its own kinds, so they live here
//! rather than in each operator:
//!
//! - [`controller`]: the controller builder (primary kind, owned and watched kinds, one
//!   expression) and what a reconcile shares: an applier that skips applies that change
//!   nothing, a status writer that writes only changes, events that are news, per-object
//!   backoff; [`conditions`]: `status.conditions` kept as the API conventions say;
//! - [`manager`]: runs the operator's controllers, behind leader election on a Lease when
//!   asked (failover warm: a standby's caches fill and sync, only its reconciles wait for the
//!   lease), with the health and readiness probes and the Prometheus endpoint, until shutdown;
//! - [`secure_metrics`]: `/metrics` over HTTPS for callers the API server authenticates and
//!   authorizes (TokenReview, SubjectAccessReview), kubebuilder v4's default;
//! - [`metrics`]: controller-runtime's metric names (reconciles, errors, durations, workers,
//!   API requests, leadership), and a kube client that counts its requests;
//! - [`webhook`]: the admission (defaulting, validation) and conversion webhook server,
//!   over TLS with certificates reloaded when they are renewed;
//! - [`flags`]: the standard flags of a kubebuilder operator (`--metrics-bind-address`,
//!   `--health-probe-bind-address`, `--leader-elect`, ...) and of its webhook server
//!   (`--webhook-cert-path`, ...), each also read from the environment, to
//!   `#[command(flatten)]` into the operator's own clap parser;
//! - [`logging`]: text or JSON logs filtered by `RUST_LOG`;
//! - [`connect`] and [`shutdown_on_signals`]: the client from kubectl's configuration
//!   (`--kubeconfig`, `KUBECONFIG`, `~/.kube/config`, in-cluster) and one token cancelled by
//!   SIGTERM or Ctrl-C; [`backpressure`]: that client's answer to an API server's 429s,
//!   fewer requests in flight.
//!
//! An operator's `main` is then its own flags and the controllers it starts:
//!
//! ```no_run
//! use clap::Parser;
//! use operator_runtime::{Manager, ManagerFlags, WebhookFlags};
//!
//! #[derive(Parser, Debug)]
//! struct Flags {
//!     #[command(flatten)]
//!     manager: ManagerFlags,
//!     #[command(flatten)]
//!     webhook: WebhookFlags,
//! }
//!
//! # fn my_webhooks() -> operator_runtime::webhook::Webhooks { operator_runtime::webhook::Webhooks::new() }
//! # async fn my_controller(_: kube::Client, _: operator_runtime::manager::Runtime) {}
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let flags = Flags::parse();
//!     operator_runtime::logging::init(flags.manager.log_format);
//!     // The client from --kubeconfig (or kubectl's order), its requests counted in the
//!     // manager's metrics; /metrics over HTTPS with TokenReview/SubjectAccessReview unless
//!     // --metrics-secure=false.
//!     let manager = Manager::from_flags(&flags.manager, "my-operator", "my-operator.example.com").await?;
//!     let client = manager.client();
//!     manager
//!         // Served by every instance, leader or not; /readyz waits for it. The certificate
//!         // from --webhook-cert-path (cert-manager's) or kept in --webhook-cert-secret.
//!         .webhooks_from_flags(&flags.webhook, my_webhooks())?
//!         // Until SIGTERM or SIGINT (or the lease is lost).
//!         .run(|runtime| my_controller(client, runtime))
//!         .await?;
//!     Ok(())
//! }
//! ```

pub mod backpressure;
pub mod conditions;
pub mod controller;
pub mod flags;
pub mod logging;
pub mod manager;
pub mod metrics;
pub mod secure_metrics;
pub mod webhook;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use flags::{LogFormat, ManagerFlags, WebhookFlags};
pub use manager::{
    LeaderElection, Manager, ManagerError, ManagerOptions, ReadyCheck, ReconcileSettings, Runtime,
};
pub use metrics::Metrics;
pub use secure_metrics::MetricsSecurity;

use tokio_util::sync::CancellationToken;

/// Why there is no client.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error(
        "no Kubernetes configuration (tried $KUBECONFIG, ~/.kube/config and the in-cluster service account): {0}"
    )]
    /// No configuration was found where kube looks for one.
    Infer(#[from] kube::config::InferConfigError),
    /// The `--kubeconfig` file could not be read or used.
    #[error("--kubeconfig {}: {source}", path.display())]
    File {
        /// The file named.
        path: PathBuf,
        /// Why it could not be used.
        source: kube::config::KubeconfigError,
    },
    /// The client could not be built from the configuration.
    #[error("building the Kubernetes client: {0}")]
    Client(#[from] kube::Error),
}

/// A client from kubectl's configuration (the `kubeconfig` file when given, else
/// `KUBECONFIG`, `~/.kube/config`, then the in-cluster service account), counting its
/// requests in `metrics`.
pub async fn connect(
    kubeconfig: Option<&Path>,
    metrics: Arc<Metrics>,
) -> Result<kube::Client, ConnectError> {
    let config = match kubeconfig {
        None => kube::Config::infer().await?,
        Some(path) => {
            let file = |source| ConnectError::File {
                path: path.to_path_buf(),
                source,
            };
            let kubeconfig = kube::config::Kubeconfig::read_from(path).map_err(file)?;
            kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
                .await
                .map_err(file)?
        }
    };
    Ok(metrics::counting_client(config, metrics)?)
}

/// A token cancelled on the first SIGTERM (what the kubelet sends) or Ctrl-C, for
/// [`Manager::run`] (unless [`Manager::shutdown`] gives another). Must be called inside a
/// tokio runtime.
pub fn shutdown_on_signals() -> CancellationToken {
    let shutdown = CancellationToken::new();
    let on_signal = shutdown.clone();
    tokio::spawn(async move {
        let terminate = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut term) => {
                    term.recv().await;
                }
                Err(e) => {
                    tracing::error!(error = %e, "cannot watch for SIGTERM; only Ctrl-C stops");
                    std::future::pending::<()>().await;
                }
            }
        };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            () = terminate => {}
        }
        tracing::info!("shutting down");
        on_signal.cancel();
    });
    shutdown
}

/// The message of a panic's payload (`panic!` with a literal or a format), for the log.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> &str {
    panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(not a string)")
}
