//! `cargo xtask bench-gen`: operator-gen and controller-gen side by side on the same synthetic
//! API of N kinds, written once in Go with kubebuilder markers and once in Rust with our
//! attributes.
//!
//! Both tools run as processes, the way `make manifests` and `cargo xtask manifests` run them,
//! writing CRDs and the RBAC role into a scratch directory (on /dev/shm unless `--on-disk`);
//! each run is timed from spawn to exit
//! and the best of `--runs` is reported. The outputs are compared as YAML trees (tool-version
//! annotation aside), so the numbers are for the same work.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result, bail};

use operator_xtask::{cargo, root, run_step, target_dir};

#[derive(clap::Args, Debug)]
pub struct BenchGenArgs {
    /// Numbers of kinds in the synthetic API, one measurement each.
    #[arg(long = "kinds", default_values_t = [10, 100, 1000])]
    kinds: Vec<usize>,
    /// Runs per tool and size; the fastest counts.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Write the synthetic APIs and outputs here and keep them (default: a temporary directory).
    #[arg(long)]
    keep: Option<std::path::PathBuf>,
    /// Put the temporary directory on the system's temporary file system (usually a disk)
    /// instead of the RAM file system /dev/shm.
    #[arg(long, conflicts_with = "keep")]
    on_disk: bool,
    /// Instead: the edit loop, side by side. Change a doc comment of the memcached API and
    /// regenerate, `--runs` times (at least 5) each: `cargo xtask manifests` in a copy of
    /// this workspace against controller-gen on the Go version of the same API.
    #[arg(long, conflicts_with_all = ["kinds", "keep", "on_disk"])]
    edit_loop: bool,
}

/// The Go module header of the fixtures, so the synthetic API resolves the same
/// k8s.io/apimachinery the parity suite uses.
fn go_module(dir: &Path) -> Result<()> {
    let parity = root().join("testdata/parity");
    for file in ["go.mod", "go.sum"] {
        std::fs::copy(parity.join(file), dir.join(file))
            .with_context(|| format!("copying {file}"))?;
    }
    Ok(())
}

/// One kind's Go source: a spec with validated, defaulted, listed and nested fields, a status
/// with conditions, subresources, a print column and an RBAC marker.
fn go_kind(i: usize) -> String {
    format!(
        r#"
// Kind{i}Spec is the desired state of Kind{i}.
// +kubebuilder:validation:XValidation:rule="self.min <= self.max",message="min must not exceed max"
type Kind{i}Spec struct {{
	// Replicas is how many copies run.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:default=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Min is a lower bound.
	Min int64 `json:"min"`
	// Max is an upper bound.
	Max int64 `json:"max"`
	// Name is a DNS label.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9-]+$`
	Name string `json:"name"`
	// Mode is one of the known modes.
	// +kubebuilder:validation:Enum=Fast;Safe
	// +optional
	Mode string `json:"mode,omitempty"`
	// Tags are words.
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +optional
	Tags []string `json:"tags,omitempty"`
	// Labels are extra labels.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Target is where traffic goes.
	// +optional
	Target *Kind{i}Target `json:"target,omitempty"`
}}

// Kind{i}Target is a host and port.
type Kind{i}Target struct {{
	// Host is a DNS name.
	Host string `json:"host"`
	// Port on the host.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
}}

// Kind{i}Status is the observed state of Kind{i}.
type Kind{i}Status struct {{
	// Conditions of the object.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// ReadyReplicas is how many copies are ready.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`
}}

// Kind{i} is kind number {i} of the benchmark API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Replicas",type="integer",JSONPath=".spec.replicas"
type Kind{i} struct {{
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   Kind{i}Spec   `json:"spec"`
	Status Kind{i}Status `json:"status,omitempty"`
}}
"#
    )
}

fn rust_kind(i: usize) -> String {
    format!(
        r#"
/// Kind{i}Spec is the desired state of Kind{i}.
#[derive(Schema)]
#[validation(cel(rule = "self.min <= self.max", message = "min must not exceed max"))]
pub struct Kind{i}Spec {{
    /// Replicas is how many copies run.
    #[validation(minimum = 0, maximum = 100)]
    #[schema(default = 1)]
    pub replicas: Option<i32>,
    /// Min is a lower bound.
    pub min: i64,
    /// Max is an upper bound.
    pub max: i64,
    /// Name is a DNS label.
    #[validation(min_length = 1, max_length = 63, pattern = "^[a-z0-9-]+$")]
    pub name: String,
    /// Mode is one of the known modes.
    #[validation(enum = ["Fast", "Safe"])]
    pub mode: Option<String>,
    /// Tags are words.
    #[schema(list_type = "set")]
    #[validation(max_items = 16)]
    pub tags: Option<Vec<String>>,
    /// Labels are extra labels.
    pub labels: Option<BTreeMap<String, String>>,
    /// Target is where traffic goes.
    pub target: Option<Kind{i}Target>,
}}

/// Kind{i}Target is a host and port.
#[derive(Schema)]
pub struct Kind{i}Target {{
    /// Host is a DNS name.
    pub host: String,
    /// Port on the host.
    #[validation(minimum = 1, maximum = 65535)]
    pub port: i32,
}}

/// Kind{i}Status is the observed state of Kind{i}.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct Kind{i}Status {{
    /// Conditions of the object.
    #[schema(list_type = "map", list_map_keys = ["type"])]
    pub conditions: Option<Vec<Condition>>,
    /// ReadyReplicas is how many copies are ready.
    pub ready_replicas: Option<i32>,
}}

/// Kind{i} is kind number {i} of the benchmark API.
#[derive(CustomResource)]
#[resource(group = "bench.example.com", version = "v1", kind = "Kind{i}")]
#[subresource(status)]
#[printcolumn(name = "Replicas", type = "integer", json_path = ".spec.replicas")]
pub struct Kind{i} {{
    pub metadata: ObjectMeta,
    pub spec: Kind{i}Spec,
    pub status: Option<Kind{i}Status>,
}}

#[rbac(groups = "bench.example.com", resources = "kind{i}s", verbs = "get;list;watch")]
pub fn reconcile_kind{i}() {{}}
"#
    )
}

/// Writes the API of `n` kinds in both languages under `dir/go` and `dir/rust`.
fn write_api(dir: &Path, n: usize) -> Result<()> {
    let go = dir.join("go");
    let go_pkg = go.join("api/v1");
    let rust = dir.join("rust");
    std::fs::create_dir_all(&go_pkg)?;
    std::fs::create_dir_all(&rust)?;
    go_module(&go)?;
    // RBAC markers are package markers in Go: a comment block of their own.
    let mut info = String::from(
        "// Package v1 is the benchmark API.\n// +groupName=bench.example.com\npackage v1\n\n",
    );
    for i in 0..n {
        info.push_str(&format!(
            "// +kubebuilder:rbac:groups=bench.example.com,resources=kind{i}s,verbs=get;list;watch\n"
        ));
    }
    info.push_str("\n// Reconcile is where the work would go.\nfunc Reconcile() {}\n");
    std::fs::write(go_pkg.join("groupversion_info.go"), info)?;
    // Ten kinds per file on both sides, as a real API spreads its types.
    for (file, chunk) in (0..n).collect::<Vec<_>>().chunks(10).enumerate() {
        let mut go_src = String::from(
            "package v1\n\nimport (\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n)\n",
        );
        let mut rust_src = String::from(
            "use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};\nuse std::collections::BTreeMap;\n",
        );
        for i in chunk {
            go_src.push_str(&go_kind(*i));
            rust_src.push_str(&rust_kind(*i));
        }
        std::fs::write(go_pkg.join(format!("kinds{file}_types.go")), go_src)?;
        std::fs::write(rust.join(format!("kinds{file}.rs")), rust_src)?;
    }
    Ok(())
}

/// How long `run` takes.
fn timed(run: impl FnOnce() -> Result<()>) -> Result<Duration> {
    let started = Instant::now();
    run()?;
    Ok(started.elapsed())
}

/// Runs `cmd` to completion; its stderr in the error when it fails.
pub(crate) fn run_quiet(cmd: &mut Command, what: &str) -> Result<()> {
    let out = cmd.output().with_context(|| format!("starting {what}"))?;
    if !out.status.success() {
        bail!(
            "{what} failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(())
}

/// The generated YAML under `dir`, file name -> documents without tool-version annotations.
fn outputs(dir: &Path) -> Result<BTreeMap<String, Vec<serde_yaml::Value>>> {
    let mut files = BTreeMap::new();
    for sub in ["crd", "crd/bases", "rbac"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for entry in entries {
            let path = entry?.path();
            if path.extension().is_none_or(|e| e != "yaml") {
                continue;
            }
            let text = std::fs::read_to_string(&path)?;
            let mut docs = Vec::new();
            for doc in serde_yaml::Deserializer::from_str(&text) {
                let mut v: serde_yaml::Value = serde::Deserialize::deserialize(doc)?;
                if let Some(a) = v
                    .get_mut("metadata")
                    .and_then(|m| m.get_mut("annotations"))
                    .and_then(|a| a.as_mapping_mut())
                {
                    a.remove("controller-gen.kubebuilder.io/version");
                    a.remove(operator_gen::VERSION_ANNOTATION);
                }
                docs.push(v);
            }
            files.insert(
                path.file_name().unwrap().to_string_lossy().into_owned(),
                docs,
            );
        }
    }
    Ok(files)
}

/// Builds the release operator-gen (its command line included) and returns its path.
pub fn release_operator_gen() -> Result<std::path::PathBuf> {
    run_step(
        "build operator-gen (release)",
        cargo().args([
            "build",
            "--release",
            "-p",
            "operator-gen",
            "--features",
            "cli",
        ]),
    )?;
    Ok(target_dir()?.join("release/operator-gen"))
}

pub fn bench_gen(args: &BenchGenArgs) -> Result<()> {
    if args.edit_loop {
        return crate::bench_edit::edit_loop(args.runs);
    }
    let operator_gen = release_operator_gen()?;
    let controller_gen = envtest::components::controller_gen()
        .context("installing controller-gen for the comparison")?;
    // Both tools create a thousand and more new files per run. On the development VM the
    // disk's cost for that swings from 4 ms to 50 ms per 100 files within minutes, for
    // either tool alike; a RAM file system keeps that noise out of the comparison.
    let shm = Path::new("/dev/shm");
    let scratch = if !args.on_disk && shm.is_dir() {
        tempfile::Builder::new()
            .prefix("bench-gen")
            .tempdir_in(shm)
            .or_else(|_| tempfile::tempdir())?
    } else {
        tempfile::tempdir()?
    };
    let base = args
        .keep
        .clone()
        .unwrap_or_else(|| scratch.path().to_path_buf());
    eprintln!("==> scratch directory: {}", base.display());
    let mut rows = Vec::new();
    for &n in &args.kinds {
        let dir = base.join(format!("n{n}"));
        let _ = std::fs::remove_dir_all(&dir);
        write_api(&dir, n)?;
        // Every run writes into a new directory: deleting a thousand files right before a
        // timed run makes the file system's next creations slow, for whichever tool follows.
        let cg_out = |run: usize| dir.join(format!("out-controller-gen-{run}"));
        let og_out = |run: usize| dir.join(format!("out-operator-gen-{run}"));
        eprintln!(
            "==> {n} kinds: controller-gen v{} and operator-gen, {} runs each, taking turns",
            envtest::components::CONTROLLER_GEN_VERSION,
            args.runs.max(1)
        );
        // The tools take turns, so a slow patch of the machine hits both. controller-gen's
        // first run also type-checks k8s.io/apimachinery into Go's build cache; the best of
        // several runs is its warm time, as in an edit-generate loop.
        let (mut cg, mut og) = (Duration::MAX, Duration::MAX);
        for run in 0..args.runs.max(1) {
            let cg_dir = cg_out(run);
            cg = cg.min(timed(|| {
                run_quiet(
                    envtest::components::controller_gen_command(&controller_gen, &dir.join("go"))
                        .args([
                            "rbac:roleName=manager-role".to_string(),
                            "crd".into(),
                            "paths=./...".into(),
                            format!("output:crd:dir={}", cg_dir.join("crd").display()),
                            format!("output:rbac:dir={}", cg_dir.join("rbac").display()),
                        ]),
                    "controller-gen",
                )
            })?);
            og = og.min(timed(|| {
                run_quiet(
                    Command::new(&operator_gen)
                        .arg("all")
                        .arg("--paths")
                        .arg(dir.join("rust"))
                        .arg("--out")
                        .arg(og_out(run)),
                    "operator-gen",
                )
            })?);
        }
        let (theirs, ours) = (outputs(&cg_out(0))?, outputs(&og_out(0))?);
        let same = theirs == ours;
        if theirs.len() != n + 1 {
            bail!(
                "controller-gen wrote {} files for {n} kinds; expected {}",
                theirs.len(),
                n + 1
            );
        }
        rows.push((n, cg, og, same));
    }
    println!();
    println!("| kinds | controller-gen | operator-gen | speed-up | same output |");
    println!("|---:|---:|---:|---:|---|");
    for (n, cg, og, same) in &rows {
        println!(
            "| {n} | {:.0} ms | {:.1} ms | {:.0}x | {} |",
            cg.as_secs_f64() * 1000.0,
            og.as_secs_f64() * 1000.0,
            cg.as_secs_f64() / og.as_secs_f64(),
            if *same { "yes" } else { "NO" }
        );
    }
    if rows.iter().any(|r| !r.3) {
        bail!("the two tools' outputs differ on the synthetic API; run the parity suite");
    }
    Ok(())
}
