//! The wire contract between a Rust API type, its CRD and the API server, tested on random
//! kinds over the Rust types whose JSON is not Go's (`vocabulary.rs`): whatever the API
//! server admits, the Rust type reads; whatever the Rust type writes, the API server admits.
//!
//! Each run draws `WIRE_CASES` kinds (default 150) from `WIRE_SEED` (default 1), writes their
//! CRDs with operator-gen, and compiles the same types once, with plain serde derives, into
//! a small program that reads specs and writes them back (serde is the judge of what the
//! type reads). Every probe of every kind (the type's boundaries, one past them, `null`,
//! wrong JSON types, fields left out) is sent to the API server as a dry-run create; each
//! object it admits, as it would store it, must deserialize, and each probe the Rust type
//! reads is written back by serde and must be admitted. For a long run:
//!
//! ```sh
//! WIRE_CASES=3000 WIRE_SEED=100000 cargo xtask test -- the_api_server_and_the_rust_type_agree
//! ```

mod shapes;
mod vocabulary;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use operator_gen_conformance::outside::{self, workspace_root};
use serde_json::{Value, json};
use vocabulary::Case;

fn settings() -> (u64, u64) {
    use operator_gen_conformance::env_number;
    (env_number("WIRE_SEED", 1), env_number("WIRE_CASES", 150))
}

fn cases() -> Vec<Case> {
    let (first, count) = settings();
    let mut cases: Vec<Case> = (first..first + count).map(Case::draw).collect();
    cases.extend(shapes::cases());
    cases
}

/// One source of all cases: for operator-gen (markers) or for rustc.
fn source(cases: &[Case], markers: bool) -> String {
    let mut s = vocabulary::prelude(markers);
    for case in cases {
        s.push_str(&case.source(markers));
    }
    s
}

fn crds(cases: &[Case]) -> operator_gen::Generated {
    let root = Path::new("/wire/src");
    operator_gen::generate_from_texts(
        root,
        vec![(root.join("lib.rs"), source(cases, true))],
        &operator_gen::Options::default(),
    )
    .unwrap_or_else(|e| panic!("operator-gen refused the cases:\n{e}"))
}

/// Without a cluster: operator-gen writes every case, and twice the same bytes.
#[test]
fn every_case_is_written() {
    let cases = cases();
    let first = crds(&cases);
    assert_eq!(first.crds.len(), cases.len());
    let again = crds(&cases);
    assert_eq!(
        serde_json::to_string(&first.crds).unwrap(),
        serde_json::to_string(&again.crds).unwrap()
    );
    // The draw reaches every part of the vocabulary (a part it never draws tests nothing);
    // smaller draws than the default may miss some.
    let text: String = cases.iter().map(|c| c.source(true)).collect();
    let parts = if settings().1 >= 150 { 20 } else { 0 };
    for part in [
        "std::num::NonZero<",
        ": char,",
        "; 1]",
        "Vec<u8>",
        "Box<Option<",
        "Vec<Option<",
        "BTreeMap<String, Option<",
        "BTreeMap<Color, ",
        "BTreeMap<char, ",
        "BTreeMap<Listen, ",
        "#[serde(flatten)]",
        "crate::as_string",
        ": Listen,",
        ": ByteString,",
        ": IntOrString,",
        ": Quantity,",
        ": Duration,",
        ": std::time::Duration,",
        ": Level,",
        ": Target,",
    ]
    .into_iter()
    .take(parts)
    {
        assert!(
            text.contains(part),
            "no case of seeds {:?} draws `{part}`",
            settings()
        );
    }
}

/// Compiles the cases with plain serde into a program that reads `kind<TAB>spec` lines and
/// answers `ok<TAB>spec as serde writes it back` or `err<TAB>serde's message`.
fn build_reader(cases: &[Case]) -> PathBuf {
    let root = workspace_root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    // One crate per draw, so runs of other draws side by side keep their own program.
    let (seed, count) = settings();
    let package = format!("wire-cases-{seed}-{count}");
    let dir = root.join("target/tests").join(&package);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    // The dependencies the derive tests' crates start from (with kube for its `Duration`,
    // without the client), so those builds in the same target directory are reused; then the
    // crates of the vocabulary's field types.
    let mut deps = outside::shared_dependencies(&manifest);
    deps.extend(
        [
            "serde_repr",
            "uuid",
            "humantime-serde",
            "chrono",
            "semver",
            "time",
        ]
        .iter()
        .map(|d| outside::dependency_line(&manifest, d)),
    );
    // ipnet with its serde impl, which the workspace leaves out for operator-gen's sake.
    deps.push(
        outside::dependency_line(&manifest, "ipnet")
            .replace("features = [\"std\"]", "features = [\"std\", \"serde\"]"),
    );
    std::fs::write(
        dir.join("Cargo.toml"),
        outside::manifest(&package, &deps, ""),
    )
    .unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let mut main = source(cases, false);
    main.push_str(
        "\nfn check<T: serde::de::DeserializeOwned + serde::Serialize>(spec: serde_json::Value) -> String {\n\
         match serde_json::from_value::<T>(spec) {\n\
         Ok(v) => match serde_json::to_string(&v) {\n\
         Ok(written) => format!(\"ok\\t{written}\"),\n\
         Err(e) => format!(\"err\\tread, but cannot be written back: {e}\"),\n},\n\
         Err(e) => format!(\"err\\t{e}\"),\n}\n}\n\n\
         fn main() {\n\
         for line in std::io::stdin().lines() {\n\
         let line = line.unwrap();\n\
         let (kind, spec) = line.split_once('\\t').unwrap();\n\
         let spec: serde_json::Value = serde_json::from_str(spec).unwrap();\n\
         let answer = match kind {\n",
    );
    for case in cases {
        main.push_str(&format!(
            "\"{}\" => check::<{}Spec>(spec),\n",
            case.kind, case.kind
        ));
    }
    main.push_str("_ => unreachable!(),\n};\nprintln!(\"{answer}\");\n}\n}\n");
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    let target = outside::target_dir();
    let out = Command::new(env!("CARGO"))
        .args(["build", "--quiet"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the cases did not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    target.join("debug").join(package)
}

/// What serde makes of each `(kind, spec)`: `Ok(spec as it writes it back)` or its error.
fn read_all(reader: &Path, specs: &[(String, Value)]) -> Vec<Result<Value, String>> {
    let lines: Vec<String> = specs
        .iter()
        .map(|(kind, spec)| format!("{kind}\t{spec}"))
        .collect();
    operator_gen_conformance::read_through(reader, &lines)
}

/// Whether `value` holds an integer above i64::MAX.
fn holds_beyond_int64(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.as_i64().is_none() && n.as_u64().is_some(),
        Value::Array(items) => items.iter().any(holds_beyond_int64),
        Value::Object(map) => map.values().any(holds_beyond_int64),
        _ => false,
    }
}

#[tokio::test]
#[ignore = "needs the local control plane; run by cargo xtask test"]
async fn the_api_server_and_the_rust_type_agree() {
    use futures::{StreamExt as _, TryStreamExt as _};
    use kube::api::{Api, DeleteParams, DynamicObject, PostParams};
    use kube::discovery::ApiResource;
    use std::time::{Duration, Instant};

    let started = Instant::now();
    let cases = cases();
    let generated = crds(&cases);
    let reader = build_reader(&cases);
    let env = envtest::TestEnv::connect().await.unwrap();
    let client = env.client();
    let ns = env.namespace("wire").await.unwrap();

    let as_k8s = |crd: &operator_gen::api::apiextensions::v1::CustomResourceDefinition| -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
        serde_json::from_value(operator_gen::output::to_json(crd)).unwrap()
    };
    let installed: Vec<_> = generated.crds.iter().map(as_k8s).collect();
    for chunk in installed.chunks(50) {
        envtest::crds::install(&client, chunk, Duration::from_secs(120))
            .await
            .unwrap();
    }

    // Every probe of every case: (case index, spec).
    let probes: Vec<(usize, Value)> = cases
        .iter()
        .enumerate()
        .flat_map(|(i, c)| c.probes().into_iter().map(move |p| (i, p)))
        .collect();
    let apis: Vec<Api<DynamicObject>> = cases
        .iter()
        .map(|case| {
            let crd = generated
                .crds
                .iter()
                .find(|c| c.spec.group == case.group)
                .expect("a CRD for each case");
            let resource = ApiResource {
                group: case.group.clone(),
                version: "v1".into(),
                api_version: format!("{}/v1", case.group),
                kind: case.kind.clone(),
                plural: crd.spec.names.plural.clone(),
            };
            Api::namespaced_with(client.clone(), ns.name(), &resource)
        })
        .collect();
    // Sends specs as dry-run creates: the spec as the API server would store it, or why it
    // refused.
    let send = |specs: Vec<(usize, Value)>| {
        let apis = &apis;
        let cases = &cases;
        async move {
            futures::stream::iter(specs.into_iter().map(|(i, spec)| async move {
                let case = &cases[i];
                let object: DynamicObject = serde_json::from_value(json!({
                    "apiVersion": format!("{}/v1", case.group),
                    "kind": case.kind,
                    "metadata": { "name": "probe" },
                    "spec": spec,
                }))
                .unwrap();
                let params = PostParams {
                    dry_run: true,
                    ..Default::default()
                };
                // An Established CRD's endpoint can take a moment to be served.
                let mut attempts = 0;
                loop {
                    match apis[i].create(&params, &object).await {
                        Ok(stored) => break Ok::<_, kube::Error>(Ok(stored.data["spec"].clone())),
                        Err(kube::Error::Api(status))
                            if status.code == 422 || status.code == 400 =>
                        {
                            break Ok(Err(status.message));
                        }
                        Err(kube::Error::Api(status)) if status.code == 404 && attempts < 100 => {
                            attempts += 1;
                            tokio::time::sleep(Duration::from_millis(100)).await;
                        }
                        Err(e) => break Err(e),
                    }
                }
            }))
            .buffered(16)
            .try_collect::<Vec<_>>()
            .await
            .unwrap()
        }
    };
    let kind_of = |i: usize| cases[i].kind.clone();

    let verdicts = send(probes.clone()).await;
    let admitted: Vec<(usize, &Value, Value)> = probes
        .iter()
        .zip(&verdicts)
        .filter_map(|((i, sent), v)| v.as_ref().ok().map(|stored| (*i, sent, stored.clone())))
        .collect();
    let mut failures = Vec::new();
    // Whatever the API server admits (as it stores it), serde reads.
    let stored_reads = read_all(
        &reader,
        &admitted
            .iter()
            .map(|(i, _, stored)| (kind_of(*i), stored.clone()))
            .collect::<Vec<_>>(),
    );
    let mut unreadable = 0;
    for ((i, sent, stored), read) in admitted.iter().zip(&stored_reads) {
        if let Err(e) = read {
            unreadable += 1;
            failures.push(format!(
                "{} (seed {}): admitted but unreadable ({e}):\nsent   {sent}\nstored {stored}\n{}",
                cases[*i].kind,
                cases[*i].seed,
                cases[*i].source(true)
            ));
        }
    }
    // Whatever serde reads, it writes back, and the API server admits what it writes.
    let probe_reads = read_all(
        &reader,
        &probes
            .iter()
            .map(|(i, spec)| (kind_of(*i), spec.clone()))
            .collect::<Vec<_>>(),
    );
    // (case, what serde wrote, whether the API server refused the probe serde read it from)
    let written: Vec<(usize, Value, bool)> = probes
        .iter()
        .zip(&probe_reads)
        .zip(&verdicts)
        .filter_map(|(((i, _), r), verdict)| {
            r.as_ref().ok().map(|w| (*i, w.clone(), verdict.is_err()))
        })
        .collect();
    let written_verdicts = send(written.iter().map(|(i, w, _)| (*i, w.clone())).collect()).await;
    let (mut refused_writes, mut echoes) = (0, 0);
    let mut pruned = 0;
    for ((i, spec, echo), verdict) in written.iter().zip(&written_verdicts) {
        // A fixed shape's write is stored as written: nothing of it pruned (but a `null`
        // field, which reads as the missing field does).
        if let Ok(stored) = verdict
            && cases[*i].fixed.is_some()
            && operator_gen_conformance::without_nulls(stored)
                != operator_gen_conformance::without_nulls(spec)
        {
            pruned += 1;
            failures.push(format!(
                "{}: written by serde but stored otherwise:\nwritten {spec}\nstored  {stored}\n{}",
                cases[*i].kind,
                cases[*i].source(true)
            ));
        }
        if let Err(why) = verdict {
            // serde read a value the API server refused and wrote it back: two Rust types
            // hold values that no schema can admit, a u64 above i64::MAX (the API server
            // stores integers as int64) and k8s-openapi's Quantity (an unchecked string;
            // fields are named after their types). Counted and reported, not a failure.
            if *echo && (holds_beyond_int64(spec) || why.contains("quantity")) {
                echoes += 1;
                continue;
            }
            refused_writes += 1;
            failures.push(format!(
                "{} (seed {}): written by serde but refused by the API server ({why}):\n{spec}\n{}",
                cases[*i].kind,
                cases[*i].seed,
                cases[*i].source(true)
            ));
        }
    }
    // What the API server stored of a write reads back as what was written: a `null` it
    // pruned must read as the `None` serde wrote (not as a `default = "..."` value).
    let stored: Vec<(usize, &Value, Value)> = written
        .iter()
        .zip(&written_verdicts)
        .filter_map(|((i, spec, _), verdict)| {
            let stored = verdict.as_ref().ok()?;
            Some((*i, spec, stored.clone()))
        })
        .collect();
    let rereads = read_all(
        &reader,
        &stored
            .iter()
            .map(|(i, _, stored)| (kind_of(*i), stored.clone()))
            .collect::<Vec<_>>(),
    );
    let mut changed = 0;
    for ((i, spec, stored), reread) in stored.iter().zip(&rereads) {
        match reread {
            Ok(again)
                if operator_gen_conformance::without_nulls(again)
                    == operator_gen_conformance::without_nulls(spec) => {}
            outcome => {
                changed += 1;
                failures.push(format!(
                    "{} (seed {}): written by serde, stored, and read back as something else:
written {spec}
stored  {stored}
read back and written {outcome:?}
{}",
                    cases[*i].kind,
                    cases[*i].seed,
                    cases[*i].source(true)
                ));
            }
        }
    }
    let api: Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        Api::all(client.clone());
    for crd in &installed {
        let _ = api
            .delete(
                crd.metadata.name.as_deref().unwrap(),
                &DeleteParams::default(),
            )
            .await;
    }
    let mut by_outcome = BTreeMap::new();
    for v in &verdicts {
        *by_outcome.entry(v.is_ok()).or_insert(0) += 1;
    }
    eprintln!(
        "wire contract: {} cases from seed {}, {} probes sent ({} admitted, {} refused), {} written back by serde and sent; \
         admitted but unreadable: {unreadable}; written but refused: {refused_writes}; written but pruned: {pruned}; \
         stored but read back otherwise: {changed} \
         (and {echoes} refused inputs that serde reads and writes back: u64 above i64::MAX, Quantity's unchecked strings) ({:.1} s)",
        cases.len(),
        settings().0,
        probes.len(),
        by_outcome.get(&true).unwrap_or(&0),
        by_outcome.get(&false).unwrap_or(&0),
        written.len(),
        started.elapsed().as_secs_f64()
    );
    let all = Path::new(env!("CARGO_TARGET_TMPDIR")).join("wire_contract.failures.txt");
    let _ = std::fs::remove_file(&all);
    if !failures.is_empty() {
        std::fs::write(&all, failures.join("\n\n")).unwrap();
        panic!(
            "{} failures (all in {}); the first:\n{}",
            failures.len(),
            all.display(),
            failures[..failures.len().min(3)].join("\n\n")
        );
    }
}
