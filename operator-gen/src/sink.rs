//! The directory sink: compares artifacts with a config tree (`check`) or writes them into
//! it as one transaction (`write_all`), touching only the files of the generators that ran.
//!
//! A write is all or nothing, also when it is interrupted:
//! 1. every changed file is staged next to its target (`.NAME.operator-gen.tmp`) and every
//!    file about to be replaced or pruned keeps a hard link (`.NAME.operator-gen.old`);
//! 2. a journal (`ROOT/.operator-gen.journal`) lists the targets, and only then are the
//!    staged files renamed over their targets and pruned files removed;
//! 3. the journal and the backups are removed.
//!
//! A failure in step 2 undoes the steps done so far before the error is returned. A run
//! that was killed in step 2 leaves its journal behind; the next `write_all` (or
//! [`recover`]) puts the old files back from the journal before it does anything else, so
//! the tree holds either the whole old set or the whole new set. (Files are not synced to
//! the disk: the guarantee covers a killed process, not a power cut.)

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};

use crate::generators::{Artifact, ArtifactKind};
use crate::threads::parallel_map;

const JOURNAL: &str = ".operator-gen.journal";
const STAGED: &str = ".operator-gen.tmp";
const BACKUP: &str = ".operator-gen.old";

/// Where the generators' files go: kubebuilder's `config/` tree, each generator in its
/// [`ArtifactKind::dir`].
#[derive(Debug, Clone)]
pub struct Layout {
    root: PathBuf,
}

impl Layout {
    /// kubebuilder's layout under a `config/` directory.
    pub fn kubebuilder(config: &Path) -> Self {
        Self {
            root: config.to_path_buf(),
        }
    }

    /// The `config/` directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory of a generator's files.
    pub fn dir(&self, kind: ArtifactKind) -> PathBuf {
        self.root.join(kind.dir())
    }

    /// Where a generated file goes.
    pub fn path_of(&self, artifact: &Artifact) -> PathBuf {
        self.dir(artifact.kind).join(&artifact.file_name)
    }

    fn journal(&self) -> PathBuf {
        self.root.join(JOURNAL)
    }
}

/// A difference between generated and committed files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drift {
    /// The file on disk differs (it displays as a unified diff, committed → generated).
    Changed {
        /// The file.
        path: PathBuf,
        /// What is on disk.
        committed: String,
        /// What the generator makes now.
        generated: String,
    },
    /// The generator makes a file that is not on disk.
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// A file of a generator that ran which the generator no longer produces.
    Stale {
        /// The file.
        path: PathBuf,
    },
    /// An earlier write was interrupted; its journal is still there.
    Interrupted {
        /// The journal file.
        journal: PathBuf,
    },
}

impl Drift {
    /// The file (or journal) it is about.
    pub fn path(&self) -> &Path {
        match self {
            Drift::Changed { path, .. } | Drift::Missing { path } | Drift::Stale { path } => path,
            Drift::Interrupted { journal } => journal,
        }
    }

    /// The file (or journal) it is about, to rewrite (say, relative to a root).
    pub fn path_mut(&mut self) -> &mut PathBuf {
        match self {
            Drift::Changed { path, .. } | Drift::Missing { path } | Drift::Stale { path } => path,
            Drift::Interrupted { journal } => journal,
        }
    }
}

impl std::fmt::Display for Drift {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Drift::Changed {
                path,
                committed,
                generated,
            } => {
                let diff = similar::TextDiff::from_lines(committed, generated)
                    .unified_diff()
                    .context_radius(3)
                    .header(
                        &format!("{} (committed)", path.display()),
                        &format!("{} (generated)", path.display()),
                    )
                    .to_string();
                write!(f, "{} is stale:\n{diff}", path.display())
            }
            Drift::Missing { path } => write!(f, "{} is missing", path.display()),
            Drift::Stale { path } => {
                write!(f, "{} is no longer generated (remove it)", path.display())
            }
            Drift::Interrupted { journal } => write!(
                f,
                "{} is left from an interrupted write; run without --check to restore the files it lists",
                journal.display()
            ),
        }
    }
}

/// The files of the generators in `ran` that `artifacts` no longer produces, sorted: the
/// files under each generator's directory, in subdirectories too, that it
/// [owns](ArtifactKind::owns). Hidden entries (the sink's own staging and backup files) and
/// symbolic links to directories are not entered.
fn stale_files(artifacts: &[&Artifact], layout: &Layout, ran: &[ArtifactKind]) -> Vec<PathBuf> {
    fn walk(
        dir: &Path,
        rel: &str,
        kind: ArtifactKind,
        produced: &BTreeSet<PathBuf>,
        out: &mut Vec<PathBuf>,
    ) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.filter_map(Result::ok) {
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if name.starts_with('.') {
                continue;
            }
            let path = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            match entry.file_type() {
                Ok(t) if t.is_dir() => walk(&entry.path(), &path, kind, produced, out),
                Ok(_) if kind.owns(&path) && !produced.contains(&entry.path()) => {
                    out.push(entry.path())
                }
                _ => {}
            }
        }
    }
    let produced: BTreeSet<PathBuf> = artifacts.iter().map(|a| layout.path_of(a)).collect();
    let mut stale = Vec::new();
    for &kind in ran {
        walk(&layout.dir(kind), "", kind, &produced, &mut stale);
    }
    stale.sort();
    stale.dedup();
    stale
}

/// Removes the directories under a generator's directory that pruning left empty, from
/// the pruned files up (never the generator's directory itself, nor a directory that holds
/// anything else).
fn remove_emptied_dirs(pruned: &[&Step], layout: &Layout, ran: &[ArtifactKind]) {
    let tops: Vec<PathBuf> = ran.iter().map(|k| layout.dir(*k)).collect();
    for step in pruned {
        let mut dir = step.target.parent();
        while let Some(d) = dir {
            if tops.iter().any(|t| t == d) || !tops.iter().any(|t| d.starts_with(t)) {
                break;
            }
            // Fails, and stops here, when the directory is not empty.
            if std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
    }
}

/// The artifacts of the generators in `ran`.
fn of_generators<'a>(artifacts: &'a [Artifact], ran: &[ArtifactKind]) -> Vec<&'a Artifact> {
    artifacts.iter().filter(|a| ran.contains(&a.kind)).collect()
}

/// Compares the artifacts of the generators in `ran` with the files on disk, writing
/// nothing. Files of other generators are not looked at.
pub fn check(artifacts: &[Artifact], layout: &Layout, ran: &[ArtifactKind]) -> Vec<Drift> {
    let mut drift = Vec::new();
    let journal = layout.journal();
    if journal.exists() {
        drift.push(Drift::Interrupted { journal });
    }
    let artifacts = of_generators(artifacts, ran);
    for a in &artifacts {
        let path = layout.path_of(a);
        match std::fs::read_to_string(&path) {
            Err(_) => drift.push(Drift::Missing { path }),
            Ok(current) if current != a.contents => drift.push(Drift::Changed {
                path,
                committed: current,
                generated: a.contents.clone(),
            }),
            Ok(_) => {}
        }
    }
    drift.extend(
        stale_files(&artifacts, layout, ran)
            .into_iter()
            .map(|path| Drift::Stale { path }),
    );
    drift
}

/// Why a write failed: the operation and the path it failed on.
fn at(path: &Path, what: &str) -> impl FnOnce(io::Error) -> io::Error {
    let message = format!("cannot {what} {}", path.display());
    move |e| io::Error::new(e.kind(), format!("{message}: {e}"))
}

fn sibling(target: &Path, suffix: &str) -> PathBuf {
    let name = target.file_name().map_or_else(
        || std::ffi::OsString::from("file"),
        std::ffi::OsStr::to_os_string,
    );
    let mut hidden = std::ffi::OsString::from(".");
    hidden.push(name);
    hidden.push(suffix);
    target.with_file_name(hidden)
}

/// One change of the transaction: a staged file renamed over `target`, or `target`
/// removed. `backup` is set when `target` existed before.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Step {
    target: PathBuf,
    replace: bool,
    backup: bool,
}

impl Step {
    fn staged(&self) -> PathBuf {
        sibling(&self.target, STAGED)
    }

    fn backup_path(&self) -> PathBuf {
        sibling(&self.target, BACKUP)
    }

    fn apply(&self) -> io::Result<()> {
        if self.replace {
            std::fs::rename(self.staged(), &self.target).map_err(at(&self.target, "replace"))
        } else {
            std::fs::remove_file(&self.target).map_err(at(&self.target, "remove"))
        }
    }

    /// Puts back what was at `target` before the transaction, whether or not this step ran.
    fn undo(&self) -> io::Result<()> {
        if self.backup {
            let backup = self.backup_path();
            std::fs::rename(&backup, &self.target).map_err(at(&self.target, "restore"))?;
            // When the step had not run, target and backup are one file and the rename
            // above did nothing (POSIX); the second name goes here.
            remove_if_present(&backup)?;
        } else {
            remove_if_present(&self.target)?;
        }
        remove_if_present(&self.staged())
    }

    /// Drops what only the transaction needed.
    fn forget(&self) -> io::Result<()> {
        if self.backup {
            remove_if_present(&self.backup_path())?;
        }
        Ok(())
    }
}

fn remove_if_present(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(at(path, "remove")(e)),
        _ => Ok(()),
    }
}

/// The journal's text: one line per step, `<r|d><b|->\t<path relative to the root>`.
fn journal_text(steps: &[Step], layout: &Layout) -> String {
    steps
        .iter()
        .map(|s| {
            let rel = s.target.strip_prefix(&layout.root).unwrap_or(&s.target);
            format!(
                "{}{}\t{}\n",
                if s.replace { 'r' } else { 'd' },
                if s.backup { 'b' } else { '-' },
                rel.display()
            )
        })
        .collect()
}

fn parse_journal(text: &str, layout: &Layout) -> Option<Vec<Step>> {
    text.lines()
        .map(|line| {
            let (flags, rel) = line.split_once('\t')?;
            let mut flags = flags.chars();
            let replace = flags.next()? == 'r';
            let backup = flags.next()? == 'b';
            Some(Step {
                target: layout.root.join(rel),
                replace,
                backup,
            })
        })
        .collect()
}

/// Undoes a write that was interrupted (its journal is still there): every file it listed
/// is put back as it was before that write. Returns the restored paths; nothing to do
/// returns an empty list.
pub fn recover(layout: &Layout) -> io::Result<Vec<PathBuf>> {
    if layout.root.exists() && !layout.root.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::NotADirectory,
            format!(
                "cannot write into {}: it is a file, not a directory",
                layout.root.display()
            ),
        ));
    }
    let journal = layout.journal();
    let text = match std::fs::read_to_string(&journal) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(at(&journal, "read")(e)),
    };
    let steps = parse_journal(&text, layout).ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{} is not a journal operator-gen wrote; remove it after checking the files under {}",
                journal.display(),
                layout.root.display()
            ),
        )
    })?;
    for step in &steps {
        step.undo()?;
    }
    std::fs::remove_file(&journal).map_err(at(&journal, "remove"))?;
    Ok(steps.into_iter().map(|s| s.target).collect())
}

/// Where a transaction may be stopped on purpose (tests of the interruption guarantees).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))]
enum Interrupt {
    /// Fail with an error before step `n` (the steps before it are undone).
    FailBefore(usize),
    /// Stop before step `n` as if the process had been killed (nothing is undone).
    KillBefore(usize),
}

/// Writes the artifacts of the generators in `ran` as one transaction (see the module
/// docs): unchanged files are not touched, files of those generators that are no longer
/// produced are removed, and nothing that belongs to another generator or to the user is
/// touched. Returns the paths that changed, sorted.
pub fn write_all(
    artifacts: &[Artifact],
    layout: &Layout,
    ran: &[ArtifactKind],
) -> io::Result<Vec<PathBuf>> {
    write_interrupted(artifacts, layout, ran, None)
}

fn write_interrupted(
    artifacts: &[Artifact],
    layout: &Layout,
    ran: &[ArtifactKind],
    interrupt: Option<Interrupt>,
) -> io::Result<Vec<PathBuf>> {
    recover(layout)?;
    let artifacts = of_generators(artifacts, ran);
    for a in &artifacts {
        if let Some(problem) = crate::generators::path_problem(&a.file_name) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "the generator `{}` made a file named {:?}, which {problem}; nothing was written",
                    a.kind.name(),
                    a.file_name
                ),
            ));
        }
    }
    let dirs: BTreeSet<PathBuf> = artifacts
        .iter()
        .filter_map(|a| layout.path_of(a).parent().map(Path::to_path_buf))
        .collect();
    for dir in &dirs {
        std::fs::create_dir_all(dir).map_err(at(dir, "create the directory"))?;
    }
    // Staging is independent per file (a read to compare, a write under a temporary name),
    // so large APIs stage on every core.
    let staged: Vec<io::Result<Option<Step>>> = parallel_map(&artifacts, |a| {
        let target = layout.path_of(a);
        let backup = match std::fs::read(&target) {
            Ok(current) if current == a.contents.as_bytes() => return Ok(None),
            Ok(_) => true,
            Err(e) if e.kind() == io::ErrorKind::NotFound => false,
            Err(e) => return Err(at(&target, "read")(e)),
        };
        let step = Step {
            target,
            replace: true,
            backup,
        };
        let tmp = step.staged();
        std::fs::write(&tmp, &a.contents).map_err(at(&tmp, "write"))?;
        Ok(Some(step))
    });
    let mut steps = Vec::new();
    let mut first_error = None;
    for s in staged {
        match s {
            Ok(Some(step)) => steps.push(step),
            Ok(None) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    steps.extend(
        stale_files(&artifacts, layout, ran)
            .into_iter()
            .map(|target| Step {
                target,
                replace: false,
                backup: true,
            }),
    );
    if first_error.is_none() {
        for step in steps.iter().filter(|s| s.backup) {
            if let Err(e) = keep_backup(step) {
                first_error = Some(e);
                break;
            }
        }
    }
    if let Some(e) = first_error {
        for step in &steps {
            let _ = remove_if_present(&step.staged());
            if step.backup {
                let _ = remove_if_present(&step.backup_path());
            }
        }
        return Err(e);
    }
    if steps.is_empty() {
        return Ok(Vec::new());
    }

    let journal = layout.journal();
    let journal_tmp = sibling(&journal, STAGED);
    std::fs::write(&journal_tmp, journal_text(&steps, layout))
        .and_then(|()| std::fs::rename(&journal_tmp, &journal))
        .map_err(at(&journal, "write"))?;
    for (no, step) in steps.iter().enumerate() {
        let result = match interrupt {
            Some(Interrupt::KillBefore(n)) if n == no => return Ok(Vec::new()),
            Some(Interrupt::FailBefore(n)) if n == no => Err(io::Error::other(format!(
                "interrupted before step {no} (test)"
            ))),
            _ => step.apply(),
        };
        if let Err(e) = result {
            // Put the old set back; the journal goes last, so a failure here is still
            // recovered by the next run.
            for done in &steps {
                done.undo()?;
            }
            std::fs::remove_file(&journal).map_err(at(&journal, "remove"))?;
            return Err(e);
        }
    }
    std::fs::remove_file(&journal).map_err(at(&journal, "remove"))?;
    for step in &steps {
        step.forget()?;
    }
    let pruned: Vec<&Step> = steps.iter().filter(|s| !s.replace).collect();
    remove_emptied_dirs(&pruned, layout, ran);
    let mut changed: Vec<PathBuf> = steps.into_iter().map(|s| s.target).collect();
    changed.sort();
    Ok(changed)
}

/// A second name for `step.target`, so the old file survives its replacement until the
/// transaction is over (a copy where the file system has no hard links).
fn keep_backup(step: &Step) -> io::Result<()> {
    let backup = step.backup_path();
    remove_if_present(&backup)?;
    std::fs::hard_link(&step.target, &backup)
        .or_else(|_| std::fs::copy(&step.target, &backup).map(drop))
        .map_err(at(&backup, "write"))
}

#[cfg(test)]
mod tests;
