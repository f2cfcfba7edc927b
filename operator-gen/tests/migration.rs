//! `operator-gen crd --against` as a move from another tool uses it: the migration mode
//! (`--migrating`), the gate with `--stdout`, and a conversion webhook the baseline had.

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

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
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
    pub size: u16,
    /// Note is a note.
    pub note: Option<String>,
}
"#;

/// The CRD another tool (kube-derive's schemars) wrote for the kind, with a field the Rust
/// type no longer has (`legacy`), and the conversion stanza of `conversion`.
fn old_crd(conversion: bool) -> String {
    let mut crd = String::from(
        r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.cli.example.com
spec:
  group: cli.example.com
  names:
    kind: Widget
    plural: widgets
    singular: widget
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        required: [spec]
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size: {type: integer, format: uint16, minimum: 0}
              note: {type: string, nullable: true}
              legacy: {type: string, nullable: true}
"#,
    );
    if conversion {
        crd = crd.replace(
            "  scope: Namespaced\n",
            "  scope: Namespaced\n  conversion:\n    strategy: Webhook\n    webhook:\n      conversionReviewVersions: [v1]\n      clientConfig:\n        service: {name: webhook-service, namespace: system, path: /convert}\n",
        );
        let v1 = &crd[crd.find("  - name: v1").unwrap()..];
        let v2 = v1
            .replace("  - name: v1", "  - name: v2")
            .replace("storage: true", "storage: false");
        crd.push_str(&v2);
    }
    crd
}

/// The API in `dir/src` (with `edit` applied to it) and the old CRD in `dir/old.yaml`.
fn setup(dir: &Path, edit: impl Fn(&str) -> String, conversion: bool) -> (String, String) {
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(src.join("lib.rs"), edit(API)).unwrap();
    let old = dir.join("old.yaml");
    std::fs::write(&old, old_crd(conversion)).unwrap();
    (src.display().to_string(), old.display().to_string())
}

#[test]
fn the_migration_mode_fails_on_a_loss_only_and_shows_what_is_stricter() {
    let dir = tempfile::tempdir().unwrap();
    let (src, old) = setup(dir.path(), str::to_string, false);
    let config = dir.path().join("config");
    let config = config.to_str().unwrap();

    // Without --migrating the widths' bound fails the run as a change of a release would.
    let release = operator_gen(&["crd", "--paths", &src, "--out", config, "--against", &old]);
    assert_eq!(release.status.code(), Some(1), "{}", stderr(&release));
    assert!(
        stderr(&release).contains("2 changes against"),
        "{}",
        stderr(&release)
    );

    let moved = operator_gen(&[
        "crd",
        "--paths",
        &src,
        "--out",
        config,
        "--against",
        &old,
        "--migrating",
    ]);
    assert_eq!(moved.status.code(), Some(1), "{}", stderr(&moved));
    let report = stderr(&moved);
    assert!(
        report.starts_with("migration check: 1 change loses data or refuses what was admitted; 2 are stricter, as the Rust type is\n"),
        "{report}"
    );
    let loss = report
        .find("error[field-removed]: config/crd/bases/cli.example.com_widgets.yaml: widgets.cli.example.com v1 .spec.legacy: field removed")
        .expect("the loss, in full");
    let stricter = report
        .find("bound-tightened: 1\n  widgets.cli.example.com v1 .spec.size: maximum 65535 added")
        .expect("the width's bound, stricter");
    assert!(loss < stricter, "{report}");
    assert!(
        report.contains(
            "nullable-removed: 1\n  widgets.cli.example.com v1 .spec.note: nullable: true removed"
        ),
        "{report}"
    );
    assert!(
        report.ends_with(&format!(
            "1 change against {old} loses data or refuses what was admitted; nothing was written\n"
        )),
        "{report}"
    );
    assert!(!config_written(dir.path()), "nothing written");

    // The loss allowed: written, the stricter changes still shown.
    std::fs::write(
        Path::new(&src).join("lib.rs"),
        API.replace(
            "pub struct Widget {",
            "#[compat(allow = \"field-removed\", path = \".spec.legacy\", reason = \"no client ever set it\")]\npub struct Widget {",
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
        &old,
        "--migrating",
    ]);
    assert!(allowed.status.success(), "{}", stderr(&allowed));
    let report = stderr(&allowed);
    assert!(
        report.starts_with("migration check: 1 change loses data or refuses what was admitted (1 allowed); 2 are stricter"),
        "{report}"
    );
    assert!(
        report.contains("allowed: no client ever set it"),
        "{report}"
    );
    assert!(report.contains("bound-tightened: 1"), "{report}");
    assert!(config_written(dir.path()));
}

fn config_written(dir: &Path) -> bool {
    dir.join("config/crd/bases/cli.example.com_widgets.yaml")
        .exists()
}

#[test]
fn migrating_needs_a_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let (src, _) = setup(dir.path(), str::to_string, false);
    let out = operator_gen(&["crd", "--paths", &src, "--stdout", "--migrating"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--against"), "{}", stderr(&out));
}

#[test]
fn with_stdout_the_report_goes_to_stderr_and_a_failing_gate_prints_no_yaml() {
    let dir = tempfile::tempdir().unwrap();
    let (src, old) = setup(dir.path(), str::to_string, false);
    let refused = operator_gen(&["crd", "--paths", &src, "--stdout", "--against", &old]);
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert_eq!(stdout(&refused), "", "no YAML from a failing gate");
    assert!(
        stderr(&refused).contains("error[field-removed]"),
        "{}",
        stderr(&refused)
    );

    let moved = operator_gen(&[
        "crd",
        "--paths",
        &src,
        "--stdout",
        "--against",
        &old,
        "--migrating",
    ]);
    assert_eq!(moved.status.code(), Some(1));
    assert_eq!(stdout(&moved), "");

    // Against itself: nothing to report, the YAML on stdout and nothing on stderr.
    let same = dir.path().join("same.yaml");
    let first = operator_gen(&["crd", "--paths", &src, "--stdout"]);
    std::fs::write(&same, stdout(&first)).unwrap();
    let passed = operator_gen(&[
        "crd",
        "--paths",
        &src,
        "--stdout",
        "--against",
        same.to_str().unwrap(),
    ]);
    assert!(passed.status.success(), "{}", stderr(&passed));
    assert_eq!(stdout(&passed), stdout(&first));
    assert_eq!(stderr(&passed), "");
}

#[test]
fn a_conversion_webhook_of_the_baseline_must_be_declared() {
    let dir = tempfile::tempdir().unwrap();
    let (src, old) = setup(dir.path(), |_| "pub mod v1;\npub mod v2;\n".into(), true);
    // Both versions of the kind, each in its module with the same schema; v1 is stored.
    std::fs::write(
        Path::new(&src).join("v1.rs"),
        API.replace(
            "version = \"v1\")]",
            "version = \"v1\", kind = \"Widget\", storage)]",
        ),
    )
    .unwrap();
    std::fs::write(
        Path::new(&src).join("v2.rs"),
        API.replace(
            "version = \"v1\")]",
            "version = \"v2\", kind = \"Widget\")]",
        ),
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "crd",
            "--paths",
            &src,
            "--stdout",
            "--against",
            &old,
            "--migrating",
        ];
        args.extend_from_slice(extra);
        operator_gen(&args)
    };
    let dropped = run(&[]);
    let report = stderr(&dropped);
    assert_eq!(dropped.status.code(), Some(1), "{report}");
    assert!(
        report.contains("error[conversion-dropped]: config/crd/bases/cli.example.com_widgets.yaml: widgets.cli.example.com: the baseline's conversion strategy is Webhook; the new CRD declares no conversion webhook, so applying it sets the strategy to None"),
        "{report}"
    );
    assert!(report.contains("--converted <plural>.<group>"), "{report}");
    let declared = run(&["--converted", "widgets.cli.example.com"]);
    let report = stderr(&declared);
    assert!(!report.contains("conversion-dropped"), "{report}");
    // What is left are the losses of each version (the field `legacy`).
    assert!(
        report.starts_with("migration check: 2 changes lose data or refuse what was admitted"),
        "{report}"
    );
}
