//! The types `operator-gen types` generated from CRDs of this repository
//! (`src/types_from_crd`, refreshed by operator-gen's `tests/types_from_crd.rs`) compile
//! with the derives and k8s-openapi, and what the derive compiles into each kind's `crd()`
//! is the CRD they were generated from; the memcached sample reads into them and writes
//! back as it was.

use std::path::Path;

use operator_derive_tests::types_from_crd::batch_tutorial_kubebuilder_io::v1::cron_job::CronJob;
use operator_derive_tests::types_from_crd::cache_example_com::v1alpha1::memcached::Memcached;
use operator_derive_tests::types_from_crd::example_com::v1::widget::Widget;
use serde_json::Value;

fn yaml(file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    serde_yaml::from_str(&text).unwrap()
}

/// `v` with numbers as f64, descriptions' whitespace runs as one space and the tools'
/// version annotations left out.
fn normalized(v: &Value, key: &str) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| {
                    !matches!(
                        k.as_str(),
                        "controller-gen.kubebuilder.io/version"
                            | "operator-gen.operator-rs.dev/version"
                    )
                })
                .map(|(k, v)| (k.clone(), normalized(v, k)))
                .filter(|(k, v)| {
                    !(k == "annotations" && v.as_object().is_some_and(|m| m.is_empty()))
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|i| normalized(i, "")).collect()),
        Value::Number(n) => serde_json::json!(n.as_f64()),
        Value::String(s) if key == "description" => {
            Value::String(s.split_whitespace().collect::<Vec<_>>().join(" "))
        }
        other => other.clone(),
    }
}

#[test]
fn each_kinds_crd_is_the_crd_it_was_generated_from() {
    let cases = [
        (
            serde_json::to_value(Memcached::crd()).unwrap(),
            "config/crd/bases/cache.example.com_memcacheds.yaml",
        ),
        (
            serde_json::to_value(CronJob::crd()).unwrap(),
            "examples/cronjob/config/crd/bases/batch.tutorial.kubebuilder.io_cronjobs.yaml",
        ),
        (
            serde_json::to_value(Widget::crd()).unwrap(),
            "testdata/types_from_crd/widgets.example.com.yaml",
        ),
    ];
    for (compiled, file) in cases {
        let mut original = yaml(file);
        if file.contains("widgets") {
            // The one difference the round trip lists: print columns without
            // `subresources: {}`, which operator-gen writes for them.
            original["spec"]["versions"][2]["subresources"] = serde_json::json!({});
        }
        assert_eq!(
            normalized(&compiled, ""),
            normalized(&original, ""),
            "{file}: the derive's crd() differs from the CRD the types came from"
        );
    }
}

#[test]
fn the_memcached_sample_reads_and_writes_back() {
    let sample = yaml("config/samples/cache_v1alpha1_memcached.yaml");
    let typed: Memcached = serde_json::from_value(sample.clone()).unwrap();
    assert_eq!(serde_json::to_value(&typed).unwrap(), sample);
}

/// A widget with a value in most fields reads into the generated types and writes back
/// equal: the renamed enum values, the renamed fields, an int-or-string, times, maps,
/// preserved and embedded objects, a list of lists, a null.
#[test]
fn a_widget_reads_and_writes_back() {
    let object = serde_json::json!({
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": "w"},
        "spec": {
            "mode": "slow-and-steady",
            "name": "w",
            "self": true,
            "podIPs": ["10.0.0.1"],
            "x-extra": "x",
            "replicas": 3,
            "ratio": 0.5,
            "port": "http",
            "docs": null,
            "labels": {"a": "b"},
            "limits": {"cpu": {"max": 4}},
            "matrix": [[1, 2], []],
            "tiers": ["gold", "silver"],
            "targets": [8080, "http"],
            "ports": [{"name": "http", "port": 80, "protocol": "TCP"}],
            "template": {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
            "settings": {"any": ["thing", 1]},
            "selector": {"matchLabels": {"app": "w"}},
            "window": {"start": "2024-01-01T00:00:00Z", "status": {"ok": true}}
        },
        "status": {"readyReplicas": 2, "status": {"phase": "Ready"}}
    });
    let typed: Widget = serde_json::from_value(object.clone()).unwrap();
    let mut back = serde_json::to_value(&typed).unwrap();
    // `docs: null` is read as `None` and left out when written (the CRD says nullable:
    // the API server keeps either).
    back["spec"]["docs"] = Value::Null;
    assert_eq!(back, object);
}
