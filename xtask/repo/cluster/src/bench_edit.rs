//! `cargo xtask bench-gen --edit-loop`: the loop a user sits in, side by side. Change a doc
//! comment of the memcached API, regenerate, repeat: `cargo xtask manifests` in a copy of this
//! workspace (cargo's freshness check of the lean xtask included, as typed) against
//! `controller-gen rbac:roleName=manager-role crd webhook paths=./...` (what kubebuilder's
//! `make manifests` runs) on the Go version of the same API (`testdata/parity/memcached/go`).
//! Each run edits first, so each run really regenerates; the tools take turns.
//!
//! The copy lives in `<target>/bench-edit-loop/` with a target directory of its own, so the
//! working tree is never edited; its first build takes a couple of minutes and is kept.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};

use operator_xtask::{as_if_typed, root, target_dir};

use crate::bench_gen::run_quiet;

/// The API file each side edits, relative to its root.
const RUST_API: &str = "memcached/src/api/v1alpha1.rs";
const GO_API: &str = "memcached/go/api/v1alpha1/memcached_types.go";

/// Copies the files git tracks (the working tree's versions) from `from` to `to`.
fn copy_tracked(from: &Path, to: &Path) -> Result<()> {
    let out = Command::new("git")
        .current_dir(from)
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .output()
        .context("running git ls-files")?;
    if !out.status.success() {
        bail!("git ls-files failed in {}", from.display());
    }
    for name in out.stdout.split(|b| *b == 0).filter(|n| !n.is_empty()) {
        let rel = Path::new(std::str::from_utf8(name).context("a file name that is not UTF-8")?);
        let src = from.join(rel);
        // Deleted in the working tree, or a symlink to a directory: skip; symlinks to files are
        // copied as what they point to.
        if !src.is_file() {
            continue;
        }
        let dst = to.join(rel);
        if let Some(parent) = dst.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let bytes = std::fs::read(&src).with_context(|| format!("reading {}", src.display()))?;
        if std::fs::read(&dst).ok().as_deref() != Some(&bytes[..]) {
            std::fs::write(&dst, &bytes).with_context(|| format!("writing {}", dst.display()))?;
        }
    }
    Ok(())
}

/// Appends ` x` to the first line of `file` that starts with `prefix` (a doc comment), or takes
/// it away again: every call changes the generated description.
fn toggle_doc_comment(file: &Path, prefix: &str) -> Result<()> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let mut done = false;
    let lines: Vec<String> = text
        .split_inclusive('\n')
        .map(|line| {
            if done || !line.starts_with(prefix) {
                return line.to_string();
            }
            done = true;
            let body = line.trim_end_matches('\n');
            match body.strip_suffix(" x") {
                Some(original) => format!("{original}\n"),
                None => format!("{body} x\n"),
            }
        })
        .collect();
    if !done {
        bail!("{} has no line starting with {prefix:?}", file.display());
    }
    std::fs::write(file, lines.concat()).with_context(|| format!("writing {}", file.display()))
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

pub fn edit_loop(runs: usize) -> Result<()> {
    let runs = runs.max(5);
    let controller_gen = envtest::components::controller_gen()
        .context("installing controller-gen for the comparison")?;
    let base = target_dir()?.join("bench-edit-loop");
    let workspace = base.join("workspace");
    let go = base.join("go");
    let cargo_target: PathBuf = base.join("target");
    copy_tracked(&root(), &workspace)?;
    let parity = root().join("testdata/parity");
    for file in ["go.mod", "go.sum"] {
        std::fs::create_dir_all(&go)?;
        std::fs::copy(parity.join(file), go.join(file))?;
    }
    copy_tracked(&parity.join("memcached/go"), &go.join("memcached/go"))?;

    let xtask = || {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        as_if_typed(&mut cmd)
            .current_dir(&workspace)
            .env("CARGO_TARGET_DIR", &cargo_target)
            .args(["xtask", "manifests"]);
        cmd
    };
    eprintln!(
        "==> a copy of the workspace in {}: building its lean xtask (a couple of minutes the \
         first time, kept for the next runs)",
        workspace.display()
    );
    let status = xtask()
        .status()
        .context("running cargo xtask manifests in the copy")?;
    if !status.success() {
        bail!("cargo xtask manifests failed in {}", workspace.display());
    }
    let cg_out = go.join("out");
    let controller_gen_run = || {
        let mut cmd = envtest::components::controller_gen_command(&controller_gen, &go);
        cmd.args([
            "rbac:roleName=manager-role".to_string(),
            "crd".into(),
            "webhook".into(),
            "paths=./memcached/go/...".into(),
            format!(
                "output:crd:artifacts:config={}",
                cg_out.join("crd").display()
            ),
            format!(
                "output:rbac:artifacts:config={}",
                cg_out.join("rbac").display()
            ),
            format!(
                "output:webhook:artifacts:config={}",
                cg_out.join("webhook").display()
            ),
        ]);
        cmd
    };
    // controller-gen's first run type-checks k8s.io/apimachinery into Go's build cache; the
    // loop measures warm runs, as a user's second edit is.
    run_quiet(&mut controller_gen_run(), "controller-gen")?;

    eprintln!(
        "==> {runs} edits each: a doc comment of {RUST_API} then `cargo xtask manifests`, \
         and of {GO_API} then controller-gen v{}",
        envtest::components::CONTROLLER_GEN_VERSION
    );
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        toggle_doc_comment(&workspace.join(RUST_API), "    /// ")?;
        let started = Instant::now();
        run_quiet(&mut xtask(), "cargo xtask manifests")?;
        ours.push(started.elapsed());

        toggle_doc_comment(&go.join(GO_API), "\t// ")?;
        let started = Instant::now();
        run_quiet(&mut controller_gen_run(), "controller-gen")?;
        theirs.push(started.elapsed());
    }
    let best = |t: &[Duration]| t.iter().min().copied().unwrap_or_default();
    let (our_best, their_best) = (best(&ours), best(&theirs));
    let (our_median, their_median) = (median(&mut ours), median(&mut theirs));
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!();
    println!("| edit, then regenerate ({runs} runs) | median | best |");
    println!("|---|---:|---:|");
    println!(
        "| `cargo xtask manifests` (memcached, Rust) | {:.0} ms | {:.0} ms |",
        ms(our_median),
        ms(our_best)
    );
    println!(
        "| `controller-gen rbac crd webhook` (memcached, Go) | {:.0} ms | {:.0} ms |",
        ms(their_median),
        ms(their_best)
    );
    println!(
        "| controller-gen / ours (median) | {:.2}x | |",
        their_median.as_secs_f64() / our_median.as_secs_f64()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_doc_comment_is_changed_and_changed_back() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("api.rs");
        let original =
            "struct A {\n    /// Size is the size.\n    pub size: i32,\n    /// Other.\n}\n";
        std::fs::write(&file, original).unwrap();
        toggle_doc_comment(&file, "    /// ").unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "struct A {\n    /// Size is the size. x\n    pub size: i32,\n    /// Other.\n}\n"
        );
        toggle_doc_comment(&file, "    /// ").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), original);
        let err = toggle_doc_comment(&file, "\t// ").unwrap_err();
        assert!(err.to_string().contains("no line starting with"), "{err}");
    }
}
