//! How long operator-gen takes, end to end (parse, resolve, build schemas, render YAML):
//! on the memcached API, and on a generated API of N kinds with 20 fields each.
//! Target: 100 kinds well under 200 ms.

use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};

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

fn bench(c: &mut Criterion) {
    let options = operator_gen::Options::default();
    let memcached = Path::new(env!("CARGO_MANIFEST_DIR")).join("../memcached/src");
    c.bench_function("memcached API (from disk)", |b| {
        b.iter(|| {
            let g = operator_gen::generate(std::slice::from_ref(&memcached), &options).unwrap();
            g.artifacts()
        })
    });
    for kinds in [10, 100] {
        let texts = synthetic_api(kinds);
        c.bench_function(&format!("{kinds} kinds x 20 fields (in memory)"), |b| {
            b.iter(|| {
                let g =
                    operator_gen::generate_from_texts(Path::new("src"), texts.clone(), &options)
                        .unwrap();
                assert_eq!(g.crds.len(), kinds);
                g.artifacts()
            })
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
    c.bench_function("100 kinds x 20 fields (from disk)", |b| {
        b.iter(|| {
            operator_gen::generate(std::slice::from_ref(&src), &options)
                .unwrap()
                .artifacts()
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
