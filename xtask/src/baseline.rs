//! The baseline of the compatibility gate: the CRDs that `manifests` compares the generated
//! ones with. By default the committed files (`config/crd/bases` at git's HEAD; the files
//! on disk outside a git repository), or a git ref's files (`--against v1.2.0`), a YAML file
//! (`--against-file crds.yaml`), or the CRDs a cluster serves with their
//! `status.storedVersions` (`--against-cluster`: the cluster binary reads them with kube and
//! hands them over as [`Against::Cluster`]).

use std::path::Path;
use std::process::Command;

use anyhow::{Context as _, Result, bail};
use operator_gen::compat::{self, BaselineCrd};

/// Where the baseline comes from.
#[derive(Debug, Clone, Default)]
pub enum Against {
    /// The committed CRDs (HEAD); the files on disk outside git.
    #[default]
    Committed,
    /// The CRDs at a git ref.
    GitRef(String),
    /// The CRDs of a YAML file.
    File(std::path::PathBuf),
    /// The CRDs a cluster serves, as its API server returned them (`source` names the
    /// cluster). Only those of the groups the project generates are compared.
    Cluster {
        source: String,
        crds: Vec<BaselineCrd>,
    },
}

/// The baseline's CRDs and how to name it in messages.
#[derive(Debug)]
pub struct Baseline {
    pub label: String,
    pub crds: Vec<BaselineCrd>,
}

const BASES: &str = "config/crd/bases";

fn git(root: &Path, args: &[&str]) -> Result<std::process::Output> {
    Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .output()
        .context("running git")
}

fn in_git(root: &Path) -> bool {
    git(root, &["rev-parse", "--is-inside-work-tree"])
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == "true")
}

/// The CRD files under `config/crd/bases` at `rev`, or `None` when `rev` does not name a
/// commit and `required` is false (a repository without commits yet).
fn at_rev(root: &Path, rev: &str, required: bool) -> Result<Option<Vec<BaselineCrd>>> {
    let commit = format!("{rev}^{{commit}}");
    let verify = git(root, &["rev-parse", "--verify", "--quiet", &commit])?;
    if !verify.status.success() {
        if required {
            bail!("--against {rev}: git knows no commit, tag or branch of that name");
        }
        return Ok(None);
    }
    let listed = git(
        root,
        &["ls-tree", "--name-only", rev, "--", &format!("{BASES}/")],
    )?;
    if !listed.status.success() {
        bail!(
            "git ls-tree {rev}: {}",
            String::from_utf8_lossy(&listed.stderr).trim()
        );
    }
    let mut crds = Vec::new();
    for path in String::from_utf8_lossy(&listed.stdout).lines() {
        if !(path.ends_with(".yaml") || path.ends_with(".yml")) {
            continue;
        }
        let shown = git(root, &["show", &format!("{rev}:./{path}")])?;
        if !shown.status.success() {
            bail!(
                "git show {rev}:{path}: {}",
                String::from_utf8_lossy(&shown.stderr).trim()
            );
        }
        let text = String::from_utf8_lossy(&shown.stdout);
        crds.extend(
            compat::read_baseline(&text, &format!("{path} at {rev}"))
                .map_err(anyhow::Error::msg)?,
        );
    }
    Ok(Some(crds))
}

fn on_disk(root: &Path) -> Result<Vec<BaselineCrd>> {
    let dir = root.join(BASES);
    let mut crds = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(crds);
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading {}", path.display()))?;
            let rel = path.strip_prefix(root).unwrap_or(&path);
            crds.extend(
                compat::read_baseline(&text, &rel.display().to_string())
                    .map_err(anyhow::Error::msg)?,
            );
        }
    }
    Ok(crds)
}

/// Reads the baseline; `None` when there is none to compare with (no commit yet).
pub fn load(root: &Path, against: &Against) -> Result<Option<Baseline>> {
    Ok(match against {
        Against::Committed if in_git(root) => at_rev(root, "HEAD", false)?.map(|crds| Baseline {
            label: "the committed CRDs (HEAD)".into(),
            crds,
        }),
        Against::Committed => Some(Baseline {
            label: format!("the CRDs in {BASES}"),
            crds: on_disk(root)?,
        }),
        Against::GitRef(rev) => {
            if !in_git(root) {
                bail!(
                    "--against {rev}: {} is not in a git repository",
                    root.display()
                );
            }
            at_rev(root, rev, true)?.map(|crds| Baseline {
                label: format!("the CRDs at {rev}"),
                crds,
            })
        }
        Against::File(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--against-file {}", path.display()))?;
            Some(Baseline {
                label: path.display().to_string(),
                crds: compat::read_baseline(&text, &path.display().to_string())
                    .map_err(anyhow::Error::msg)?,
            })
        }
        Against::Cluster { source, crds } => Some(Baseline {
            label: format!("the CRDs of the cluster ({source})"),
            crds: crds.clone(),
        }),
    })
}
