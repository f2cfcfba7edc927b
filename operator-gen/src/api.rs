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
    /// The `apiVersion` the object is written with.
    const API_VERSION: &'static str;
    /// The `kind` the object is written with.
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
    /// Version `v1` of the group.
    pub mod v1 {
        use std::collections::BTreeMap;

        use serde::{Deserialize, Serialize};

        /// The metadata the generator sets on what it writes.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct ObjectMeta {
            /// Annotations (`metadata.annotations`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub annotations: Option<BTreeMap<String, String>>,
            /// Labels (`metadata.labels`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub labels: Option<BTreeMap<String, String>>,
            /// The object's name.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub name: Option<String>,
            /// The object's namespace; none for cluster-wide objects.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub namespace: Option<String>,
        }
    }
}

/// `apiextensions.k8s.io/v1`.
pub mod apiextensions {
    /// Version `v1` of the group.
    pub mod v1 {
        use std::collections::BTreeMap;

        use serde::{Deserialize, Serialize};

        use super::super::meta::v1::ObjectMeta;

        /// A CustomResourceDefinition: one kind of custom resource, in all its versions.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(remote = "Self")]
        pub struct CustomResourceDefinition {
            /// The object's metadata.
            #[serde(default)]
            pub metadata: ObjectMeta,
            /// The kind: its group, names, scope and versions.
            pub spec: CustomResourceDefinitionSpec,
        }
        resource!(
            CustomResourceDefinition,
            "apiextensions.k8s.io/v1",
            "CustomResourceDefinition"
        );

        /// What a CustomResourceDefinition defines.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomResourceDefinitionSpec {
            /// The API group, such as `cache.example.com`.
            pub group: String,
            /// The kind's names: kind, plural, singular, short names, categories.
            pub names: CustomResourceDefinitionNames,
            /// The `apiextensions.k8s.io/v1beta1` field that v1 requires to be false when set.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub preserve_unknown_fields: Option<bool>,
            /// `Namespaced` or `Cluster`.
            pub scope: String,
            /// The versions, each with its schema; exactly one is stored.
            pub versions: Vec<CustomResourceDefinitionVersion>,
        }

        /// The names a custom resource is known by.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomResourceDefinitionNames {
            /// Groups of resources the kind belongs to (`kubectl get all` reads `all`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub categories: Option<Vec<String>>,
            /// The kind, in UpperCamelCase.
            pub kind: String,
            /// The kind of its lists (`<Kind>List`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub list_kind: Option<String>,
            /// The plural, the resource's name in URLs.
            pub plural: String,
            /// Short names for kubectl (`mc`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub short_names: Option<Vec<String>>,
            /// The singular name, in lower case.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub singular: Option<String>,
        }

        /// One version of a custom resource.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomResourceDefinitionVersion {
            /// The columns `kubectl get` shows.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub additional_printer_columns: Option<Vec<CustomResourceColumnDefinition>>,
            /// Whether clients are warned that the version is deprecated.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub deprecated: Option<bool>,
            /// The warning deprecated versions send instead of the default one.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub deprecation_warning: Option<String>,
            /// The name.
            pub name: String,
            /// The version's schema.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub schema: Option<CustomResourceValidation>,
            /// Fields that field selectors may use.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub selectable_fields: Option<Vec<SelectableField>>,
            /// Whether the API server serves the version.
            pub served: bool,
            /// Whether objects are stored in this version (exactly one version is).
            pub storage: bool,
            /// The `status` and `scale` subresources.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub subresources: Option<CustomResourceSubresources>,
        }

        /// A column of `kubectl get`.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomResourceColumnDefinition {
            /// What it describes.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub description: Option<String>,
            /// A format that refines `type` (`date-time`, `int32`, ...).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub format: Option<String>,
            /// The JSON path of the value, from the object's root.
            pub json_path: String,
            /// The name.
            pub name: String,
            /// 0 for the default columns; higher ones show with `-o wide`.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub priority: Option<i32>,
            /// `integer`, `number`, `string`, `boolean` or `date`.
            #[serde(rename = "type")]
            pub type_: String,
        }

        /// A field that field selectors may use.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct SelectableField {
            /// The JSON path of the value, from the object's root.
            pub json_path: String,
        }

        /// The subresources of a custom resource version.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomResourceSubresources {
            /// The `scale` subresource, for `kubectl scale` and autoscalers.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub scale: Option<CustomResourceSubresourceScale>,
            /// The `status` subresource: status is written apart from the rest.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub status: Option<CustomResourceSubresourceStatus>,
        }

        /// Where the `scale` subresource finds the replica counts.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct CustomResourceSubresourceScale {
            /// The path of the pods' label selector, as a string, in the status.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub label_selector_path: Option<String>,
            /// The path of the desired replicas in the spec.
            pub spec_replicas_path: String,
            /// The path of the observed replicas in the status.
            pub status_replicas_path: String,
        }

        /// The status subresource: an empty object.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct CustomResourceSubresourceStatus(pub serde_json::Value);

        /// A version's schema.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        pub struct CustomResourceValidation {
            /// The structural OpenAPI v3 schema of the whole object.
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
            /// `$ref`: not allowed in CRDs; present for completeness.
            #[serde(rename = "$ref", skip_serializing_if = "Option::is_none")]
            pub ref_path: Option<String>,
            /// `$schema`.
            #[serde(rename = "$schema", skip_serializing_if = "Option::is_none")]
            pub schema: Option<String>,
            /// `additionalItems`.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub additional_items: Option<JSONSchemaPropsOrBool>,
            /// The schema of a map's values (`additionalProperties`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub additional_properties: Option<JSONSchemaPropsOrBool>,
            /// Schemas the value must all match (`allOf`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub all_of: Option<Vec<JSONSchemaProps>>,
            /// Schemas the value must match one or more of (`anyOf`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub any_of: Option<Vec<JSONSchemaProps>>,
            /// The value the API server sets when the field is missing.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub default: Option<JSON>,
            /// `definitions`: not allowed in CRDs.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub definitions: Option<BTreeMap<String, JSONSchemaProps>>,
            /// `dependencies`: not allowed in CRDs.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub dependencies: Option<BTreeMap<String, JSONSchemaPropsOrStringArray>>,
            /// What it describes.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub description: Option<String>,
            /// The values allowed (`enum`).
            #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
            pub enum_: Option<Vec<JSON>>,
            /// An example value.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub example: Option<JSON>,
            /// Whether `maximum` itself is excluded.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub exclusive_maximum: Option<bool>,
            /// Whether `minimum` itself is excluded.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub exclusive_minimum: Option<bool>,
            /// Where more documentation is.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub external_docs: Option<ExternalDocumentation>,
            /// A format that refines `type` (`date-time`, `int32`, ...).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub format: Option<String>,
            /// `id`.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub id: Option<String>,
            /// The schema of a list's items.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub items: Option<JSONSchemaPropsOrArray>,
            /// The most items a list may have.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub max_items: Option<i64>,
            /// The longest a string may be, in characters.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub max_length: Option<i64>,
            /// The most entries a map may have.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub max_properties: Option<i64>,
            /// The largest number allowed.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub maximum: Option<f64>,
            /// The fewest items a list may have.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub min_items: Option<i64>,
            /// The shortest a string may be, in characters.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub min_length: Option<i64>,
            /// The fewest entries a map may have.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub min_properties: Option<i64>,
            /// The smallest number allowed.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub minimum: Option<f64>,
            /// A number the value must be a multiple of.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub multiple_of: Option<f64>,
            /// A schema the value must not match.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub not: Option<Box<JSONSchemaProps>>,
            /// Whether `null` is kept as a value instead of dropping the field.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub nullable: Option<bool>,
            /// Schemas the value must match exactly one of (`oneOf`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub one_of: Option<Vec<JSONSchemaProps>>,
            /// A regular expression a string must match.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub pattern: Option<String>,
            /// `patternProperties`: not allowed in CRDs.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub pattern_properties: Option<BTreeMap<String, JSONSchemaProps>>,
            /// An object's fields and their schemas.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub properties: Option<BTreeMap<String, JSONSchemaProps>>,
            /// The fields an object must have.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub required: Option<Vec<String>>,
            /// A title.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub title: Option<String>,
            /// `object`, `array`, `string`, `integer`, `number` or `boolean`.
            #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
            pub type_: Option<String>,
            /// Whether a list's items must differ (not allowed in CRDs when true).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub unique_items: Option<bool>,
            #[serde(
                rename = "x-kubernetes-embedded-resource",
                skip_serializing_if = "Option::is_none"
            )]
            /// The value is a whole Kubernetes object (`apiVersion`, `kind`, `metadata` checked).
            pub x_kubernetes_embedded_resource: Option<bool>,
            #[serde(
                rename = "x-kubernetes-int-or-string",
                skip_serializing_if = "Option::is_none"
            )]
            /// The value is an integer or a string.
            pub x_kubernetes_int_or_string: Option<bool>,
            #[serde(
                rename = "x-kubernetes-list-map-keys",
                skip_serializing_if = "Option::is_none"
            )]
            /// The fields that identify an item of a `map` list.
            pub x_kubernetes_list_map_keys: Option<Vec<String>>,
            #[serde(
                rename = "x-kubernetes-list-type",
                skip_serializing_if = "Option::is_none"
            )]
            /// How server-side apply merges a list: `atomic`, `set` or `map`.
            pub x_kubernetes_list_type: Option<String>,
            #[serde(
                rename = "x-kubernetes-map-type",
                skip_serializing_if = "Option::is_none"
            )]
            /// How server-side apply merges a map: `granular` or `atomic`.
            pub x_kubernetes_map_type: Option<String>,
            #[serde(
                rename = "x-kubernetes-preserve-unknown-fields",
                skip_serializing_if = "Option::is_none"
            )]
            /// Fields the schema does not name are kept instead of pruned.
            pub x_kubernetes_preserve_unknown_fields: Option<bool>,
            #[serde(
                rename = "x-kubernetes-validations",
                skip_serializing_if = "Option::is_none"
            )]
            /// CEL rules the value must pass.
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
            /// One schema per position.
            Schemas(Vec<JSONSchemaProps>),
            /// One schema.
            Schema(Box<JSONSchemaProps>),
        }

        /// `additionalProperties`, `additionalItems`: a schema, or whether any is allowed.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(untagged)]
        pub enum JSONSchemaPropsOrBool {
            /// Allowed (`true`) or not (`false`), whatever the schema.
            Bool(bool),
            /// One schema.
            Schema(Box<JSONSchemaProps>),
        }

        /// A `dependencies` entry: a schema, or the names of the properties it requires.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(untagged)]
        pub enum JSONSchemaPropsOrStringArray {
            /// Fields that must be present too.
            Strings(Vec<String>),
            /// One schema.
            Schema(Box<JSONSchemaProps>),
        }

        /// A link to documentation elsewhere.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct ExternalDocumentation {
            /// What it describes.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub description: Option<String>,
            /// Where it is.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub url: Option<String>,
        }

        /// One CEL rule of `x-kubernetes-validations`.
        #[derive(Clone, Debug, Default, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct ValidationRule {
            /// Not part of the API object: never written, left out of its equality, and
            /// `None` in a finished CRD. While a schema is built, the number under which the
            /// builder keeps, beside the object, where the marker that wrote the rule is
            /// (rules are copied and rewritten on the way, so they carry the number, not the
            /// place).
            #[serde(skip)]
            pub mark: Option<u32>,
            /// The field the error names, relative to the rule's node.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub field_path: Option<String>,
            /// The error message when the rule fails.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub message: Option<String>,
            /// A CEL expression that builds the error message.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub message_expression: Option<String>,
            /// The rule runs on creates too, with `oldSelf` an optional.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub optional_old_self: Option<bool>,
            /// The error's reason (`FieldValueInvalid`, `FieldValueForbidden`, ...).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub reason: Option<String>,
            /// The CEL expression, true when the value is valid.
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
    /// Version `v1` of the group.
    pub mod v1 {
        use serde::{Deserialize, Serialize};

        use super::super::meta::v1::ObjectMeta;

        /// A ClusterRole: permissions in every namespace.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(remote = "Self")]
        pub struct ClusterRole {
            /// The object's metadata.
            #[serde(default)]
            pub metadata: ObjectMeta,
            /// The permissions.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub rules: Option<Vec<PolicyRule>>,
        }
        resource!(ClusterRole, "rbac.authorization.k8s.io/v1", "ClusterRole");

        /// A Role: permissions in its namespace.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(remote = "Self")]
        pub struct Role {
            /// The object's metadata.
            #[serde(default)]
            pub metadata: ObjectMeta,
            /// The permissions.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub rules: Option<Vec<PolicyRule>>,
        }
        resource!(Role, "rbac.authorization.k8s.io/v1", "Role");

        /// One permission: verbs on resources (or URLs).
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct PolicyRule {
            /// The API groups (`""` for the core group).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub api_groups: Option<Vec<String>>,
            /// URLs that are not resources (`/metrics`), for ClusterRoles.
            #[serde(rename = "nonResourceURLs", skip_serializing_if = "Option::is_none")]
            pub non_resource_urls: Option<Vec<String>>,
            /// Only these objects, by name.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub resource_names: Option<Vec<String>>,
            /// The resources (`deployments`, `memcacheds/status`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub resources: Option<Vec<String>>,
            /// The verbs (`get`, `list`, `watch`, `create`, `update`, `patch`, `delete`).
            pub verbs: Vec<String>,
        }
    }
}

/// `admissionregistration.k8s.io/v1`.
pub mod admissionregistration {
    /// Version `v1` of the group.
    pub mod v1 {
        use serde::{Deserialize, Serialize};

        use super::super::meta::v1::ObjectMeta;

        /// The mutating admission webhooks.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(remote = "Self")]
        pub struct MutatingWebhookConfiguration {
            /// The object's metadata.
            #[serde(default)]
            pub metadata: ObjectMeta,
            /// The webhooks.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub webhooks: Option<Vec<MutatingWebhook>>,
        }
        resource!(
            MutatingWebhookConfiguration,
            "admissionregistration.k8s.io/v1",
            "MutatingWebhookConfiguration"
        );

        /// The validating admission webhooks.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(remote = "Self")]
        pub struct ValidatingWebhookConfiguration {
            /// The object's metadata.
            #[serde(default)]
            pub metadata: ObjectMeta,
            /// The webhooks.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub webhooks: Option<Vec<ValidatingWebhook>>,
        }
        resource!(
            ValidatingWebhookConfiguration,
            "admissionregistration.k8s.io/v1",
            "ValidatingWebhookConfiguration"
        );

        /// A mutating admission webhook.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct MutatingWebhook {
            /// The AdmissionReview versions the webhook understands.
            pub admission_review_versions: Vec<String>,
            /// How the API server calls it.
            pub client_config: WebhookClientConfig,
            /// `Fail` or `Ignore`: what happens when it cannot be called.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub failure_policy: Option<String>,
            /// `Exact` or `Equivalent`: whether requests in other versions are sent too.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub match_policy: Option<String>,
            /// The name.
            pub name: String,
            /// `Never` or `IfNeeded`: called again after later mutations.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub reinvocation_policy: Option<String>,
            /// The requests it is called for.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub rules: Option<Vec<RuleWithOperations>>,
            /// `None` or `NoneOnDryRun`.
            pub side_effects: String,
            /// How long the API server waits for its answer.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub timeout_seconds: Option<i32>,
        }

        /// A validating admission webhook.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct ValidatingWebhook {
            /// The AdmissionReview versions the webhook understands.
            pub admission_review_versions: Vec<String>,
            /// How the API server calls it.
            pub client_config: WebhookClientConfig,
            /// `Fail` or `Ignore`: what happens when it cannot be called.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub failure_policy: Option<String>,
            /// `Exact` or `Equivalent`: whether requests in other versions are sent too.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub match_policy: Option<String>,
            /// The name.
            pub name: String,
            /// The requests it is called for.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub rules: Option<Vec<RuleWithOperations>>,
            /// `None` or `NoneOnDryRun`.
            pub side_effects: String,
            /// How long the API server waits for its answer.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub timeout_seconds: Option<i32>,
        }

        /// The requests a webhook is called for.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct RuleWithOperations {
            /// The API groups (`""` for the core group).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub api_groups: Option<Vec<String>>,
            /// The API versions.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub api_versions: Option<Vec<String>>,
            /// `CREATE`, `UPDATE`, `DELETE`, `CONNECT` or `*`.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub operations: Option<Vec<String>>,
            /// The resources (`deployments`, `memcacheds/status`).
            #[serde(skip_serializing_if = "Option::is_none")]
            pub resources: Option<Vec<String>>,
            /// `Namespaced`, `Cluster` or `*`.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub scope: Option<String>,
        }

        /// Where the API server calls the webhook: a Service, or a URL.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct WebhookClientConfig {
            /// A Service in the cluster that serves the webhook.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub service: Option<ServiceReference>,
            /// A URL the API server calls instead of a Service.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub url: Option<String>,
        }

        /// A Service that serves a webhook.
        #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub struct ServiceReference {
            /// The name.
            pub name: String,
            /// The Service's namespace.
            pub namespace: String,
            /// The URL path on the Service.
            #[serde(skip_serializing_if = "Option::is_none")]
            pub path: Option<String>,
            /// The Service's port (443 when unset).
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
