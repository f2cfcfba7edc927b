//! The gate's own rules: what an allow covers, which allows went unused, version order and
//! reading baselines. The change pairs themselves are in `testdata/compat/cases.yaml`
//! (`conformance/tests/compat.rs`).

use super::*;

fn finding(version: Option<&str>, path: &str, check: Check) -> Finding {
    Finding {
        crd: "widgets.x.example.com".into(),
        file: "config/crd/bases/x.example.com_widgets.yaml".into(),
        version: version.map(str::to_string),
        path: path.into(),
        check,
        severity: Severity::Error,
        what: "w".into(),
        why: "y".into(),
        way: "t".into(),
        allowed: None,
        group: Group::Loss,
    }
}

fn allow(version: &str, path: Option<&str>, check: Check) -> Allow {
    Allow {
        crd: "widgets.x.example.com".into(),
        version: version.into(),
        check,
        path: path.map(str::to_string),
        reason: "because".into(),
        at: None,
    }
}

fn live(versions: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    BTreeMap::from([(
        "widgets.x.example.com".to_string(),
        versions.iter().map(|v| v.to_string()).collect(),
    )])
}

#[test]
fn an_allow_covers_its_path_and_what_is_below_it_in_its_own_version() {
    let findings = vec![
        finding(Some("v1"), ".spec.ports[*].port", Check::FieldRemoved),
        finding(Some("v1"), ".spec.portsExtra", Check::FieldRemoved),
        finding(Some("v2"), ".spec.ports", Check::FieldRemoved),
        finding(Some("v1"), ".spec.ports", Check::TypeChanged),
    ];
    let report = Report::apply(
        findings,
        &[allow("v1", Some(".spec.ports"), Check::FieldRemoved)],
        &live(&["v1", "v2"]),
    );
    let allowed: Vec<(&str, &str, Check)> = report
        .findings
        .iter()
        .filter(|f| f.allowed.is_some())
        .map(|f| (f.version.as_deref().unwrap(), f.path.as_str(), f.check))
        .collect();
    assert_eq!(
        allowed,
        [("v1", ".spec.ports[*].port", Check::FieldRemoved)]
    );
    assert_eq!(report.errors(), 3);
    assert!(report.unused.is_empty());
}

#[test]
fn a_gone_version_and_the_whole_crd_are_covered_from_any_version() {
    let findings = vec![
        finding(Some("v1"), "", Check::VersionRemoved),
        finding(None, "", Check::ScopeChanged),
    ];
    let report = Report::apply(
        findings,
        &[
            allow("v2", None, Check::VersionRemoved),
            allow("v2", None, Check::ScopeChanged),
        ],
        &live(&["v2"]),
    );
    assert!(!report.fails(), "{report}");
}

#[test]
fn an_allow_that_covers_nothing_is_listed_and_warnings_need_none() {
    let mut warning = finding(Some("v1"), ".spec.mode", Check::EnumExtended);
    warning.severity = Severity::Warning;
    let report = Report::apply(
        vec![warning],
        &[allow("v1", Some(".spec.size"), Check::BoundTightened)],
        &live(&["v1"]),
    );
    assert!(!report.fails());
    assert_eq!(report.unused.len(), 1);
    let text = report.to_string();
    assert!(text.contains("warning[enum-extended]"), "{text}");
    assert!(
        text.contains("#[compat(allow = \"bound-tightened\", path = \".spec.size\")] on widgets.x.example.com v1 covers no change"),
        "{text}"
    );
}

#[test]
fn versions_sort_as_kubernetes_sorts_them() {
    let mut names = vec![
        "v2", "v1", "v1beta1", "v10", "v1alpha2", "v1alpha1", "foo", "v2beta1",
    ];
    names.sort_by_key(|n| version_order(n));
    assert_eq!(
        names,
        [
            "v1alpha1", "v1alpha2", "v1beta1", "v1", "v2beta1", "v2", "v10", "foo"
        ]
    );
}

#[test]
fn every_check_has_a_distinct_name_that_reads_back() {
    let names: BTreeSet<&str> = Check::ALL.iter().map(|c| c.name()).collect();
    assert_eq!(names.len(), Check::ALL.len());
    for c in Check::ALL {
        assert_eq!(Check::from_name(c.name()), Some(*c));
        assert!(!c.help().is_empty());
    }
}

#[cfg(feature = "yaml-baseline")]
#[test]
fn a_baseline_reads_files_lists_and_a_clusters_stored_versions() {
    let crd = |name: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {name}.x.example.com\nspec:\n  group: x.example.com\n  names:\n    kind: W\n    plural: {name}\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n"
        )
    };
    let stream = format!(
        "{}---\n{}---\napiVersion: v1\nkind: ConfigMap\n",
        crd("a"),
        crd("b")
    );
    let read = read_baseline(&stream, "s").unwrap();
    assert_eq!(read.len(), 2);
    assert!(read[0].stored_versions.is_none());

    // kubectl's `-o yaml` of several: a List, each item with its status; JSON is YAML too.
    let mut item: Value = serde_yaml::from_str(&crd("c")).unwrap();
    item["spec"]["conversion"] = serde_json::json!({"strategy": "Webhook"});
    item["status"] = serde_json::json!({"storedVersions": ["v1"]});
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [item]}).to_string();
    let read = read_baseline(&list, "l").unwrap();
    assert_eq!(read.len(), 1, "{list}");
    assert_eq!(
        read[0].stored_versions.as_deref(),
        Some(&["v1".to_string()][..])
    );
    assert!(read[0].conversion_webhook);

    let broken = read_baseline("kind: CustomResourceDefinition\nspec: 3\n", "f.yaml").unwrap_err();
    assert!(
        broken.starts_with("f.yaml: document 1: not a CustomResourceDefinition"),
        "{broken}"
    );
}

fn in_group(path: &str, check: Check, severity: Severity, group: Group) -> Finding {
    Finding {
        severity,
        group,
        ..finding(Some("v1"), path, check)
    }
}

#[test]
fn the_migration_mode_fails_on_losses_only_and_lists_them_first() {
    let mut findings = vec![
        in_group(".spec.a", Check::FieldRemoved, Severity::Error, Group::Loss),
        in_group(
            ".spec.b",
            Check::DefaultChanged,
            Severity::Warning,
            Group::Notice,
        ),
    ];
    for i in 0..7 {
        findings.push(in_group(
            &format!(".spec.n{i}"),
            Check::NullableRemoved,
            Severity::Warning,
            Group::Stricter,
        ));
    }
    findings.push(in_group(
        ".spec.size",
        Check::BoundTightened,
        Severity::Error,
        Group::Stricter,
    ));
    let report = Report::apply(findings.clone(), &[], &live(&["v1"]));
    assert!(report.fails_in(Mode::Migration));
    assert_eq!(report.errors_in(Mode::Migration), 1);
    assert_eq!(report.errors_in(Mode::Release), 2);
    let text = report.render(Mode::Migration);
    let expected_start = "migration check: 1 change loses data or refuses what was admitted; 8 are stricter, as the Rust type is; 1 other warning\n\n== 1 lose data or refuse what was admitted (each fails the check unless allowed) ==\nerror[field-removed]: ";
    assert!(text.starts_with(expected_start), "{text}");
    // By check; more than five summarized with three shown.
    assert!(
        text.contains("bound-tightened: 1\n  widgets.x.example.com v1 .spec.size: w\n  why: y\n"),
        "{text}"
    );
    assert!(
        text.contains("nullable-removed: 7\n  widgets.x.example.com v1 .spec.n0: w\n  widgets.x.example.com v1 .spec.n1: w\n  widgets.x.example.com v1 .spec.n2: w\n  ... and 4 more (every finding: run without --migrating)\n"),
        "{text}"
    );
    let stricter_at = text.find("== 8 stricter").unwrap();
    let notices_at = text
        .find("== 1 other warnings ==\nwarning[default-changed]")
        .unwrap();
    assert!(stricter_at < notices_at, "{text}");

    // Allowed, the loss passes the migration check; the release check still fails on the
    // stricter bound.
    let report = Report::apply(
        findings,
        &[allow("v1", Some(".spec.a"), Check::FieldRemoved)],
        &live(&["v1"]),
    );
    assert!(!report.fails_in(Mode::Migration), "{report}");
    assert!(report.fails_in(Mode::Release));
    assert!(
        report
            .render(Mode::Migration)
            .starts_with("migration check: 1 change loses data or refuses what was admitted (1 allowed); 8 are stricter")
    );
}

#[test]
fn a_constraint_the_baseline_had_none_of_is_stricter_and_a_changed_one_a_loss() {
    assert_eq!(
        group_of(Check::BoundTightened, Severity::Error, true),
        Group::Stricter
    );
    assert_eq!(
        group_of(Check::BoundTightened, Severity::Error, false),
        Group::Loss
    );
    // A warning of a loss check (a default added) is neither.
    assert_eq!(
        group_of(Check::DefaultChanged, Severity::Warning, false),
        Group::Notice
    );
    assert_eq!(
        group_of(Check::EnumExtended, Severity::Warning, false),
        Group::Notice
    );
    assert_eq!(
        group_of(Check::NullableRemoved, Severity::Warning, false),
        Group::Stricter
    );
    for c in Check::ALL {
        assert!(
            reference_markdown().contains(&format!(
                "| `{}` | {} | {} |",
                c.name(),
                c.help(),
                c.migration_group()
            )),
            "{c}"
        );
    }
}

#[test]
fn kubernetes_types_are_known_by_their_properties() {
    let container = crate::known_types::schema_for_path(
        &["k8s_openapi", "api", "core", "v1", "Container"].map(String::from),
        crate::EmbeddedObjectMeta::default(),
    )
    .unwrap();
    assert_eq!(kubernetes_type(&container), Some("Container"));
    // A field fewer is not the type any more; nor is an object of two fields (PodTemplateSpec's
    // metadata and spec are as likely a template of one's own).
    let mut fewer = container.clone();
    fewer.properties.as_mut().unwrap().remove("image");
    assert_eq!(kubernetes_type(&fewer), None);
    let template = crate::known_types::schema_for_path(
        &["k8s_openapi", "api", "core", "v1", "PodTemplateSpec"].map(String::from),
        crate::EmbeddedObjectMeta::default(),
    )
    .unwrap();
    assert_eq!(kubernetes_type(&template), None);
    // Every type of the list is in operator-gen's table.
    assert_eq!(
        kubernetes_type_shapes().len(),
        EMBEDDED_KUBERNETES_TYPES.len(),
        "a type of EMBEDDED_KUBERNETES_TYPES is missing from the table, has fewer than three fields, or has another's fields"
    );
}
