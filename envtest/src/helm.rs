//! Helm, for a project's chart (`cargo xtask helm` writes it, `cargo xtask test` lints,
//! renders and installs it). There is no download site here, only the Go module proxy, so it
//! is built like kustomize, from `helm.sh/helm/v3` with the machine's Go on first use, cached
//! in `~/.cache/operator-rs/helm-v<version>/bin/helm`.
//!
//! Built inside a module of our own that requires helm's (a plain `go install` would do as
//! well): helm's own version string comes from linker flags its release build sets, so a
//! `go install`ed helm calls itself `v3.22`, and the cache checks the module version that
//! `go version -m` reads from the binary instead.

use std::path::PathBuf;

use crate::Error;
use crate::components::{GoTool, go_install, tools_root};

/// The helm release: the newest v3 the module proxy serves (v3 is what kubebuilder's chart
/// plugin targets; charts of `apiVersion: v2` install with v3 and v4 alike).
pub const HELM_VERSION: &str = "3.22.0";

/// The path of helm v[`HELM_VERSION`], built on first use (progress on stderr; a second
/// process waits for the first one's build instead of starting its own).
pub fn helm() -> Result<PathBuf, Error> {
    go_install(&GoTool {
        name: "helm",
        package: "helm.sh/helm/v3/cmd/helm",
        version: HELM_VERSION,
        version_args: &["version", "--short"],
        dir: tools_root()?.join(format!("helm-v{HELM_VERSION}")),
        via_module: Some("helm.sh/helm/v3"),
    })
}
