//! A generator written outside operator-gen, as a user would write one: it is one module
//! (`stubs` below) and its registration (the list given to `generate_using`). It reads the
//! CRDs one by one (a stub file per CRD, in a subdirectory per group) and all at once (an
//! index of every CRD with the Rust type of each version), and the sink writes, checks and
//! prunes its tree.

use std::path::{Path, PathBuf};

use operator_gen::output::{self, Drift, Layout};
use operator_gen::{Api, ArtifactKind, Error, Generator, Options, Reads};

mod stubs {
    use operator_gen::api::apiextensions::v1::CustomResourceDefinition;
    use operator_gen::{Api, Artifact, ArtifactKind, Generator, LocatedError, Options, Reads};

    /// `stubs/<group>/<plural>.rs`, one per CRD, and `stubs/index.txt`.
    pub struct Stubs;

    pub static STUBS: Stubs = Stubs;

    impl Generator for Stubs {
        fn name(&self) -> &'static str {
            "stubs"
        }

        fn help(&self) -> &'static str {
            "a client stub per CRD"
        }

        fn dir(&self) -> &'static str {
            "stubs"
        }

        fn owns(&self, path: &str) -> bool {
            path.ends_with(".rs") || path == "index.txt"
        }

        fn reads(&self) -> Reads {
            Reads {
                kinds: true,
                each_crd: true,
                all_crds: true,
                ..Reads::default()
            }
        }

        fn crd_files(&self, crd: &CustomResourceDefinition, _: &Options) -> Vec<Artifact> {
            let versions: Vec<&str> = crd.spec.versions.iter().map(|v| v.name.as_str()).collect();
            vec![Artifact {
                kind: ArtifactKind::of(&STUBS),
                file_name: format!("{}/{}.rs", crd.spec.group, crd.spec.names.plural),
                contents: format!(
                    "// {} in {}, versions {}\n",
                    crd.spec.names.kind,
                    crd.spec.group,
                    versions.join(", ")
                ),
            }]
        }

        fn build(&self, api: &Api, _: &Options) -> Result<Vec<Artifact>, Vec<LocatedError>> {
            // A generator's own check of the sources, reported where the kind is declared.
            if let Some(k) = api.kinds.iter().find(|k| k.kind == "Forbidden") {
                return Err(vec![k.at.error("stubs cannot be made for Forbidden")]);
            }
            let mut index = String::new();
            for crd in &api.crds {
                let types: Vec<&str> = api
                    .kinds
                    .iter()
                    .filter(|k| k.group == crd.spec.group && k.kind == crd.spec.names.kind)
                    .map(|k| k.rust_path.as_str())
                    .collect();
                index.push_str(&format!(
                    "{} {}\n",
                    crd.metadata.name.as_deref().unwrap_or_default(),
                    types.join(" ")
                ));
            }
            Ok(vec![Artifact {
                kind: ArtifactKind::of(&STUBS),
                file_name: "index.txt".into(),
                contents: index,
            }])
        }
    }
}

/// A generator that breaks its contract: a file outside its directory.
struct Escapes;

static ESCAPES: Escapes = Escapes;

impl Generator for Escapes {
    fn name(&self) -> &'static str {
        "escapes"
    }
    fn help(&self) -> &'static str {
        "writes outside its directory"
    }
    fn dir(&self) -> &'static str {
        "escapes"
    }
    fn owns(&self, _: &str) -> bool {
        true
    }
    fn reads(&self) -> Reads {
        Reads::default()
    }
    fn build(
        &self,
        _: &Api,
        _: &Options,
    ) -> Result<Vec<operator_gen::Artifact>, Vec<operator_gen::LocatedError>> {
        Ok(vec![operator_gen::Artifact {
            kind: ArtifactKind::of(&ESCAPES),
            file_name: "../crd/bases/evil.yaml".into(),
            contents: String::new(),
        }])
    }
}

fn kind(group: &str, version: &str, kind: &str) -> String {
    let storage = if version == "v1" { ", storage" } else { "" };
    format!(
        "/// {kind} is a kind.\n\
         #[resource(group = \"{group}\", version = \"{version}\", kind = \"{kind}\"{storage})]\n\
         pub struct {kind}{version} {{ pub metadata: ObjectMeta, pub spec: Spec }}\n"
    )
}

fn crate_with(dir: &Path, kinds: &[String]) -> PathBuf {
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("api")).unwrap();
    std::fs::write(
        src.join("api/mod.rs"),
        format!(
            "/// Spec is a spec.\npub struct Spec {{ pub size: i32 }}\n{}",
            kinds.concat()
        ),
    )
    .unwrap();
    src
}

fn names(files: &[operator_gen::Artifact], kind: ArtifactKind) -> Vec<String> {
    files
        .iter()
        .filter(|f| f.kind == kind)
        .map(|f| f.file_name.clone())
        .collect()
}

#[test]
fn a_generator_of_ones_own_sees_the_crds_and_writes_a_tree() {
    let dir = tempfile::tempdir().unwrap();
    let src = crate_with(
        dir.path(),
        &[
            kind("a.example.com", "v1", "Widget"),
            kind("a.example.com", "v2", "Widget"),
            kind("b.example.com", "v1", "Gadget"),
        ],
    );
    let options = Options::default();
    let stubs = ArtifactKind::of(&stubs::STUBS);
    let generated = operator_gen::generate_using(
        std::slice::from_ref(&src),
        &options,
        &[operator_gen::GENERATORS[0], &stubs::STUBS],
    )
    .unwrap();
    // Its files come after the CRDs', per-CRD files by name, then its build's.
    assert_eq!(
        names(&generated.files, stubs),
        [
            "a.example.com/widgets.rs",
            "b.example.com/gadgets.rs",
            "index.txt"
        ]
    );
    assert_eq!(names(&generated.files, ArtifactKind::CRD).len(), 2);
    let file = |name: &str| {
        generated
            .files
            .iter()
            .find(|f| f.file_name == name)
            .unwrap()
            .contents
            .clone()
    };
    assert_eq!(
        file("a.example.com/widgets.rs"),
        "// Widget in a.example.com, versions v1, v2\n"
    );
    assert_eq!(
        file("index.txt"),
        "widgets.a.example.com api::Widgetv1 api::Widgetv2\ngadgets.b.example.com api::Gadgetv1\n"
    );
    // Without keeping the CRD objects for the caller, the generator still gets them all.
    let streamed =
        operator_gen::generate_artifacts(std::slice::from_ref(&src), &options, &[stubs]).unwrap();
    assert_eq!(streamed, names_only(&generated.files, stubs));

    // The sink writes the tree, finds it up to date, and leaves what is not the
    // generator's alone.
    let config = dir.path().join("config");
    let layout = Layout::kubebuilder(&config);
    std::fs::create_dir_all(config.join("stubs/b.example.com")).unwrap();
    std::fs::write(config.join("stubs/README.md"), "hand-written\n").unwrap();
    std::fs::write(config.join("stubs/b.example.com/notes.md"), "mine\n").unwrap();
    let written = output::write_all(&generated.files, &layout, &[stubs]).unwrap();
    assert_eq!(written.len(), 3, "{written:?}");
    assert!(config.join("stubs/a.example.com/widgets.rs").is_file());
    assert!(
        !config.join("crd").exists(),
        "only the generators asked for"
    );
    assert_eq!(output::check(&generated.files, &layout, &[stubs]), []);

    // A kind that goes away takes its stub with it, and the directory it leaves empty;
    // a directory that holds the user's file stays.
    std::fs::create_dir_all(config.join("stubs/c.example.com/deeper")).unwrap();
    std::fs::write(config.join("stubs/c.example.com/deeper/old.rs"), "").unwrap();
    crate_with(dir.path(), &[kind("a.example.com", "v1", "Widget")]);
    let generated =
        operator_gen::generate_using(std::slice::from_ref(&src), &options, &[&stubs::STUBS])
            .unwrap();
    let drift = output::check(&generated.files, &layout, &[stubs]);
    let stale: Vec<&Path> = drift
        .iter()
        .filter(|d| matches!(d, Drift::Stale { .. }))
        .map(Drift::path)
        .collect();
    assert_eq!(
        stale,
        [
            config.join("stubs/b.example.com/gadgets.rs"),
            config.join("stubs/c.example.com/deeper/old.rs"),
        ]
    );
    output::write_all(&generated.files, &layout, &[stubs]).unwrap();
    assert!(!config.join("stubs/b.example.com/gadgets.rs").exists());
    assert!(config.join("stubs/b.example.com/notes.md").is_file());
    assert!(!config.join("stubs/c.example.com").exists());
    assert!(config.join("stubs/README.md").is_file());
    assert_eq!(
        std::fs::read_to_string(config.join("stubs/index.txt")).unwrap(),
        "widgets.a.example.com api::Widgetv1\n"
    );
    assert_eq!(output::check(&generated.files, &layout, &[stubs]), []);
}

fn names_only(files: &[operator_gen::Artifact], kind: ArtifactKind) -> Vec<operator_gen::Artifact> {
    files.iter().filter(|f| f.kind == kind).cloned().collect()
}

/// Only what the generators that run read is read: RBAC alone reads no kind, so a broken
/// kind does not stop it.
#[test]
fn rbac_alone_reads_no_kind() {
    let dir = tempfile::tempdir().unwrap();
    let src = crate_with(dir.path(), &[]);
    std::fs::write(
        src.join("lib.rs"),
        "#[resource(group = \"BAD GROUP\", version = \"v1\")]\npub struct Broken { pub metadata: ObjectMeta, pub spec: i32 }\n\
         #[rbac(groups = \"apps\", resources = \"deployments\", verbs = \"get\")]\npub fn reconcile() {}\n",
    )
    .unwrap();
    let rbac = operator_gen::generate_with(
        std::slice::from_ref(&src),
        &Options::default(),
        &[ArtifactKind::RBAC],
    )
    .unwrap();
    assert!(rbac.crds.is_empty());
    assert_eq!(names(&rbac.files, ArtifactKind::RBAC), ["role.yaml"]);
    assert!(operator_gen::generate(&[src], &Options::default()).is_err());
}

#[test]
fn a_generators_errors_point_into_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    let src = crate_with(dir.path(), &[kind("a.example.com", "v1", "Forbidden")]);
    let err = operator_gen::generate_using(&[src], &Options::default(), &[&stubs::STUBS])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("api/mod.rs:4:1: error: stubs cannot be made for Forbidden"),
        "{err}"
    );
    assert!(err.contains("nothing was written"), "{err}");
}

#[test]
fn a_generator_that_writes_outside_its_directory_is_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let src = crate_with(dir.path(), &[]);
    let err = operator_gen::generate_using(&[src], &Options::default(), &[&ESCAPES]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Generator {
                generator: "escapes",
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "the generator `escapes` is at fault: the file name \"../crd/bases/evil.yaml\" has a part that starts with `.` (hidden, `.` or `..`); nothing was written"
    );
}
