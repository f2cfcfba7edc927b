//! A scaffold as a set of changes, checked whole before the first byte is written and undone
//! whole when any write fails: new files (never over an existing one) and edits of existing
//! files (each made against the text read when the plan was made, refused if it changed since).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};

/// The changes to one project directory, by path relative to it.
#[derive(Debug)]
pub struct Plan {
    root: PathBuf,
    changes: BTreeMap<PathBuf, Change>,
}

#[derive(Debug, Clone)]
enum Change {
    Create { text: String, executable: bool },
    Edit { before: String, after: String },
}

/// What [`Plan::apply`] did, to undo it.
#[derive(Debug, Default)]
pub struct Applied {
    created: Vec<PathBuf>,
    created_dirs: Vec<PathBuf>,
    edited: Vec<(PathBuf, String)>,
}

impl Plan {
    pub fn new(root: &Path) -> Plan {
        Plan {
            root: root.to_path_buf(),
            changes: BTreeMap::new(),
        }
    }

    /// A new file; refused (when applied) if one exists.
    pub fn create(&mut self, path: impl Into<PathBuf>, text: String) {
        self.changes.insert(
            path.into(),
            Change::Create {
                text,
                executable: false,
            },
        );
    }

    /// A new executable script.
    pub fn create_executable(&mut self, path: impl Into<PathBuf>, text: String) {
        self.changes.insert(
            path.into(),
            Change::Create {
                text,
                executable: true,
            },
        );
    }

    /// Whether `path` exists, on disk or in this plan.
    pub fn exists(&self, path: &Path) -> bool {
        self.changes.contains_key(path) || self.root.join(path).exists()
    }

    /// The text of `path` as this plan leaves it (created or edited earlier in it, else on
    /// disk).
    pub fn read(&self, path: &Path) -> Result<String> {
        match self.changes.get(path) {
            Some(Change::Create { text, .. } | Change::Edit { after: text, .. }) => {
                Ok(text.clone())
            }
            None => {
                let full = self.root.join(path);
                std::fs::read_to_string(&full)
                    .with_context(|| format!("cannot read {}", full.display()))
            }
        }
    }

    /// Changes a file (on disk, or created earlier in this plan) with `edit`.
    pub fn edit(
        &mut self,
        path: impl Into<PathBuf>,
        edit: impl FnOnce(&str) -> Result<String>,
    ) -> Result<()> {
        let path = path.into();
        match self.changes.get_mut(&path) {
            Some(Change::Create { text, .. } | Change::Edit { after: text, .. }) => {
                *text = edit(text).with_context(|| path.display().to_string())?;
            }
            None => {
                let full = self.root.join(&path);
                let before = std::fs::read_to_string(&full)
                    .with_context(|| format!("cannot read {}", full.display()))?;
                let after = edit(&before).with_context(|| path.display().to_string())?;
                self.changes.insert(path, Change::Edit { before, after });
            }
        }
        Ok(())
    }

    /// Passes the text of every planned `.rs` file through `format`.
    pub fn format_rust(&mut self, format: impl Fn(&str) -> Result<String>) -> Result<()> {
        for (path, change) in &mut self.changes {
            if path.extension().is_some_and(|e| e == "rs") {
                let (Change::Create { text, .. } | Change::Edit { after: text, .. }) = change;
                *text = format(text).with_context(|| format!("formatting {}", path.display()))?;
            }
        }
        Ok(())
    }

    /// The planned files and their new text, in path order.
    pub fn files(&self) -> impl Iterator<Item = (&Path, &str)> {
        self.changes.iter().map(|(path, change)| {
            let (Change::Create { text, .. } | Change::Edit { after: text, .. }) = change;
            (path.as_path(), text.as_str())
        })
    }

    /// Checks every change, then writes them all; on a failed write, undoes what was written.
    pub fn apply(&self) -> Result<Applied> {
        for (path, change) in &self.changes {
            let full = self.root.join(path);
            match change {
                Change::Create { .. } if full.exists() => {
                    bail!(
                        "{} exists already; the scaffold does not overwrite files",
                        full.display()
                    )
                }
                Change::Edit { before, .. } => {
                    let now = std::fs::read_to_string(&full)
                        .with_context(|| format!("cannot read {}", full.display()))?;
                    if &now != before {
                        bail!("{} changed while the scaffold was made", full.display());
                    }
                }
                Change::Create { .. } => {}
            }
        }
        let mut applied = Applied::default();
        match self.write_all(&mut applied) {
            Ok(()) => Ok(applied),
            Err(err) => {
                applied.undo();
                Err(err.context("nothing was changed"))
            }
        }
    }

    fn write_all(&self, applied: &mut Applied) -> Result<()> {
        for (path, change) in &self.changes {
            let full = self.root.join(path);
            if let Some(parent) = full.parent() {
                let missing: Vec<&Path> = parent.ancestors().take_while(|d| !d.exists()).collect();
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
                applied
                    .created_dirs
                    .extend(missing.into_iter().rev().map(Path::to_path_buf));
            }
            match change {
                Change::Create { text, executable } => {
                    write_new(&full, text)?;
                    applied.created.push(full.clone());
                    if *executable {
                        set_executable(&full)?;
                    }
                }
                Change::Edit { before, after } => {
                    write_over(&full, after)?;
                    applied.edited.push((full, before.clone()));
                }
            }
        }
        Ok(())
    }
}

/// Writes a file that must not exist yet.
fn write_new(path: &Path, text: &str) -> Result<()> {
    use std::io::Write as _;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .with_context(|| format!("cannot create {}", path.display()))?;
    file.write_all(text.as_bytes())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// Replaces a file's text through a temporary file and a rename, so it is old or new, never
/// half-written.
fn write_over(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("scaffold-tmp");
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))
}

#[cfg(unix)]
fn set_executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make {} executable", path.display()))
}

#[cfg(not(unix))]
fn set_executable(_: &Path) -> Result<()> {
    Ok(())
}

impl Applied {
    /// Puts back every edited file and removes every created file and directory.
    pub fn undo(self) {
        for (path, before) in self.edited.iter().rev() {
            if let Err(e) = write_over(path, before) {
                eprintln!("error: could not restore {}: {e:#}", path.display());
            }
        }
        for path in self.created.iter().rev() {
            let _ = std::fs::remove_file(path);
        }
        for dir in self.created_dirs.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Inserts `line` before the line holding only `anchor` (a `+operator:scaffold:` comment),
/// with its indentation; a no-op when the line is there already.
pub fn insert_before_anchor(text: &str, anchor: &str, line: &str) -> Result<String> {
    if text.lines().any(|l| l.trim() == line.trim()) {
        return Ok(text.to_string());
    }
    let Some(at) = text.lines().position(|l| l.trim() == anchor) else {
        bail!(
            "the line `{anchor}` is gone; it marks where `cargo operator` adds entries. Put it \
             back, or add this by hand: {}",
            line.trim()
        );
    };
    let mut out = String::with_capacity(text.len() + line.len() + 8);
    for (i, l) in text.lines().enumerate() {
        if i == at {
            let indent = &l[..l.len() - l.trim_start().len()];
            out.push_str(indent);
            out.push_str(line.trim());
            out.push('\n');
        }
        out.push_str(l);
        out.push('\n');
    }
    Ok(out)
}

/// Inserts the lines of `block` before the line holding only `anchor`, each indented as the
/// anchor is (keeping their own indentation inside the block).
pub fn insert_block_before_anchor(text: &str, anchor: &str, block: &str) -> Result<String> {
    let Some(at) = text.lines().position(|l| l.trim() == anchor) else {
        bail!(
            "the line `{anchor}` is gone; it marks where `cargo operator` adds code. Put it \
             back, or add this there by hand:\n{}",
            block.trim_end()
        );
    };
    let mut out = String::with_capacity(text.len() + block.len() + 64);
    for (i, l) in text.lines().enumerate() {
        if i == at {
            let indent = &l[..l.len() - l.trim_start().len()];
            for b in block.lines() {
                if !b.trim().is_empty() {
                    out.push_str(indent);
                    out.push_str(b);
                }
                out.push('\n');
            }
        }
        out.push_str(l);
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_goes_before_its_anchor_once_with_its_indentation() {
        let text = "a\n    // +operator:scaffold:x\nb\n";
        let once = insert_before_anchor(text, "// +operator:scaffold:x", "one,").unwrap();
        assert_eq!(once, "a\n    one,\n    // +operator:scaffold:x\nb\n");
        let twice = insert_before_anchor(&once, "// +operator:scaffold:x", "one,").unwrap();
        assert_eq!(twice, once);
        let err = insert_before_anchor("a\n", "// +operator:scaffold:x", "one,").unwrap_err();
        assert!(err.to_string().contains("is gone"), "{err}");
    }

    #[test]
    fn a_block_goes_before_its_anchor_indented_as_the_anchor() {
        let text = "a:\n  # +operator:scaffold:x\nb\n";
        let got =
            insert_block_before_anchor(text, "# +operator:scaffold:x", "- one\n\n  two\n").unwrap();
        assert_eq!(got, "a:\n  - one\n\n    two\n  # +operator:scaffold:x\nb\n");
        let err = insert_block_before_anchor("a\n", "# +operator:scaffold:x", "- one\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("is gone") && err.ends_with("by hand:\n- one"),
            "{err}"
        );
    }

    #[test]
    fn a_failed_write_undoes_the_others() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("edited.txt"), "before\n").unwrap();
        // A directory where the plan wants to create a file: the write fails.
        std::fs::create_dir_all(dir.path().join("z/blocked")).unwrap();
        let mut plan = Plan::new(dir.path());
        plan.create("a/new.txt", "new\n".into());
        plan.edit("edited.txt", |t| Ok(t.replace("before", "after")))
            .unwrap();
        plan.create("z/blocked/inner/x.txt", "x".into());
        std::fs::remove_dir(dir.path().join("z/blocked")).unwrap();
        std::fs::write(dir.path().join("z/blocked"), "a file, not a directory").unwrap();
        let err = plan.apply().unwrap_err();
        assert!(
            format!("{err:#}").contains("nothing was changed"),
            "{err:#}"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("edited.txt")).unwrap(),
            "before\n"
        );
        assert!(!dir.path().join("a").exists());
    }

    #[test]
    fn existing_files_are_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "mine").unwrap();
        let mut plan = Plan::new(dir.path());
        plan.create("g", "new".into());
        plan.create("f", "theirs".into());
        let err = plan.apply().unwrap_err().to_string();
        assert!(err.contains("exists already"), "{err}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("f")).unwrap(),
            "mine"
        );
        assert!(!dir.path().join("g").exists());
    }
}
