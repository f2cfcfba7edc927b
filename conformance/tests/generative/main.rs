//! The contract between operator-gen and the API server, tested on random APIs: what
//! operator-gen writes, the API server accepts; what it refuses, it refuses with a location;
//! and an object that the markers admit is stored as it was sent.
//!
//! The cases come from `cases.rs` with a fixed seed. `GENERATIVE_CASES` sets how many
//! (default 300) and `GENERATIVE_SEED` where they start, for long runs:
//!
//! ```sh
//! GENERATIVE_CASES=20000 GENERATIVE_SEED=1000000 cargo xtask test -- generated_crds
//! ```

mod cases;

use cases::{Case, Generator};
use operator_gen::{Error, Options};
use std::path::{Path, PathBuf};

/// How often a deliberate mistake is drawn at each place that can hold one.
const WRONG: f64 = 0.02;

fn settings() -> (u64, u64) {
    use operator_gen_conformance::env_number;
    (
        env_number("GENERATIVE_SEED", 1),
        env_number("GENERATIVE_CASES", 300),
    )
}

fn root() -> &'static Path {
    Path::new("/generated/src")
}

fn run(case: &Case) -> Result<operator_gen::Generated, Error> {
    let texts: Vec<(PathBuf, String)> = case
        .files
        .iter()
        .map(|(p, t)| (root().join(p), t.clone()))
        .collect();
    let options = Options {
        allow_dangerous_types: case.allow_dangerous_types,
        ..Options::default()
    };
    operator_gen::generate_from_texts(root(), texts, &options)
}

/// What operator-gen did with one case, checked against what the case holds.
enum Outcome {
    Written(operator_gen::Generated),
    Refused,
}

fn judge(case: &Case, failures: &mut Vec<String>) -> Outcome {
    match run(case) {
        Ok(generated) => {
            if !case.mistakes.is_empty() {
                failures.push(format!(
                    "seed {}: written although it holds {:?}\n{}",
                    case.seed,
                    case.mistakes,
                    case.listing()
                ));
            }
            Outcome::Written(generated)
        }
        Err(Error::Invalid(errors)) => {
            for e in &errors {
                let known = case.files.iter().any(|(p, _)| e.at.file == root().join(p));
                if !known || e.at.line == 0 || e.at.column == 0 {
                    failures.push(format!(
                        "seed {}: an error without a location in the case: {e}",
                        case.seed
                    ));
                }
            }
            if case.mistakes.is_empty() {
                let shown: Vec<String> = errors.iter().map(ToString::to_string).collect();
                failures.push(format!(
                    "seed {}: refused although it holds no mistake:\n{}\n{}",
                    case.seed,
                    shown.join("\n"),
                    case.listing()
                ));
            }
            Outcome::Refused
        }
        Err(e) => {
            failures.push(format!("seed {}: {e}", case.seed));
            Outcome::Refused
        }
    }
}

/// Fails with the first few failures; all of them go to a file under the target directory.
fn report(test: &str, failures: &[String]) {
    const SHOWN: usize = 5;
    let all = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{test}.failures.txt"));
    if failures.is_empty() {
        let _ = std::fs::remove_file(&all);
        return;
    }
    std::fs::write(&all, failures.join("\n\n")).unwrap();
    panic!(
        "{} failures (all of them in {}); the first {}:\n\n{}",
        failures.len(),
        all.display(),
        SHOWN.min(failures.len()),
        failures[..SHOWN.min(failures.len())].join("\n\n")
    );
}

/// Without a cluster: every case is written or refused with a location, the refusals are
/// exactly the cases with a mistake, and a second run writes the same bytes.
#[test]
fn generated_apis_are_written_or_refused_at_a_location() {
    let (seed, count) = settings();
    let mut failures = Vec::new();
    let (mut written, mut refused) = (0, 0);
    for seed in seed..seed + count {
        let case = Generator::case(seed, WRONG);
        match judge(&case, &mut failures) {
            Outcome::Written(first) => {
                written += 1;
                let again = run(&case).expect("the second run failed");
                assert_eq!(
                    serde_json::to_string(&first.crds).unwrap(),
                    serde_json::to_string(&again.crds).unwrap(),
                    "seed {seed}: two runs differ"
                );
            }
            Outcome::Refused => refused += 1,
        }
    }
    eprintln!("generative: {count} cases, {written} written, {refused} refused");
    report("written_or_refused", &failures);
}

/// A generated CRD as the k8s-openapi object kube's client sends (through JSON: the two
/// types carry the same fields).
fn as_k8s(
    crd: &operator_gen::api::apiextensions::v1::CustomResourceDefinition,
) -> k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition {
    serde_json::from_value(operator_gen::output::to_json(crd)).expect("the same fields")
}

/// The contract, judged by the real API server: every CRD operator-gen writes is accepted
/// (a dry-run create); and for every other case without a mistake the CRDs are installed
/// (25 cases at a time) and an object of each kind that the markers admit is created and
/// read back unchanged.
#[tokio::test]
#[ignore = "needs the local control plane; run by cargo xtask test"]
async fn generated_crds_are_accepted_by_the_api_server() {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    use kube::api::{Api, DeleteParams, DynamicObject, PostParams};
    use kube::discovery::ApiResource;
    use std::time::{Duration, Instant};

    let (first, count) = settings();
    let env = envtest::TestEnv::connect().await.unwrap();
    let client = env.client();
    let ns = env.namespace("generative").await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    // A run that was interrupted leaves installed CRDs behind, and a case of the same seed
    // would meet them: remove them first.
    let leftovers: Vec<String> = crds
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|c| c.spec.group.ends_with(".gen.example.com"))
        .filter_map(|c| c.metadata.name)
        .collect();
    for name in &leftovers {
        let _ = crds.delete(name, &DeleteParams::default()).await;
    }
    envtest::wait_until(
        "the CRDs of an interrupted run are gone",
        Duration::from_secs(120),
        || async {
            let left = crds.list(&Default::default()).await.ok()?;
            (!left
                .items
                .iter()
                .any(|c| c.spec.group.ends_with(".gen.example.com")))
            .then_some(())
        },
    )
    .await
    .unwrap();
    let started = Instant::now();
    let mut failures = Vec::new();
    let (mut refused, mut sent, mut accepted, mut stored_as_sent) = (0, 0, 0, 0);
    let mut round_trips = Vec::new();
    for seed in first..first + count {
        let case = Generator::case(seed, WRONG);
        let generated = match judge(&case, &mut failures) {
            Outcome::Written(g) => g,
            Outcome::Refused => {
                refused += 1;
                continue;
            }
        };
        let mut all_accepted = true;
        for crd in &generated.crds {
            sent += 1;
            match crds.create(&dry_run, &as_k8s(crd)).await {
                Ok(_) => accepted += 1,
                Err(e) => {
                    all_accepted = false;
                    failures.push(format!(
                        "seed {seed}: the API server refused CRD {}: {}\n{}",
                        crd.metadata.name.as_deref().unwrap_or_default(),
                        envtest::crds::describe(&e),
                        case.listing()
                    ));
                }
            }
        }
        if all_accepted && case.mistakes.is_empty() && seed.is_multiple_of(2) {
            round_trips.push((case, generated));
        }
    }
    for chunk in round_trips.chunks(25) {
        let installed: Vec<CustomResourceDefinition> = chunk
            .iter()
            .flat_map(|(_, g)| g.crds.iter().map(as_k8s))
            .collect();
        if let Err(e) = envtest::crds::install(&client, &installed, Duration::from_secs(60)).await {
            failures.push(format!(
                "seeds {}..: installing the CRDs: {e}",
                chunk[0].0.seed
            ));
            continue;
        }
        for (case, generated) in chunk {
            let seed = case.seed;
            for instance in &case.instances {
                let Some(crd) = generated
                    .crds
                    .iter()
                    .find(|c| c.spec.group == instance.group && c.spec.names.kind == instance.kind)
                else {
                    failures.push(format!("seed {seed}: no CRD for {}", instance.kind));
                    continue;
                };
                let api_version = format!("{}/{}", instance.group, instance.version);
                let resource = ApiResource {
                    group: instance.group.clone(),
                    version: instance.version.clone(),
                    api_version: api_version.clone(),
                    kind: instance.kind.clone(),
                    plural: crd.spec.names.plural.clone(),
                };
                let api: Api<DynamicObject> = if crd.spec.scope == "Namespaced" {
                    Api::namespaced_with(client.clone(), ns.name(), &resource)
                } else {
                    Api::all_with(client.clone(), &resource)
                };
                let mut body = instance.body.clone();
                body["apiVersion"] = api_version.into();
                body["kind"] = instance.kind.clone().into();
                body["metadata"] =
                    serde_json::json!({ "name": format!("instance-{seed}-{}", instance.version) });
                let object: DynamicObject = serde_json::from_value(body.clone()).unwrap();
                match api.create(&PostParams::default(), &object).await {
                    Ok(stored) if serde_json::to_value(&stored).unwrap()["spec"] == body["spec"] => {
                        stored_as_sent += 1
                    }
                    Ok(stored) => failures.push(format!(
                        "seed {seed}: {} was not stored as sent:\nsent   {}\nstored {}\n{}",
                        instance.kind,
                        body["spec"],
                        serde_json::to_value(&stored).unwrap()["spec"],
                        case.listing()
                    )),
                    Err(e) => failures.push(format!(
                        "seed {seed}: the API server refused a {} that the markers admit: {}\nsent {}\n{}",
                        instance.kind,
                        envtest::crds::describe(&e),
                        body["spec"],
                        case.listing()
                    )),
                }
            }
        }
        for crd in &installed {
            let name = crd.metadata.name.clone().unwrap_or_default();
            let _ = crds.delete(&name, &DeleteParams::default()).await;
        }
    }
    eprintln!(
        "generative: {count} cases from seed {first} in {:.1} s: {refused} refused by operator-gen (each at a location), \
         {sent} CRDs written and sent, {accepted} accepted by the API server, {} refused by it; \
         {stored_as_sent} objects the markers admit created and stored as sent",
        started.elapsed().as_secs_f64(),
        sent - accepted
    );
    report("api_server", &failures);
}
