//! `cargo operator update`: bring a project to the scaffold of this cargo-operator
//! (kubebuilder's `alpha update`).
//!
//! The commands `PROJECT.toml` records (`init`, each `create api`, each `create webhook`) are
//! replayed twice in scratch directories: by the cargo-operator that scaffolded the project
//! (its `cli-version`, installed with `cargo install` unless `--from-scaffolder` names one),
//! which gives the ancestor, and by this one, which gives the upgrade. Every file the two
//! differ in is merged three ways into the project: a file the user left as scaffolded takes
//! the new scaffold, a file both changed is merged line by line (`git merge-file`), and where
//! both changed the same lines the file gets conflict markers and is named. The generated
//! manifests are not merged but regenerated from the project's own sources afterwards, and
//! the external kinds' types and CRD copies (`create api --external`) are made again from
//! the CRD files `PROJECT.toml` records (a project on this scaffold already gets only that).
//!
//! The project must be a git work tree without uncommitted changes: the update's result is
//! the working tree's diff, which `git diff` shows and `git checkout .` undoes.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context as _, Result, bail};
use operator_xtask::project::{self, Project};

/// What `update` is asked for.
#[derive(Debug, Clone)]
pub struct UpdateOptions {
    /// Where to look for `PROJECT.toml` (it and the directories above it).
    pub cwd: PathBuf,
    /// The version that scaffolded the project, when `PROJECT.toml` records none.
    pub from_version: Option<String>,
    /// A cargo-operator binary of that version, instead of installing it.
    pub from_scaffolder: Option<PathBuf>,
}

/// Files `cargo xtask manifests` writes from the project's sources, and the external kinds'
/// types and CRD copies (made from their CRD files): regenerated, not merged.
fn generated(path: &Path, external_src: &Path) -> bool {
    path.starts_with("config/crd/bases")
        || path.starts_with(project::EXTERNAL_CRDS)
        || path.starts_with(external_src)
        || path == Path::new("config/rbac/role.yaml")
        || path == Path::new("config/webhook/manifests.yaml")
}

/// What became of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    /// Left as the user had it (the new scaffold changed it, but the user deleted it, or the
    /// new scaffold dropped it and the user had changed it).
    Kept,
    /// Taken from the new scaffold: the user had not changed it.
    Updated,
    /// New in the scaffold.
    Added,
    /// Gone from the scaffold, unchanged by the user.
    Removed,
    /// The user's changes and the scaffold's, merged.
    Merged,
    /// Merged with conflict markers where both changed the same lines.
    Conflict,
}

/// `cargo operator update`.
pub fn update(options: &UpdateOptions) -> Result<ExitCode> {
    let (root, project) = crate::load_project(&options.cwd, "update")?;
    let to = env!("CARGO_PKG_VERSION");
    let from = match (&options.from_version, &project.cli_version) {
        (Some(version), _) | (None, Some(version)) => version.clone(),
        (None, None) => bail!(
            "{} records no cli-version (the cargo-operator that scaffolded the project), so \
             there is no scaffold to replay and compare with; pass --from-version <version> \
             (the cargo-operator version that ran `init`)",
            project::FILE
        ),
    };
    if from == to && options.from_scaffolder.is_none() {
        if project.externals.is_empty() {
            eprintln!(
                "the project is on cargo-operator {to}'s scaffold already: nothing to update"
            );
            return Ok(ExitCode::SUCCESS);
        }
        clean_work_tree(&root)?;
        eprintln!(
            "the project is on cargo-operator {to}'s scaffold already; the external kinds' \
             types are made again from their CRD files"
        );
        let changed = crate::external::regenerate(&root, &project)?;
        return regenerated(&root, &changed);
    }
    clean_work_tree(&root)?;
    let old = match &options.from_scaffolder {
        Some(path) => crate::absolute(&options.cwd, path),
        None => install(&from)?,
    };
    let this = std::env::current_exe().context("finding this cargo-operator")?;

    let scratch = tempfile::tempdir().context("a scratch directory")?;
    let source = source_args(&root)?;
    let ancestor = scratch.path().join("ancestor");
    eprintln!(
        "==> the scaffold of cargo-operator {from} ({})",
        old.display()
    );
    replay(&old, &ancestor, &project, &root, &source.ancestor)?;
    let upgrade = scratch.path().join("upgrade");
    eprintln!("==> the scaffold of cargo-operator {to}");
    replay(&this, &upgrade, &project, &root, &source.upgrade(to))?;

    let external_src = project
        .operator
        .path
        .join("src")
        .join(crate::external::EXTERNAL_SRC);
    let outcomes = merge(&root, &ancestor, &upgrade, (&from, to), &external_src)?;
    for (path, outcome) in &outcomes {
        eprintln!(
            "{:>9} {}",
            format!("{outcome:?}").to_lowercase(),
            path.display()
        );
    }
    for path in crate::external::regenerate(&root, &project)? {
        eprintln!("{:>9} {}", "generated", path.display());
    }
    eprintln!("==> cargo xtask manifests");
    let code = operator_xtask::manifests::manifests_in(&root, false, &Default::default())?;
    let conflicts: Vec<&PathBuf> = outcomes
        .iter()
        .filter(|(_, o)| **o == Outcome::Conflict)
        .map(|(p, _)| p)
        .collect();
    if !conflicts.is_empty() {
        bail!(
            "{} file(s) changed both by you and by the scaffold in the same lines, now with \
             conflict markers (<<<<<<< yours ... >>>>>>> cargo-operator {to}): {}; resolve \
             them, then `cargo xtask manifests` and `cargo xtask test`",
            conflicts.len(),
            conflicts
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if code != ExitCode::SUCCESS {
        bail!("the files are updated, but `cargo xtask manifests` failed on them (above)");
    }
    eprintln!(
        "updated the project from cargo-operator {from} to {to}: {} file(s) changed; review \
         them with `git diff`, run `cargo xtask test`, and commit",
        outcomes
            .values()
            .filter(|o| !matches!(o, Outcome::Kept))
            .count()
    );
    Ok(ExitCode::SUCCESS)
}

/// The end of an update that only made the external kinds' types again: the generator, and
/// what changed.
fn regenerated(root: &Path, changed: &[PathBuf]) -> Result<ExitCode> {
    for path in changed {
        eprintln!("{:>9} {}", "generated", path.display());
    }
    eprintln!("==> cargo xtask manifests");
    let code = operator_xtask::manifests::manifests_in(root, false, &Default::default())?;
    if code != ExitCode::SUCCESS {
        bail!(
            "the external types are made again, but `cargo xtask manifests` failed on them (above)"
        );
    }
    eprintln!(
        "{} file(s) of the external kinds changed; review them with `git diff`, run `cargo \
         xtask test`, and commit",
        changed.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// Refuses a project outside git or with uncommitted changes: the merge writes into the
/// working tree, and only a clean one makes its result reviewable and undoable.
fn clean_work_tree(root: &Path) -> Result<()> {
    let out = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=normal"])
        .current_dir(root)
        .output()
        .context("running git (update needs it: the merge is git's)")?;
    if !out.status.success() {
        bail!(
            "{} is not in a git work tree: update merges into the project's files, so commit \
             the project to git first (the update is then a diff you can review and undo)",
            root.display()
        );
    }
    let dirty: Vec<&str> = std::str::from_utf8(&out.stdout)
        .unwrap_or_default()
        .lines()
        .collect();
    if !dirty.is_empty() {
        bail!(
            "the project has uncommitted changes ({}{}); commit or stash them first, so that \
             the update is a diff of its own",
            dirty
                .iter()
                .take(5)
                .map(|l| l.get(3..).unwrap_or(l))
                .collect::<Vec<_>>()
                .join(", "),
            if dirty.len() > 5 { ", ..." } else { "" }
        );
    }
    Ok(())
}

/// The cargo-operator of `version`, installed from the registry into the cache on first use.
fn install(version: &str) -> Result<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .context("neither XDG_CACHE_HOME nor HOME is set")?
        .join("operator-rs")
        .join(format!("cargo-operator-{version}"));
    let exe = cache.join("bin").join("cargo-operator");
    if exe.is_file() {
        return Ok(exe);
    }
    eprintln!(
        "==> cargo install cargo-operator@{version} (the project's scaffolder, once, into {})",
        cache.display()
    );
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["install", "--locked", "--root"])
        .arg(&cache)
        .arg(format!("cargo-operator@={version}"))
        .status()
        .context("starting cargo install")?;
    if !status.success() {
        bail!(
            "cargo install cargo-operator@={version} failed ({status}); pass --from-scaffolder \
             <path to a cargo-operator {version} binary>"
        );
    }
    Ok(exe)
}

/// The `init` arguments that name operator-rs's crates, read from the project's manifest.
struct SourceArgs {
    ancestor: Vec<String>,
    /// Published crates: the upgrade depends on its own version.
    published: bool,
}

impl SourceArgs {
    fn upgrade(&self, version: &str) -> Vec<String> {
        if self.published {
            vec!["--operator-rs-version".into(), version.into()]
        } else {
            self.ancestor.clone()
        }
    }
}

/// How the project depends on operator-runtime (`[workspace.dependencies]`): a path, a git
/// repository or a version, as `init` was told.
fn source_args(root: &Path) -> Result<SourceArgs> {
    let manifest = root.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .with_context(|| format!("reading {}", manifest.display()))?;
    let doc: toml::Table =
        toml::from_str(&text).with_context(|| format!("{} is not TOML", manifest.display()))?;
    let dep = doc
        .get("workspace")
        .and_then(|w| w.get("dependencies"))
        .and_then(|d| d.get("operator-runtime"))
        .with_context(|| {
            format!(
                "{} has no [workspace.dependencies] operator-runtime, which `init` writes; \
                 update replays the scaffold with the same source of operator-rs's crates",
                manifest.display()
            )
        })?;
    let field = |key: &str| dep.get(key).and_then(|v| v.as_str()).map(str::to_string);
    if let Some(path) = field("path") {
        let checkout = crate::absolute(root, Path::new(&path));
        let checkout = checkout.parent().unwrap_or(&checkout).to_path_buf();
        return Ok(SourceArgs {
            ancestor: vec![
                "--operator-rs-path".into(),
                checkout.to_string_lossy().into_owned(),
            ],
            published: false,
        });
    }
    if let Some(url) = field("git") {
        let mut args = vec!["--operator-rs-git".to_string(), url];
        if let Some(rev) = field("rev") {
            args.extend(["--operator-rs-rev".into(), rev]);
        }
        if let Some(branch) = field("branch") {
            args.extend(["--operator-rs-branch".into(), branch]);
        }
        return Ok(SourceArgs {
            ancestor: args,
            published: false,
        });
    }
    let version = field("version")
        .or_else(|| dep.as_str().map(str::to_string))
        .with_context(|| {
            format!(
                "{}: operator-runtime has no path, git or version",
                manifest.display()
            )
        })?;
    Ok(SourceArgs {
        ancestor: vec!["--operator-rs-version".into(), version],
        published: true,
    })
}

/// Runs the commands `project` records with the scaffolder `exe`, into `dir`.
fn replay(exe: &Path, dir: &Path, project: &Project, root: &Path, source: &[String]) -> Result<()> {
    let run = |args: Vec<String>, cwd: &Path| -> Result<()> {
        let out = Command::new(exe)
            .arg("operator")
            .args(&args)
            .current_dir(cwd)
            .output()
            .with_context(|| format!("starting {}", exe.display()))?;
        if !out.status.success() {
            bail!(
                "replaying `cargo operator {}` with {} failed:\n{}",
                args.join(" "),
                exe.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(())
    };
    let parent = dir.parent().context("a scratch directory")?;
    let mut init = vec![
        "init".to_string(),
        dir.to_string_lossy().into_owned(),
        "--domain".into(),
        project.domain.clone(),
        "--project-name".into(),
        project.project_name.clone(),
    ];
    init.extend(source.iter().cloned());
    if project.namespaced {
        init.push("--namespaced".into());
    }
    run(init, parent)?;
    let mut kinds = BTreeSet::new();
    for r in &project.resources {
        let mut args: Vec<String> = vec!["create".into(), "api".into()];
        args.extend(gvk_args(r));
        if !r.namespaced {
            args.push("--cluster".into());
        }
        let first = kinds.insert((r.group.clone(), r.kind.clone()));
        if first && r.controller.is_none() {
            args.push("--no-controller".into());
        }
        for (key, value) in r.kept_names() {
            if let Some(value) = value {
                args.extend([format!("--{key}"), value.to_string()]);
            }
        }
        run(args, dir)?;
    }
    for e in &project.externals {
        let crd = crate::absolute(root, &e.crd);
        let mut args: Vec<String> = vec![
            "create".into(),
            "api".into(),
            "--external".into(),
            "--from-crd".into(),
            crd.to_string_lossy().into_owned(),
            "--group".into(),
            e.group.clone(),
            "--version".into(),
            e.version.clone(),
            "--kind".into(),
            e.kind.clone(),
        ];
        if e.controller.is_none() {
            args.push("--no-controller".into());
        }
        run(args, dir)?;
    }
    for r in &project.resources {
        let Some(w) = &r.webhooks else { continue };
        let mut args: Vec<String> = vec!["create".into(), "webhook".into()];
        args.extend(gvk_args(r));
        for (flag, on) in [
            ("--defaulting", w.defaulting),
            ("--validation", w.validation),
            ("--conversion", w.conversion),
        ] {
            if on {
                args.push(flag.into());
            }
        }
        if !w.spokes.is_empty() {
            args.extend(["--spoke".into(), w.spokes.join(",")]);
        }
        run(args, dir)?;
    }
    Ok(())
}

fn gvk_args(r: &project::Resource) -> Vec<String> {
    vec![
        "--group".into(),
        r.group.clone(),
        "--version".into(),
        r.version.clone(),
        "--kind".into(),
        r.kind.clone(),
    ]
}

/// Every file under `dir` by its path relative to it, but builds, git and lock files.
fn files(dir: &Path, external_src: &Path) -> Result<BTreeMap<PathBuf, Vec<u8>>> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(at) = dirs.pop() {
        for entry in std::fs::read_dir(&at).with_context(|| format!("reading {}", at.display()))? {
            let path = entry.context("reading a directory entry")?.path();
            let rel = path.strip_prefix(dir).unwrap_or(&path).to_path_buf();
            if rel == Path::new("target") || rel == Path::new(".git") {
                continue;
            }
            if path.is_dir() {
                dirs.push(path);
            } else if rel != Path::new("Cargo.lock") && !generated(&rel, external_src) {
                let bytes =
                    std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
                out.insert(rel, bytes);
            }
        }
    }
    Ok(out)
}

/// Merges the scaffold's changes from `ancestor` to `upgrade` into the project at `root`.
/// Every result is computed before anything is written.
fn merge(
    root: &Path,
    ancestor: &Path,
    upgrade: &Path,
    (from, to): (&str, &str),
    external_src: &Path,
) -> Result<BTreeMap<PathBuf, Outcome>> {
    let base = files(ancestor, external_src)?;
    let theirs = files(upgrade, external_src)?;
    let paths: BTreeSet<&PathBuf> = base.keys().chain(theirs.keys()).collect();
    let mut writes: Vec<(PathBuf, Option<Vec<u8>>, bool)> = Vec::new();
    let mut outcomes = BTreeMap::new();
    for rel in paths {
        let (b, t) = (base.get(rel), theirs.get(rel));
        if b == t {
            continue;
        }
        let at = root.join(rel);
        let ours = if at.is_file() {
            Some(std::fs::read(&at).with_context(|| format!("reading {}", at.display()))?)
        } else {
            None
        };
        let executable = upgrade
            .join(rel)
            .metadata()
            .is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
        let outcome = match (b, t, &ours) {
            (_, Some(t), Some(o)) if o == t => continue,
            (None, Some(t), None) => {
                writes.push((rel.clone(), Some(t.clone()), executable));
                Outcome::Added
            }
            (Some(_), Some(_), None) => Outcome::Kept,
            (Some(b), None, Some(o)) if o == b => {
                writes.push((rel.clone(), None, false));
                Outcome::Removed
            }
            (_, None, None) => continue,
            (_, None, Some(_)) => Outcome::Kept,
            (Some(b), Some(t), Some(o)) if o == b => {
                writes.push((rel.clone(), Some(t.clone()), executable));
                Outcome::Updated
            }
            (b, Some(t), Some(o)) => {
                let empty = Vec::new();
                let (merged, clean) = merge_file(o, b.unwrap_or(&empty), t, (from, to))?;
                writes.push((rel.clone(), Some(merged), executable));
                if clean {
                    Outcome::Merged
                } else {
                    Outcome::Conflict
                }
            }
        };
        outcomes.insert(rel.clone(), outcome);
    }
    for (rel, bytes, executable) in writes {
        let at = root.join(&rel);
        match bytes {
            None => {
                std::fs::remove_file(&at).with_context(|| format!("removing {}", at.display()))?
            }
            Some(bytes) => {
                if let Some(dir) = at.parent() {
                    std::fs::create_dir_all(dir)
                        .with_context(|| format!("creating {}", dir.display()))?;
                }
                let tmp = at.with_file_name(format!(
                    ".{}.update.tmp",
                    at.file_name().unwrap_or_default().to_string_lossy()
                ));
                std::fs::write(&tmp, &bytes)
                    .with_context(|| format!("writing {}", tmp.display()))?;
                if executable {
                    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o755))
                        .with_context(|| format!("making {} executable", tmp.display()))?;
                }
                std::fs::rename(&tmp, &at).with_context(|| format!("writing {}", at.display()))?;
            }
        }
    }
    Ok(outcomes)
}

/// `git merge-file` of the three versions: the merged text, and whether it merged without
/// conflicts.
fn merge_file(
    ours: &[u8],
    base: &[u8],
    theirs: &[u8],
    (from, to): (&str, &str),
) -> Result<(Vec<u8>, bool)> {
    let dir = tempfile::tempdir().context("a scratch directory")?;
    let [o, b, t] = ["yours", "base", "theirs"].map(|n| dir.path().join(n));
    std::fs::write(&o, ours).context("writing a merge input")?;
    std::fs::write(&b, base).context("writing a merge input")?;
    std::fs::write(&t, theirs).context("writing a merge input")?;
    let out = Command::new("git")
        .args(["merge-file", "-p", "-L", "yours", "-L"])
        .arg(format!("cargo-operator {from}"))
        .arg("-L")
        .arg(format!("cargo-operator {to}"))
        .args([&o, &b, &t])
        .output()
        .context("running git merge-file")?;
    // The exit status is the number of conflicts; a negative one (above 127) is an error.
    match out.status.code() {
        Some(0) => Ok((out.stdout, true)),
        Some(n) if (1..=127).contains(&n) => Ok((out.stdout, false)),
        _ => bail!(
            "git merge-file failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    }
}
