//! `cargo xtask manifests [--check]`: kubebuilder's `make manifests`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use operator_gen::compat::Mode;
use operator_gen::{ArtifactKind, Layout, Options, output};

use crate::baseline::{self, Against};
use crate::project::{self, Project};
use crate::root;

/// What `manifests` found or did.
#[derive(Debug)]
enum ManifestsOutcome {
    UpToDate(usize),
    Written(Vec<PathBuf>),
    /// `--check` found differences.
    Stale(Vec<output::Drift>),
    /// The sources have errors; nothing was written.
    Invalid(String),
    /// The compatibility gate found changes that break stored objects or clients (in the
    /// migration mode: that lose data or refuse what was admitted); nothing was written.
    Breaking {
        report: String,
        errors: usize,
        against: String,
        /// How the gate judged them.
        mode: Mode,
    },
}

/// What the compatibility gate found.
#[derive(Debug)]
struct Verdict {
    /// The baseline, as messages name it.
    label: String,
    report: operator_gen::compat::Report,
    /// Why nothing is refused (no release yet), in one line, said before the report.
    note: Option<String>,
}

/// The compatibility gate: the generated CRDs against the baseline, with the sources'
/// `#[compat(allow = ...)]` applied. `None` when there is no baseline (`[compat] against =
/// "none"`, or no commit yet). Before the first release the findings against the committed
/// CRDs are warnings: shown, never refused.
fn gate(
    root: &Path,
    project: &Project,
    generated: &operator_gen::Generated,
    against: &Against,
) -> Result<Option<Verdict>> {
    use operator_gen::compat;
    use std::collections::BTreeSet;
    let Some(mut base) = baseline::load(root, against, &project.compat)? else {
        return Ok(None);
    };
    if matches!(against, Against::Cluster { .. }) {
        // A cluster serves other projects' CRDs too: compare those of our groups (a kind
        // of ours that is gone is still found).
        let groups: BTreeSet<&str> = generated
            .crds
            .iter()
            .map(|c| c.spec.group.as_str())
            .collect();
        base.crds
            .retain(|b| groups.contains(b.crd.spec.group.as_str()));
    }
    let converted = |group: &str, kind: &str| {
        project.resources.iter().any(|r| {
            project.api_group(r) == group
                && r.kind == kind
                && r.webhooks.as_ref().is_some_and(|w| w.conversion)
        })
    };
    let mut report = compat::check(generated, &base.crds, |crd| {
        converted(&crd.spec.group, &crd.spec.names.kind)
    });
    if base.unreleased.is_some() {
        for f in &mut report.findings {
            f.severity = compat::Severity::Warning;
        }
    }
    // Messages name files relative to the project, as the generator's errors do.
    let allowed_at = report
        .findings
        .iter_mut()
        .filter_map(|f| match &mut f.allowed {
            Some((_, Some(at))) => Some(at),
            _ => None,
        });
    for at in report
        .unused
        .iter_mut()
        .filter_map(|a| a.at.as_mut())
        .chain(allowed_at)
    {
        at.file = relative(root, &at.file);
    }
    Ok(Some(Verdict {
        label: base.label,
        report,
        note: base.unreleased,
    }))
}

/// `p` relative to the project at `root` (as it is, when it is elsewhere).
fn relative(root: &Path, p: &Path) -> PathBuf {
    p.strip_prefix(root)
        .map_or_else(|_| p.to_path_buf(), Path::to_path_buf)
}

/// The options of the crates the project scans: each crate's own
/// `[package.metadata.operator-gen]` (its derive reads them too), which must agree, since one
/// generator run covers them all.
fn project_options(root: &Path, crates: &[&Path]) -> Result<Options, String> {
    let mut chosen: Option<(Options, &Path)> = None;
    for krate in crates {
        let options = Options::from_manifest(&root.join(krate).join("Cargo.toml"))?;
        match &chosen {
            None => chosen = Some((options, krate)),
            Some((first, first_crate)) if *first != options => {
                return Err(format!(
                    "{}/Cargo.toml and {}/Cargo.toml set different [package.metadata.operator-gen] \
                     options; one generator run covers both crates, so set them alike",
                    first_crate.display(),
                    krate.display()
                ));
            }
            Some(_) => {}
        }
    }
    Ok(chosen.map(|(o, _)| o).unwrap_or_default())
}

/// Every resource PROJECT.toml lists must be a kind the sources declare; kinds it does not
/// list are named so the file can be completed.
fn check_resources(
    project: &Project,
    generated: &operator_gen::Generated,
) -> Result<Vec<String>, String> {
    let mut missing = Vec::new();
    for r in &project.resources {
        let group = project.api_group(r);
        let crd = generated.crds.iter().find(|crd| {
            crd.spec.group == group
                && crd.spec.names.kind == r.kind
                && crd.spec.versions.iter().any(|v| v.name == r.version)
        });
        let at = format!(
            "{}: [[resource]] {group}/{} {}",
            project::FILE,
            r.version,
            r.kind
        );
        match crd {
            None => missing.push(format!(
                "{at} is declared by no #[resource] in {}/src",
                r.path.display()
            )),
            Some(crd) if (crd.spec.scope == "Namespaced") != r.namespaced => missing.push(format!(
                "{at} says namespaced = {}, but its #[resource] makes it {}",
                r.namespaced, crd.spec.scope
            )),
            Some(_) => {}
        }
    }
    if !missing.is_empty() {
        return Err(missing.join("\n"));
    }
    let mut unlisted = Vec::new();
    for crd in &generated.crds {
        for v in &crd.spec.versions {
            let listed = project.resources.iter().any(|r| {
                project.api_group(r) == crd.spec.group
                    && r.kind == crd.spec.names.kind
                    && r.version == v.name
            });
            if !listed {
                unlisted.push(format!(
                    "note: {}/{} {} is not in {} (add a [[resource]] for it)",
                    crd.spec.group,
                    v.name,
                    crd.spec.names.kind,
                    project::FILE
                ));
            }
        }
    }
    Ok(unlisted)
}

/// Takes the external kinds PROJECT.toml lists (`create api --external`) out of what is
/// written: their CRDs are a third party's, installed by its operator. Each must still be
/// declared by the sources, as listed.
fn remove_externals(
    project: &Project,
    generated: &mut operator_gen::Generated,
) -> Result<(), String> {
    let external = |group: &str, kind: &str| {
        project
            .externals
            .iter()
            .find(|e| e.group == group && e.kind == kind)
    };
    let removed =
        generated.remove_crds(|crd| external(&crd.spec.group, &crd.spec.names.kind).is_some());
    let mut problems = Vec::new();
    for e in &project.externals {
        let at = e.describe();
        let crd = removed
            .iter()
            .find(|crd| crd.spec.group == e.group && crd.spec.names.kind == e.kind);
        match crd {
            None => problems.push(format!(
                "{at} is declared by no #[resource] in {}/src (its types are made by `cargo \
                 operator create api --external`, and again by `cargo operator update`)",
                e.path.display()
            )),
            Some(crd) if !crd.spec.versions.iter().any(|v| v.name == e.version) => {
                problems.push(format!(
                    "{at}: the types of {} have no version {}",
                    e.kind, e.version
                ))
            }
            Some(crd) if (crd.spec.scope == "Namespaced") != e.namespaced => {
                problems.push(format!(
                    "{at} says namespaced = {}, but its #[resource] makes it {}",
                    e.namespaced, crd.spec.scope
                ))
            }
            Some(_) => {}
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Generates the manifests of the workspace at `root` (paths in messages are relative to it),
/// writing its notes and warnings (what does not fail the run) to `said`; the note that no
/// release is guarded yet only when `unreleased_note`.
fn run_manifests_noting(
    root: &Path,
    check: bool,
    against: &Against,
    mode: Mode,
    unreleased_note: bool,
    said: &mut dyn std::io::Write,
) -> Result<ManifestsOutcome> {
    let rel = |p: &Path| relative(root, p);
    let project = match Project::load(root) {
        Ok(project) => project,
        Err(e) => return Ok(ManifestsOutcome::Invalid(format!("{e:#}"))),
    };
    let crates = project.crates();
    let mut options = match project_options(root, &crates) {
        Ok(options) => options,
        Err(message) => return Ok(ManifestsOutcome::Invalid(message)),
    };
    // A namespace-scoped manager: the markers' rules go to a Role in its namespace.
    if project.namespaced {
        options.rbac_namespace = Some(project::MANAGER_NAMESPACE.to_string());
    }
    let paths: Vec<PathBuf> = crates.iter().map(|c| root.join(c).join("src")).collect();
    let mut generated = match operator_gen::generate(&paths, &options) {
        Ok(g) => g,
        Err(operator_gen::Error::Invalid(mut errors)) => {
            for e in &mut errors {
                e.at.file = rel(&e.at.file);
            }
            return Ok(ManifestsOutcome::Invalid(
                operator_gen::Error::Invalid(errors).to_string(),
            ));
        }
        Err(err) => return Ok(ManifestsOutcome::Invalid(err.to_string())),
    };
    // What generation went past (a kube-derive kind, which gets no CRD): said, not refused.
    for w in &generated.warnings {
        let mut w = w.clone();
        w.0.at.file = rel(&w.0.at.file);
        writeln!(said, "{w}")?;
    }
    if let Err(message) = remove_externals(&project, &mut generated) {
        return Ok(ManifestsOutcome::Invalid(message));
    }
    match check_resources(&project, &generated) {
        Ok(notes) => {
            for note in notes {
                writeln!(said, "{note}")?;
            }
        }
        Err(message) => return Ok(ManifestsOutcome::Invalid(message)),
    }
    let mut oversize = Vec::new();
    for crd in &generated.crds {
        oversize.extend(operator_gen::size::check(&serde_json::to_value(crd)?));
    }
    if oversize
        .iter()
        .any(|o| o.severity == operator_gen::compat::Severity::Error)
    {
        let text: Vec<String> = oversize.iter().map(ToString::to_string).collect();
        return Ok(ManifestsOutcome::Invalid(text.join("\n")));
    }
    for o in &oversize {
        writeln!(said, "{o}")?;
    }
    match gate(root, &project, &generated, against) {
        Ok(Some(Verdict {
            label,
            report,
            note,
        })) => {
            if report.fails_in(mode) {
                return Ok(ManifestsOutcome::Breaking {
                    report: report.render(mode),
                    errors: report.errors_in(mode),
                    against: label,
                    mode,
                });
            }
            if let Some(note) = note.filter(|_| unreleased_note) {
                writeln!(said, "{note}")?;
            }
            write!(said, "{}", report.render(mode))?;
        }
        Ok(None) => {}
        Err(e) => return Ok(ManifestsOutcome::Invalid(format!("{e:#}"))),
    }
    let artifacts = generated.artifacts();
    let layout = Layout::kubebuilder(&root.join("config"));
    let all = &ArtifactKind::all();
    if check {
        let mut drift = output::check(&artifacts, &layout, all);
        for d in &mut drift {
            let path = d.path_mut();
            *path = rel(path);
        }
        return Ok(if drift.is_empty() {
            ManifestsOutcome::UpToDate(artifacts.len())
        } else {
            ManifestsOutcome::Stale(drift)
        });
    }
    let changed = output::write_all(&artifacts, &layout, all).context("writing manifests")?;
    Ok(if changed.is_empty() {
        ManifestsOutcome::UpToDate(artifacts.len())
    } else {
        ManifestsOutcome::Written(changed.iter().map(|p| rel(p)).collect())
    })
}

/// `cargo xtask manifests [--check]` in the project at the current directory.
pub fn manifests(check: bool, against: &Against) -> Result<ExitCode> {
    manifests_in(&root(), check, against)
}

/// `cargo xtask manifests [--check]` in the project at `root`, reporting on stderr.
pub fn manifests_in(root: &Path, check: bool, against: &Against) -> Result<ExitCode> {
    manifests_judged(root, check, against, Mode::Release)
}

/// [`manifests_in`] with the gate judging as `mode` says: `Mode::Migration` is `cargo xtask
/// manifests --migrating`, the check of a move from another tool.
pub fn manifests_judged(
    root: &Path,
    check: bool,
    against: &Against,
    mode: Mode,
) -> Result<ExitCode> {
    let outcome = run_manifests_noting(root, check, against, mode, true, &mut std::io::stderr())?;
    Ok(report(check, outcome))
}

/// The `cargo xtask manifests` that `cargo operator` runs after it writes a scaffold: against
/// the project's baseline, refusing what breaks the last release, but without the note that
/// there is no release yet (a new project has none; its own `cargo xtask manifests` says so).
pub fn manifests_after_scaffolding(root: &Path) -> Result<ExitCode> {
    let outcome = run_manifests_noting(
        root,
        false,
        &Against::Project,
        Mode::Release,
        false,
        &mut std::io::stderr(),
    )?;
    Ok(report(false, outcome))
}

/// Reports `outcome` on stderr; the exit code.
fn report(check: bool, outcome: ManifestsOutcome) -> ExitCode {
    match outcome {
        ManifestsOutcome::UpToDate(n) => eprintln!("manifests are up to date ({n} files)"),
        ManifestsOutcome::Written(paths) => {
            for path in paths {
                eprintln!("wrote {}", path.display());
            }
        }
        ManifestsOutcome::Stale(drift) => {
            for d in &drift {
                eprintln!("{d}");
            }
            eprintln!("manifests are stale: run `cargo xtask manifests` and commit the result");
            return ExitCode::FAILURE;
        }
        ManifestsOutcome::Invalid(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
        ManifestsOutcome::Breaking {
            report,
            errors,
            against,
            mode,
        } => {
            eprint!("{report}");
            eprintln!(
                "{}{}",
                mode.verdict(errors, &against),
                if check { "" } else { "; nothing was written" }
            );
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy of the parts of the workspace `manifests` reads and writes.
    fn scratch_workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        copy_tree(
            &root().join("memcached/src"),
            &dir.path().join("memcached/src"),
        );
        std::fs::copy(
            root().join("memcached/Cargo.toml"),
            dir.path().join("memcached/Cargo.toml"),
        )
        .unwrap();
        copy_tree(&root().join("config"), &dir.path().join("config"));
        std::fs::copy(root().join(project::FILE), dir.path().join(project::FILE)).unwrap();
        dir
    }

    /// Sets the body of the scratch workspace's `[compat]` table (this repository's sets
    /// `against = "HEAD"`); `""` leaves the project's defaults.
    fn set_compat(dir: &Path, body: &str) {
        edit(
            &dir.join(project::FILE),
            "[compat]\nagainst = \"HEAD\"\n",
            &format!("[compat]\n{body}"),
        );
    }

    /// `git <args>` in `dir`, which must succeed.
    fn git(dir: &Path, args: &[&str]) {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(["-c", "tag.gpgSign=false", "-c", "commit.gpgSign=false"])
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    }

    /// Generates the manifests of the workspace at `root`, with its notes and warnings on
    /// stderr.
    fn run_manifests(root: &Path, check: bool, against: &Against) -> Result<ManifestsOutcome> {
        run_manifests_noting(
            root,
            check,
            against,
            Mode::Release,
            true,
            &mut std::io::stderr(),
        )
    }

    /// [`run_manifests`], with what it said (notes and warnings).
    fn run_saying(root: &Path, check: bool) -> (ManifestsOutcome, String) {
        let mut said = Vec::new();
        let outcome = run_manifests_noting(
            root,
            check,
            &Against::default(),
            Mode::Release,
            true,
            &mut said,
        )
        .unwrap();
        (outcome, String::from_utf8(said).unwrap())
    }

    const MEMCACHED_CRD: &str = "config/crd/bases/cache.example.com_memcacheds.yaml";

    fn copy_tree(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                copy_tree(&entry.path(), &to.join(entry.file_name()));
            } else {
                std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
            }
        }
    }

    fn edit(path: &Path, from: &str, to: &str) {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.contains(from), "{from:?} not in {}", path.display());
        std::fs::write(path, text.replacen(from, to, 1)).unwrap();
    }

    fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        let mut out = Vec::new();
        for sub in ["config/crd/bases", "config/rbac"] {
            for e in std::fs::read_dir(dir.join(sub)).unwrap() {
                let p = e.unwrap().path();
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
        out.sort();
        out
    }

    #[test]
    fn committed_manifests_are_up_to_date() {
        assert!(matches!(
            run_manifests(&root(), true, &Against::default()).unwrap(),
            ManifestsOutcome::UpToDate(3)
        ));
    }

    #[test]
    fn check_names_the_crd_after_a_doc_comment_changes() {
        let ws = scratch_workspace();
        edit(
            &ws.path().join("memcached/src/api/v1alpha1.rs"),
            "/// Nodes are the names",
            "/// Nodes list the names",
        );
        let ManifestsOutcome::Stale(drift) =
            run_manifests(ws.path(), true, &Against::default()).unwrap()
        else {
            panic!("expected drift")
        };
        assert_eq!(drift.len(), 1, "{drift:?}");
        let text = drift[0].to_string();
        assert!(
            text.starts_with("config/crd/bases/cache.example.com_memcacheds.yaml is stale"),
            "{text}"
        );
        assert!(
            text.contains("+                description: Nodes list the names"),
            "{text}"
        );
    }

    #[test]
    fn a_breaking_change_to_the_memcached_crd_is_refused_with_where_why_and_the_way_through() {
        let ws = scratch_workspace();
        let api = ws.path().join("memcached/src/api/v1alpha1.rs");
        edit(
            &api,
            "#[validation(minimum = 0)]",
            "#[validation(minimum = 1)]",
        );
        let before = snapshot(ws.path());
        for check in [true, false] {
            let ManifestsOutcome::Breaking {
                report,
                errors,
                against,
                ..
            } = run_manifests(ws.path(), check, &Against::default()).unwrap()
            else {
                panic!("expected the gate to refuse the change (check = {check})")
            };
            assert_eq!(errors, 1, "{report}");
            assert_eq!(against, "the CRDs in config/crd/bases");
            for part in [
                "error[bound-tightened]: config/crd/bases/cache.example.com_memcacheds.yaml: memcacheds.cache.example.com v1alpha1 .spec.size: minimum raised from 0 to 1",
                "why: objects already stored keep passing updates",
                "way through: add the change in a new version with a conversion webhook",
                "or allow it: #[compat(allow = \"bound-tightened\", path = \".spec.size\", reason = \"...\")] on the root kind of v1alpha1",
            ] {
                assert!(report.contains(part), "{part:?} not in:\n{report}");
            }
            // Nothing written, in either mode.
            assert_eq!(snapshot(ws.path()), before);
        }
        // Allowed with a reason on the root kind: written, and the reason is what is kept.
        edit(
            &api,
            "pub struct Memcached {",
            "#[compat(allow = \"bound-tightened\", path = \".spec.size\", reason = \"a size of 0 never ran anything\")]\npub struct Memcached {",
        );
        let outcome = run_manifests(ws.path(), false, &Against::default()).unwrap();
        let ManifestsOutcome::Written(paths) = outcome else {
            panic!("expected the allowed change to be written: {outcome:?}")
        };
        assert_eq!(
            paths,
            [PathBuf::from(
                "config/crd/bases/cache.example.com_memcacheds.yaml"
            )]
        );
    }

    #[test]
    fn project_file_compat_none_turns_the_gate_off_for_an_unreleased_api() {
        let ws = scratch_workspace();
        let api = ws.path().join("memcached/src/api/v1alpha1.rs");
        edit(
            &api,
            "#[validation(minimum = 0)]",
            "#[validation(minimum = 1)]",
        );
        // This repository's PROJECT.toml: against = "HEAD", the files on disk outside git.
        assert!(matches!(
            run_manifests(ws.path(), true, &Against::default()).unwrap(),
            ManifestsOutcome::Breaking { .. }
        ));
        set_compat(ws.path(), "against = \"none\"\n");
        let (outcome, said) = run_saying(ws.path(), true);
        assert!(matches!(outcome, ManifestsOutcome::Stale(_)), "{outcome:?}");
        assert_eq!(said, "", "the gate is off: not even a warning");
        // An explicit --against still compares.
        let baseline = ws.path().join("crds.yaml");
        std::fs::copy(ws.path().join(MEMCACHED_CRD), &baseline).unwrap();
        let outcome = run_manifests(ws.path(), true, &Against::File(baseline)).unwrap();
        let ManifestsOutcome::Breaking { against, .. } = outcome else {
            panic!("expected the file baseline to refuse the change: {outcome:?}")
        };
        assert!(against.ends_with("crds.yaml"), "{against}");
    }

    /// `--migrating` against the CRD another tool wrote: a field the Rust types no longer
    /// have fails the run; `nullable` on an Option (kube-derive's) and a missing `minLength`
    /// are stricter as the Rust type is, shown, and written.
    #[test]
    fn the_migration_mode_refuses_losses_and_shows_what_is_stricter() {
        let ws = scratch_workspace();
        let written = ws.path().join(MEMCACHED_CRD);
        let mut old = std::fs::read_to_string(&written).unwrap();
        old = old.replacen(
            "                minLength: 1\n                type: string\n",
            "                nullable: true\n                type: string\n",
            1,
        );
        assert!(old.contains("nullable: true"), "{old}");
        let with_legacy = old.replacen(
            "              size:\n",
            "              legacy:\n                type: string\n              size:\n",
            1,
        );
        let baseline = ws.path().join("kube-derive.yaml");
        std::fs::write(&baseline, &with_legacy).unwrap();
        let before = snapshot(ws.path());
        let mut said = Vec::new();
        let outcome = run_manifests_noting(
            ws.path(),
            false,
            &Against::File(baseline.clone()),
            Mode::Migration,
            true,
            &mut said,
        )
        .unwrap();
        let ManifestsOutcome::Breaking {
            report,
            errors,
            mode,
            ..
        } = outcome
        else {
            panic!("expected the removed field to fail the migration check: {outcome:?}")
        };
        assert_eq!((errors, mode), (1, Mode::Migration), "{report}");
        assert!(
            report.starts_with("migration check: 1 change loses data or refuses what was admitted; 2 are stricter, as the Rust type is\n"),
            "{report}"
        );
        assert!(
            report.contains("error[field-removed]: config/crd/bases/cache.example.com_memcacheds.yaml: memcacheds.cache.example.com v1alpha1 .spec.legacy: field removed"),
            "{report}"
        );
        assert_eq!(snapshot(ws.path()), before, "nothing written");

        // Without the field: the stricter changes are shown and the run goes on.
        std::fs::write(&baseline, &old).unwrap();
        let mut said = Vec::new();
        let outcome = run_manifests_noting(
            ws.path(),
            false,
            &Against::File(baseline),
            Mode::Migration,
            true,
            &mut said,
        )
        .unwrap();
        assert!(
            matches!(outcome, ManifestsOutcome::UpToDate(_)),
            "{outcome:?}"
        );
        let said = String::from_utf8(said).unwrap();
        assert!(
            said.starts_with("migration check: 0 changes lose data or refuse what was admitted; 2 are stricter, as the Rust type is\n"),
            "{said}"
        );
        assert!(said.contains("nullable-removed: 1\n"), "{said}");
        assert!(said.contains("bound-tightened: 1\n"), "{said}");
    }

    /// The default baseline is the last release tag: before there is one, a breaking edit is
    /// written and shown as a warning, with one note saying why; after `git tag v0.1.0` the
    /// same kind of edit is refused.
    #[test]
    fn breaking_edits_warn_until_the_first_release_tag_and_are_refused_after_it() {
        let ws = scratch_workspace();
        set_compat(ws.path(), "");
        let api = ws.path().join("memcached/src/api/v1alpha1.rs");
        let notes = |said: &str| said.lines().filter(|l| l.starts_with("note:")).count();

        // Not in git (a project just made by `cargo operator init`): no release to keep.
        edit(
            &api,
            "    /// Image is the memcached container image. Left out, the operator's\n    /// defaulting webhook sets the image the operator is configured with.\n    #[validation(min_length = 1)]\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub image: Option<String>,\n",
            "",
        );
        let (outcome, said) = run_saying(ws.path(), false);
        let ManifestsOutcome::Written(paths) = outcome else {
            panic!("expected the edit to be written before any release: {outcome:?}\n{said}")
        };
        assert_eq!(paths, [PathBuf::from(MEMCACHED_CRD)]);
        assert_eq!(notes(&said), 1, "{said}");
        assert!(
            said.starts_with("note: not in a git repository, so no release tag matching \"v*\" to compare with: breaking CRD changes are warnings, not refused, until the first release (commit and tag it, e.g. `git tag v0.1.0`, or set [compat] against in PROJECT.toml)\n"),
            "{said}"
        );
        assert!(
            said.contains(&format!("warning[field-removed]: {MEMCACHED_CRD}: memcacheds.cache.example.com v1alpha1 .spec.image: field removed\n  why: ")),
            "{said}"
        );
        assert!(!said.contains("error["), "{said}");

        // In git, no tag yet: the working tree against HEAD, as warnings, in both modes.
        git(ws.path(), &["init", "-q"]);
        git(ws.path(), &["add", "."]);
        git(ws.path(), &["commit", "-q", "-m", "first"]);
        edit(
            &api,
            "#[validation(minimum = 0)]",
            "#[validation(minimum = 1)]",
        );
        for check in [true, false] {
            let (outcome, said) = run_saying(ws.path(), check);
            assert!(
                matches!(
                    (&outcome, check),
                    (ManifestsOutcome::Stale(_), true) | (ManifestsOutcome::Written(_), false)
                ),
                "check = {check}: {outcome:?}\n{said}"
            );
            assert_eq!(notes(&said), 1, "{said}");
            assert!(
                said.starts_with("note: no release tag matching \"v*\" in HEAD's history yet: "),
                "{said}"
            );
            assert!(
                said.contains("warning[bound-tightened]: config/crd/bases/cache.example.com_memcacheds.yaml: memcacheds.cache.example.com v1alpha1 .spec.size: minimum raised from 0 to 1"),
                "{said}"
            );
        }
        git(ws.path(), &["commit", "-q", "-a", "-m", "tighter"]);
        // A tag outside HEAD's history is not this line's release, nor is one of another name.
        git(ws.path(), &["checkout", "-q", "-b", "elsewhere"]);
        git(
            ws.path(),
            &["commit", "-q", "--allow-empty", "-m", "elsewhere"],
        );
        git(ws.path(), &["tag", "v9.0.0"]);
        git(ws.path(), &["checkout", "-q", "-"]);
        git(ws.path(), &["tag", "nightly"]);
        let (outcome, said) = run_saying(ws.path(), true);
        assert!(
            matches!(outcome, ManifestsOutcome::UpToDate(3)),
            "{outcome:?}"
        );
        assert!(
            said.starts_with("note: no release tag matching \"v*\" in HEAD's history yet"),
            "{said}"
        );

        // Released: the same kind of edit is refused, in both modes, and nothing is written.
        git(ws.path(), &["tag", "v0.1.0"]);
        let (outcome, said) = run_saying(ws.path(), true);
        assert!(
            matches!(outcome, ManifestsOutcome::UpToDate(3)),
            "{outcome:?}"
        );
        assert_eq!(said, "", "released and unchanged: nothing to say");
        edit(
            &api,
            "    #[serde(default, skip_serializing_if = \"Vec::is_empty\")]\n    pub nodes: Vec<String>,\n",
            "",
        );
        let before = snapshot(ws.path());
        for check in [true, false] {
            let (outcome, said) = run_saying(ws.path(), check);
            let ManifestsOutcome::Breaking {
                report,
                errors,
                against,
                ..
            } = outcome
            else {
                panic!("expected the release to refuse the edit (check = {check}): {outcome:?}")
            };
            assert_eq!(against, "the CRDs of the last release (v0.1.0)");
            assert_eq!(errors, 1, "{report}");
            assert!(
                report.contains(&format!("error[field-removed]: {MEMCACHED_CRD}: memcacheds.cache.example.com v1alpha1 .status.nodes: field removed")),
                "{report}"
            );
            // What the release already holds is not reported again.
            assert!(!report.contains("bound-tightened"), "{report}");
            assert_eq!(said, "", "no note once there is a release");
            assert_eq!(snapshot(ws.path()), before);
        }

        // Release tags of another name: none yet, so the gate warns again and says how.
        edit(
            &ws.path().join(project::FILE),
            "[compat]\n",
            "[compat]\nrelease-tags = \"memcached-v*\"\n",
        );
        let (outcome, said) = run_saying(ws.path(), false);
        assert!(
            matches!(outcome, ManifestsOutcome::Written(_)),
            "{outcome:?}"
        );
        assert!(
            said.starts_with("note: no release tag matching \"memcached-v*\" in HEAD's history yet: breaking CRD changes are warnings, not refused, until the first release (tag it with a name matching \"memcached-v*\", or set [compat] against in PROJECT.toml)\n"),
            "{said}"
        );
        assert!(said.contains("warning[field-removed]"), "{said}");
    }

    #[test]
    fn the_gate_compares_with_a_git_ref_and_finds_a_removed_field() {
        let ws = scratch_workspace();
        let git = |args: &[&str]| git(ws.path(), args);
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-q", "-m", "v1"]);
        git(&["tag", "v1.0.0"]);
        // The next release drops the image field, with an allow on the kind, and commits
        // the regenerated CRD: against HEAD nothing is left to report (the allow is then
        // unused), against the release tag the removal is found and allowed.
        let api = ws.path().join("memcached/src/api/v1alpha1.rs");
        edit(
            &api,
            "    /// Image is the memcached container image. Left out, the operator's\n    /// defaulting webhook sets the image the operator is configured with.\n    #[validation(min_length = 1)]\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub image: Option<String>,\n",
            "",
        );
        let ManifestsOutcome::Breaking { report, .. } =
            run_manifests(ws.path(), true, &Against::GitRef("v1.0.0".into())).unwrap()
        else {
            panic!("expected the removal to be refused against v1.0.0")
        };
        assert!(
            report.contains("error[field-removed]: config/crd/bases/cache.example.com_memcacheds.yaml: memcacheds.cache.example.com v1alpha1 .spec.image: field removed"),
            "{report}"
        );
        edit(
            &api,
            "pub struct Memcached {",
            "#[compat(allow = \"field-removed\", path = \".spec.image\", reason = \"the webhook sets the image\")]\npub struct Memcached {",
        );
        assert!(matches!(
            run_manifests(ws.path(), false, &Against::default()).unwrap(),
            ManifestsOutcome::Written(_)
        ));
        git(&["commit", "-q", "-a", "-m", "v2"]);
        assert!(matches!(
            run_manifests(ws.path(), true, &Against::default()).unwrap(),
            ManifestsOutcome::UpToDate(_)
        ));
        assert!(matches!(
            run_manifests(ws.path(), true, &Against::GitRef("v1.0.0".into())).unwrap(),
            ManifestsOutcome::UpToDate(_)
        ));
        let ManifestsOutcome::Invalid(message) =
            run_manifests(ws.path(), true, &Against::GitRef("v9".into())).unwrap()
        else {
            panic!("expected an unknown ref to be refused")
        };
        assert!(
            message.contains("--against v9: git knows no commit, tag or branch of that name"),
            "{message}"
        );
    }

    #[test]
    fn check_names_the_role_after_a_marker_changes() {
        let ws = scratch_workspace();
        edit(
            &ws.path().join("memcached/src/controller.rs"),
            "resources = \"pods\", verbs = \"list;watch\"",
            "resources = \"pods\", verbs = \"list\"",
        );
        let ManifestsOutcome::Stale(drift) =
            run_manifests(ws.path(), true, &Against::default()).unwrap()
        else {
            panic!("expected drift")
        };
        assert_eq!(drift.len(), 1, "{drift:?}");
        assert!(
            drift[0]
                .to_string()
                .starts_with("config/rbac/role.yaml is stale"),
            "{}",
            drift[0]
        );
    }

    #[test]
    fn a_malformed_marker_fails_with_its_location_and_changes_nothing() {
        let ws = scratch_workspace();
        // A change that would alter the role, plus a typo in a validation marker.
        edit(
            &ws.path().join("memcached/src/controller.rs"),
            "resources = \"pods\", verbs = \"list;watch\")]",
            "resources = \"pods\", verbs = \"list\")]",
        );
        edit(
            &ws.path().join("memcached/src/api/v1alpha1.rs"),
            "#[validation(minimum = 0)]",
            "#[validation(minimun = 0)]",
        );
        let before = snapshot(ws.path());
        let ManifestsOutcome::Invalid(message) =
            run_manifests(ws.path(), false, &Against::default()).unwrap()
        else {
            panic!("expected an error")
        };
        assert!(
            message.contains("memcached/src/api/v1alpha1.rs:"),
            "{message}"
        );
        assert!(
            message.contains(
                "unknown argument `minimun` in #[validation(...)]; did you mean `minimum`?"
            ),
            "{message}"
        );
        assert!(message.contains("(allowed: minimum, maximum,"), "{message}");
        assert_eq!(snapshot(ws.path()), before, "no file may change");
    }

    #[test]
    fn an_unsupported_type_fails_with_its_location() {
        let ws = scratch_workspace();
        edit(
            &ws.path().join("memcached/src/api/v1alpha1.rs"),
            "pub size: i32,",
            "pub size: std::time::Instant,",
        );
        let ManifestsOutcome::Invalid(message) =
            run_manifests(ws.path(), false, &Against::default()).unwrap()
        else {
            panic!("expected an error")
        };
        assert!(
            message.contains("memcached/src/api/v1alpha1.rs:"),
            "{message}"
        );
        assert!(
            message.contains("cannot generate a schema for `std::time::Instant`"),
            "{message}"
        );
    }

    #[test]
    fn the_operator_crates_options_are_used_and_checked() {
        let ws = scratch_workspace();
        let manifest = ws.path().join("memcached/Cargo.toml");
        let api = ws.path().join("memcached/src/api/v1alpha1.rs");
        edit(&api, "pub size: i32,", "pub size: f64,");
        // An integer field turning into a number is a change the gate reports.
        edit(
            &api,
            "pub struct Memcached {",
            "#[compat(allow = \"type-changed\", path = \".spec.size\", reason = \"this test is about the options\")]\npub struct Memcached {",
        );
        let ManifestsOutcome::Invalid(message) =
            run_manifests(ws.path(), false, &Against::default()).unwrap()
        else {
            panic!("floats need the opt-in")
        };
        assert!(message.contains("allow-dangerous-types"), "{message}");
        let text = std::fs::read_to_string(&manifest).unwrap();
        std::fs::write(
            &manifest,
            format!("{text}\n[package.metadata.operator-gen]\nallow-dangerous-types = true\nmax-desc-len = 0\n"),
        )
        .unwrap();
        let outcome = run_manifests(ws.path(), false, &Against::default()).unwrap();
        let ManifestsOutcome::Written(changed) = outcome else {
            panic!("the opt-in is read: {outcome:?}")
        };
        let crd = std::fs::read_to_string(
            ws.path()
                .join("config/crd/bases/cache.example.com_memcacheds.yaml"),
        )
        .unwrap();
        assert!(
            changed
                .iter()
                .any(|p| p.ends_with("cache.example.com_memcacheds.yaml"))
        );
        assert!(crd.contains("type: number"), "{crd}");
        assert!(
            !crd.contains("description: Memcached is the Schema"),
            "max-desc-len = 0 drops the schema's descriptions"
        );
        std::fs::write(
            &manifest,
            format!("{text}\n[package.metadata.operator-gen]\nrole_name = \"x\"\n"),
        )
        .unwrap();
        let ManifestsOutcome::Invalid(message) =
            run_manifests(ws.path(), false, &Against::default()).unwrap()
        else {
            panic!("a misspelled option is an error")
        };
        assert!(message.contains("unknown field `role_name`"), "{message}");
        assert!(message.contains("memcached/Cargo.toml"), "{message}");
    }

    #[test]
    fn the_project_file_is_required_and_checked_against_the_sources() {
        let ws = scratch_workspace();
        let project_file = ws.path().join(project::FILE);
        let before = snapshot(ws.path());

        // A listed kind that no #[resource] declares.
        edit(&project_file, "kind = \"Memcached\"", "kind = \"Memcache\"");
        let ManifestsOutcome::Invalid(message) =
            run_manifests(ws.path(), false, &Against::default()).unwrap()
        else {
            panic!("Memcache is not declared")
        };
        assert_eq!(
            message,
            "PROJECT.toml: [[resource]] cache.example.com/v1alpha1 Memcache is declared by no #[resource] in memcached/src"
        );

        // The scope disagrees with the marker.
        edit(&project_file, "kind = \"Memcache\"", "kind = \"Memcached\"");
        edit(&project_file, "namespaced = true", "namespaced = false");
        let ManifestsOutcome::Invalid(message) =
            run_manifests(ws.path(), false, &Against::default()).unwrap()
        else {
            panic!("Memcached is namespaced")
        };
        assert!(
            message.ends_with("says namespaced = false, but its #[resource] makes it Namespaced"),
            "{message}"
        );

        // No project file at all.
        std::fs::remove_file(&project_file).unwrap();
        let ManifestsOutcome::Invalid(message) =
            run_manifests(ws.path(), false, &Against::default()).unwrap()
        else {
            panic!("the project file is required")
        };
        assert!(message.starts_with("cannot read "), "{message}");
        assert!(message.contains("PROJECT.toml"), "{message}");
        assert_eq!(snapshot(ws.path()), before, "nothing was written");
    }

    #[test]
    fn kinds_in_several_crates_and_groups_are_generated_together() {
        let ws = scratch_workspace();
        let at = |p: &str| ws.path().join(p);
        // The API moves to a crate of its own; the operator crate keeps the #[rbac] markers.
        std::fs::create_dir_all(at("memcached-api/src")).unwrap();
        std::fs::rename(
            at("memcached/src/api/v1alpha1.rs"),
            at("memcached-api/src/v1alpha1.rs"),
        )
        .unwrap();
        std::fs::remove_dir_all(at("memcached/src/api")).unwrap();
        edit(&at("memcached/src/lib.rs"), "pub mod api;\n", "");
        let manifest = std::fs::read_to_string(at("memcached/Cargo.toml")).unwrap();
        std::fs::write(
            at("memcached-api/Cargo.toml"),
            manifest.replacen("name = \"memcached\"", "name = \"memcached-api\"", 1),
        )
        .unwrap();
        let project_file = at(project::FILE);
        edit(
            &project_file,
            "path = \"memcached\"\napi = \"memcached/src/api/v1alpha1.rs\"",
            "path = \"memcached-api\"\napi = \"memcached-api/src/v1alpha1.rs\"",
        );
        let before = snapshot(ws.path());
        assert!(matches!(
            run_manifests(ws.path(), true, &Against::default()).unwrap(),
            ManifestsOutcome::UpToDate(3)
        ));
        assert_eq!(snapshot(ws.path()), before);

        // A kind of a second group in the API crate.
        std::fs::write(
            at("memcached-api/src/widget.rs"),
            "/// Widget is a cluster-wide thing.\n\
             #[derive(CustomResource)]\n\
             #[resource(group = \"batch.example.com\", version = \"v1\", kind = \"Widget\", scope = \"Cluster\")]\n\
             pub struct Widget { pub metadata: ObjectMeta, pub spec: WidgetSpec }\n\
             /// WidgetSpec is what a Widget wants.\n\
             #[derive(Schema)]\n\
             pub struct WidgetSpec { /// How many.\n pub count: i32 }\n",
        )
        .unwrap();
        let text = std::fs::read_to_string(&project_file).unwrap();
        std::fs::write(
            &project_file,
            text + "\n[[resource]]\ngroup = \"batch\"\nversion = \"v1\"\nkind = \"Widget\"\n\
                    path = \"memcached-api\"\napi = \"memcached-api/src/widget.rs\"\nnamespaced = false\n",
        )
        .unwrap();
        let ManifestsOutcome::Written(paths) =
            run_manifests(ws.path(), false, &Against::default()).unwrap()
        else {
            panic!("the Widget CRD is new")
        };
        assert_eq!(
            paths,
            [Path::new("config/crd/bases/batch.example.com_widgets.yaml")]
        );
        let crd = std::fs::read_to_string(ws.path().join(&paths[0])).unwrap();
        assert!(crd.contains("scope: Cluster"), "{crd}");
        assert!(crd.contains("description: How many."), "{crd}");
    }
}
