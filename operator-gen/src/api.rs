//! The Kubernetes objects the generator writes, as plain serde types: CustomResourceDefinitions,
//! RBAC roles and admission webhook configurations, with the fields operator-gen sets.
//!
//! They carry the API server's field names and shapes (the same as k8s-openapi's types of
//! the same name, which they replace here), so the YAML they render is what the API server
//! reads back. operator-gen keeps its own copy so that the generator, and the derive macros
//! built on it, do not compile all of k8s-openapi as a build-time (host) dependency: in an
//! operator's own crate k8s-openapi is then built once, for the operator, instead of twice.
//!
//! A value converts to the k8s-openapi type of the same name through JSON
//! ([`crate::output::to_json`], then `serde_json::from_value`).

/// A top-level object: its `apiVersion` and `kind`.
pub trait Resource {
    const API_VERSION: &'static str;
    const KIND: &'static str;
}

/// A top-level object: its [`Resource`] constants, and serde's traits written around the
/// derived ones (the struct derives them with `#[serde(remote = "Self")]`, which makes them
/// inherent functions) so that it serialises with its `apiVersion` and `kind` first, as
/// k8s-openapi's objects do, and reads whatever `apiVersion` and `kind` it is given.
macro_rules! resource {
    ($ty:ident, $api_version:literal, $kind:literal) => {
        impl $crate::api::Resource for $ty {
            const API_VERSION: &'static str = $api_version;
            const KIND: &'static str = $kind;
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                struct Fields<'a>(&'a $ty);
                impl serde::Serialize for Fields<'_> {
                    fn serialize<S: serde::Serializer>(
                        &self,
                        serializer: S,
                    ) -> Result<S::Ok, S::Error> {
                        $ty::serialize(self.0, serializer)
                    }
                }
                #[derive(serde::Serialize)]
                struct Typed<'a> {
                    #[serde(rename = "apiVersion")]
                    api_version: &'static str,
                    kind: &'static str,
                    #[serde(flatten)]
                    fields: Fields<'a>,
                }
                serde::Serialize::serialize(
                    &Typed {
                        api_version: $api_version,
                        kind: $kind,
                        fields: Fields(self),
                    },
                    serializer,
                )
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $ty::deserialize(deserializer)
            }
        }
    };
}

/// `meta/v1`.
pub mod meta {
    pub mod v1 {
        use std::collections::BTreeMap;

        use serde::{Deserialize, Serialize};

        /// The metadata the generator sets on what it writes.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct ObjectMeta {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub annotations: Option<BTreeMap<String, String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub labels: Option<BTreeMap<String, String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub name: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub namespace: Option<String>,
        }
    }
}

/// `apiextensions.k8s.io/v1`.
pub mod apiextensions {
    pub mod v1 {
        use std::collections::BTreeMap;

        use serde::{Deserialize, Serialize};

        use super::super::meta::v1::ObjectMeta;

        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(remote = "Self")]
        pub struct CustomResourceDefinition {
            #[serde(default)]
            pub metadata: ObjectMeta,
            pub spec: CustomResourceDefinitionSpec,
        }
        resource!(
            CustomResourceDefinition,
            "apiextensions.k8s.io/v1",
            "CustomResourceDefinition"
        );

        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomResourceDefinitionSpec {
            pub group: String,
            pub names: CustomResourceDefinitionNames,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub preserve_unknown_fields: Option<bool>,
            pub scope: String,
            pub versions: Vec<CustomResourceDefinitionVersion>,
        }

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomResourceDefinitionNames {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub categories: Option<Vec<String>>,
            pub kind: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub list_kind: Option<String>,
            pub plural: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub short_names: Option<Vec<String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub singular: Option<String>,
        }

        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomResourceDefinitionVersion {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub additional_printer_columns: Option<Vec<CustomResourceColumnDefinition>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub deprecated: Option<bool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub deprecation_warning: Option<String>,
            pub name: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub schema: Option<CustomResourceValidation>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub selectable_fields: Option<Vec<SelectableField>>,
            pub served: bool,
            pub storage: bool,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub subresources: Option<CustomResourceSubresources>,
        }

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomResourceColumnDefinition {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub description: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub format: Option<String>,
            pub json_path: String,
            pub name: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub priority: Option<i32>,
            #[serde(rename = "type")]
            pub type_: String,
        }

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct SelectableField {
            pub json_path: String,
        }

        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomResourceSubresources {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub scale: Option<CustomResourceSubresourceScale>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub status: Option<CustomResourceSubresourceStatus>,
        }

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomResourceSubresourceScale {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub label_selector_path: Option<String>,
            pub spec_replicas_path: String,
            pub status_replicas_path: String,
        }

        /// The status subresource: an empty object.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct CustomResourceSubresourceStatus(pub serde_json::Value);

        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        pub struct CustomResourceValidation {
            #[serde(rename = "openAPIV3Schema", skip_serializing_if = "Option::is_none")]
            pub open_api_v3_schema: Option<JSONSchemaProps>,
        }

        /// Any JSON value (a default, an example, an enum member).
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct JSON(pub serde_json::Value);

        /// A structural schema, as `openAPIV3Schema` and its properties hold it.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct JSONSchemaProps {
            #[serde(rename = "$ref", skip_serializing_if = "Option::is_none")]
            pub ref_path: Option<String>,
            #[serde(rename = "$schema", skip_serializing_if = "Option::is_none")]
            pub schema: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub additional_items: Option<JSONSchemaPropsOrBool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub additional_properties: Option<JSONSchemaPropsOrBool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub all_of: Option<Vec<JSONSchemaProps>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub any_of: Option<Vec<JSONSchemaProps>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub default: Option<JSON>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub definitions: Option<BTreeMap<String, JSONSchemaProps>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub dependencies: Option<BTreeMap<String, JSONSchemaPropsOrStringArray>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub description: Option<String>,
            #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
            pub enum_: Option<Vec<JSON>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub example: Option<JSON>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub exclusive_maximum: Option<bool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub exclusive_minimum: Option<bool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub external_docs: Option<ExternalDocumentation>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub format: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub id: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub items: Option<JSONSchemaPropsOrArray>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub max_items: Option<i64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub max_length: Option<i64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub max_properties: Option<i64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub maximum: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub min_items: Option<i64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub min_length: Option<i64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub min_properties: Option<i64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub minimum: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub multiple_of: Option<f64>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub not: Option<Box<JSONSchemaProps>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub nullable: Option<bool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub one_of: Option<Vec<JSONSchemaProps>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub pattern: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub pattern_properties: Option<BTreeMap<String, JSONSchemaProps>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub properties: Option<BTreeMap<String, JSONSchemaProps>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub required: Option<Vec<String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub title: Option<String>,
            #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
            pub type_: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub unique_items: Option<bool>,
            #[serde(
                rename = "x-kubernetes-embedded-resource",
                skip_serializing_if = "Option::is_none"
            )]
            pub x_kubernetes_embedded_resource: Option<bool>,
            #[serde(
                rename = "x-kubernetes-int-or-string",
                skip_serializing_if = "Option::is_none"
            )]
            pub x_kubernetes_int_or_string: Option<bool>,
            #[serde(
                rename = "x-kubernetes-list-map-keys",
                skip_serializing_if = "Option::is_none"
            )]
            pub x_kubernetes_list_map_keys: Option<Vec<String>>,
            #[serde(
                rename = "x-kubernetes-list-type",
                skip_serializing_if = "Option::is_none"
            )]
            pub x_kubernetes_list_type: Option<String>,
            #[serde(
                rename = "x-kubernetes-map-type",
                skip_serializing_if = "Option::is_none"
            )]
            pub x_kubernetes_map_type: Option<String>,
            #[serde(
                rename = "x-kubernetes-preserve-unknown-fields",
                skip_serializing_if = "Option::is_none"
            )]
            pub x_kubernetes_preserve_unknown_fields: Option<bool>,
            #[serde(
                rename = "x-kubernetes-validations",
                skip_serializing_if = "Option::is_none"
            )]
            pub x_kubernetes_validations: Option<Vec<ValidationRule>>,
        }

        impl JSONSchemaProps {
            /// The schema of a list's items (the first, for JSON Schema's tuple form).
            pub fn items_schema(&self) -> Option<&JSONSchemaProps> {
                match self.items.as_ref()? {
                    JSONSchemaPropsOrArray::Schema(s) => Some(s),
                    JSONSchemaPropsOrArray::Schemas(v) => v.first(),
                }
            }

            /// The schema of a map's values (`additionalProperties` as a schema).
            pub fn values_schema(&self) -> Option<&JSONSchemaProps> {
                match self.additional_properties.as_ref()? {
                    JSONSchemaPropsOrBool::Schema(s) => Some(s),
                    JSONSchemaPropsOrBool::Bool(_) => None,
                }
            }
        }

        /// `items`: one schema for every element, or (JSON Schema's tuple form) one each.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(untagged)]
        pub enum JSONSchemaPropsOrArray {
            Schemas(Vec<JSONSchemaProps>),
            Schema(Box<JSONSchemaProps>),
        }

        /// `additionalProperties`, `additionalItems`: a schema, or whether any is allowed.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(untagged)]
        pub enum JSONSchemaPropsOrBool {
            Bool(bool),
            Schema(Box<JSONSchemaProps>),
        }

        /// A `dependencies` entry: a schema, or the names of the properties it requires.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(untagged)]
        pub enum JSONSchemaPropsOrStringArray {
            Strings(Vec<String>),
            Schema(Box<JSONSchemaProps>),
        }

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct ExternalDocumentation {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub description: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub url: Option<String>,
        }

        /// One CEL rule of `x-kubernetes-validations`.
        #[derive(Clone, Debug, Default, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct ValidationRule {
            /// Where the marker that wrote the rule is (not part of the API object, nor of
            /// its equality): the checks of the finished schema report there.
            #[serde(skip)]
            pub origin: Option<crate::model::Loc>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub field_path: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub message: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub message_expression: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub optional_old_self: Option<bool>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub reason: Option<String>,
            pub rule: String,
        }

        impl PartialEq for ValidationRule {
            fn eq(&self, o: &Self) -> bool {
                (
                    &self.field_path,
                    &self.message,
                    &self.message_expression,
                    &self.optional_old_self,
                    &self.reason,
                    &self.rule,
                ) == (
                    &o.field_path,
                    &o.message,
                    &o.message_expression,
                    &o.optional_old_self,
                    &o.reason,
                    &o.rule,
                )
            }
        }

        impl Eq for ValidationRule {}
    }
}

/// `rbac.authorization.k8s.io/v1`.
pub mod rbac {
    pub mod v1 {
        use serde::{Deserialize, Serialize};

        use super::super::meta::v1::ObjectMeta;

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(remote = "Self")]
        pub struct ClusterRole {
            #[serde(default)]
            pub metadata: ObjectMeta,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub rules: Option<Vec<PolicyRule>>,
        }
        resource!(ClusterRole, "rbac.authorization.k8s.io/v1", "ClusterRole");

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(remote = "Self")]
        pub struct Role {
            #[serde(default)]
            pub metadata: ObjectMeta,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub rules: Option<Vec<PolicyRule>>,
        }
        resource!(Role, "rbac.authorization.k8s.io/v1", "Role");

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct PolicyRule {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub api_groups: Option<Vec<String>>,
            #[serde(rename = "nonResourceURLs", skip_serializing_if = "Option::is_none")]
            pub non_resource_urls: Option<Vec<String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub resource_names: Option<Vec<String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub resources: Option<Vec<String>>,
            pub verbs: Vec<String>,
        }
    }
}

/// `admissionregistration.k8s.io/v1`.
pub mod admissionregistration {
    pub mod v1 {
        use serde::{Deserialize, Serialize};

        use super::super::meta::v1::ObjectMeta;

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(remote = "Self")]
        pub struct MutatingWebhookConfiguration {
            #[serde(default)]
            pub metadata: ObjectMeta,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub webhooks: Option<Vec<MutatingWebhook>>,
        }
        resource!(
            MutatingWebhookConfiguration,
            "admissionregistration.k8s.io/v1",
            "MutatingWebhookConfiguration"
        );

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(remote = "Self")]
        pub struct ValidatingWebhookConfiguration {
            #[serde(default)]
            pub metadata: ObjectMeta,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub webhooks: Option<Vec<ValidatingWebhook>>,
        }
        resource!(
            ValidatingWebhookConfiguration,
            "admissionregistration.k8s.io/v1",
            "ValidatingWebhookConfiguration"
        );

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct MutatingWebhook {
            pub admission_review_versions: Vec<String>,
            pub client_config: WebhookClientConfig,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub failure_policy: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub match_policy: Option<String>,
            pub name: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub reinvocation_policy: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub rules: Option<Vec<RuleWithOperations>>,
            pub side_effects: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub timeout_seconds: Option<i32>,
        }

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct ValidatingWebhook {
            pub admission_review_versions: Vec<String>,
            pub client_config: WebhookClientConfig,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub failure_policy: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub match_policy: Option<String>,
            pub name: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub rules: Option<Vec<RuleWithOperations>>,
            pub side_effects: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub timeout_seconds: Option<i32>,
        }

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct RuleWithOperations {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub api_groups: Option<Vec<String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub api_versions: Option<Vec<String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub operations: Option<Vec<String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub resources: Option<Vec<String>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub scope: Option<String>,
        }

        /// Where the API server calls the webhook: a Service, or a URL.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct WebhookClientConfig {
            #[serde(skip_serializing_if = "Option::is_none")]
            pub service: Option<ServiceReference>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub url: Option<String>,
        }

        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct ServiceReference {
            pub name: String,
            pub namespace: String,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub path: Option<String>,
            #[serde(skip_serializing_if = "Option::is_none")]
            pub port: Option<i32>,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::admissionregistration::v1::MutatingWebhookConfiguration;
    use super::apiextensions::v1::{
        CustomResourceDefinition, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
    };
    use super::meta::v1::ObjectMeta;
    use super::rbac::v1::ClusterRole;

    /// Top-level objects carry their `apiVersion` and `kind`, as k8s-openapi's do, and read
    /// back whole.
    #[test]
    fn objects_serialise_with_their_api_version_and_kind_and_read_back() {
        let role = ClusterRole {
            metadata: ObjectMeta {
                name: Some("manager-role".into()),
                ..Default::default()
            },
            rules: Some(Vec::new()),
        };
        let v = serde_json::to_value(&role).unwrap();
        assert_eq!(
            v,
            json!({
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRole",
                "metadata": {"name": "manager-role"},
                "rules": [],
            })
        );
        assert_eq!(serde_json::from_value::<ClusterRole>(v).unwrap(), role);

        let empty = serde_json::to_value(MutatingWebhookConfiguration::default()).unwrap();
        assert_eq!(
            empty,
            json!({
                "apiVersion": "admissionregistration.k8s.io/v1",
                "kind": "MutatingWebhookConfiguration",
                "metadata": {},
            })
        );
        let crd: CustomResourceDefinition = serde_json::from_value(json!({
            "spec": {"group": "g", "names": {"kind": "K", "plural": "ks"}, "scope": "Namespaced", "versions": []}
        }))
        .unwrap();
        assert_eq!(crd.spec.names.plural, "ks");
    }

    /// The JSON Schema unions read each of their shapes, and the field names are the API
    /// server's.
    #[test]
    fn schema_unions_and_field_names() {
        let s: JSONSchemaProps = serde_json::from_value(json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "a": {"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "set"},
                "b": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
                "c": {"type": "object", "additionalProperties": {"type": "integer"}},
                "d": {"$ref": "#/x", "enum": ["x", 1]},
            },
        }))
        .unwrap();
        assert_eq!(
            s.additional_properties,
            Some(JSONSchemaPropsOrBool::Bool(false))
        );
        let p = s.properties.as_ref().unwrap();
        assert!(matches!(
            p["a"].items,
            Some(JSONSchemaPropsOrArray::Schema(_))
        ));
        assert_eq!(p["a"].x_kubernetes_list_type.as_deref(), Some("set"));
        assert!(matches!(&p["b"].items, Some(JSONSchemaPropsOrArray::Schemas(v)) if v.len() == 2));
        assert!(matches!(
            p["c"].additional_properties,
            Some(JSONSchemaPropsOrBool::Schema(_))
        ));
        assert_eq!(p["d"].ref_path.as_deref(), Some("#/x"));
        assert_eq!(p["d"].enum_.as_ref().map(Vec::len), Some(2));
        let back = serde_json::to_value(&s).unwrap();
        assert_eq!(back["properties"]["a"]["x-kubernetes-list-type"], "set");
        assert_eq!(back["properties"]["d"]["$ref"], "#/x");
        assert_eq!(back["additionalProperties"], false);
        assert!(back.get("required").is_none(), "unset fields are left out");
    }
}
