//! Schemas of types that live outside the scanned sources: Rust's standard containers are
//! handled in `schema`; this module holds the Kubernetes types from k8s-openapi (and kube's
//! re-exports) with the schema and upstream descriptions controller-gen gives the Go types.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{JSON, JSONSchemaProps};
use std::collections::BTreeMap;

/// The crates whose types are taken from this table.
pub fn is_kubernetes_path(path: &[String]) -> bool {
    matches!(
        path.first().map(String::as_str),
        Some("k8s_openapi" | "kube" | "kube_core" | "kube_client")
    )
}

pub const API_VERSION_DESCRIPTION: &str = "APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
pub const KIND_DESCRIPTION: &str = "Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

fn typed(ty: &str) -> JSONSchemaProps {
    JSONSchemaProps {
        type_: Some(ty.into()),
        ..Default::default()
    }
}

fn described(mut s: JSONSchemaProps, description: &str) -> JSONSchemaProps {
    s.description = Some(description.into());
    s
}

fn int_or_string() -> JSONSchemaProps {
    JSONSchemaProps {
        any_of: Some(vec![typed("integer"), typed("string")]),
        x_kubernetes_int_or_string: Some(true),
        ..Default::default()
    }
}

/// The Rust names of the Kubernetes types [`kubernetes_schema`] knows.
pub const KNOWN: &[&str] = &[
    "ObjectMeta",
    "Time",
    "MicroTime",
    "IntOrString",
    "Quantity",
    "Condition",
    "RawExtension",
];

/// Whether the type at `path` (as written or imported, last segment the type's name) is a
/// Kubernetes type we know: a k8s-openapi/kube path, or a bare name nothing else declares.
pub fn is_known_path(path: &[String]) -> bool {
    (is_kubernetes_path(path) || path.len() == 1)
        && path
            .last()
            .is_some_and(|name| KNOWN.contains(&name.as_str()))
}

/// The schema of the type at `path` if [`is_known_path`] says it is a type we know.
pub fn schema_for_path(path: &[String]) -> Option<JSONSchemaProps> {
    if !is_known_path(path) {
        return None;
    }
    kubernetes_schema(path.last()?)
}

/// The schema of a Kubernetes type by its Rust name, or `None` if we do not know it.
pub fn kubernetes_schema(name: &str) -> Option<JSONSchemaProps> {
    Some(match name {
        "ObjectMeta" => typed("object"),
        "Time" | "MicroTime" => JSONSchemaProps { format: Some("date-time".into()), ..typed("string") },
        "IntOrString" => int_or_string(),
        "Quantity" => JSONSchemaProps {
            pattern: Some(r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$".into()),
            ..int_or_string()
        },
        "Condition" => condition(),
        // runtime.RawExtension: any object, kept as written.
        "RawExtension" => JSONSchemaProps {
            x_kubernetes_preserve_unknown_fields: Some(true),
            ..typed("object")
        },
        _ => return None,
    })
}

/// `metav1.Condition`, as controller-gen renders it from the apimachinery sources.
fn condition() -> JSONSchemaProps {
    let mut props = BTreeMap::new();
    props.insert(
        "lastTransitionTime".into(),
        described(
            JSONSchemaProps { format: Some("date-time".into()), ..typed("string") },
            "lastTransitionTime is the last time the condition transitioned from one status to another.\nThis should be when the underlying condition changed.  If that is not known, then using the time when the API field changed is acceptable.",
        ),
    );
    props.insert(
        "message".into(),
        described(
            JSONSchemaProps { max_length: Some(32768), ..typed("string") },
            "message is a human readable message indicating details about the transition.\nThis may be an empty string.",
        ),
    );
    props.insert(
        "observedGeneration".into(),
        described(
            JSONSchemaProps { format: Some("int64".into()), minimum: Some(0.0), ..typed("integer") },
            "observedGeneration represents the .metadata.generation that the condition was set based upon.\nFor instance, if .metadata.generation is currently 12, but the .status.conditions[x].observedGeneration is 9, the condition is out of date\nwith respect to the current state of the instance.",
        ),
    );
    props.insert(
        "reason".into(),
        described(
            JSONSchemaProps {
                max_length: Some(1024),
                min_length: Some(1),
                pattern: Some("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$".into()),
                ..typed("string")
            },
            "reason contains a programmatic identifier indicating the reason for the condition's last transition.\nProducers of specific condition types may define expected values and meanings for this field,\nand whether the values are considered a guaranteed API.\nThe value should be a CamelCase string.\nThis field may not be empty.",
        ),
    );
    props.insert(
        "status".into(),
        described(
            JSONSchemaProps {
                enum_: Some(
                    ["True", "False", "Unknown"]
                        .iter()
                        .map(|s| JSON(serde_json::json!(s)))
                        .collect(),
                ),
                ..typed("string")
            },
            "status of the condition, one of True, False, Unknown.",
        ),
    );
    props.insert(
        "type".into(),
        described(
            JSONSchemaProps {
                max_length: Some(316),
                pattern: Some(r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$".into()),
                ..typed("string")
            },
            "type of condition in CamelCase or in foo.example.com/CamelCase.",
        ),
    );
    described(
        JSONSchemaProps {
            properties: Some(props),
            required: Some(
                ["lastTransitionTime", "message", "reason", "status", "type"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
            ),
            ..typed("object")
        },
        "Condition contains details for one aspect of the current state of this API Resource.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_name_has_a_schema() {
        for name in KNOWN {
            assert!(kubernetes_schema(name).is_some(), "{name}");
            assert!(is_known_path(&[
                "k8s_openapi".to_string(),
                "x".to_string(),
                name.to_string()
            ]));
        }
        assert!(!is_known_path(&["my_crate".into(), "Condition".into()]));
        assert!(kubernetes_schema("Pod").is_none());
    }
}
