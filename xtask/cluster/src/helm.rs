//! `cargo xtask helm [--check]`: a Helm chart made from the rendered `config/default`, the
//! same objects `cargo xtask deploy` applies, for those who ship operators with Helm (what
//! kubebuilder's `helm/v2-alpha` plugin does for a Go project).
//!
//! The chart (`dist/chart` by default) is generated, like the files under `config/`: every run
//! writes it anew, and `--check` writes nothing and fails with a diff when the committed chart
//! is not what the render gives. Its parts:
//!
//! - `Chart.yaml`: the project's name, the operator package's version as the chart's version
//!   and appVersion.
//! - `values.yaml`: the render's settings as defaults: the image (`cargo xtask image`'s
//!   reference, `<project-name>:<version>`), replicas, resources, leader election, metrics
//!   (on or off, secure or not, the port), webhooks on or off, cert-manager on or off (off
//!   by default when the manager keeps its webhook certificate itself: `certs`), the
//!   CRDs (installed, kept on uninstall), the CRDs' admin/editor/viewer roles.
//! - `templates/`, one file per object, grouped by what it is for (`crd/`, `rbac/`,
//!   `manager/`, `metrics/`, `webhook/`, `cert-manager/`): the rendered objects with the
//!   release's namespace wherever the render had its own, the values where the render had
//!   their defaults, and conditions around what a switch turns off. The CRDs carry
//!   `helm.sh/resource-policy: keep` (while `crd.keep`), so `helm uninstall` leaves them and
//!   the custom resources stored under them.
//!
//! The render's Namespace is not in the chart: Helm installs into a namespace that exists
//! (`--create-namespace` makes a plain one); label it as config/default's Namespace is
//! labelled (the restricted Pod Security Standard) yourself.
//!
//! The modules follow the making of a chart: `objects` parses the render and holds the rules
//! for each object, written as YAML with `template`'s markers; `deployment` templates the
//! operator's Deployment, `values` writes values.yaml and the chart's other files; `files`
//! compares the chart with the one on disk and writes it; `cli` runs helm on it.

mod certs;
mod cli;
mod deployment;
mod files;
#[cfg(test)]
mod fixture;
mod objects;
mod template;
mod values;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result, bail};
use clap::Args;

pub use cli::{SWITCHES_OFF, helm, test_chart};
pub use files::{compare, write};

/// Where `cargo xtask helm` writes the chart, relative to the project root.
pub const CHART_DIR: &str = "dist/chart";

/// `cargo xtask helm` arguments.
#[derive(Args, Debug, Clone)]
pub struct HelmArgs {
    /// Write nothing; exit 1 with a diff when the chart is stale.
    #[arg(long)]
    pub check: bool,
    /// The kustomize directory the chart is made from, relative to the project root.
    #[arg(long, value_name = "DIR", default_value = "config/default")]
    pub config: PathBuf,
    /// Where the chart goes, relative to the project root.
    #[arg(long, value_name = "DIR", default_value = CHART_DIR)]
    pub out: PathBuf,
}

/// A generated chart: each file's path under the chart's directory and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chart {
    pub files: BTreeMap<String, String>,
}

/// What the project is called and which version it is (`Chart.yaml`, the image's default).
#[derive(Debug, Clone)]
pub struct ChartMeta {
    /// PROJECT.toml's `project-name`: the chart's name and the image's repository.
    pub name: String,
    /// The operator package's version: the chart's version and appVersion, the image's tag.
    pub version: String,
    /// The kustomize directory, for the generated files' headers and messages.
    pub source: String,
}

/// Renders `config` (relative to `root`) with kustomize and makes the chart of it.
pub fn generate(root: &Path, config: &Path) -> Result<Chart> {
    let dir = root.join(config);
    if !["kustomization.yaml", "kustomization.yml", "Kustomization"]
        .iter()
        .any(|k| dir.join(k).is_file())
    {
        bail!(
            "{} has no kustomization.yaml: the chart is made from a kustomize directory of the \
             project (config/default, which `cargo xtask deploy` applies)",
            dir.display()
        );
    }
    let reference = crate::image::default_reference(root)?;
    let (name, version) = reference
        .rsplit_once(':')
        .with_context(|| format!("the image reference {reference} has no tag"))?;
    eprintln!("==> kustomize build {}", config.display());
    let yaml = envtest::kustomize::build(&dir)?;
    let meta = ChartMeta {
        name: name.to_string(),
        version: version.to_string(),
        source: config.display().to_string(),
    };
    chart_from_render(&yaml, &meta).with_context(|| {
        format!(
            "making a chart of what kustomize rendered from {}",
            dir.display()
        )
    })
}

/// `cargo xtask helm [--check]`.
pub fn command(args: &HelmArgs) -> Result<ExitCode> {
    let root = operator_xtask::root();
    let chart = generate(&root, &args.config)?;
    let out = root.join(&args.out);
    if args.check {
        let drift = compare(&chart, &out, &args.out)?;
        if drift.is_empty() {
            eprintln!(
                "{} is up to date ({} files)",
                args.out.display(),
                chart.files.len()
            );
            return Ok(ExitCode::SUCCESS);
        }
        for d in &drift {
            eprintln!("{d}");
        }
        eprintln!(
            "the chart is stale: run `cargo xtask helm` and commit {}",
            args.out.display()
        );
        return Ok(ExitCode::FAILURE);
    }
    write(&chart, &out)?;
    eprintln!("wrote {} ({} files)", args.out.display(), chart.files.len());
    Ok(ExitCode::SUCCESS)
}

/// Makes the chart of a render.
pub fn chart_from_render(yaml: &str, meta: &ChartMeta) -> Result<Chart> {
    let mut objects = objects::parse(yaml)?;
    let namespace = objects::render_namespace(&objects);
    // A manager that keeps its webhook certificate itself: cert-manager's way beside it,
    // under the switch, off.
    let kept = certs::kept(&objects);
    if let (Some(kept), Some(ns)) = (&kept, &namespace) {
        certs::add_cert_manager_way(&mut objects, kept, ns);
    }
    let deployments = objects.iter().filter(|o| o.kind == "Deployment").count();
    if deployments != 1 {
        bail!(
            "{} renders {} Deployments; the chart templates the operator's one Deployment",
            meta.source,
            deployments
        );
    }
    let mut defaults = values::Defaults::of_render(&objects);
    let labels_helper = format!("{}.labels", meta.name);
    let header = format!(
        "# Generated by `cargo xtask helm` from {}: edit that, not this, and run it again.\n",
        meta.source
    );
    let mut files = BTreeMap::new();
    for object in &objects {
        if object.kind == "Namespace" {
            continue;
        }
        let text = objects::template(
            object,
            namespace.as_deref(),
            &labels_helper,
            &header,
            &mut defaults,
        )?;
        let dir = objects::group(object);
        let mut path = format!("templates/{dir}/{}.yaml", object.name);
        if files.contains_key(&path) {
            path = format!(
                "templates/{dir}/{}-{}.yaml",
                object.name,
                object.kind.to_lowercase()
            );
        }
        files.insert(path, text);
    }
    files.insert("Chart.yaml".into(), values::chart_yaml(meta));
    files.insert("values.yaml".into(), values::values_yaml(meta, &defaults)?);
    files.insert(
        "templates/_helpers.tpl".into(),
        values::helpers(meta, &labels_helper),
    );
    files.insert(
        ".helmignore".into(),
        "# Patterns helm package leaves out.\n.*.swp\n*~\n".into(),
    );
    Ok(Chart { files })
}

#[cfg(test)]
mod tests {
    use super::fixture::meta;
    use super::*;

    #[test]
    fn a_bad_render_is_refused_with_what_is_wrong() {
        let err = |yaml: &str| format!("{:#}", chart_from_render(yaml, &meta()).unwrap_err());
        assert!(
            err("kind: ConfigMap\nmetadata: {name: x}\n")
                .contains("document 1 (ConfigMap) has no apiVersion")
        );
        assert!(
            err("apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n").contains("has no metadata.name")
        );
        assert!(err("- a\n").contains("document 1 is not a Kubernetes object"));
        assert!(err("a: [\n").contains("document 1"));
        assert!(err("---\n").contains("no objects"));
        assert!(
            err("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
                .contains("renders 0 Deployments")
        );
    }
}
