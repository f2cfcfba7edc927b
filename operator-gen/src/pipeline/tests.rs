//! The pipeline's tests: the same outcome on any number of threads, and the hand-off of
//! files and kinds between workers.

use std::path::{Path, PathBuf};

use super::*;

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// The file `src/<name>.rs` of a crate whose sources are under `src`.
fn input(name: &str, text: &str) -> Input {
    Input {
        path: PathBuf::from(format!("src/{name}.rs")),
        root: PathBuf::from("src"),
        text: text.to_string(),
    }
}

/// The outcome as text: CRDs and roles, or every error message.
fn outcome(inputs: &[Input], options: &Options, threads: usize) -> String {
    match run_on(
        inputs,
        &Run::new(options, &ArtifactKind::all(), true),
        threads,
    ) {
        Ok(Made {
            crds,
            files,
            compat,
            warnings,
        }) => format!("{crds:?}\n{files:?}\n{compat:?}\n{warnings:?}"),
        Err(e) => e.to_string(),
    }
}

fn same_on_any_number_of_threads(inputs: &[Input], options: &Options) -> String {
    let one = outcome(inputs, options, 1);
    for threads in [2, 3, 5] {
        assert_eq!(
            one,
            outcome(inputs, options, threads),
            "{threads} threads differ from one"
        );
    }
    one
}

#[test]
fn fixtures_come_out_the_same_on_any_number_of_threads() {
    let mut checked = 0;
    for case in std::fs::read_dir(repo("testdata/parity")).unwrap() {
        let rust = case.unwrap().path().join("rust");
        if !rust.is_dir() {
            continue;
        }
        let inputs = crate::source::read_inputs(std::slice::from_ref(&rust)).unwrap();
        let options = Options {
            allow_dangerous_types: true,
            ..Options::default()
        };
        let out = same_on_any_number_of_threads(&inputs, &options);
        assert!(
            out.contains("CustomResourceDefinition")
                || out.contains("ClusterRole")
                || out.contains("WebhookConfiguration"),
            "{}: {out}",
            rust.display()
        );
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} parity cases found");
    let memcached = crate::source::read_inputs(&[repo("memcached/src")]).unwrap();
    same_on_any_number_of_threads(&memcached, &Options::default());
}

#[test]
fn errors_come_out_the_same_on_any_number_of_threads() {
    // Every error fixture in one crate, each file its own module: errors from all
    // workers, merged.
    let inputs = crate::source::read_inputs(&[repo("operator-gen/tests/errors")]).unwrap();
    assert!(inputs.len() > 10);
    let out = same_on_any_number_of_threads(&inputs, &Options::default());
    assert!(out.contains("recursive type"), "{out}");
    assert!(out.contains("rbac_mistakes.rs:"), "{out}");
}

#[test]
fn a_type_from_another_workers_file_is_parsed_where_it_is_needed() {
    let inputs = vec![
        input(
            "a",
            "/// Thing is a kind.\n#[resource(group = \"x.example.com\", version = \"v1\", kind = \"Thing\")]\n\
             pub struct Thing { pub metadata: ObjectMeta, pub spec: crate::b::ThingSpec }\n",
        ),
        input(
            "b",
            "/// ThingSpec is the spec.\npub struct ThingSpec {\n    /// Size is a size.\n    #[validation(minimum = 1)]\n    pub size: i32,\n}\n",
        ),
    ];
    let out = same_on_any_number_of_threads(&inputs, &Options::default());
    assert!(out.contains("Size is a size."), "{out}");
    assert!(out.contains("minimum: Some(1.0)"), "{out}");
}

#[test]
fn crds_come_out_sorted_by_group_and_kind_whoever_built_them() {
    let kind = |k: &str| {
        format!(
            "#[resource(group = \"x.example.com\", version = \"v1\", kind = \"{k}\")]\n\
             pub struct {k} {{ pub metadata: ObjectMeta, pub spec: {k}Spec }}\n\
             pub struct {k}Spec {{ pub size: i32 }}\n"
        )
    };
    let inputs: Vec<Input> = [("a", ["Bravo", "Delta"]), ("b", ["Alpha", "Charlie"])]
        .iter()
        .map(|(file, kinds)| input(file, &kinds.iter().map(|k| kind(k)).collect::<String>()))
        .collect();
    same_on_any_number_of_threads(&inputs, &Options::default());
    let all = ArtifactKind::all();
    let Made { crds, files, .. } =
        run_on(&inputs, &Run::new(&Options::default(), &all, true), 2).unwrap();
    let names: Vec<&str> = files.iter().map(|f| f.file_name.as_str()).collect();
    assert_eq!(
        names,
        [
            "x.example.com_alphas.yaml",
            "x.example.com_bravoes.yaml",
            "x.example.com_charlies.yaml",
            "x.example.com_deltas.yaml"
        ]
    );
    let kinds: Vec<&str> = crds.iter().map(|c| c.spec.names.kind.as_str()).collect();
    assert_eq!(kinds, ["Alpha", "Bravo", "Charlie", "Delta"]);
}

#[test]
fn syntax_errors_of_every_worker_are_reported() {
    let inputs = vec![
        input("a", "pub struct A {"),
        input("b", "pub struct B;"),
        input("c", "pub struct C { x: }"),
    ];
    let out = same_on_any_number_of_threads(&inputs, &Options::default());
    assert!(out.contains("src/a.rs:1:"), "{out}");
    assert!(out.contains("src/c.rs:1:"), "{out}");
}

/// The model's types and the skeleton's declarations share their ids: a field's type
/// resolved through the skeleton is built from the right model.
#[test]
fn the_model_and_the_skeleton_number_the_types_alike() {
    let inputs = [
        input(
            "a",
            "pub struct A { pub b: crate::b::B }\npub type Alias = i32;",
        ),
        input(
            "b",
            "pub enum Other { X }\nmod inner { pub struct B { pub size: i32 } }",
        ),
    ];
    let mut summaries = Vec::new();
    let mut defs = Vec::new();
    for (no, i) in inputs.iter().enumerate() {
        let file = i.parse().unwrap();
        summaries.push(crate::source::summarize(&file));
        defs.extend(crate::lower::type_defs(no, &file));
    }
    let skeleton = Skeleton::build(summaries);
    let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["A", "Alias", "Other", "B"]);
    for (id, def) in defs.iter().enumerate() {
        assert_eq!(skeleton.decls[id].name, def.name);
        assert_eq!(skeleton.decls[id].file, def.at.file as usize);
    }
    assert_eq!(skeleton.decls[3].module, ["b", "inner"]);
}

#[test]
fn the_queue_hands_out_every_file_once_largest_first() {
    let inputs: Vec<Input> = [3, 10, 1, 7]
        .iter()
        .map(|n| Input {
            path: PathBuf::new(),
            root: PathBuf::new(),
            text: "x".repeat(*n),
        })
        .collect();
    let queue = Queue::new(&inputs);
    let taken: Vec<usize> = std::iter::from_fn(|| queue.take()).collect();
    assert_eq!(taken, [1, 3, 0, 2]);
    assert_eq!(queue.take(), None);
}
