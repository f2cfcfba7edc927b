//! Golden tests: each directory under tests/golden holds an `input.rs` and the files
//! operator-gen must produce from it under `expected/`. Run with `UPDATE_GOLDEN=1` to
//! rewrite the expected files, then review the diff: if you did not add a marker and an
//! expected file changes, say why in the commit.
//!
//! Error cases live in tests/errors: `<case>.rs` and the exact message in `<case>.stderr`.

use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(name)
}

fn update() -> bool {
    std::env::var_os("UPDATE_GOLDEN").is_some()
}

fn options() -> operator_gen::Options {
    operator_gen::Options::default()
}

#[test]
fn golden_outputs() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir("golden"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    assert!(!cases.is_empty());
    let mut failures = Vec::new();
    for case in cases {
        let generated = operator_gen::generate(&[case.join("input.rs")], &options())
            .unwrap_or_else(|e| panic!("{}: {e}", case.display()));
        let artifacts = generated.artifacts();
        let expected_dir = case.join("expected");
        if update() {
            let _ = std::fs::remove_dir_all(&expected_dir);
            std::fs::create_dir_all(&expected_dir).unwrap();
            for a in &artifacts {
                std::fs::write(expected_dir.join(&a.file_name), &a.contents).unwrap();
            }
            continue;
        }
        let mut expected: Vec<String> = std::fs::read_dir(&expected_dir)
            .unwrap_or_else(|_| {
                panic!(
                    "{} has no expected/ (run with UPDATE_GOLDEN=1)",
                    case.display()
                )
            })
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        expected.sort();
        let mut produced: Vec<String> = artifacts.iter().map(|a| a.file_name.clone()).collect();
        produced.sort();
        if expected != produced {
            failures.push(format!(
                "{}: files {produced:?}, expected {expected:?}",
                case.display()
            ));
            continue;
        }
        for a in &artifacts {
            let want = std::fs::read_to_string(expected_dir.join(&a.file_name)).unwrap();
            if want != a.contents {
                let diff = similar::TextDiff::from_lines(&want, &a.contents)
                    .unified_diff()
                    .to_string();
                failures.push(format!("{}/{}:\n{diff}", case.display(), a.file_name));
            }
            // What we write must be valid YAML that means the same as the typed objects.
            for doc in serde_yaml::Deserializer::from_str(&a.contents) {
                let _: serde_yaml::Value =
                    serde::Deserialize::deserialize(doc).expect("valid YAML");
            }
        }
    }
    assert!(
        failures.is_empty(),
        "golden mismatches (UPDATE_GOLDEN=1 regenerates):\n{}",
        failures.join("\n")
    );
}

#[test]
fn error_messages() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(dir("errors"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    cases.sort();
    assert!(!cases.is_empty());
    let mut failures = Vec::new();
    for case in cases {
        // Paths in messages are relative to the crate, like in real use.
        let rel = case
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .unwrap()
            .to_path_buf();
        let text = std::fs::read_to_string(&case).unwrap();
        let root = rel.parent().unwrap().to_path_buf();
        let message =
            match operator_gen::generate_from_texts(&root, vec![(rel.clone(), text)], &options()) {
                Ok(_) => {
                    failures.push(format!(
                        "{}: expected an error, generation succeeded",
                        case.display()
                    ));
                    continue;
                }
                Err(e) => format!("{e}\n"),
            };
        let stderr = case.with_extension("stderr");
        if update() {
            std::fs::write(&stderr, &message).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&stderr).unwrap_or_default();
        if want != message {
            failures.push(format!(
                "{}:\n--- expected\n{want}\n--- got\n{message}",
                case.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "error mismatches (UPDATE_GOLDEN=1 regenerates):\n{}",
        failures.join("\n")
    );
}

#[test]
fn generating_twice_gives_identical_bytes() {
    let case = dir("golden").join("serde_shapes").join("input.rs");
    let a = operator_gen::generate(std::slice::from_ref(&case), &options())
        .unwrap()
        .artifacts();
    let b = operator_gen::generate(&[case], &options())
        .unwrap()
        .artifacts();
    assert_eq!(a, b);
}

#[test]
fn files_rendered_by_the_workers_equal_the_files_of_the_objects() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut crates = vec![repo.join("memcached/src")];
    for case in std::fs::read_dir(repo.join("testdata/parity")).unwrap() {
        crates.push(case.unwrap().path().join("rust"));
    }
    let options = operator_gen::Options {
        allow_dangerous_types: true,
        max_desc_len: Some(40),
        ..options()
    };
    let mut files = 0;
    for src in crates.iter().filter(|c| c.is_dir()) {
        let paths = std::slice::from_ref(src);
        let direct =
            operator_gen::generate_artifacts(paths, &options, &operator_gen::ArtifactKind::all())
                .unwrap();
        let objects = operator_gen::generate(paths, &options).unwrap();
        assert_eq!(direct, objects.artifacts(), "{}", src.display());
        files += direct.len();
    }
    assert!(files > 15, "only {files} files compared");
}

#[test]
fn max_desc_len_shortens_and_zero_drops_descriptions() {
    let case = dir("golden").join("validation").join("input.rs");
    let opts = operator_gen::Options {
        max_desc_len: Some(0),
        ..options()
    };
    let yaml = &operator_gen::generate(std::slice::from_ref(&case), &opts)
        .unwrap()
        .artifacts()[0]
        .contents;
    assert!(!yaml.contains("description:"), "{yaml}");
    let opts = operator_gen::Options {
        max_desc_len: Some(20),
        ..options()
    };
    let yaml = &operator_gen::generate(&[case], &opts).unwrap().artifacts()[0].contents;
    assert!(yaml.contains("description: Between 0 and 10,..."), "{yaml}");
}
