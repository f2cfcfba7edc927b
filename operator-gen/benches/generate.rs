//! How long operator-gen takes, end to end (parse, resolve, build schemas, render YAML):
//! on the memcached API, and on a generated API of N kinds with 20 fields each.
//! Target: 100 kinds well under 200 ms.
//!
//! `cargo bench -p operator-gen [-- FILTER]`: each case runs for about a second to warm up,
//! then in 20 samples of at least 100 ms each; printed are the median time of one run over
//! the samples, the fastest and slowest sample, and the median absolute deviation. Under
//! `cargo test --all-targets` (no `--bench` argument) each case runs once, as a check. (A
//! small harness of our own rather than criterion: criterion's dependencies changed the
//! features of crates kube's client shares, so the workspace's builds of kube could not
//! serve an operator crate.)

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One file per kind: a root struct, a spec with 20 fields of mixed types and markers,
/// and a status with conditions.
pub fn synthetic_api(kinds: usize) -> Vec<(PathBuf, String)> {
    (0..kinds)
        .map(|k| {
            let mut fields = String::new();
            for f in 0..20 {
                let (ty, marker) = match f % 5 {
                    0 => ("i32", "#[validation(minimum = 0, maximum = 100)]"),
                    1 => ("String", "#[validation(min_length = 1, max_length = 64, pattern = \"^[a-z]+$\")]"),
                    2 => ("Option<bool>", ""),
                    3 => ("Vec<String>", "#[validation(max_items = 10, items(min_length = 1))]"),
                    _ => ("std::collections::BTreeMap<String, i64>", "#[serde(default)]"),
                };
                fields.push_str(&format!("    /// Field {f} of kind {k}.\n    {marker}\n    pub field_{f}: {ty},\n"));
            }
            let text = format!(
                "use k8s_openapi::apimachinery::pkg::apis::meta::v1::{{Condition, ObjectMeta}};\n\n\
                 /// Kind{k} is generated.\n\
                 #[derive(CustomResource)]\n\
                 #[resource(group = \"bench.example.com\", version = \"v1\", kind = \"Kind{k}\")]\n\
                 #[subresource(status)]\n\
                 #[printcolumn(name = \"F0\", type = \"integer\", json_path = \".spec.field0\")]\n\
                 pub struct Kind{k} {{\n    pub metadata: ObjectMeta,\n    pub spec: Kind{k}Spec,\n    pub status: Option<Kind{k}Status>,\n}}\n\n\
                 /// Kind{k}Spec has twenty fields.\n\
                 #[derive(Schema)]\n#[serde(rename_all = \"camelCase\")]\n\
                 pub struct Kind{k}Spec {{\n{fields}}}\n\n\
                 #[derive(Schema)]\npub struct Kind{k}Status {{\n    #[schema(list_type = \"map\", list_map_keys = \"type\")]\n    pub conditions: Vec<Condition>,\n}}\n\n\
                 #[rbac(groups = \"bench.example.com\", resources = \"kind{k}s\", verbs = \"get;list;watch\")]\n\
                 pub fn reconcile_{k}() {{}}\n"
            );
            (PathBuf::from(format!("src/api/kind{k}.rs")), text)
        })
        .collect()
}

/// What the command line asks for: the cases whose names contain one of `filters` (all
/// when empty), measured under `cargo bench` (which passes `--bench`) or run once.
struct Harness {
    filters: Vec<String>,
    measure: bool,
}

impl Harness {
    fn from_args() -> Self {
        let (flags, filters): (Vec<String>, Vec<String>) =
            std::env::args().skip(1).partition(|a| a.starts_with("--"));
        Harness {
            filters,
            measure: flags.iter().any(|a| a == "--bench"),
        }
    }

    /// Times `run` as the module documentation says, if `name` passes the filter.
    fn bench<T>(&self, name: &str, mut run: impl FnMut() -> T) {
        if !self.filters.is_empty() && !self.filters.iter().any(|f| name.contains(f.as_str())) {
            return;
        }
        if !self.measure {
            std::hint::black_box(run());
            println!("{name}: ok (run once; `cargo bench` measures)");
            return;
        }
        measure(name, run);
    }
}

/// Warm-up, 20 samples of at least 100 ms, and the line of results.
fn measure<T>(name: &str, mut run: impl FnMut() -> T) {
    // Warm up, and find how many runs make a sample of at least 100 ms.
    let started = Instant::now();
    let mut runs = 0u32;
    while started.elapsed() < Duration::from_secs(1) {
        std::hint::black_box(run());
        runs += 1;
    }
    let per_sample = (f64::from(runs) * 0.1 / started.elapsed().as_secs_f64()).ceil() as u32;
    let per_sample = per_sample.max(1);
    let mut samples: Vec<f64> = (0..20)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..per_sample {
                std::hint::black_box(run());
            }
            start.elapsed().as_secs_f64() / f64::from(per_sample)
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    let median = (samples[9] + samples[10]) / 2.0;
    let mut deviations: Vec<f64> = samples.iter().map(|s| (s - median).abs()).collect();
    deviations.sort_by(f64::total_cmp);
    let ms = |s: f64| s * 1e3;
    println!(
        "{name:<40} median {:>8.3} ms   [{:.3} .. {:.3}]   mad {:.3} ms   (20 x {per_sample} runs)",
        ms(median),
        ms(samples[0]),
        ms(samples[19]),
        ms((deviations[9] + deviations[10]) / 2.0),
    );
}

fn main() {
    // libtest's `--ignored` runs the ignored tests alone, and these benches are none:
    // `cargo xtask test` runs those in a lane of their own.
    if std::env::args().any(|a| a == "--ignored") {
        return;
    }
    let harness = Harness::from_args();
    let options = operator_gen::Options::default();
    let memcached = Path::new(env!("CARGO_MANIFEST_DIR")).join("../memcached/src");
    harness.bench("memcached API (from disk)", || {
        let g = operator_gen::generate(std::slice::from_ref(&memcached), &options).unwrap();
        g.artifacts()
    });
    for kinds in [10, 100] {
        let texts = synthetic_api(kinds);
        harness.bench(&format!("{kinds} kinds x 20 fields (in memory)"), || {
            let g = operator_gen::generate_from_texts(Path::new("src"), texts.clone(), &options)
                .unwrap();
            assert_eq!(g.crds.len(), kinds);
            g.artifacts()
        });
    }
    // The same 100 kinds read from files, as `operator-gen --paths` does.
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in synthetic_api(100) {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let src = dir.path().join("src");
    harness.bench("100 kinds x 20 fields (from disk)", || {
        operator_gen::generate(std::slice::from_ref(&src), &options)
            .unwrap()
            .artifacts()
    });
}
