//! The sink's tests: ownership per generator, and writes that are all or none, also when
//! a step fails or the process is killed between steps.

use super::*;

fn artifact(kind: ArtifactKind, name: &str, contents: &str) -> Artifact {
    Artifact {
        kind,
        file_name: name.into(),
        contents: contents.into(),
    }
}

/// Every file under `dir`, relative, with its contents.
fn tree(dir: &Path) -> Vec<(String, String)> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(base, &p, out);
            } else {
                let rel = p.strip_prefix(base).unwrap().display().to_string();
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn write(dir: &Path, rel: &str, contents: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, contents).unwrap();
}

/// A config tree with two CRDs, the role, and hand-written RBAC files.
fn old_tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "crd/bases/a_xs.yaml", "old x\n");
    write(dir.path(), "crd/bases/a_ys.yaml", "old y\n");
    write(dir.path(), "crd/bases/a_gone.yaml", "removed kind\n");
    write(dir.path(), "crd/kustomization.yaml", "hand-written\n");
    write(dir.path(), "rbac/role.yaml", "old role\n");
    write(dir.path(), "rbac/service_account.yaml", "hand-written\n");
    dir
}

fn new_set() -> Vec<Artifact> {
    vec![
        artifact(ArtifactKind::CRD, "a_xs.yaml", "new x\n"),
        artifact(ArtifactKind::CRD, "a_ys.yaml", "old y\n"),
        artifact(ArtifactKind::CRD, "a_zs.yaml", "new z\n"),
        artifact(ArtifactKind::RBAC, "role.yaml", "new role\n"),
    ]
}

#[test]
fn each_generator_touches_only_its_own_files() {
    let dir = old_tree();
    let layout = Layout::kubebuilder(dir.path());
    let before = tree(dir.path());

    let changed = write_all(&new_set(), &layout, &[ArtifactKind::RBAC]).unwrap();
    assert_eq!(changed, vec![dir.path().join("rbac/role.yaml")]);
    let mut expected = before.clone();
    expected
        .iter_mut()
        .find(|(p, _)| p == "rbac/role.yaml")
        .unwrap()
        .1 = "new role\n".into();
    assert_eq!(
        tree(dir.path()),
        expected,
        "rbac alone leaves the CRDs alone"
    );

    let changed = write_all(&new_set(), &layout, &[ArtifactKind::CRD]).unwrap();
    assert_eq!(
        changed,
        ["a_gone.yaml", "a_xs.yaml", "a_zs.yaml"].map(|f| dir.path().join("crd/bases").join(f))
    );
    let after = tree(dir.path());
    assert!(after.contains(&("crd/bases/a_zs.yaml".into(), "new z\n".into())));
    assert!(!after.iter().any(|(p, _)| p == "crd/bases/a_gone.yaml"));
    assert!(after.contains(&("crd/kustomization.yaml".into(), "hand-written\n".into())));
    assert!(after.contains(&("rbac/service_account.yaml".into(), "hand-written\n".into())));
    assert!(after.contains(&("rbac/role.yaml".into(), "new role\n".into())));
    assert!(
        write_all(&new_set(), &layout, &ArtifactKind::all())
            .unwrap()
            .is_empty()
    );
}

#[test]
fn check_looks_only_at_the_generators_that_ran() {
    let dir = old_tree();
    let layout = Layout::kubebuilder(dir.path());
    let rbac = check(&new_set(), &layout, &[ArtifactKind::RBAC]);
    assert_eq!(rbac.len(), 1, "{rbac:?}");
    assert!(matches!(&rbac[0], Drift::Changed { path, .. } if path.ends_with("rbac/role.yaml")));
    let crd = check(&new_set(), &layout, &[ArtifactKind::CRD]);
    let names: Vec<String> = crd.iter().map(|d| d.to_string()).collect();
    assert_eq!(crd.len(), 3, "{names:?}");
    assert!(names[0].contains("a_xs.yaml is stale"));
    assert!(names[1].contains("a_zs.yaml is missing"));
    assert!(names[2].contains("a_gone.yaml is no longer generated"));
}

#[test]
fn a_failure_between_renames_leaves_the_old_set() {
    let steps = 4; // replace x, create z, replace role, prune gone
    for n in 0..steps {
        let dir = old_tree();
        let layout = Layout::kubebuilder(dir.path());
        let before = tree(dir.path());
        let err = write_interrupted(
            &new_set(),
            &layout,
            &ArtifactKind::all(),
            Some(Interrupt::FailBefore(n)),
        )
        .unwrap_err();
        assert!(err.to_string().contains("interrupted"), "{err}");
        assert_eq!(tree(dir.path()), before, "failure before step {n}");
    }
}

#[test]
fn a_killed_write_is_undone_by_the_next_run() {
    for n in 0..4 {
        let dir = old_tree();
        let layout = Layout::kubebuilder(dir.path());
        let before = tree(dir.path());
        write_interrupted(
            &new_set(),
            &layout,
            &ArtifactKind::all(),
            Some(Interrupt::KillBefore(n)),
        )
        .unwrap();
        if n > 0 {
            assert_ne!(tree(dir.path()), before, "a mixed set before recovery");
        }
        let drift = check(&new_set(), &layout, &ArtifactKind::all());
        assert!(
            drift.iter().any(|d| matches!(d, Drift::Interrupted { .. })),
            "{drift:?}"
        );
        let restored = recover(&layout).unwrap();
        assert_eq!(restored.len(), 4);
        assert_eq!(
            tree(dir.path()),
            before,
            "killed before step {n}, recovered"
        );

        // The next write recovers by itself and then writes the whole new set.
        write_interrupted(
            &new_set(),
            &layout,
            &ArtifactKind::all(),
            Some(Interrupt::KillBefore(n)),
        )
        .unwrap();
        write_all(&new_set(), &layout, &ArtifactKind::all()).unwrap();
        assert!(check(&new_set(), &layout, &ArtifactKind::all()).is_empty());
        assert!(
            !tree(dir.path())
                .iter()
                .any(|(p, _)| p.contains(".operator-gen"))
        );
    }
}

#[test]
fn write_errors_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    // `crd/bases` is a file, so the directory cannot be made.
    write(dir.path(), "crd/bases", "not a directory");
    let layout = Layout::kubebuilder(dir.path());
    let err = write_all(&new_set(), &layout, &ArtifactKind::all()).unwrap_err();
    assert!(
        err.to_string()
            .contains(&format!("{}", dir.path().join("crd/bases").display())),
        "{err}"
    );
    assert!(
        !dir.path().join("rbac/role.yaml").exists(),
        "nothing written"
    );
}

#[test]
fn an_output_root_that_is_a_file_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config");
    std::fs::write(&file, "a file\n").unwrap();
    let err = write_all(
        &new_set(),
        &Layout::kubebuilder(&file),
        &ArtifactKind::all(),
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cannot write into {}: it is a file, not a directory",
            file.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "a file\n");
}

/// A generator whose files are a tree (see tests/generators.rs for one that builds them).
struct Tree;

impl crate::Generator for Tree {
    fn name(&self) -> &'static str {
        "tree"
    }
    fn help(&self) -> &'static str {
        "files in subdirectories"
    }
    fn dir(&self) -> &'static str {
        "tree"
    }
    fn owns(&self, path: &str) -> bool {
        path.ends_with(".txt")
    }
    fn reads(&self) -> crate::Reads {
        crate::Reads::default()
    }
}

static TREE: Tree = Tree;

#[test]
fn a_tree_of_files_is_written_pruned_and_recovered_as_one() {
    let kind = ArtifactKind::of(&TREE);
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "tree/a/old.txt", "old\n");
    write(dir.path(), "tree/a/b/gone.txt", "gone\n");
    write(dir.path(), "tree/a/b/notes.md", "hand-written\n");
    write(dir.path(), "tree/c/d/gone.txt", "gone\n");
    let layout = Layout::kubebuilder(dir.path());
    let before = tree(dir.path());
    let set = vec![
        artifact(kind, "a/old.txt", "new\n"),
        artifact(kind, "x/y/z.txt", "created\n"),
    ];
    // replace a/old, create x/y/z, prune a/b/gone and c/d/gone
    for n in 0..4 {
        write_interrupted(&set, &layout, &[kind], Some(Interrupt::KillBefore(n))).unwrap();
        recover(&layout).unwrap();
        assert_eq!(
            tree(dir.path()),
            before,
            "killed before step {n}, recovered"
        );
    }
    let changed = write_all(&set, &layout, &[kind]).unwrap();
    assert_eq!(changed.len(), 4, "{changed:?}");
    assert_eq!(
        tree(dir.path()),
        [
            (
                "tree/a/b/notes.md".to_string(),
                "hand-written\n".to_string()
            ),
            ("tree/a/old.txt".into(), "new\n".into()),
            ("tree/x/y/z.txt".into(), "created\n".into()),
        ]
    );
    assert!(
        !dir.path().join("tree/c").exists(),
        "emptied directories go"
    );
    assert!(check(&set, &layout, &[kind]).is_empty());

    let escaping = [artifact(kind, "../crd/bases/x.txt", "")];
    let err = write_all(&escaping, &layout, &[kind]).unwrap_err();
    assert!(err.to_string().contains("\"../crd/bases/x.txt\""), "{err}");
    assert!(!dir.path().join("crd").exists());
}
