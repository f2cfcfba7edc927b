//! `cargo xtask image`: the operator's container image, built without a container engine
//! (what `ko` does for Go). The operator's binary is built in release mode, linked statically
//! on the toolchain's own target (`-C target-feature=+crt-static`), and put alone into one
//! layer over an empty base as `/manager`, owned by and run as 65532:65532 (distroless's
//! `nonroot`). The image is written as an OCI image layout, `target/image/<name>/`, and as one
//! archive, `target/image/<name>.tar`, holding the layout and the `manifest.json` of
//! `docker save` (Docker 25 and later write both), so that `docker load`, `podman load`,
//! `kind load image-archive` and `crane push` take it. Nothing of the machine or the clock gets
//! in: the same sources give the same digest. `--push REGISTRY/REPO:TAG` pushes it over the
//! registry HTTP API with oci-client ([`push`]).

pub mod elf;
pub mod gzip;
pub mod oci;
pub mod push;
pub mod tar;

use std::fmt;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::str::FromStr;
use std::time::Instant;

use anyhow::{Context as _, Result, bail, ensure};
use operator_xtask::project::Project;
use serde_json::Value;

/// What to build.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ImageOptions {
    /// The project's root (where PROJECT.toml is).
    pub root: PathBuf,
    /// The image's reference; by default `<project-name>:<operator package version>`.
    pub tag: Option<String>,
    /// The cargo profile the binary is built with: `release` by default.
    pub profile: String,
}

impl ImageOptions {
    /// The default image of the project at `root`.
    pub fn new(root: impl Into<PathBuf>) -> ImageOptions {
        ImageOptions {
            root: root.into(),
            tag: None,
            profile: DEFAULT_PROFILE.to_string(),
        }
    }
}

/// A built image.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BuiltImage {
    /// The reference it is named by (`memcached-operator:0.1.0`).
    pub reference: String,
    /// The manifest's digest (`sha256:…`), the image's identity.
    pub digest: String,
    /// The config's digest (what `docker images` shows as the image ID).
    pub config_digest: String,
    /// The OCI image layout directory (`target/image/<name>/`).
    pub layout: PathBuf,
    /// The archive (`target/image/<name>.tar`).
    pub archive: PathBuf,
    /// The static binary the layer holds (`/manager`).
    pub binary: PathBuf,
    /// The binary's size in bytes.
    pub binary_size: u64,
    /// The compressed layer's size in bytes.
    pub layer_size: u64,
}

/// An image reference, `[REGISTRY/]REPOSITORY:TAG`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// `host[:port]`, when the first component names one (it has a `.` or a `:`, or is
    /// `localhost`).
    pub registry: Option<String>,
    pub repository: String,
    pub tag: String,
}

impl Reference {
    /// The registry to talk to: the named one, else Docker Hub.
    pub fn registry_host(&self) -> &str {
        self.registry.as_deref().unwrap_or("docker.io")
    }

    /// The repository as the registry knows it (Docker Hub's official images are under
    /// `library/`).
    pub fn remote_repository(&self) -> String {
        if self.registry.is_none() && !self.repository.contains('/') {
            format!("library/{}", self.repository)
        } else {
            self.repository.clone()
        }
    }

    /// The fully qualified name (`docker.io/library/name:tag` for a bare `name:tag`).
    pub fn full_name(&self) -> String {
        format!(
            "{}/{}:{}",
            self.registry_host(),
            self.remote_repository(),
            self.tag
        )
    }

    /// The last component of the repository: the name of the output files.
    pub fn short_name(&self) -> &str {
        self.repository
            .rsplit('/')
            .next()
            .unwrap_or(&self.repository)
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(registry) = &self.registry {
            write!(f, "{registry}/")?;
        }
        write!(f, "{}:{}", self.repository, self.tag)
    }
}

impl FromStr for Reference {
    type Err = anyhow::Error;

    fn from_str(s: &str) -> Result<Reference> {
        ensure!(
            !s.contains('@'),
            "image reference {s:?}: digests are not supported here, give a tag"
        );
        let (registry, rest) = match s.split_once('/') {
            Some((first, rest))
                if first.contains('.') || first.contains(':') || first == "localhost" =>
            {
                (Some(first.to_string()), rest)
            }
            _ => (None, s),
        };
        let (repository, tag) = match rest.rsplit_once(':') {
            Some((repo, tag)) if !tag.contains('/') => (repo, tag),
            _ => (rest, "latest"),
        };
        let component_ok = |c: &str| {
            !c.is_empty()
                && c.bytes().all(|b| {
                    b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
                })
                && c.as_bytes()[0].is_ascii_alphanumeric()
        };
        ensure!(
            repository.split('/').all(component_ok),
            "image reference {s:?}: the repository {repository:?} must be lowercase \
             letters, digits and . _ - separated by /"
        );
        ensure!(
            !tag.is_empty()
                && tag.len() <= 128
                && tag
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
                && !tag.starts_with(['.', '-']),
            "image reference {s:?}: bad tag {tag:?}"
        );
        Ok(Reference {
            registry,
            repository: repository.to_string(),
            tag: tag.to_string(),
        })
    }
}

/// The cargo profile an image's binary is built with unless another is asked for.
pub const DEFAULT_PROFILE: &str = "release";

/// `cargo xtask image`'s options.
#[derive(clap::Args, Debug, Clone)]
pub struct ImageArgs {
    /// The image's reference (default: the project's name, a colon and the operator's version).
    #[arg(long, value_name = "REF")]
    pub tag: Option<String>,
    /// The cargo profile the operator's binary is built with.
    #[arg(long, value_name = "PROFILE", default_value = DEFAULT_PROFILE)]
    pub profile: String,
    /// Push the image to REGISTRY/REPO:TAG over the registry HTTP API (oci-client).
    #[arg(long, value_name = "REGISTRY/REPO:TAG")]
    pub push: Option<String>,
    /// The registry user (default: $REGISTRY_USERNAME, else ~/.docker/config.json).
    #[arg(long, requires = "push")]
    pub username: Option<String>,
    /// Read the registry password from standard input (default: $REGISTRY_PASSWORD).
    #[arg(long, requires = "push")]
    pub password_stdin: bool,
    /// Allow plain HTTP to a registry that is not on localhost.
    #[arg(long, requires = "push")]
    pub insecure: bool,
}

/// `cargo xtask image [--tag REF] [--push REF]`.
pub fn command(args: &ImageArgs) -> Result<ExitCode> {
    let push_to = args.push.as_deref().map(Reference::from_str).transpose()?;
    // Read the password first: a build of minutes must not end in a prompt that fails.
    let password = if args.password_stdin {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("reading the password from standard input")?;
        Some(text.trim_end_matches(['\n', '\r']).to_string())
    } else {
        None
    };
    let started = Instant::now();
    let mut options = ImageOptions::new(operator_xtask::root());
    options.tag = args.tag.clone();
    options.profile = args.profile.clone();
    let image = build(&options)?;
    println!("image      {}", image.reference);
    println!("digest     {}", image.digest);
    println!(
        "size       {} compressed layer, {} binary",
        human_size(image.layer_size),
        human_size(image.binary_size)
    );
    println!("layout     {}", image.layout.display());
    println!("archive    {}", image.archive.display());
    eprintln!(
        "built in {:.1} s; load it with `docker load -i {}` or `kind load image-archive {}`",
        started.elapsed().as_secs_f64(),
        image.archive.display(),
        image.archive.display()
    );
    if let Some(target) = push_to {
        let credentials =
            push::credentials(target.registry_host(), args.username.clone(), password)?;
        let options = push::PushOptions {
            credentials,
            insecure: args.insecure,
        };
        let pushed = push::push(&image.layout, &target, &options)?;
        println!("pushed     {}@{}", pushed.reference, pushed.digest);
    }
    Ok(ExitCode::SUCCESS)
}

fn human_size(bytes: u64) -> String {
    format!(
        "{:.1} MiB ({bytes} bytes)",
        bytes as f64 / (1024.0 * 1024.0)
    )
}

/// The reference [`build`] tags by default, `<project-name>:<operator package version>`, which
/// `cargo xtask deploy` also deploys by default.
pub fn default_reference(root: &Path) -> Result<String> {
    let project = Project::load(root)?;
    let ws = workspace(root, &project.operator.package)?;
    Ok(format!("{}:{}", project.project_name, ws.version))
}

/// What `cargo metadata` says about the workspace at `root`.
struct Workspace {
    target_dir: PathBuf,
    version: String,
}

fn cargo_at(root: &Path) -> Command {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(root);
    operator_xtask::as_if_typed(&mut cmd);
    cmd
}

fn workspace(root: &Path, package: &str) -> Result<Workspace> {
    let out = cargo_at(root)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .stderr(Stdio::inherit())
        .output()
        .context("running cargo metadata")?;
    ensure!(
        out.status.success(),
        "cargo metadata failed ({})",
        out.status
    );
    let meta: Value = serde_json::from_slice(&out.stdout).context("reading cargo metadata")?;
    let target_dir = meta["target_directory"]
        .as_str()
        .map(PathBuf::from)
        .context("cargo metadata names no target_directory")?;
    let version = meta["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == package)
        .and_then(|p| p["version"].as_str())
        .with_context(|| {
            format!("the workspace has no package {package} (PROJECT.toml's operator)")
        })?
        .to_string();
    Ok(Workspace {
        target_dir,
        version,
    })
}

/// The toolchain's own target (`rustc -vV`'s host).
fn host_triple(root: &Path) -> Result<String> {
    let out = Command::new(std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .current_dir(root)
        .arg("-vV")
        .output()
        .context("running rustc -vV")?;
    ensure!(out.status.success(), "rustc -vV failed ({})", out.status);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_string)
        .context("rustc -vV names no host")
}

/// The image architecture of a target triple.
fn architecture(triple: &str) -> Result<&'static str> {
    Ok(match triple.split('-').next().unwrap_or("") {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "riscv64gc" => "riscv64",
        "powerpc64le" => "ppc64le",
        "s390x" => "s390x",
        other => bail!("no image architecture for {other} ({triple})"),
    })
}

/// The rustc flags of the static build, after the user's own: `flags` split as cargo reads
/// `CARGO_ENCODED_RUSTFLAGS` (0x1f-separated) or `RUSTFLAGS` (whitespace-separated). Returns
/// the value for `CARGO_ENCODED_RUSTFLAGS`.
fn encoded_rustflags(
    encoded: Option<&str>,
    plain: Option<&str>,
    remaps: &[(&Path, &str)],
) -> String {
    let mut flags: Vec<String> = match (encoded, plain) {
        (Some(e), _) if !e.is_empty() => e.split('\x1f').map(str::to_string).collect(),
        (_, Some(p)) => p.split_whitespace().map(str::to_string).collect(),
        _ => Vec::new(),
    };
    flags.push("-Ctarget-feature=+crt-static".into());
    for (from, to) in remaps {
        flags.push(format!("--remap-path-prefix={}={to}", from.display()));
    }
    flags.join("\x1f")
}

/// `cargo build --profile <profile> --target <host> -p <package> --bin <bin>`, linked
/// statically, with the paths of this machine (the workspace, cargo's home, the target
/// directory) remapped so that the binary is the same wherever the clone is. Cargo's progress
/// goes to stderr.
fn build_binary(
    root: &Path,
    project: &Project,
    ws: &Workspace,
    triple: &str,
    profile: &str,
) -> Result<PathBuf> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .context("neither CARGO_HOME nor HOME is set")?;
    let root_abs = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    // The last matching remap wins: the target directory (often inside the root) last.
    let remaps = [
        (root_abs.as_path(), "/build"),
        (cargo_home.as_path(), "/cargo"),
        (ws.target_dir.as_path(), "/target"),
    ];
    let encoded = std::env::var("CARGO_ENCODED_RUSTFLAGS").ok();
    let plain = std::env::var("RUSTFLAGS").ok();
    if encoded.as_deref().is_some_and(|e| !e.is_empty()) || plain.is_some() {
        eprintln!("note: adding the static-link flags to your RUSTFLAGS for the image build");
    }
    let flags = encoded_rustflags(encoded.as_deref(), plain.as_deref(), &remaps);
    let bin = project.bin();
    let package = &project.operator.package;
    eprintln!(
        "==> cargo build --profile {profile} --target {triple} -p {package} --bin {bin} \
         (static: -C target-feature=+crt-static)"
    );
    let status = cargo_at(root)
        .args([
            "build",
            "--profile",
            profile,
            "--target",
            triple,
            "-p",
            package,
            "--bin",
            bin,
        ])
        .env_remove("RUSTFLAGS")
        .env("CARGO_ENCODED_RUSTFLAGS", &flags)
        .status()
        .context("starting cargo build")?;
    ensure!(
        status.success(),
        "cargo build of {package} (static, profile {profile}) failed ({status})"
    );
    Ok(ws
        .target_dir
        .join(triple)
        .join(profile_dir(profile))
        .join(bin))
}

/// The directory of the target directory a profile's output goes to: `dev` and `test` build
/// into `debug`, `bench` into `release`, any other profile into its own name.
fn profile_dir(profile: &str) -> &str {
    match profile {
        "dev" | "test" => "debug",
        "bench" => "release",
        other => other,
    }
}

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .current_dir(root)
        .args(args)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The source label (the `origin` remote, else the first remote, else the path of the
/// repository) and the revision label (HEAD, `-dirty` with uncommitted changes).
fn source_and_revision(root: &Path) -> (String, String) {
    let remote = git(root, &["remote"])
        .and_then(|names| {
            let names: Vec<&str> = names.lines().collect();
            let name = if names.contains(&"origin") {
                "origin"
            } else {
                names.first().copied()?
            };
            git(root, &["remote", "get-url", name])
        })
        .filter(|u| !u.is_empty());
    let source = remote
        .or_else(|| git(root, &["rev-parse", "--show-toplevel"]))
        .unwrap_or_else(|| root.display().to_string());
    let revision = match git(root, &["rev-parse", "HEAD"]) {
        Some(head) => {
            let dirty = git(root, &["status", "--porcelain"]).is_none_or(|s| !s.is_empty());
            if dirty { format!("{head}-dirty") } else { head }
        }
        None => "unknown".to_string(),
    };
    (source, revision)
}

/// The time every timestamp of the image has: `SOURCE_DATE_EPOCH` when set, else 0.
fn epoch() -> Result<u64> {
    match std::env::var("SOURCE_DATE_EPOCH") {
        Ok(s) if !s.trim().is_empty() => s
            .trim()
            .parse()
            .with_context(|| format!("SOURCE_DATE_EPOCH={s:?} is not a number of seconds")),
        _ => Ok(0),
    }
}

/// Builds the operator's image: the static release binary, the image around it, the layout
/// and the archive under `<target>/image/`. Shows cargo's progress on stderr.
pub fn build(options: &ImageOptions) -> Result<BuiltImage> {
    let root = &options.root;
    let project = Project::load(root)?;
    let ws = workspace(root, &project.operator.package)?;
    let reference: Reference = match &options.tag {
        Some(tag) => tag.parse()?,
        None => format!("{}:{}", project.project_name, ws.version).parse()?,
    };
    let triple = host_triple(root)?;
    let arch = architecture(&triple)?;
    let binary_path = build_binary(root, &project, &ws, &triple, &options.profile)?;
    let binary = std::fs::read(&binary_path)
        .with_context(|| format!("reading {}", binary_path.display()))?;
    let deps =
        elf::dependencies(&binary).with_context(|| format!("reading {}", binary_path.display()))?;
    if !deps.is_static() {
        bail!(
            "{} is not static (interpreter {:?}, {} shared libraries needed): it would not start \
             in an image without libc. Is a `-C target-feature=-crt-static` or a `-l dylib` \
             in your RUSTFLAGS or build scripts?",
            binary_path.display(),
            deps.interpreter,
            deps.needed
        );
    }
    let (source, revision) = source_and_revision(root);
    let meta = oci::Metadata {
        source,
        revision,
        version: ws.version.clone(),
        title: project.project_name.clone(),
        architecture: arch.to_string(),
        epoch: epoch()?,
    };
    let image = oci::assemble(&binary, &meta)?;
    let out = ws.target_dir.join("image");
    let layout = out.join(reference.short_name());
    let archive = out.join(format!("{}.tar", reference.short_name()));
    oci::write_layout(&layout, &image, &reference)?;
    oci::write_atomic(&archive, &oci::archive(&image, &reference, meta.epoch)?)?;
    Ok(BuiltImage {
        reference: reference.to_string(),
        digest: image.manifest.digest.clone(),
        config_digest: image.config.digest.clone(),
        layout,
        archive,
        binary: binary_path,
        binary_size: binary.len() as u64,
        layer_size: image.layer.bytes.len() as u64,
    })
}

/// The blobs of an image as files: the layout directory's, or the archive's entries.
enum Source {
    Layout(PathBuf),
    Archive(Vec<tar::ReadEntry>),
}

impl Source {
    fn open(path: &Path) -> Result<Source> {
        if path.is_dir() {
            return Ok(Source::Layout(path.to_path_buf()));
        }
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let entries = tar::read(&bytes).with_context(|| format!("reading {}", path.display()))?;
        Ok(Source::Archive(entries))
    }

    fn file(&self, name: &str) -> Result<Vec<u8>> {
        match self {
            Source::Layout(dir) => {
                let path = dir.join(name);
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))
            }
            Source::Archive(entries) => entries
                .iter()
                .find(|e| tar::normalize(&e.path) == name && e.kind == b'0')
                .map(|e| e.data.clone())
                .with_context(|| format!("the archive has no {name}")),
        }
    }

    /// A blob, checked against its digest.
    fn blob(&self, digest: &str) -> Result<Vec<u8>> {
        let bytes = self.file(&oci::blob_path(digest))?;
        ensure!(
            oci::digest(&bytes) == digest,
            "blob {digest} does not match its digest"
        );
        Ok(bytes)
    }

    /// The manifest of the layout's (first) image, and its digest.
    fn manifest(&self) -> Result<(String, Value)> {
        let index: Value =
            serde_json::from_slice(&self.file("index.json")?).context("reading index.json")?;
        let digest = index["manifests"][0]["digest"]
            .as_str()
            .context("index.json lists no manifest")?
            .to_string();
        let manifest =
            serde_json::from_slice(&self.blob(&digest)?).context("reading the manifest")?;
        Ok((digest, manifest))
    }
}

/// The uncompressed tar of a layer blob (gzip or not).
pub fn layer_tar(blob: &[u8]) -> Result<Vec<u8>> {
    if gzip::is_gzip(blob) {
        gzip::decompress(blob).context("decompressing a layer")
    } else {
        Ok(blob.to_vec())
    }
}

/// The entries of every layer of the image in `archive_or_layout` (the archive
/// `target/image/<name>.tar` or the layout directory `target/image/<name>/`), bottom layer
/// first.
pub fn layers(archive_or_layout: &Path) -> Result<Vec<Vec<tar::ReadEntry>>> {
    let source = Source::open(archive_or_layout)?;
    let (_, manifest) = source.manifest()?;
    manifest["layers"]
        .as_array()
        .context("the manifest has no layers")?
        .iter()
        .map(|layer| {
            let digest = layer["digest"]
                .as_str()
                .context("a layer without a digest")?;
            tar::read(&layer_tar(&source.blob(digest)?)?)
        })
        .collect()
}

/// The contents of the regular file `path_in_image` (`/manager`) in the image in
/// `archive_or_layout`: from the topmost layer that has it.
pub fn read_file(archive_or_layout: &Path, path_in_image: &str) -> Result<Vec<u8>> {
    let wanted = tar::normalize(path_in_image);
    let layers = layers(archive_or_layout)?;
    for entries in layers.iter().rev() {
        if let Some(entry) = entries
            .iter()
            .rev()
            .find(|e| tar::normalize(&e.path) == wanted)
        {
            ensure!(
                entry.kind == b'0',
                "{path_in_image} in {} is not a regular file",
                archive_or_layout.display()
            );
            return Ok(entry.data.clone());
        }
    }
    bail!(
        "the image in {} has no {path_in_image}",
        archive_or_layout.display()
    )
}

/// The manifest digest of the image in `archive_or_layout`.
pub fn manifest_digest(archive_or_layout: &Path) -> Result<String> {
    Ok(Source::open(archive_or_layout)?.manifest()?.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_profile_builds_into_cargo_s_directory_for_it() {
        assert_eq!(profile_dir("release"), "release");
        assert_eq!(profile_dir("dev"), "debug");
        assert_eq!(profile_dir("test"), "debug");
        assert_eq!(profile_dir("bench"), "release");
        assert_eq!(profile_dir("image-test"), "image-test");
    }

    #[test]
    fn parses_references() {
        let r: Reference = "memcached-operator:0.1.0".parse().unwrap();
        assert_eq!(r.registry, None);
        assert_eq!(r.repository, "memcached-operator");
        assert_eq!(r.tag, "0.1.0");
        assert_eq!(r.full_name(), "docker.io/library/memcached-operator:0.1.0");
        assert_eq!(r.to_string(), "memcached-operator:0.1.0");

        let r: Reference = "127.0.0.1:5000/team/memcached-operator:test"
            .parse()
            .unwrap();
        assert_eq!(r.registry.as_deref(), Some("127.0.0.1:5000"));
        assert_eq!(r.repository, "team/memcached-operator");
        assert_eq!(r.short_name(), "memcached-operator");
        assert_eq!(r.remote_repository(), "team/memcached-operator");

        let r: Reference = "localhost/op".parse().unwrap();
        assert_eq!(
            (r.registry.as_deref(), r.tag.as_str()),
            (Some("localhost"), "latest")
        );
        let r: Reference = "example/op".parse().unwrap();
        assert_eq!(r.registry, None);
        assert_eq!(r.remote_repository(), "example/op");

        for bad in ["Memcached:1", "op:", "op@sha256:abc", "op:-x", "/op:1"] {
            assert!(bad.parse::<Reference>().is_err(), "{bad}");
        }
    }

    /// The user's flags come first and stay; ours are appended.
    #[test]
    fn appends_to_the_users_rustflags() {
        let remaps = [(Path::new("/work/x y"), "/build")];
        assert_eq!(
            encoded_rustflags(None, None, &remaps),
            "-Ctarget-feature=+crt-static\x1f--remap-path-prefix=/work/x y=/build"
        );
        assert_eq!(
            encoded_rustflags(None, Some("-C  opt-level=3 "), &[]),
            "-C\x1fopt-level=3\x1f-Ctarget-feature=+crt-static"
        );
        assert_eq!(
            encoded_rustflags(Some("-Cfoo=a b"), Some("-Cignored"), &[]),
            "-Cfoo=a b\x1f-Ctarget-feature=+crt-static"
        );
    }

    #[test]
    fn maps_triples_to_architectures() {
        assert_eq!(architecture("x86_64-unknown-linux-gnu").unwrap(), "amd64");
        assert_eq!(architecture("aarch64-unknown-linux-musl").unwrap(), "arm64");
        assert!(architecture("sparc-unknown-linux-gnu").is_err());
    }

    /// read_file finds a file in the layout and in the archive alike, and says so when the
    /// image does not have it.
    #[test]
    fn reads_files_out_of_layouts_and_archives() {
        let dir = tempfile::tempdir().unwrap();
        let reference: Reference = "op:1".parse().unwrap();
        let meta = oci::Metadata {
            source: "s".into(),
            revision: "r".into(),
            version: "1".into(),
            title: "op".into(),
            architecture: "amd64".into(),
            epoch: 0,
        };
        let image = oci::assemble(b"the binary", &meta).unwrap();
        let layout = dir.path().join("op");
        oci::write_layout(&layout, &image, &reference).unwrap();
        let archive = dir.path().join("op.tar");
        oci::write_atomic(&archive, &oci::archive(&image, &reference, 0).unwrap()).unwrap();
        for path in [&layout, &archive] {
            assert_eq!(read_file(path, "/manager").unwrap(), b"the binary");
            assert_eq!(read_file(path, "manager").unwrap(), b"the binary");
            let err = read_file(path, "/etc/passwd").unwrap_err().to_string();
            assert!(err.contains("has no /etc/passwd"), "{err}");
            assert_eq!(manifest_digest(path).unwrap(), image.manifest.digest);
        }
    }
}
