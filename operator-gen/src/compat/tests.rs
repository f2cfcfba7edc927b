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
