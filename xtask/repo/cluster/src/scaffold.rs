//! The end of this repository's `cargo xtask test`: a new project made as a user of the
//! released crates would make it, without a registry upload.
//!
//! 1. `cargo package` packs every crate an operator project depends on (the workspace members
//!    that are not `publish = false`), as `cargo publish` would upload them.
//! 2. Those packages become a registry on the local disk ([`registry`]), which the steps after
//!    reach through `[patch.crates-io]`: the project's manifests name crates.io, as a user's
//!    do, and everything else comes from crates.io.
//! 3. `cargo install cargo-operator` from it, then that binary's `cargo operator init
//!    --operator-rs-version <this version>`, `create api` for a namespaced kind, a second
//!    version of it and a cluster-scoped kind in another group, and `create webhook` for
//!    every kind of webhook (defaulting and validating for both kinds, a conversion between
//!    the first kind's versions), then `create api --external --from-crd` with
//!    cert-manager's Certificate CRD (a kind of another project's, with a controller), and
//!    the book's example on it: a controller through which Guestbooks own Certificates.
//! 4. The new project depends on nothing of this repository by path or git, and on no
//!    cargo-operator; its units are compared with the workspace's and its dependencies'
//!    features aligned with the workspace's ([`units`]); its own `cargo xtask manifests
//!    --check` and `cargo xtask test` must pass on the control plane that is up, every
//!    operator-rs crate built from its package.
//!
//! 5. A second project, namespace-scoped (`init --namespaced`), passes its own `cargo xtask
//!    test` too: its controllers and its whole manager run as the operator's service account
//!    under the Roles it generated, and the audit log shows every request granted by them.
//!
//! It shares this workspace's target directory and lock file, so the crates.io dependencies'
//! builds are the workspace's, and the project builds only operator-rs's crates (from their
//! packages) and its own.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use anyhow::{Context as _, Result, bail};
use operator_xtask::{cargo, root, run_step, target_dir};
use operator_xtask_cluster::cluster::{self, TestPlane};

/// cert-manager's Certificate CRD, in its release's `deploy/crds`: the external kind of the
/// new project.
const CERTIFICATE_CRD: &str = "cert-manager.io_certificates.yaml";

/// The local registry's name in the project's cargo configuration.
const SOURCE: &str = "operator-rs-packages";

mod registry;
mod units;

pub fn fresh_project_passes_its_tests(plane: &TestPlane) -> Result<()> {
    let root = root();
    let target = target_dir()?;
    let scratch = tempfile::tempdir().context("a temporary directory")?;

    let started = Instant::now();
    let crates = publishable()?;
    let packages = package(&crates, &target)?;
    let packaged = started.elapsed();

    let started = Instant::now();
    let index = registry::write(
        &scratch.path().join("registry"),
        &packages,
        &operator_xtask::workspace_metadata()?,
    )?;
    // Read by every cargo run below the scratch directory (the project and all the cargo runs
    // its xtask starts); `cargo install` reads only its own home, so it gets the file with
    // --config. The project's manifests name crates.io, as a user's do; the patch serves
    // operator-rs's crates from the packages.
    let config = scratch.path().join(".cargo").join("config.toml");
    std::fs::create_dir_all(config.parent().context("the config's directory")?)
        .context("creating the scratch .cargo")?;
    let mut text = format!(
        "# operator-rs's crates from their packages, as if published; the rest from crates.io.\n\
         [registries.{SOURCE}]\nindex = {}\n\n[patch.crates-io]\n",
        serde_json::Value::String(index)
    );
    // Not the scaffolder: it is installed (below), never a dependency.
    for krate in crates.iter().filter(|c| c.name != "cargo-operator") {
        text.push_str(&format!(
            "{} = {{ version = \"={}\", registry = \"{SOURCE}\" }}\n",
            krate.name, krate.version
        ));
    }
    std::fs::write(&config, text).context("writing the scratch cargo configuration")?;
    let registry_made = started.elapsed();

    let version = &crates
        .iter()
        .find(|c| c.name == "cargo-operator")
        .context("cargo-operator is not among the publishable crates")?
        .version;
    let started = Instant::now();
    let installed = scratch.path().join("installed");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))
        .context("reading the workspace's Cargo.toml")?;
    let mut install = cargo();
    install
        .args([
            "install",
            "--quiet",
            "--debug",
            // The versions of the package's Cargo.lock (the workspace's): without it, cargo
            // resolves the newest, and every crate with a newer release is a build of its own.
            "--locked",
            "--registry",
            SOURCE,
            "--config",
        ])
        .arg(&config);
    // `cargo install` builds the package alone, with cargo's default dev profile: given the
    // workspace's instead, the crates.io dependencies it shares with the workspace are the
    // workspace's builds in the same target directory, not a second build of the kube stack.
    for setting in profile_settings(&manifest)? {
        install.arg("--config").arg(setting);
    }
    run_step(
        "cargo install cargo-operator (from the packaged crates)",
        install
            .args(["--root"])
            .arg(&installed)
            .arg(format!("cargo-operator@={version}"))
            .current_dir(scratch.path())
            .env("CARGO_TARGET_DIR", &target),
    )?;
    let install = started.elapsed();
    let scaffolder = installed.join("bin").join("cargo-operator");
    let project = scratch.path().join("guestbook-operator");

    let started = Instant::now();
    run_step(
        &format!("cargo operator init --operator-rs-version {version} (in a temporary directory)"),
        Command::new(&scaffolder)
            .args(["operator", "init"])
            .arg(&project)
            .args(["--domain", "example.com", "--operator-rs-version", version])
            .current_dir(scratch.path()),
    )?;
    for api in cargo_operator::EXAMPLE_APIS {
        run_step(
            &format!("cargo operator create api {}", api.join(" ")),
            Command::new(&scaffolder)
                .args(["operator", "create", "api"])
                .args(*api)
                .current_dir(&project),
        )?;
    }
    // The example's webhooks, then every other kind: this project's own `cargo xtask test`
    // is where they are built, linted and tested.
    let webhooks = cargo_operator::EXAMPLE_WEBHOOKS
        .iter()
        .chain(cargo_operator::MORE_WEBHOOKS);
    for webhook in webhooks.clone() {
        run_step(
            &format!("cargo operator create webhook {}", webhook.join(" ")),
            Command::new(&scaffolder)
                .args(["operator", "create", "webhook"])
                .args(*webhook)
                .current_dir(&project),
        )?;
    }
    let scaffolded = started.elapsed();
    // A kind of another project's CRD: cert-manager's Certificate, from the pinned release's
    // CRD file kept in the project, with a controller for it whose cluster test runs below
    // against the CRD installed from that file.
    let started = Instant::now();
    external_certificates(&scaffolder, &project)?;
    // The book's worked example on it: the Guestbook's controller of its Certificate.
    owns_certificates(&project)?;
    let external_made = started.elapsed();
    nothing_from_this_repository(&project, &root)?;
    // The same dependency versions as this workspace, so their builds are shared; cargo
    // turns the entries of this workspace's own crates into the registry's.
    std::fs::copy(root.join("Cargo.lock"), project.join("Cargo.lock"))
        .context("copying Cargo.lock")?;

    let in_project = |args: &[&str]| in_project(&project, &target, args);
    let started = Instant::now();
    let shared = align_features(&root, &project, &mut || in_project(&[]))?;
    let aligned = started.elapsed();
    let started = Instant::now();
    // The example controller's #[rbac] markers, into the generated role.
    run_step(
        "the new project's cargo xtask manifests",
        &mut in_project(&["xtask", "manifests"]),
    )?;
    run_step(
        "the new project's cargo xtask manifests --check",
        &mut in_project(&["xtask", "manifests", "--check"]),
    )?;
    let manifests = started.elapsed();
    // Every publishable crate but the scaffolder is in the project's tree, and came from its
    // package; the scaffolder is installed, never built into a project.
    let lock = std::fs::read_to_string(project.join("Cargo.lock"))
        .context("reading the new project's Cargo.lock")?;
    if lock.contains("[[package]]\nname = \"cargo-operator\"\n") {
        bail!("the new project builds cargo-operator: a published crate it depends on pulls it in");
    }
    for krate in crates.iter().filter(|c| c.name != "cargo-operator") {
        let entry = format!(
            "name = \"{}\"\nversion = \"{}\"\nsource = ",
            krate.name, krate.version
        );
        if !lock.contains(&entry) {
            bail!(
                "the new project's Cargo.lock has no {} {} from a registry",
                krate.name,
                krate.version
            );
        }
    }
    let started = Instant::now();
    eprintln!("==> the new project's cargo xtask test");
    passed_through(in_project(&["xtask", "test"]))?;
    let tested = started.elapsed();
    // Its controllers' cluster tests ran (not skipped) and passed, and so did its webhooks'
    // unit tests (run beside the plane). Each lane's output is in its log.
    let log = operator_xtask_cluster::test::beside_log(&target, &project);
    let beside =
        std::fs::read_to_string(&log).with_context(|| format!("reading {}", log.display()))?;
    let output = operator_xtask_cluster::test::cluster_tests_output(&target, &project)?;
    let cluster_tests = [
        "a_new_guestbook_becomes_ready_and_its_deletion_completes",
        "a_new_backup_becomes_ready_and_its_deletion_completes",
        "the_api_server_calls_the_webhooks",
        "a_new_certificate_is_observed",
        "a_guestbook_owns_its_certificate",
    ];
    let runs = cluster_tests.iter().map(|test| (test, &output));
    let unit_runs = cargo_operator::MORE_WEBHOOKS_UNIT_TESTS
        .iter()
        .map(|test| (test, &beside));
    for (test, output) in runs.chain(unit_runs) {
        if !output
            .lines()
            .any(|l| l.starts_with(&format!("test {test} ... ok")))
        {
            bail!("the new project's cargo xtask test did not run {test}");
        }
    }
    let started = Instant::now();
    namespaced_project_passes_its_tests(
        plane,
        &scaffolder,
        scratch.path(),
        version,
        &root,
        &target,
    )?;
    let namespaced = started.elapsed();
    eprintln!(
        "scaffold from the packages: cargo package ({} crates) {:.1}s, registry {:.1}s, \
         cargo install cargo-operator {:.0}s; init + {} create api + {} create webhook in \
         {:.2}s, create api --external (cert-manager's Certificate) {:.2}s; units compared and aligned in {:.1}s ({shared}); its cargo xtask manifests \
         --check {:.1}s, cargo xtask test {:.0}s; the namespace-scoped project in {:.0}s",
        crates.len(),
        packaged.as_secs_f64(),
        registry_made.as_secs_f64(),
        install.as_secs_f64(),
        cargo_operator::EXAMPLE_APIS.len(),
        webhooks.count(),
        scaffolded.as_secs_f64(),
        external_made.as_secs_f64(),
        aligned.as_secs_f64(),
        manifests.as_secs_f64(),
        tested.as_secs_f64(),
        namespaced.as_secs_f64()
    );
    Ok(())
}

/// `cargo` in `project`, as if typed there, building into `target` and using the control
/// plane that is up.
fn in_project(project: &Path, target: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    operator_xtask::as_if_typed(&mut cmd);
    cmd.args(args)
        .current_dir(project)
        .env("CARGO_TARGET_DIR", target)
        .env("ENVTEST_STATE_DIR", cluster::state_dir());
    cmd
}

/// A namespace-scoped project (`init --namespaced`): a kind with its controller and
/// cert-manager's Certificate with one, every rule in Roles. Its own `cargo xtask test`
/// passes with its controllers and its whole manager (the binary, with leader election and
/// `--watch-namespace`; `scaffold/namespaced_manager_test.rs`) running as the operator's
/// service account under those Roles only, and the audit log showing every request of it
/// granted by a Role.
fn namespaced_project_passes_its_tests(
    plane: &TestPlane,
    scaffolder: &Path,
    scratch: &Path,
    version: &str,
    root: &Path,
    target: &Path,
) -> Result<()> {
    let project = scratch.join("tenant-operator");
    run_step(
        "cargo operator init --namespaced (a second project, namespace-scoped)",
        Command::new(scaffolder)
            .args(["operator", "init"])
            .arg(&project)
            .args(["--domain", "example.com", "--namespaced"])
            .args(["--operator-rs-version", version])
            .current_dir(scratch),
    )?;
    let api = [
        "--group",
        "cache",
        "--version",
        "v1alpha1",
        "--kind",
        "Memcached",
    ];
    run_step(
        &format!("cargo operator create api {}", api.join(" ")),
        Command::new(scaffolder)
            .args(["operator", "create", "api"])
            .args(api)
            .current_dir(&project),
    )?;
    external_certificates(scaffolder, &project)?;
    let test = project.join("tenant-operator/tests/manager.rs");
    std::fs::write(
        &test,
        include_str!("../scaffold/namespaced_manager_test.rs"),
    )
    .with_context(|| format!("writing {}", test.display()))?;
    nothing_from_this_repository(&project, root)?;
    std::fs::copy(root.join("Cargo.lock"), project.join("Cargo.lock"))
        .context("copying Cargo.lock")?;
    let shared = align_features(root, &project, &mut || in_project(&project, target, &[]))?;
    eprintln!("==> the namespace-scoped project: {shared}");
    run_step(
        "the namespace-scoped project's cargo xtask manifests",
        &mut in_project(&project, target, &["xtask", "manifests"]),
    )?;
    run_step(
        "the namespace-scoped project's cargo xtask manifests --check",
        &mut in_project(&project, target, &["xtask", "manifests", "--check"]),
    )?;
    let role = std::fs::read_to_string(project.join("config/rbac/role.yaml"))
        .context("reading the namespace-scoped project's config/rbac/role.yaml")?;
    if role.contains("kind: ClusterRole") || !role.contains("kind: Role") {
        bail!("the namespace-scoped project's role.yaml should hold Roles only:\n{role}");
    }
    let log = envtest::audit::log_beside(&plane.kubeconfig)
        .context("the control plane has no audit log to prove the Roles with")?;
    let from = envtest::audit::mark(&log);
    eprintln!("==> the namespace-scoped project's cargo xtask test");
    passed_through(in_project(&project, target, &["xtask", "test"]))?;
    let output = operator_xtask_cluster::test::cluster_tests_output(target, &project)?;
    for test in [
        "a_new_memcached_becomes_ready_and_its_deletion_completes",
        "a_new_certificate_is_observed",
        "the_manager_runs_in_its_namespace_under_its_roles",
    ] {
        if !output
            .lines()
            .any(|l| l.starts_with(&format!("test {test} ... ok")))
        {
            bail!("the namespace-scoped project's cargo xtask test did not run {test}");
        }
    }
    // Its own run reported from the same log and refused a request no grant covers; here the
    // requests must also exist, and every grant they used be a Role's.
    let requests = envtest::audit::read_from(&log, from, operator_xtask_cluster::test::is_operator)
        .context("reading the audit log")?;
    if requests.is_empty() {
        bail!("the namespace-scoped project's tests made no request as its operator");
    }
    let report = envtest::audit::Report::new(&envtest::audit::grants(&role)?, &requests);
    if let Some((request, _)) = report.refused.first() {
        bail!(
            "the namespace-scoped operator was refused {}",
            request.what()
        );
    }
    if let Some((grant, _)) = report
        .grants
        .iter()
        .find(|(g, used)| *used > 0 && g.namespace.is_none())
    {
        bail!(
            "the namespace-scoped operator used a grant that is not a Role's: {} {}/{}",
            grant.verb,
            grant.group,
            grant.resource
        );
    }
    Ok(())
}

/// `create api --external --from-crd` with cert-manager's Certificate CRD, copied into the
/// project's `third_party/` first.
fn external_certificates(scaffolder: &Path, project: &Path) -> Result<()> {
    let certificates = envtest::certmanager::crds_dir()
        .context("cert-manager's CRDs")?
        .join(CERTIFICATE_CRD);
    let kept = project.join("third_party").join(CERTIFICATE_CRD);
    std::fs::create_dir_all(kept.parent().context("third_party")?)
        .context("creating third_party/")?;
    std::fs::copy(&certificates, &kept)
        .with_context(|| format!("copying {}", certificates.display()))?;
    let from = format!("third_party/{CERTIFICATE_CRD}");
    let external = ["--external", "--from-crd", from.as_str()];
    run_step(
        &format!("cargo operator create api {}", external.join(" ")),
        Command::new(scaffolder)
            .args(["operator", "create", "api"])
            .args(external)
            .current_dir(project),
    )
}

/// Adds the controller through which the project's Guestbooks own cert-manager Certificates,
/// and its cluster test (`scaffold/guestbook_certificate*.rs`, the worked example of the
/// book's "Kinds you did not write"), registered as `create api` registers a controller.
fn owns_certificates(project: &Path) -> Result<()> {
    let krate = project.join("guestbook-operator");
    let write = |rel: &str, text: &str| {
        let path = krate.join(rel);
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
    };
    write(
        "src/controllers/guestbook_certificate.rs",
        include_str!("../scaffold/guestbook_certificate.rs"),
    )?;
    write(
        "tests/guestbook_certificate.rs",
        include_str!("../scaffold/guestbook_certificate_test.rs"),
    )?;
    let controllers = krate.join("src/controllers/mod.rs");
    let text = std::fs::read_to_string(&controllers)
        .with_context(|| format!("reading {}", controllers.display()))?;
    let text = cargo_operator::plan::insert_before_anchor(
        &text,
        "// +operator:scaffold:controller-modules",
        "pub mod guestbook_certificate;",
    )?;
    let text = cargo_operator::plan::insert_before_anchor(
        &text,
        "// +operator:scaffold:controllers",
        "guestbook_certificate::start,",
    )?;
    std::fs::write(&controllers, text).with_context(|| format!("writing {}", controllers.display()))
}

/// Compares the project's units with the workspace's and, where the workspace's features
/// differ, adds the alignment member to the project ([`units`]); says how many of the
/// project's crates.io units the workspace has built.
fn align_features(
    root: &Path,
    project: &Path,
    in_project: &mut dyn FnMut() -> Command,
) -> Result<String> {
    let host = host_triple()?;
    let workspace = units::Graph::of(root, &host, &mut cargo())?;
    let before = units::Graph::of(project, &host, &mut in_project())?;
    let alignment = before.misaligned(&workspace);
    let (total, shared) = before.shared_with(&workspace);
    if alignment.is_empty() {
        return Ok(format!(
            "{shared} of its {total} crates.io units are the workspace's"
        ));
    }
    eprintln!(
        "==> the workspace builds these crates with more features than the new project: {}; \
         the project gets a member turning them on ({}), so that it reuses their builds",
        alignment.packages().join(", "),
        units::ALIGNMENT
    );
    alignment.write(project)?;
    let after = units::Graph::of(project, &host, &mut in_project())?;
    let (total_after, shared_after) = after.shared_with(&workspace);
    Ok(format!(
        "{shared_after} of its {total_after} crates.io units are the workspace's, \
         {shared} of {total} before aligning {} crates",
        alignment.packages().len()
    ))
}

/// The host's target triple, from `rustc -vV`.
fn host_triple() -> Result<String> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc)
        .arg("-vV")
        .output()
        .context("starting rustc -vV")?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .context("rustc -vV names no host")
}

/// `cargo xtask scaffold-test`: [`fresh_project_passes_its_tests`] with the control plane
/// brought up (or reused) around it.
pub fn on_its_own() -> Result<()> {
    let plane = cluster::test_plane_up()?;
    let result = fresh_project_passes_its_tests(&plane);
    let down = plane.down();
    result.and(down)
}

/// A workspace member that `cargo publish` would upload.
#[derive(Debug)]
struct Publishable {
    name: String,
    version: String,
}

/// The workspace members without `publish = false`, from `cargo metadata`.
fn publishable() -> Result<Vec<Publishable>> {
    let meta = operator_xtask::workspace_metadata()?;
    let crates: Vec<Publishable> = meta["packages"]
        .as_array()
        .context("cargo metadata: no packages")?
        .iter()
        // `publish = false` is an empty list of registries; null is crates.io.
        .filter(|p| p["publish"].as_array().is_none_or(|r| !r.is_empty()))
        .map(|p| Publishable {
            name: p["name"].as_str().unwrap_or_default().to_string(),
            version: p["version"].as_str().unwrap_or_default().to_string(),
        })
        .collect();
    if crates.is_empty() {
        bail!("no workspace member is publishable");
    }
    Ok(crates)
}

/// `cargo package` of `crates` (their contents as `cargo publish` would upload them); the
/// paths of the `.crate` files. They are compiled from the packages by the steps after, which
/// is the verification `cargo package` would otherwise do in a build of its own.
fn package(crates: &[Publishable], target: &Path) -> Result<Vec<registry::Package>> {
    let mut cmd = cargo();
    cmd.args(["package", "--no-verify", "--allow-dirty", "--quiet"]);
    for krate in crates {
        cmd.args(["--package", &krate.name]);
    }
    run_step(
        &format!(
            "cargo package {}",
            crates
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        ),
        &mut cmd,
    )?;
    let mut files = Vec::new();
    for krate in crates {
        let file = target
            .join("package")
            .join(format!("{}-{}.crate", krate.name, krate.version));
        let size = std::fs::metadata(&file)
            .with_context(|| format!("cargo package wrote no {}", file.display()))?
            .len();
        let listed = Command::new("tar")
            .arg("-tzf")
            .arg(&file)
            .output()
            .context("starting tar")?;
        if !listed.status.success() {
            bail!("tar cannot list {}", file.display());
        }
        let listed = String::from_utf8_lossy(&listed.stdout).into_owned();
        let entries: Vec<&str> = listed
            .lines()
            .filter_map(|l| l.split_once('/').map(|(_, rest)| rest))
            .collect();
        contents_are_fit_to_publish(&krate.name, &entries)?;
        eprintln!(
            "    {} {} ({:.1} KiB, {} files)",
            krate.name,
            krate.version,
            size as f64 / 1024.0,
            entries.len()
        );
        files.push(registry::Package {
            name: krate.name.clone(),
            version: krate.version.clone(),
            file,
        });
    }
    Ok(files)
}

/// A package holds its README and license, and none of the repository's tests, benchmarks or
/// fixtures (which need the rest of the repository and only make the download bigger).
fn contents_are_fit_to_publish(name: &str, entries: &[&str]) -> Result<()> {
    for needed in ["Cargo.toml", "README.md", "LICENSE"] {
        if !entries.contains(&needed) {
            bail!("the package of {name} has no {needed}");
        }
    }
    let unwanted = [
        "tests/",
        "benches/",
        "testdata/",
        "proptest-regressions/",
        "target/",
    ];
    if let Some(entry) = entries
        .iter()
        .find(|e| unwanted.iter().any(|u| e.starts_with(u)))
    {
        bail!("the package of {name} holds {entry}, which a user of the crate does not need");
    }
    Ok(())
}

/// Fails if a manifest of `project` names a path outside it or a git repository: the project
/// must build from the packages alone.
fn nothing_from_this_repository(project: &Path, repository: &Path) -> Result<()> {
    let mut manifests = vec![project.join("Cargo.toml")];
    let mut dirs = vec![project.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?
        {
            let path = entry.context("reading a directory entry")?.path();
            if path.is_dir()
                && path
                    .file_name()
                    .is_some_and(|n| n != "target" && n != ".git")
            {
                if path.join("Cargo.toml").is_file() {
                    manifests.push(path.join("Cargo.toml"));
                }
                dirs.push(path);
            }
        }
    }
    for manifest in manifests {
        let text = std::fs::read_to_string(&manifest)
            .with_context(|| format!("reading {}", manifest.display()))?;
        for (number, line) in text.lines().enumerate() {
            let named = |key: &str| line.contains(&format!("{key} = \""));
            let outside = named("path") && {
                let value = line
                    .split("path = \"")
                    .nth(1)
                    .and_then(|v| v.split('"').next());
                value.is_some_and(|v| {
                    let at = manifest.parent().unwrap_or(project).join(v);
                    let at = cargo_operator::absolute(project, &at);
                    !at.starts_with(project) || at.starts_with(repository)
                })
            };
            if outside || named("git") {
                bail!(
                    "{}:{}: the new project depends on something outside it: {}",
                    manifest.display(),
                    number + 1,
                    line.trim()
                );
            }
        }
    }
    Ok(())
}

/// The workspace's `[profile.dev]` (from its manifest's text), as `--config` settings:
/// `profile.dev.debug="line-tables-only"`, `profile.dev.package."*".opt-level=1`, ...
fn profile_settings(workspace_manifest: &str) -> Result<Vec<String>> {
    fn key(part: &str) -> String {
        let bare = !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if bare {
            part.to_string()
        } else {
            toml::Value::String(part.to_string()).to_string()
        }
    }
    fn flatten(prefix: &str, table: &toml::Table, out: &mut Vec<String>) {
        for (name, value) in table {
            let path = format!("{prefix}.{}", key(name));
            match value {
                toml::Value::Table(inner) => flatten(&path, inner, out),
                leaf => out.push(format!("{path}={leaf}")),
            }
        }
    }
    let manifest: toml::Table = workspace_manifest
        .parse()
        .context("parsing the workspace's Cargo.toml")?;
    let dev = manifest
        .get("profile")
        .and_then(|p| p.get("dev"))
        .and_then(toml::Value::as_table)
        .context("the workspace's Cargo.toml has no [profile.dev]")?;
    let mut settings = Vec::new();
    flatten("profile.dev", dev, &mut settings);
    Ok(settings)
}

/// Runs a project's `cargo xtask test`, its output shown as it comes; fails if it fails.
fn passed_through(mut cmd: Command) -> Result<()> {
    let status = cmd.status().context("starting cargo")?;
    if !status.success() {
        bail!("the new project's cargo xtask test failed ({status})");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{contents_are_fit_to_publish, profile_settings};

    #[test]
    fn the_install_gets_the_workspace_profile_as_config() {
        let manifest = "[package]\nname = \"x\"\n\n[profile.dev]\ndebug = \"line-tables-only\"\n\n\
                        [profile.dev.package.\"*\"]\nopt-level = 1\ndebug = false\n\n\
                        [profile.dev.package.operator-derive]\ndebug = false\n\n\
                        [profile.release]\nlto = \"fat\"\n";
        assert_eq!(
            profile_settings(manifest).unwrap(),
            [
                "profile.dev.debug=\"line-tables-only\"",
                "profile.dev.package.\"*\".debug=false",
                "profile.dev.package.\"*\".opt-level=1",
                "profile.dev.package.operator-derive.debug=false",
            ]
        );
        let err = profile_settings("[profile.release]\nlto = true\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "the workspace's Cargo.toml has no [profile.dev]"
        );
    }

    #[test]
    fn the_workspace_profile_is_read_whole() {
        let manifest = std::fs::read_to_string(operator_xtask::root().join("Cargo.toml")).unwrap();
        let settings = profile_settings(&manifest).unwrap();
        assert!(
            settings.contains(&"profile.dev.package.\"*\".opt-level=1".to_string()),
            "{settings:?}"
        );
    }

    #[test]
    fn a_package_needs_its_readme_and_license_and_no_tests() {
        let fit = ["Cargo.toml", "README.md", "LICENSE", "src/lib.rs"];
        assert!(contents_are_fit_to_publish("x", &fit).is_ok());
        let err = contents_are_fit_to_publish("x", &fit[1..]).unwrap_err();
        assert_eq!(err.to_string(), "the package of x has no Cargo.toml");
        let err =
            contents_are_fit_to_publish("x", &["LICENSE", "Cargo.toml", "src/lib.rs"]).unwrap_err();
        assert_eq!(err.to_string(), "the package of x has no README.md");
        let err = contents_are_fit_to_publish("x", &[&fit[..], &["tests/golden/a.rs"]].concat())
            .unwrap_err();
        assert!(err.to_string().contains("holds tests/golden/a.rs"), "{err}");
    }
}
