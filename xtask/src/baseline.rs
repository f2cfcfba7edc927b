//! The baseline of the compatibility gate: the CRDs that `manifests` compares the generated
//! ones with. By default the last release (`config/crd/bases` at the nearest git tag matching
//! `[compat] release-tags`, `v*` unless set, in HEAD's history); before the first release
//! there is none, and the changes against the committed files are only shown. `[compat]
//! against` in `PROJECT.toml` names a baseline instead (a git ref, `HEAD` or `none`), and so
//! do `--against v1.2.0` (a git ref), `--against-file crds.yaml` (a YAML file) and
//! `--against-cluster` (the CRDs a cluster serves with their `status.storedVersions`: the
//! cluster binary reads them with kube and hands them over as [`Against::Cluster`]).

use std::path::Path;
use std::process::Command;

use anyhow::{Context as _, Result, bail};
use operator_gen::compat::{self, BaselineCrd};

use crate::project::{self, Compat};

/// Where the baseline comes from.
#[derive(Debug, Clone, Default)]
pub enum Against {
    /// What `PROJECT.toml`'s `[compat]` says; without `against` there, the last release tag.
    #[default]
    Project,
    /// The committed CRDs (HEAD); the files on disk outside git.
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
    /// Set when there is no release to compare with yet: why, in one line. The findings
    /// against `crds` (the committed ones) are then shown as warnings, and none is refused.
    pub unreleased: Option<String>,
}

impl Baseline {
    fn strict(label: String, crds: Vec<BaselineCrd>) -> Baseline {
        Baseline {
            label,
            crds,
            unreleased: None,
        }
    }
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

/// Whether `rev` names a commit.
fn is_commit(root: &Path, rev: &str) -> Result<bool> {
    let commit = format!("{rev}^{{commit}}");
    Ok(git(root, &["rev-parse", "--verify", "--quiet", &commit])?
        .status
        .success())
}

/// The CRD files under `config/crd/bases` at `rev`, or `None` when `rev` does not name a
/// commit and `required` is `None` (a repository without commits yet). `required` names where
/// the ref was given, for the error when it names nothing.
fn at_rev(root: &Path, rev: &str, required: Option<&str>) -> Result<Option<Vec<BaselineCrd>>> {
    if !is_commit(root, rev)? {
        if let Some(given) = required {
            bail!("{given}: git knows no commit, tag or branch of that name");
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

/// The last release: the nearest tag matching `glob` in HEAD's history, as `git describe
/// --tags --abbrev=0 --match <glob> HEAD` finds it. Nearest in history, not highest in
/// version: on a maintenance branch that is the branch's last release, not a newer one made
/// on main since, and the CRDs a release tag holds are what users of that line have stored.
/// `Err` with the one-line note to show when there is none.
fn last_release(root: &Path, glob: &str) -> Result<std::result::Result<String, String>> {
    let tag_it = if glob == project::DEFAULT_RELEASE_TAGS {
        ", e.g. `git tag v0.1.0`".to_string()
    } else {
        format!(" with a name matching {glob:?}")
    };
    let because = |why: String, what: &str| {
        Ok(Err(format!(
            "note: {why}: breaking CRD changes are warnings, not refused, until the first \
             release ({what} it{tag_it}, or set [compat] against in {})",
            project::FILE
        )))
    };
    if !in_git(root) {
        return because(
            format!("not in a git repository, so no release tag matching {glob:?} to compare with"),
            "commit and tag",
        );
    }
    if is_commit(root, "HEAD")? {
        let described = git(
            root,
            &["describe", "--tags", "--abbrev=0", "--match", glob, "HEAD"],
        )?;
        let tag = String::from_utf8_lossy(&described.stdout)
            .trim()
            .to_string();
        if described.status.success() && !tag.is_empty() {
            return Ok(Ok(tag));
        }
    }
    let shallow = git(root, &["rev-parse", "--is-shallow-repository"])
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "true");
    let why = if shallow {
        format!(
            "no release tag matching {glob:?} in this shallow clone's history (fetch the \
             history and tags, e.g. `git fetch --unshallow --tags`, for the gate to find one)"
        )
    } else {
        format!("no release tag matching {glob:?} in HEAD's history yet")
    };
    because(why, "tag")
}

/// The committed CRDs (HEAD), or the files on disk outside git or before the first commit:
/// what the changes of an unreleased project are shown against.
fn committed_or_on_disk(root: &Path) -> Result<Baseline> {
    Ok(match committed(root)? {
        Some(baseline) => baseline,
        None => Baseline::strict(format!("the CRDs in {BASES}"), on_disk(root)?),
    })
}

/// Reads the baseline; `None` when there is none to compare with (`[compat] against =
/// "none"`, or `HEAD` without a commit yet). `compat` is the project's `[compat]`, which
/// [`Against::Project`] follows.
pub fn load(root: &Path, against: &Against, compat: &Compat) -> Result<Option<Baseline>> {
    Ok(match against {
        Against::Project => return from_project(root, compat),
        Against::Committed => committed(root)?,
        Against::GitRef(rev) => at_ref(root, rev, &format!("--against {rev}"))?,
        Against::File(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--against-file {}", path.display()))?;
            Some(Baseline::strict(
                path.display().to_string(),
                compat::read_baseline(&text, &path.display().to_string())
                    .map_err(anyhow::Error::msg)?,
            ))
        }
        Against::Cluster { source, crds } => Some(Baseline::strict(
            format!("the CRDs of the cluster ({source})"),
            crds.clone(),
        )),
    })
}

/// The baseline `[compat]` names, by default the last release.
fn from_project(root: &Path, compat: &Compat) -> Result<Option<Baseline>> {
    match compat.against.as_deref() {
        Some("none") => Ok(None),
        Some("HEAD") => committed(root),
        Some(rev) => at_ref(
            root,
            rev,
            &format!("{} [compat] against = {rev:?}", project::FILE),
        ),
        None => Ok(Some(match last_release(root, compat.release_tags())? {
            Ok(tag) => {
                let crds =
                    at_rev(root, &tag, Some(&format!("release tag {tag}")))?.unwrap_or_default();
                Baseline::strict(format!("the CRDs of the last release ({tag})"), crds)
            }
            Err(note) => Baseline {
                unreleased: Some(note),
                ..committed_or_on_disk(root)?
            },
        })),
    }
}

/// The committed CRDs: HEAD's (`None` before the first commit), the files on disk outside git.
fn committed(root: &Path) -> Result<Option<Baseline>> {
    Ok(if in_git(root) {
        at_rev(root, "HEAD", None)?
            .map(|crds| Baseline::strict("the committed CRDs (HEAD)".into(), crds))
    } else {
        Some(Baseline::strict(
            format!("the CRDs in {BASES}"),
            on_disk(root)?,
        ))
    })
}

/// The CRDs at the git ref `rev`, which `given` names for errors.
fn at_ref(root: &Path, rev: &str, given: &str) -> Result<Option<Baseline>> {
    if !in_git(root) {
        bail!("{given}: {} is not in a git repository", root.display());
    }
    Ok(at_rev(root, rev, Some(given))?
        .map(|crds| Baseline::strict(format!("the CRDs at {rev}"), crds)))
}
