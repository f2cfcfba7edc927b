//! The helm command itself (`envtest` builds it on first use): running it, and `cargo xtask
//! test`'s chart step, which lints and renders the committed chart with it.

use std::path::Path;
use std::process::Command;

use anyhow::{Context as _, Result, bail};

use super::objects::parse;
use super::{CHART_DIR, compare, generate};

/// Runs helm (built on first use) with `args`, returning its standard output; an error with
/// its standard error when it fails.
pub fn helm(args: &[&str]) -> Result<String> {
    let exe = envtest::helm()?;
    let out = Command::new(&exe)
        .args(args)
        .output()
        .with_context(|| format!("running {}", exe.display()))?;
    if !out.status.success() {
        bail!(
            "helm {} failed ({}):\n{}{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `cargo xtask test`'s chart step: `cargo xtask helm --check`, then `helm lint` and `helm
/// template` of the chart with its defaults and with every switch off. Nothing when the
/// project has no chart (no `dist/chart/Chart.yaml`).
pub fn test_chart(root: &Path) -> Result<()> {
    let dir = root.join(CHART_DIR);
    if !dir.join("Chart.yaml").is_file() {
        eprintln!("==> helm: no {CHART_DIR}/Chart.yaml, no chart to check");
        return Ok(());
    }
    eprintln!("==> cargo xtask helm --check");
    let chart = generate(root, Path::new("config/default"))?;
    let drift = compare(&chart, &dir, Path::new(CHART_DIR))?;
    if !drift.is_empty() {
        for d in &drift {
            eprintln!("{d}");
        }
        bail!("{CHART_DIR} is stale: run `cargo xtask helm`, then test again");
    }
    let path = dir.to_string_lossy().into_owned();
    eprintln!(
        "==> helm lint {CHART_DIR} (helm v{})",
        envtest::helm::HELM_VERSION
    );
    eprint!("{}", helm(&["lint", "--strict", &path])?);
    for set in [None, Some(SWITCHES_OFF)] {
        eprintln!(
            "==> helm template {CHART_DIR}{}",
            set.map(|s| format!(" --set {s}")).unwrap_or_default()
        );
        let mut args = vec![
            "template",
            "check",
            path.as_str(),
            "--namespace",
            "check-ns",
        ];
        if let Some(set) = set {
            args.extend(["--set", set]);
        }
        let text = helm(&args)?;
        let count = parse(&text)
            .with_context(|| format!("reading what helm template {CHART_DIR} rendered"))?
            .len();
        eprintln!("    {count} objects");
    }
    Ok(())
}

/// Every switch of values.yaml off.
pub const SWITCHES_OFF: &str = "metrics.enable=false,webhook.enable=false,certManager.enable=false,crd.enable=false,rbacHelpers.enable=false,manager.leaderElection=false";

#[cfg(test)]
mod tests {
    use super::*;

    /// `cargo xtask test`'s chart step passes on this repository's committed chart (with the
    /// real kustomize and helm), and says so when a project has no chart.
    #[test]
    #[ignore = "builds kustomize and helm from their Go modules on first use; run by cargo xtask test"]
    fn the_test_step_checks_lints_and_renders_the_committed_chart() {
        test_chart(&operator_xtask::root()).unwrap();
        let empty = tempfile::tempdir().unwrap();
        test_chart(empty.path()).unwrap();
    }
}
