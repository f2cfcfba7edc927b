//! A real local Kubernetes control plane for development and tests, built from published Go
//! modules with the machine's Go (no container engine, no binary downloads), and the helpers
//! cluster tests share.
//!
//! - [`components`]: pinned versions; builds kube-apiserver, kube-controller-manager,
//!   kube-scheduler (Kubernetes), etcd and kwok once and caches them outside the repository.
//! - [`plane`]: starts them on free loopback ports with fresh certificates, waits until the
//!   cluster is usable (API ready, default service account, kwok nodes Ready), stops them.
//! - [`crds`]: server-side apply of generated CRDs, waiting until Established.
//! - [`faults`]: what a plane can do to an operator beside restarting a component: cut it
//!   off, expire its watches, throttle it.
//! - [`certmanager`]: cert-manager's CRDs from its Go module, for clusters that must accept
//!   a project's `Certificate` and `Issuer` objects.
//! - [`gooperator`]: the Go memcached operator of `testdata/go-operator`, built on first use
//!   with the machine's Go, for benchmarking ours beside it.
//! - [`kustomize`](mod@kustomize): the real kustomize, built from its Go module on first use,
//!   and `kustomize build`.
//! - [`helm`](mod@helm): helm, built from its Go module on first use, for a project's chart.
//! - [`testing`]: a client, a namespace per test, waiting with deadlines.
//! - [`webhooks`]: a project's webhook configurations pointed at a webhook server on this
//!   machine, for cluster tests of the handlers through the API server.
//!
//! `cargo xtask envtest up|down|status|env` is the command-line face of this crate.

pub mod audit;
pub mod certmanager;
pub mod certs;
pub mod components;
pub mod crds;
pub mod faults;
pub mod gomod;
pub mod gooperator;
pub mod helm;
pub mod kustomize;
pub mod plane;
pub mod registry;
pub mod testing;
pub mod webhooks;

/// An executable shell script for tests that stand in for a tool.
///
/// Written by a `sh` child, not by this process: a file this process holds open for writing
/// is inherited by any child another test thread forks at that moment, and until that child
/// execs, running the script fails with "Text file busy" (ETXTBSY).
#[cfg(test)]
pub(crate) fn test_script(dir: &std::path::Path, name: &str, body: &str) -> std::path::PathBuf {
    let exe = dir.join(name);
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"printf '%s\n%s\n' '#!/bin/sh' "$1" > "$2" && chmod 755 "$2""#)
        .arg("sh")
        .arg(body)
        .arg(&exe)
        .status()
        .expect("sh runs");
    assert!(status.success(), "writing {}", exe.display());
    exe
}

use std::path::{Path, PathBuf};

pub use helm::helm;
pub use kustomize::kustomize;
pub use plane::{ControlPlane, Options, State};
pub use testing::{TestEnv, TestNamespace, wait_until};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Go is missing or too old, or a build step failed (the message names the log).
    #[error("building the control plane: {0}")]
    Build(String),
    #[error("generating the control plane's certificates: {0}")]
    Pki(String),
    #[error("{0}")]
    Start(String),
    #[error("{0}")]
    NotRunning(String),
    #[error("{0}")]
    Timeout(String),
    #[error("{0}")]
    Manifest(String),
    /// `kustomize build` failed or rendered nothing (the message holds kustomize's own).
    #[error("{0}")]
    Kustomize(String),
    #[error(transparent)]
    Kube(#[from] kube::Error),
}

impl Error {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> Self {
        Error::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}
