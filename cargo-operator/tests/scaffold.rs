//! `cargo operator` as a user runs it: the committed project under testdata/scaffold is exactly
//! what `init` and three `create api` calls write (`UPDATE_GOLDEN=1` rewrites it), and bad
//! requests are refused with what was wrong, leaving every file as it was.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn cargo_operator(cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-operator"))
        .arg("operator")
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

/// `cargo operator <line>`, the line split at spaces.
fn run(cwd: &Path, line: &str) -> Output {
    cargo_operator(cwd, &line.split(' ').collect::<Vec<_>>())
}

fn ok(out: Output) -> Output {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn refused(out: Output) -> String {
    assert!(!out.status.success(), "expected a refusal");
    String::from_utf8(out.stderr).unwrap()
}

/// Every file under `dir` (but a build's `target/` and `Cargo.lock`), with its bytes and
/// whether it is executable.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, bool)> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut files = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().to_path_buf();
            if rel == Path::new("target") || rel == Path::new("Cargo.lock") {
                continue;
            }
            if path.is_dir() {
                todo.push(path);
            } else {
                let exec = path.metadata().unwrap().permissions().mode() & 0o111 != 0;
                files.insert(rel, (std::fs::read(&path).unwrap(), exec));
            }
        }
    }
    files
}

/// A project as testdata/scaffold is made, at `<base>/testdata/scaffold` with operator-rs's
/// crates at `<base>` (so the paths it writes are the committed ones, `../..`).
fn scaffold(base: &Path) -> PathBuf {
    let project = base.join("testdata/scaffold");
    std::fs::create_dir_all(&project).unwrap();
    ok(run(
        base,
        "init testdata/scaffold --domain example.com --project-name guestbook-operator --operator-rs-path .",
    ));
    for api in cargo_operator::EXAMPLE_APIS {
        let mut args = vec!["create", "api"];
        args.extend_from_slice(api);
        ok(cargo_operator(&project, &args));
    }
    project
}

/// A base directory that passes for an operator-rs checkout.
fn fake_checkout() -> tempfile::TempDir {
    let base = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(base.path().join("operator-runtime")).unwrap();
    std::fs::write(base.path().join("operator-runtime/Cargo.toml"), "").unwrap();
    base
}

#[test]
fn the_committed_scaffold_is_what_init_and_create_api_write() {
    let base = fake_checkout();
    let fresh = scaffold(base.path());
    let committed = repo().join("testdata/scaffold");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        let _ = std::fs::remove_dir_all(&committed);
        for (rel, (bytes, exec)) in snapshot(&fresh) {
            let to = committed.join(rel);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(&to, bytes).unwrap();
            if exec {
                use std::os::unix::fs::PermissionsExt as _;
                std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
        }
        return;
    }
    let (fresh, committed) = (snapshot(&fresh), snapshot(&committed));
    let names = |s: &BTreeMap<PathBuf, _>| s.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&fresh),
        names(&committed),
        "testdata/scaffold is stale: UPDATE_GOLDEN=1 cargo test -p cargo-operator --test scaffold"
    );
    for (rel, file) in &fresh {
        assert!(
            &committed[rel] == file,
            "testdata/scaffold/{} is stale: UPDATE_GOLDEN=1 cargo test -p cargo-operator --test scaffold",
            rel.display()
        );
    }
}

#[test]
fn an_existing_kind_and_version_is_refused_and_nothing_changes() {
    let base = fake_checkout();
    let project = scaffold(base.path());
    let before = snapshot(&project);
    let err = refused(run(
        &project.join("guestbook-operator/src"),
        "create api --group webapp --version v1 --kind Guestbook",
    ));
    assert!(err.contains("already has webapp/v1 Guestbook"), "{err}");
    // The same kind name in another group would share its modules.
    let err = refused(run(
        &project,
        "create api --group web --version v1 --kind Guestbook",
    ));
    assert!(err.contains("exists already in group webapp"), "{err}");
    // A new version keeps the kind's scope.
    let err = refused(run(
        &project,
        "create api --group infra --version v1 --kind Backup",
    ));
    assert!(err.contains("is cluster-scoped"), "{err}");
    assert!(snapshot(&project) == before);
}

#[test]
fn invalid_names_are_refused_before_anything_is_written() {
    let base = fake_checkout();
    let project = scaffold(base.path());
    let before = snapshot(&project);
    for (args, wanted) in [
        ("--group Web --version v1 --kind Shop", "--group \"Web\""),
        ("--group web --version 1.0 --kind Shop", "--version \"1.0\""),
        ("--group web --version v1 --kind shop", "--kind \"shop\""),
        ("--group web --version v1 --kind Self", "clash"),
    ] {
        let err = refused(run(&project, &format!("create api {args}")));
        assert!(err.contains(wanted), "{args}: {err}");
    }
    assert!(snapshot(&project) == before);

    let empty = tempfile::tempdir().unwrap();
    let err = refused(run(
        empty.path(),
        "init New_Op --domain example.com --operator-rs-path",
    ));
    assert!(err.contains("--operator-rs-path"), "{err}");
    let err = refused(run(
        empty.path(),
        &format!(
            "init New_Op --domain example.com --operator-rs-path {}",
            base.path().display()
        ),
    ));
    assert!(err.contains("\"New_Op\" is not a DNS label"), "{err}");
    assert!(err.contains("--project-name"), "{err}");
    assert!(!empty.path().join("New_Op").exists());
    let err = refused(run(
        empty.path(),
        &format!(
            "init op --domain localhost --operator-rs-path {}",
            base.path().display()
        ),
    ));
    assert!(err.contains("domain \"localhost\""), "{err}");
    assert!(!empty.path().join("op").exists());
}

#[test]
fn init_refuses_a_directory_with_files_and_create_api_needs_a_project() {
    let base = fake_checkout();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.go"), "package main\n").unwrap();
    let err = refused(run(
        dir.path(),
        &format!(
            "init --domain example.com --project-name op --operator-rs-path {}",
            base.path().display()
        ),
    ));
    assert!(err.contains("is not empty (main.go)"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);

    let err = refused(run(
        dir.path(),
        "create api --group web --version v1 --kind Shop",
    ));
    assert!(err.contains("no PROJECT.toml"), "{err}");
}

#[test]
fn a_scaffold_that_cannot_be_completed_leaves_nothing_half_written() {
    let base = fake_checkout();
    let project = scaffold(base.path());
    // The user removed the line where new controllers are listed.
    let controllers = project.join("guestbook-operator/src/controllers/mod.rs");
    let text = std::fs::read_to_string(&controllers).unwrap();
    std::fs::write(
        &controllers,
        text.replace("// +operator:scaffold:controllers\n", ""),
    )
    .unwrap();
    let before = snapshot(&project);
    let err = refused(run(
        &project,
        "create api --group shop --version v1 --kind Cart",
    ));
    assert!(
        err.contains("guestbook-operator/src/controllers/mod.rs")
            && err.contains("+operator:scaffold:controllers` is gone")
            && err.contains("cart::start,"),
        "{err}"
    );
    assert!(snapshot(&project) == before);
    // Without a controller the same kind goes in.
    ok(run(
        &project,
        "create api --group shop --version v1 --kind Cart --no-controller",
    ));
    assert!(
        project
            .join("guestbook-operator/src/api/shop/v1/cart.rs")
            .is_file()
    );
    assert!(
        !project
            .join("guestbook-operator/src/controllers/cart.rs")
            .exists()
    );
}
