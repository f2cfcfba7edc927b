//! The `operator-gen` command as a user runs it: files written, reports, exit codes.

use std::path::Path;
use std::process::{Command, Output};

fn operator_gen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_operator-gen"))
        .args(args)
        .output()
        .expect("operator-gen runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const API: &str = r#"
/// Widget is a kind.
#[derive(CustomResource)]
#[resource(group = "cli.example.com", version = "v1")]
pub struct Widget {
    pub metadata: ObjectMeta,
    pub spec: WidgetSpec,
}

/// WidgetSpec is the spec.
#[derive(Schema)]
pub struct WidgetSpec {
    /// Size is a size.
    #[validation(minimum = 1)]
    pub size: i32,
}

#[rbac(groups = "cli.example.com", resources = "widgets", verbs = "get;list")]
pub fn reconcile() {}
"#;

fn api(dir: &Path) -> String {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("lib.rs"), API).unwrap();
    src.display().to_string()
}

#[test]
fn writes_the_config_layout_reports_each_file_once_and_leaves_unchanged_files_alone() {
    let dir = tempfile::tempdir().unwrap();
    let src = api(dir.path());
    let config = dir.path().join("config");
    let config = config.to_str().unwrap();

    let first = operator_gen(&["all", "--paths", &src, "--out", config]);
    assert!(first.status.success(), "{}", stderr(&first));
    let crd = dir
        .path()
        .join("config/crd/bases/cli.example.com_widgets.yaml");
    let role = dir.path().join("config/rbac/role.yaml");
    assert_eq!(
        stderr(&first),
        format!("wrote {}\nwrote {}\n", crd.display(), role.display())
    );
    assert!(
        std::fs::read_to_string(&crd)
            .unwrap()
            .contains("minimum: 1")
    );
    assert!(
        std::fs::read_to_string(&role)
            .unwrap()
            .contains("- widgets")
    );

    let again = operator_gen(&["all", "--paths", &src, "--out", config]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(stderr(&again), "", "nothing changed, nothing written");

    let check = operator_gen(&["all", "--paths", &src, "--out", config, "--check"]);
    assert!(check.status.success(), "{}", stderr(&check));
    std::fs::write(&role, "stale\n").unwrap();
    let check = operator_gen(&["all", "--paths", &src, "--out", config, "--check"]);
    assert_eq!(check.status.code(), Some(1));
    assert!(
        stderr(&check).contains("role.yaml is stale"),
        "{}",
        stderr(&check)
    );
    assert_eq!(std::fs::read_to_string(&role).unwrap(), "stale\n");
}

#[test]
fn stdout_gets_the_same_files_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let src = api(dir.path());
    let out = operator_gen(&["all", "--paths", &src, "--stdout"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let crd = text.find("kind: CustomResourceDefinition").expect("a CRD");
    let role = text.find("kind: ClusterRole").expect("a role");
    assert!(crd < role, "{text}");
    let only_rbac = operator_gen(&["rbac", "--paths", &src, "--stdout"]);
    let only_rbac = String::from_utf8(only_rbac.stdout).unwrap();
    assert!(
        !only_rbac.contains("CustomResourceDefinition"),
        "{only_rbac}"
    );
    assert!(only_rbac.contains("kind: ClusterRole"), "{only_rbac}");
}

#[test]
fn rbac_namespace_makes_the_markers_a_role_there_and_a_bad_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let src = api(dir.path());
    let out = operator_gen(&[
        "rbac",
        "--paths",
        &src,
        "--stdout",
        "--rbac-namespace",
        "shop-system",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("kind: Role\nmetadata:\n  name: manager-role\n  namespace: shop-system\n"),
        "{text}"
    );
    assert!(!text.contains("ClusterRole"), "{text}");
    let bad = operator_gen(&[
        "rbac",
        "--paths",
        &src,
        "--stdout",
        "--rbac-namespace",
        "Shop_System",
    ]);
    assert!(!bad.status.success());
    assert!(
        stderr(&bad).contains("\"Shop_System\" is not a namespace name"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn a_missing_path_is_named_once_with_its_cause() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let missing = missing.to_str().unwrap();
    let out = operator_gen(&["all", "--paths", missing, "--stdout"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out),
        format!("cannot read {missing}: no such file or directory\n")
    );
}

#[test]
fn bad_markers_fail_with_their_location_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let src = api(dir.path());
    std::fs::write(
        Path::new(&src).join("lib.rs"),
        API.replace("minimum = 1", "minimun = 1"),
    )
    .unwrap();
    let config = dir.path().join("config");
    let out = operator_gen(&["all", "--paths", &src, "--out", config.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("lib.rs:14:18: error: unknown argument `minimun`"),
        "{err}"
    );
    assert!(err.contains("did you mean `minimum`?"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert!(!config.exists(), "no config directory after an error");
}

#[test]
fn a_kube_derive_kind_is_a_warning_and_the_rest_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let src = api(dir.path());
    let kube = r#"
#[derive(kube::CustomResource, Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[kube(group = "cli.example.com", version = "v1", kind = "Gizmo")]
pub struct GizmoSpec {
    pub size: i32,
}
"#;
    std::fs::write(Path::new(&src).join("lib.rs"), format!("{API}{kube}")).unwrap();
    let config = dir.path().join("config");
    let out = operator_gen(&["crd", "--paths", &src, "--out", config.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "{}: warning: kind `Gizmo` is kube-derive's #[derive(CustomResource)] on `GizmoSpec`: operator-gen does not generate its CRD",
            Path::new(&src).join("lib.rs:22:1").display()
        )),
        "{err}"
    );
    assert!(
        err.contains("#[resource(group = \"cli.example.com\", version = \"v1\", kind = \"Gizmo\", scope = \"Cluster\")]"),
        "{err}"
    );
    let bases = config.join("crd/bases");
    assert!(bases.join("cli.example.com_widgets.yaml").exists(), "{err}");
    assert!(!bases.join("cli.example.com_gizmos.yaml").exists(), "{err}");
}

/// Every file under `dir` with its contents, sorted.
fn files(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn each_generator_alone_touches_only_its_own_files() {
    let dir = tempfile::tempdir().unwrap();
    let src = api(dir.path());
    let config = dir.path().join("config");
    let out_dir = config.to_str().unwrap();
    let crd = config.join("crd/bases/cli.example.com_widgets.yaml");
    let role = config.join("rbac/role.yaml");
    // The other generator's files, a removed kind's CRD and hand-written files.
    let old_crd = config.join("crd/bases/cli.example.com_gones.yaml");
    let account = config.join("rbac/service_account.yaml");
    for (path, text) in [
        (&crd, "crd of an older run\n"),
        (&old_crd, "a kind that is gone\n"),
        (&role, "role of an older run\n"),
        (&account, "hand-written\n"),
    ] {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    let before = files(&config);
    let rbac = operator_gen(&["rbac", "--paths", &src, "--out", out_dir]);
    assert!(rbac.status.success(), "{}", stderr(&rbac));
    assert_eq!(stderr(&rbac), format!("wrote {}\n", role.display()));
    let after = files(&config);
    for (path, contents) in &before {
        if path != &role {
            assert!(
                after.contains(&(path.clone(), contents.clone())),
                "{path:?} changed"
            );
        }
    }
    assert!(
        std::fs::read_to_string(&role)
            .unwrap()
            .contains("- widgets")
    );
    let check_crd = operator_gen(&["crd", "--paths", &src, "--out", out_dir, "--check"]);
    assert_eq!(check_crd.status.code(), Some(1), "the CRDs are still stale");
    let check_rbac = operator_gen(&["rbac", "--paths", &src, "--out", out_dir, "--check"]);
    assert!(check_rbac.status.success(), "{}", stderr(&check_rbac));

    std::fs::write(&role, "role of an older run\n").unwrap();
    let crds = operator_gen(&["crd", "--paths", &src, "--out", out_dir]);
    assert!(crds.status.success(), "{}", stderr(&crds));
    assert_eq!(
        stderr(&crds),
        format!("removed {}\nwrote {}\n", old_crd.display(), crd.display())
    );
    assert_eq!(
        std::fs::read_to_string(&role).unwrap(),
        "role of an older run\n"
    );
    assert_eq!(std::fs::read_to_string(&account).unwrap(), "hand-written\n");
    assert!(
        std::fs::read_to_string(&crd)
            .unwrap()
            .contains("minimum: 1")
    );
}

#[test]
fn a_generator_that_does_not_run_reads_nothing_of_its_own() {
    // A kind whose schema cannot be built stops `crd` and `all`, and not `rbac`: only the
    // generators asked for run, as with controller-gen.
    let dir = tempfile::tempdir().unwrap();
    let src = api(dir.path());
    std::fs::write(
        Path::new(&src).join("lib.rs"),
        API.replace("pub size: i32", "pub size: std::time::SystemTime"),
    )
    .unwrap();
    let config = dir.path().join("config");
    let config = config.to_str().unwrap();
    for what in ["crd", "all"] {
        let out = operator_gen(&[what, "--paths", &src, "--out", config]);
        assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("SystemTime"),
            "{what}: {}",
            stderr(&out)
        );
    }
    let out = operator_gen(&["rbac", "--paths", &src, "--out", config]);
    assert!(out.status.success(), "{}", stderr(&out));
    let role = std::fs::read_to_string(Path::new(config).join("rbac/role.yaml")).unwrap();
    assert!(role.contains("- widgets"), "{role}");
    assert!(!Path::new(config).join("crd").exists());
    // A mistake in an #[rbac] marker still stops `rbac`.
    std::fs::write(
        Path::new(&src).join("lib.rs"),
        API.replace("verbs = ", "verbz = "),
    )
    .unwrap();
    let out = operator_gen(&["rbac", "--paths", &src, "--out", config]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("did you mean `verbs`?"),
        "{}",
        stderr(&out)
    );
}

/// Input nested deep enough to overflow a recursive parser (a type, modules, parentheses
/// in a `const` and in a marker value, each thousands deep) is an error at the place where
/// the nesting passes the limit, exit code 1, not an abort; nothing is written.
#[test]
fn nesting_too_deep_is_a_located_error_not_a_crash() {
    let deep_type = format!(
        "pub struct Deep {{\n    pub x: {}i32{},\n}}\n",
        "Vec<".repeat(1_100),
        ">".repeat(1_100)
    );
    let deep_mods = format!("{}\n{}\n", "mod m {".repeat(1_500), "}".repeat(1_500));
    let deep_const = format!(
        "const X: i32 = {}1{};\n",
        "(".repeat(5_000),
        ")".repeat(5_000)
    );
    let deep_marker = format!(
        "#[derive(Schema)]\npub struct S {{\n    #[validation(minimum = {}1{})]\n    pub x: i32,\n}}\n",
        "(".repeat(5_000),
        ")".repeat(5_000)
    );
    for (name, text, line, column) in [
        // The struct's brace is level 1, so the 128th `Vec<` is level 129.
        ("deep_type", &deep_type, 2, 11 + 4 * 128),
        ("deep_mods", &deep_mods, 1, 7 * 129),
        ("deep_const", &deep_const, 1, 15 + 129),
        // Brace, attribute and marker are levels 1 to 3.
        ("deep_marker", &deep_marker, 3, 27 + 126),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let src = api(dir.path());
        std::fs::write(Path::new(&src).join(format!("{name}.rs")), text).unwrap();
        let config = dir.path().join("config");
        let out = operator_gen(&["all", "--paths", &src, "--out", config.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", stderr(&out));
        let expected = format!(
            "{}:{line}:{column}: error: nesting deeper than 128 levels",
            Path::new(&src).join(format!("{name}.rs")).display()
        );
        assert!(
            stderr(&out).starts_with(&expected),
            "{name}: {}",
            stderr(&out).chars().take(400).collect::<String>()
        );
        assert!(!config.exists(), "{name}: nothing is written");
    }
}

/// Just under the limit, generation goes through: the parser, the schema builder and the
/// YAML writer all recurse once per level, on the calling thread and on the workers.
#[test]
fn nesting_just_under_the_limit_is_generated() {
    // Levels: the struct's brace, then one per `Vec<`.
    let depth = 127;
    let kind = format!(
        "#[derive(CustomResource)]\n#[resource(group = \"deep.example.com\", version = \"v1\")]\n\
         pub struct Deep {{\n    pub metadata: ObjectMeta,\n    pub spec: DeepSpec,\n}}\n\n\
         #[derive(Schema)]\npub struct DeepSpec {{\n    pub x: {}i32{},\n}}\n",
        "Vec<".repeat(depth),
        ">".repeat(depth)
    );
    // A second file past the size at which worker threads take over.
    let padding = format!("// {}\n", "x".repeat(70_000));
    for workers in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("lib.rs"), &kind).unwrap();
        if workers {
            std::fs::write(src.join("padding.rs"), &padding).unwrap();
        }
        let out = operator_gen(&["crd", "--paths", src.to_str().unwrap(), "--stdout"]);
        assert!(out.status.success(), "{}", stderr(&out));
        let yaml = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            yaml.matches("items:").count(),
            depth,
            "{}",
            &yaml[..2000.min(yaml.len())]
        );
    }
}

/// A file that is not UTF-8 is refused at its first bad byte, with line and column.
#[test]
fn a_file_that_is_not_utf8_is_refused_at_the_bad_byte() {
    let dir = tempfile::tempdir().unwrap();
    let src = api(dir.path());
    let bad = Path::new(&src).join("bad.rs");
    std::fs::write(&bad, b"pub struct A {\n    pub x: i32, // caf\xe9 \n}\n").unwrap();
    let out = operator_gen(&["crd", "--paths", &src, "--stdout"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        format!(
            "{}:2:23: error: the file is not UTF-8: byte 0xe9 here does not start a UTF-8 character (Rust sources must be UTF-8)\n  |\n2 |     pub x: i32, // caf\u{fffd} \n  |                       ^\n\n1 error in marker attributes or types; nothing was written\n",
            bad.display()
        )
    );
}

#[test]
fn against_a_release_the_gate_refuses_a_breaking_change_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = api(dir.path());
    let config = dir.path().join("config");
    let config = config.to_str().unwrap();
    let first = operator_gen(&["crd", "--paths", &src, "--out", config]);
    assert!(first.status.success(), "{}", stderr(&first));
    // The release's CRDs, kept aside as a baseline.
    let release = dir.path().join("release");
    std::fs::create_dir_all(&release).unwrap();
    let crd = dir
        .path()
        .join("config/crd/bases/cli.example.com_widgets.yaml");
    std::fs::copy(&crd, release.join("crds.yaml")).unwrap();
    let release = release.to_str().unwrap();
    let written = std::fs::read(&crd).unwrap();

    let lib = dir.path().join("src/lib.rs");
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(&lib, text.replace("minimum = 1", "minimum = 2")).unwrap();
    let refused = operator_gen(&[
        "crd",
        "--paths",
        &src,
        "--out",
        config,
        "--against",
        release,
    ]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    let message = stderr(&refused);
    assert!(
        message.contains("error[bound-tightened]: config/crd/bases/cli.example.com_widgets.yaml: widgets.cli.example.com v1 .spec.size: minimum raised from 1 to 2"),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "1 change against {release} can break stored objects or clients; nothing was written"
        )),
        "{message}"
    );
    assert_eq!(std::fs::read(&crd).unwrap(), written, "nothing written");

    // Allowed on the root kind: written, the allow printed with its reason.
    let text = std::fs::read_to_string(&lib).unwrap();
    std::fs::write(
        &lib,
        text.replace(
            "pub struct Widget {",
            "#[compat(allow = \"bound-tightened\", path = \".spec.size\", reason = \"no widget of size 1 exists\")]\npub struct Widget {",
        ),
    )
    .unwrap();
    let allowed = operator_gen(&[
        "crd",
        "--paths",
        &src,
        "--out",
        config,
        "--against",
        release,
    ]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    assert!(
        stderr(&allowed).contains("allowed: no widget of size 1 exists"),
        "{}",
        stderr(&allowed)
    );
    assert!(
        std::fs::read_to_string(&crd)
            .unwrap()
            .contains("minimum: 2")
    );
}

/// A small CRD for `operator-gen types`.
const CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.cli.example.com
spec:
  group: cli.example.com
  names:
    kind: Gizmo
    listKind: GizmoList
    plural: gizmos
    singular: gizmo
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
                format: int32
                minimum: 1
              choice:
                type: array
                items:
                  type: string
                  default: a
"#;

#[test]
fn types_writes_one_module_per_version_reads_back_and_says_what_it_cannot_express() {
    let dir = tempfile::tempdir().unwrap();
    let crd = dir.path().join("crd.yaml");
    std::fs::write(&crd, format!("---\n# a comment document\n---\n{CRD}")).unwrap();
    let out = dir.path().join("api");
    let run = operator_gen(&[
        "types",
        "--from-crd",
        crd.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let err = stderr(&run);
    // A default on list items has no Rust spelling: a warning naming the file, the document
    // and the path, and the same in the file's header.
    assert!(
        err.contains("crd.yaml: document 2: Gizmo v1: .spec.choice[*]: a default inside a list"),
        "{err}"
    );
    let module = std::fs::read_to_string(out.join("cli_example_com/v1/gizmo.rs")).unwrap();
    assert!(
        module.starts_with("// Generated by `operator-gen types --from-crd "),
        "{module}"
    );
    assert!(
        module.contains("// - .spec.choice[*]: a default inside a list"),
        "{module}"
    );
    assert!(module.contains("#[validation(minimum = 1)]"), "{module}");
    assert!(
        std::fs::read_to_string(out.join("mod.rs"))
            .unwrap()
            .contains("pub mod cli_example_com;")
    );
    // operator-gen reads the types back.
    let back = operator_gen(&["crd", "--paths", out.to_str().unwrap(), "--stdout"]);
    assert!(back.status.success(), "{}", stderr(&back));
    let yaml = String::from_utf8_lossy(&back.stdout);
    assert!(yaml.contains("name: gizmos.cli.example.com"), "{yaml}");
    // Again over its own output: replaced whole.
    let again = operator_gen(&[
        "types",
        "--from-crd",
        crd.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(again.status.success(), "{}", stderr(&again));
    // --stdout: the files, each after its name.
    let printed = operator_gen(&["types", "--from-crd", crd.to_str().unwrap(), "--stdout"]);
    assert!(printed.status.success());
    let text = String::from_utf8_lossy(&printed.stdout);
    assert!(
        text.contains("// file: cli_example_com/v1/gizmo.rs\n"),
        "{text}"
    );
}

#[test]
fn types_errors_name_the_file_and_document_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("api");
    let out_arg = out.to_str().unwrap();
    let cases: Vec<(&str, String, &str)> = vec![
        ("missing.yaml", String::new(), "cannot read"),
        (
            "broken.yaml",
            format!("{CRD}---\nkind: [unclosed\n"),
            "broken.yaml: document 2: not YAML",
        ),
        (
            "configmap.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n".into(),
            "configmap.yaml: no CustomResourceDefinition in it",
        ),
        (
            "partial.yaml",
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: x\nspec:\n  names:\n    kind: X\n".into(),
            "partial.yaml: document 1: not a CustomResourceDefinition: missing field",
        ),
        (
            "beta.yaml",
            CRD.replace("apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1"),
            "beta.yaml: document 1: a CustomResourceDefinition of apiVersion",
        ),
    ];
    for (name, text, expected) in cases {
        let file = dir.path().join(name);
        if !text.is_empty() {
            std::fs::write(&file, text).unwrap();
        }
        let run = operator_gen(&[
            "types",
            "--from-crd",
            file.to_str().unwrap(),
            "--out",
            out_arg,
        ]);
        assert!(!run.status.success(), "{name}");
        assert!(stderr(&run).contains(expected), "{name}: {}", stderr(&run));
        assert!(!out.exists(), "{name}: something was written");
    }
    // A directory holding other files is not replaced.
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("lib.rs"), "// mine\n").unwrap();
    let crd = dir.path().join("crd.yaml");
    std::fs::write(&crd, CRD).unwrap();
    let run = operator_gen(&[
        "types",
        "--from-crd",
        crd.to_str().unwrap(),
        "--out",
        out_arg,
    ]);
    assert!(!run.status.success());
    assert!(stderr(&run).contains("did not write"), "{}", stderr(&run));
    assert_eq!(
        std::fs::read_to_string(out.join("lib.rs")).unwrap(),
        "// mine\n"
    );
}

#[test]
fn types_reads_standard_input_and_refuses_cluster_flags_without_a_cluster() {
    use std::io::Write as _;
    let run = |args: &[&str], input: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_operator-gen"))
            .args(args)
            .env_remove("KUBECONFIG")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // A refused command line exits before it reads its input: the pipe may be closed.
        let written = child.stdin.take().unwrap().write_all(input.as_bytes());
        if let Err(err) = written {
            assert_eq!(err.kind(), std::io::ErrorKind::BrokenPipe, "{err}");
        }
        child.wait_with_output().unwrap()
    };
    // `kubectl get crd NAME -o yaml | operator-gen types --from-crd -`
    let piped = run(&["types", "--from-crd", "-", "--stdout"], CRD);
    assert!(piped.status.success(), "{}", stderr(&piped));
    let text = String::from_utf8_lossy(&piped.stdout);
    assert!(
        text.contains(
            "// from <stdin> (document 1): CustomResourceDefinition gizmos.cli.example.com"
        ),
        "{text}"
    );
    let nothing = run(&["types", "--from-crd", "-", "--stdout"], "a: b\n");
    assert!(!nothing.status.success());
    assert!(
        stderr(&nothing).contains("<stdin>: no CustomResourceDefinition in it"),
        "{}",
        stderr(&nothing)
    );
    // The cluster's flags only with --from-cluster; exactly one source.
    let stray = run(
        &["types", "--from-crd", "-", "--context", "x", "--stdout"],
        CRD,
    );
    assert!(!stray.status.success());
    assert!(
        stderr(&stray).contains("--from-cluster"),
        "{}",
        stderr(&stray)
    );
    let both = run(
        &[
            "types",
            "--from-crd",
            "-",
            "--from-cluster",
            "x",
            "--stdout",
        ],
        CRD,
    );
    assert!(!both.status.success());
    assert!(
        stderr(&both).contains("cannot be used with"),
        "{}",
        stderr(&both)
    );
    // A kubeconfig that is not there is named, and nothing is written.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("api");
    let missing = dir.path().join("no-kubeconfig");
    let unreachable = run(
        &[
            "types",
            "--from-cluster",
            "certificates.cert-manager.io",
            "--kubeconfig",
            missing.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        "",
    );
    assert!(!unreachable.status.success());
    assert!(
        stderr(&unreachable).contains(&format!("cannot read the kubeconfig {}", missing.display())),
        "{}",
        stderr(&unreachable)
    );
    assert!(!out.exists());
}
