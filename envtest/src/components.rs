//! Which components the control plane runs, at which versions, and how they are built from
//! published Go modules and cached.
//!
//! `k8s.io/kubernetes` cannot be `go install`ed: its go.mod replaces every `k8s.io/*` staging
//! module with a directory of its own repository. So we generate a small module that requires it and
//! replaces each staging module with the published `v0.<minor>.<patch>` of the same release, plus
//! etcd and kwok, and build all five commands in one `go build` so they share one dependency graph
//! and Go's build cache.

use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::Error;

/// Kubernetes release of the control plane. Keep in step with the k8s-openapi feature of the
/// workspace (`v1_36`): the API the operator is compiled against is the API it is tested against.
pub const KUBERNETES_VERSION: &str = "1.36.3";
/// etcd release that Kubernetes 1.36.3 itself requires in its go.mod.
pub const ETCD_VERSION: &str = "3.6.8";
/// kwok release built against Kubernetes 1.36 client libraries.
pub const KWOK_VERSION: &str = "0.8.0";
/// Kubernetes 1.36's go.mod says `go 1.26.0`.
pub const MIN_GO: (u32, u32) = (1, 26);
/// Bumped whenever the generated module or build flags change, so caches are rebuilt.
const RECIPE: u32 = 1;

/// The staging modules of Kubernetes 1.36 that its go.mod replaces with local directories. Each
/// is published as `k8s.io/<name> v0.36.x`. (`sample-cli-plugin` is replaced too but has no
/// published release and nothing we build imports it.)
const STAGING_MODULES: &[&str] = &[
    "api",
    "apiextensions-apiserver",
    "apimachinery",
    "apiserver",
    "cli-runtime",
    "client-go",
    "cloud-provider",
    "cluster-bootstrap",
    "code-generator",
    "component-base",
    "component-helpers",
    "controller-manager",
    "cri-api",
    "cri-client",
    "cri-streaming",
    "csi-translation-lib",
    "dynamic-resource-allocation",
    "endpointslice",
    "externaljwt",
    "kms",
    "kube-aggregator",
    "kube-controller-manager",
    "kube-proxy",
    "kube-scheduler",
    "kubectl",
    "kubelet",
    "metrics",
    "mount-utils",
    "pod-security-admission",
    "sample-apiserver",
    "sample-controller",
    "streaming",
];

/// The commands we build: (Go package, binary name in the cache).
const COMMANDS: &[(&str, &str)] = &[
    ("k8s.io/kubernetes/cmd/kube-apiserver", "kube-apiserver"),
    (
        "k8s.io/kubernetes/cmd/kube-controller-manager",
        "kube-controller-manager",
    ),
    ("k8s.io/kubernetes/cmd/kube-scheduler", "kube-scheduler"),
    ("go.etcd.io/etcd/server/v3", "etcd"),
    ("sigs.k8s.io/kwok/cmd/kwok", "kwok"),
];

/// kwok's published default stages (in its module), in the order kwokctl loads them: nodes become
/// Ready and keep a lease, pods become Running, finish, and go away when deleted.
const KWOK_STAGES: &[&str] = &[
    "kustomize/stage/node/fast/node-initialize.yaml",
    "kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
    "kustomize/stage/pod/fast/pod-ready.yaml",
    "kustomize/stage/pod/fast/pod-complete.yaml",
    "kustomize/stage/pod/fast/pod-delete.yaml",
];

/// Paths of a complete, cached build.
#[derive(Debug, Clone)]
pub struct Binaries {
    pub dir: PathBuf,
}

impl Binaries {
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
    /// kwok's configuration: its default stages.
    pub fn kwok_config(&self) -> PathBuf {
        self.dir.join("kwok-stages.yaml")
    }
}

/// The cache root: `$ENVTEST_CACHE_DIR`, else `$XDG_CACHE_HOME/operator-rs/envtest`, else
/// `~/.cache/operator-rs/envtest`.
pub fn cache_root() -> Result<PathBuf, Error> {
    if let Some(dir) = cache_dir_override() {
        return Ok(dir);
    }
    Ok(tools_root()?.join("envtest"))
}

/// Where the project's tools are cached beside `envtest/` (kustomize, for one):
/// `$ENVTEST_CACHE_DIR` when set (everything in the one directory asked for), else
/// `$XDG_CACHE_HOME/operator-rs`, else `~/.cache/operator-rs`.
pub fn tools_root() -> Result<PathBuf, Error> {
    if let Some(dir) = cache_dir_override() {
        return Ok(dir);
    }
    let base = match std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            let home = std::env::var_os("HOME")
                .filter(|d| !d.is_empty())
                .ok_or_else(|| {
                    Error::Build(
                        "neither ENVTEST_CACHE_DIR, XDG_CACHE_HOME nor HOME is set; \
                         set ENVTEST_CACHE_DIR to a directory for the control-plane binaries"
                            .into(),
                    )
                })?;
            PathBuf::from(home).join(".cache")
        }
    };
    Ok(base.join("operator-rs"))
}

fn cache_dir_override() -> Option<PathBuf> {
    std::env::var_os("ENVTEST_CACHE_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
}

/// The cache key: every version that goes into the binaries, and the recipe revision.
pub fn cache_key() -> String {
    format!("k8s-v{KUBERNETES_VERSION}-etcd-v{ETCD_VERSION}-kwok-v{KWOK_VERSION}-r{RECIPE}")
}

/// The binaries if they are already built.
pub fn cached() -> Result<Option<Binaries>, Error> {
    let dir = cache_root()?.join(cache_key()).join("bin");
    Ok(complete(&dir).then_some(Binaries { dir }))
}

fn complete(bin: &Path) -> bool {
    COMMANDS.iter().all(|(_, name)| bin.join(name).is_file())
        && bin.join("kwok-stages.yaml").is_file()
}

/// Returns the cached binaries, building them first if needed. Progress goes to stderr. Two
/// processes asking at once build once: the second waits on a lock file.
pub fn ensure_built() -> Result<Binaries, Error> {
    if let Some(bins) = cached()? {
        return Ok(bins);
    }
    let root = cache_root()?.join(cache_key());
    std::fs::create_dir_all(&root).map_err(|e| Error::io(&root, e))?;
    let lock_path = root.join("build.lock");
    let lock = std::fs::File::create(&lock_path).map_err(|e| Error::io(&lock_path, e))?;
    lock.lock().map_err(|e| Error::io(&lock_path, e))?;
    // Someone else may have finished while we waited.
    if let Some(bins) = cached()? {
        return Ok(bins);
    }
    let result = build(&root);
    drop(lock);
    result
}

fn build(root: &Path) -> Result<Binaries, Error> {
    let go = check_go()?;
    let src = root.join("src");
    let partial = root.join("bin.partial");
    let bin = root.join("bin");
    let log_path = root.join("build.log");
    for dir in [&src, &partial] {
        if dir.exists() {
            std::fs::remove_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        }
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let go_mod = src.join("go.mod");
    std::fs::write(&go_mod, generated_go_mod()).map_err(|e| Error::io(&go_mod, e))?;
    let mut log = std::fs::File::create(&log_path).map_err(|e| Error::io(&log_path, e))?;

    eprintln!(
        "envtest: building Kubernetes v{KUBERNETES_VERSION}, etcd v{ETCD_VERSION} and kwok \
         v{KWOK_VERSION} with {go} (first use only; takes a while on a cold Go cache)"
    );
    eprintln!("envtest: build log: {}", log_path.display());
    let started = Instant::now();

    eprintln!("envtest: resolving modules through the Go module proxy…");
    run_logged(
        go_command(&src).args(["mod", "tidy"]),
        &mut log,
        &log_path,
        "go mod tidy",
    )?;

    let packages: Vec<&str> = COMMANDS.iter().map(|(pkg, _)| *pkg).collect();
    let total = count_packages(&src, &packages);
    let ldflags = format!(
        "-s -w -X k8s.io/component-base/version.gitVersion=v{KUBERNETES_VERSION} \
         -X k8s.io/component-base/version.gitMajor=1 \
         -X k8s.io/component-base/version.gitMinor={minor} \
         -X k8s.io/component-base/version.gitTreeState=clean \
         -X k8s.io/client-go/pkg/version.gitVersion=v{KUBERNETES_VERSION}",
        minor = KUBERNETES_VERSION.split('.').nth(1).unwrap_or_default(),
    );
    let mut cmd = go_command(&src);
    cmd.args(["build", "-v", "-trimpath", "-ldflags", &ldflags, "-o"])
        .arg(&partial)
        .args(&packages)
        // -v and errors go to stderr; nothing is read from stdout, so it must not be a pipe
        // that could fill up.
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let status = stream_build(cmd, &mut log, total, started)?;
    if !status.success() {
        return Err(build_failed("go build", &log_path));
    }

    // `go build -o dir` names a binary after the last path element that is not a major version.
    let etcd_built = partial.join("server");
    std::fs::rename(&etcd_built, partial.join("etcd")).map_err(|e| Error::io(&etcd_built, e))?;
    write_kwok_stages(&src, &partial.join("kwok-stages.yaml"))?;

    promote(&partial, &bin)?;
    eprintln!(
        "envtest: built in {}; cached in {}",
        human(started.elapsed()),
        bin.display()
    );
    Ok(Binaries { dir: bin })
}

/// The controller-gen release the parity suite compares operator-gen with.
pub const CONTROLLER_GEN_VERSION: &str = "0.21.0";

/// A command running the controller-gen at `exe` (from [`controller_gen`]) in the Go module
/// tree `dir`, with the settings the fixture modules need: no Go workspace, the machine's
/// own toolchain, and `go.mod` completed from the module proxy when a fixture needs more.
pub fn controller_gen_command(exe: &Path, dir: &Path) -> Command {
    let mut cmd = Command::new(exe);
    cmd.current_dir(dir)
        .env("GOWORK", "off")
        .env("GOTOOLCHAIN", "local")
        .env("GOFLAGS", "-mod=mod");
    cmd
}

/// The path of controller-gen v[`CONTROLLER_GEN_VERSION`], installed with
/// `go install sigs.k8s.io/controller-tools/cmd/controller-gen@v…` into the same cache as the
/// control-plane binaries on first use.
pub fn controller_gen() -> Result<PathBuf, Error> {
    go_install(&GoTool {
        name: "controller-gen",
        package: "sigs.k8s.io/controller-tools/cmd/controller-gen",
        version: CONTROLLER_GEN_VERSION,
        version_args: &["--version"],
        dir: cache_root()?.join(format!("controller-gen-v{CONTROLLER_GEN_VERSION}")),
        via_module: None,
    })
}

/// The version of sigs.k8s.io/crdify the compatibility gate is compared with.
pub const CRDIFY_VERSION: &str = "0.5.0";

/// The path of crdify v[`CRDIFY_VERSION`] (a CRD compatibility checker), built from its Go
/// module into the same cache as the control-plane binaries on first use.
pub fn crdify() -> Result<PathBuf, Error> {
    go_install(&GoTool {
        name: "crdify",
        package: "sigs.k8s.io/crdify",
        version: CRDIFY_VERSION,
        version_args: &["version"],
        dir: cache_root()?.join(format!("crdify-v{CRDIFY_VERSION}")),
        via_module: Some("sigs.k8s.io/crdify"),
    })
}

/// A Go command that `go install <package>@v<version>` builds, cached in a directory of its own
/// (`<dir>/bin/<name>`, with `build.lock` and `build.log` beside it).
#[derive(Debug)]
pub(crate) struct GoTool<'a> {
    /// The binary's name: the last element of `package` that is not a major version.
    pub name: &'a str,
    pub package: &'a str,
    /// Without the leading `v`.
    pub version: &'a str,
    /// Arguments that make the binary print its version (`v<version>` as one word).
    pub version_args: &'a [&'a str],
    pub dir: PathBuf,
    /// Build it inside a module of our own that requires this module at `version`
    /// (`go build` instead of `go install pkg@version`): for modules whose version list the
    /// proxy refuses, which `go install` reads to look for a deprecation notice.
    pub via_module: Option<&'a str>,
}

impl GoTool<'_> {
    /// Whether `exe` is this tool at its version: built in a module of ours, the module it
    /// was built from at `version` is among the dependencies `go version -m` lists; else
    /// `exe <version_args>` prints `v<version>`.
    fn is_current(&self, exe: &Path) -> bool {
        match self.via_module {
            Some(module) => Command::new("go")
                .args(["version", "-m"])
                .arg(exe)
                .env("GOTOOLCHAIN", "local")
                .output()
                .is_ok_and(|out| {
                    String::from_utf8_lossy(&out.stdout).lines().any(|l| {
                        let words: Vec<&str> = l.split_whitespace().collect();
                        words.len() >= 3
                            && (words[0] == "dep" || words[0] == "mod")
                            && words[1] == module
                            && words[2] == format!("v{}", self.version)
                    })
                }),
            None => reports_version(exe, self.version_args, self.version),
        }
    }
}

/// Whether `exe <version_args>` prints `v<version>` as a word of its standard output.
fn reports_version(exe: &Path, version_args: &[&str], version: &str) -> bool {
    Command::new(exe)
        .args(version_args)
        .output()
        .is_ok_and(|out| {
            String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .any(|w| w == format!("v{version}"))
        })
}

/// The path of `tool`, installed on first use: the Go module proxy supplies the module, the
/// machine's Go builds it (`go install -v`, the packages it compiles counted as progress). A
/// cached binary that does not report the pinned version is installed again. Two processes
/// asking at once install once: the second waits on the lock file.
pub(crate) fn go_install(tool: &GoTool) -> Result<PathBuf, Error> {
    let GoTool {
        name,
        package,
        version,
        version_args,
        dir: root,
        via_module,
    } = tool;
    let bin = root.join("bin");
    let exe = bin.join(name);
    let current = |exe: &Path| exe.is_file() && tool.is_current(exe);
    if current(&exe) {
        return Ok(exe);
    }
    std::fs::create_dir_all(root).map_err(|e| Error::io(root, e))?;
    let lock_path = root.join("build.lock");
    let lock = std::fs::File::create(&lock_path).map_err(|e| Error::io(&lock_path, e))?;
    lock.lock().map_err(|e| Error::io(&lock_path, e))?;
    // Someone else may have finished while we waited.
    if current(&exe) {
        return Ok(exe);
    }
    if exe.exists() {
        // Something else put another build there (a kubebuilder Makefile's `go-install-tool`
        // pointed at our controller-gen directory once did): install the right one again.
        eprintln!(
            "envtest: {} is not {name} v{version}; installing it again",
            exe.display()
        );
    }
    let go = check_go()?;
    let partial = root.join("bin.partial");
    if partial.exists() {
        std::fs::remove_dir_all(&partial).map_err(|e| Error::io(&partial, e))?;
    }
    let log_path = root.join("build.log");
    let mut log = std::fs::File::create(&log_path).map_err(|e| Error::io(&log_path, e))?;
    eprintln!("envtest: installing {name} v{version} with {go} (first use only)");
    eprintln!("envtest: build log: {}", log_path.display());
    let started = Instant::now();
    let mut cmd = Command::new("go");
    cmd.current_dir(root)
        .env("GOTOOLCHAIN", "local")
        .env("GOWORK", "off")
        .env("CGO_ENABLED", "0");
    match via_module {
        None => {
            cmd.env("GOBIN", &partial).args([
                "install",
                "-v",
                "-trimpath",
                &format!("{package}@v{version}"),
            ]);
        }
        Some(module) => {
            let go_mod = root.join("go.mod");
            let text = format!(
                "module operator-rs.invalid/{name}-build\n\ngo 1.24\n\nrequire {module} v{version}\n"
            );
            std::fs::write(&go_mod, text).map_err(|e| Error::io(&go_mod, e))?;
            let out = partial.join(name);
            cmd.env("GOFLAGS", "-mod=mod")
                .args(["build", "-v", "-trimpath", "-o"])
                .arg(&out)
                .arg(package);
        }
    }
    cmd
        // -v and errors go to stderr; nothing is read from stdout.
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let status = stream_build(cmd, &mut log, 0, started)?;
    if !status.success() {
        return Err(build_failed(&format!("go install {name}"), &log_path));
    }
    promote(&partial, &bin)?;
    if !tool.is_current(&exe) {
        return Err(Error::Build(format!(
            "{} was installed, but `{name} {}` does not print v{version}",
            exe.display(),
            version_args.join(" ")
        )));
    }
    eprintln!(
        "envtest: {name} v{version} installed in {}: {}",
        human(started.elapsed()),
        exe.display()
    );
    drop(lock);
    Ok(exe)
}

/// Moves a finished `partial` build directory to `bin`, replacing an older one.
pub(crate) fn promote(partial: &Path, bin: &Path) -> Result<(), Error> {
    if bin.exists() {
        std::fs::remove_dir_all(bin).map_err(|e| Error::io(bin, e))?;
    }
    std::fs::rename(partial, bin).map_err(|e| Error::io(partial, e))
}

fn generated_go_mod() -> String {
    let minor_patch = KUBERNETES_VERSION
        .split_once('.')
        .map_or("", |(_, rest)| rest);
    let mut out = String::from(
        "// Generated by operator-rs envtest: builds the control-plane components from published\n\
         // modules. Edit envtest/src/components.rs instead.\n\
         module operator-rs.dev/envtest-build\n\ngo 1.26.0\n\nrequire (\n",
    );
    out.push_str(&format!("\tk8s.io/kubernetes v{KUBERNETES_VERSION}\n"));
    out.push_str(&format!("\tgo.etcd.io/etcd/server/v3 v{ETCD_VERSION}\n"));
    out.push_str(&format!(
        "\tsigs.k8s.io/kwok v{KWOK_VERSION}\n)\n\ntool (\n"
    ));
    for (pkg, _) in COMMANDS {
        out.push_str(&format!("\t{pkg}\n"));
    }
    out.push_str(")\n\nreplace (\n");
    for module in STAGING_MODULES {
        out.push_str(&format!(
            "\tk8s.io/{module} => k8s.io/{module} v0.{minor_patch}\n"
        ));
    }
    out.push_str(")\n");
    out
}

pub(crate) fn go_command(dir: &Path) -> Command {
    let mut cmd = Command::new("go");
    cmd.current_dir(dir)
        // Never fetch another Go toolchain behind the user's back; check_go reports an old one.
        .env("GOTOOLCHAIN", "local")
        .env("GOWORK", "off")
        .env("GOFLAGS", "-mod=mod")
        // Pure-Go binaries: no C toolchain needed, nothing linked against the host's libc.
        .env("CGO_ENABLED", "0");
    cmd
}

/// Checks that Go is installed and new enough; returns its version string.
pub fn check_go() -> Result<String, Error> {
    let out = Command::new("go")
        .args(["env", "GOVERSION"])
        .env("GOTOOLCHAIN", "local")
        .output()
        .map_err(|e| {
            Error::Build(format!(
                "cannot run `go` ({e}). The control plane is built from Go modules: install Go \
                 {}.{} or newer (https://go.dev/dl/) and put it on PATH",
                MIN_GO.0, MIN_GO.1
            ))
        })?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    match parse_go_version(&version) {
        Some(v) if v >= MIN_GO => Ok(version),
        Some(_) => Err(Error::Build(format!(
            "{version} is too old: Kubernetes v{KUBERNETES_VERSION} needs Go {}.{} or newer",
            MIN_GO.0, MIN_GO.1
        ))),
        None => Err(Error::Build(format!(
            "`go env GOVERSION` printed {version:?}, which is not a Go version; is `go` on PATH \
             really the Go toolchain?"
        ))),
    }
}

/// `go1.26.8` -> (1, 26); `go1.27rc1` -> (1, 27).
pub fn parse_go_version(v: &str) -> Option<(u32, u32)> {
    let rest = v.strip_prefix("go")?;
    let mut parts = rest.split('.');
    let major = parts.next()?.parse().ok()?;
    let minor: String = parts
        .next()?
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    Some((major, minor.parse().ok()?))
}

fn run_logged(
    cmd: &mut Command,
    log: &mut std::fs::File,
    log_path: &Path,
    what: &str,
) -> Result<(), Error> {
    let out = cmd
        .output()
        .map_err(|e| Error::Build(format!("{what}: {e}")))?;
    let _ = log.write_all(&out.stdout);
    let _ = log.write_all(&out.stderr);
    if out.status.success() {
        Ok(())
    } else {
        Err(build_failed(what, log_path))
    }
}

/// How many packages the build may compile, for the progress line. Zero if `go list` fails; the
/// build itself will then report the real error.
pub(crate) fn count_packages(src: &Path, packages: &[&str]) -> usize {
    let out = go_command(src)
        .args(["list", "-deps", "-f", "{{.ImportPath}}"])
        .args(packages)
        .output();
    match out {
        Ok(out) if out.status.success() => out
            .stdout
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .count(),
        _ => 0,
    }
}

/// Runs `go build -v`, counting the packages it names on stderr as it compiles them. On a
/// terminal the progress line is redrawn in place; otherwise a line every 30 seconds.
pub(crate) fn stream_build(
    mut cmd: Command,
    log: &mut std::fs::File,
    total: usize,
    started: Instant,
) -> Result<std::process::ExitStatus, Error> {
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::Build(format!("go build: {e}")))?;
    let stderr = child.stderr.take().expect("stderr is piped");
    let tty = std::io::stderr().is_terminal();
    let mut built = 0usize;
    let mut last_report = Instant::now();
    for line in BufReader::new(stderr).lines() {
        let Ok(line) = line else { break };
        let _ = writeln!(log, "{line}");
        // -v prints bare import paths; anything else (errors) goes only to the log and the tail
        // shown on failure.
        if line.contains(' ') || line.starts_with('#') {
            continue;
        }
        built += 1;
        let report_every = if tty {
            Duration::from_millis(200)
        } else {
            Duration::from_secs(30)
        };
        if last_report.elapsed() >= report_every {
            last_report = Instant::now();
            let progress = if total > 0 {
                format!("{built}/{total} packages", built = built.min(total))
            } else {
                format!("{built} packages")
            };
            if tty {
                eprint!(
                    "\r\x1b[2Kenvtest: compiling {progress} ({})",
                    human(started.elapsed())
                );
            } else {
                eprintln!(
                    "envtest: compiling {progress} ({})",
                    human(started.elapsed())
                );
            }
        }
    }
    if tty {
        eprintln!();
    }
    child
        .wait()
        .map_err(|e| Error::Build(format!("go build: {e}")))
}

fn write_kwok_stages(src: &Path, dest: &Path) -> Result<(), Error> {
    let out = go_command(src)
        .args(["list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/kwok"])
        .output()
        .map_err(|e| Error::Build(format!("go list -m sigs.k8s.io/kwok: {e}")))?;
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let mut config = String::new();
    for stage in KWOK_STAGES {
        let path = dir.join(stage);
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        config.push_str("---\n");
        config.push_str(text.trim_end());
        config.push('\n');
    }
    std::fs::write(dest, config).map_err(|e| Error::io(dest, e))
}

pub(crate) fn build_failed(what: &str, log_path: &Path) -> Error {
    let tail = std::fs::read_to_string(log_path)
        .map(|text| {
            let lines: Vec<&str> = text.lines().collect();
            lines[lines.len().saturating_sub(30)..].join("\n")
        })
        .unwrap_or_default();
    Error::Build(format!(
        "{what} failed; last lines of {}:\n{tail}",
        log_path.display()
    ))
}

pub(crate) fn human(d: Duration) -> String {
    let secs = d.as_secs();
    if secs >= 60 {
        format!("{}m{:02}s", secs / 60, secs % 60)
    } else {
        format!("{:.1}s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cached controller-gen counts only when it reports the pinned version.
    #[test]
    fn a_cached_controller_gen_of_another_version_does_not_count() {
        let dir = tempfile::tempdir().unwrap();
        for (version, counts) in [(CONTROLLER_GEN_VERSION, true), ("0.19.0", false)] {
            let exe = crate::test_script(
                dir.path(),
                &format!("controller-gen-{version}"),
                &format!("echo 'Version: v{version}'"),
            );
            assert_eq!(
                reports_version(&exe, &["--version"], CONTROLLER_GEN_VERSION),
                counts,
                "{version}"
            );
        }
        assert!(!reports_version(
            &dir.path().join("missing"),
            &["--version"],
            CONTROLLER_GEN_VERSION
        ));
    }

    #[test]
    fn go_versions() {
        assert_eq!(parse_go_version("go1.26.8"), Some((1, 26)));
        assert_eq!(parse_go_version("go1.27rc1"), Some((1, 27)));
        assert_eq!(parse_go_version("go1.9"), Some((1, 9)));
        assert_eq!(parse_go_version("devel"), None);
        assert!(parse_go_version("go1.25.3").unwrap() < MIN_GO);
    }

    #[test]
    fn generated_module_pins_every_staging_module_to_the_release() {
        let go_mod = generated_go_mod();
        assert!(go_mod.contains("\tk8s.io/kubernetes v1.36.3\n"));
        assert!(go_mod.contains("\tk8s.io/client-go => k8s.io/client-go v0.36.3\n"));
        assert_eq!(go_mod.matches(" => ").count(), STAGING_MODULES.len());
        for (pkg, _) in COMMANDS {
            assert!(
                go_mod.contains(&format!("\t{pkg}\n")),
                "{pkg} is not a tool"
            );
        }
    }
}
