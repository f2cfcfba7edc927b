//! Schemas of types that live outside the scanned sources: Rust's standard containers are
//! handled in `schema`; this module holds the Kubernetes types from k8s-openapi (and kube's
//! re-exports) with the schema and upstream descriptions controller-gen gives the Go types.

use crate::api::apiextensions::v1::{
    JSON, JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
    JSONSchemaPropsOrStringArray,
};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

/// The crates whose types are taken from this table.
pub fn is_kubernetes_path(path: &[String]) -> bool {
    matches!(
        path.first().map(String::as_str),
        Some("k8s_openapi" | "kube" | "kube_core" | "kube_client")
    )
}

/// Canonical padded base64 (RFC 4648 section 4, unused bits zero), what the base64 crate's
/// `STANDARD` engine, and so `k8s_openapi::ByteString`, decodes.
pub const BASE64: &str =
    "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$";

/// The description controller-gen gives `apiVersion` on every root kind.
pub const API_VERSION_DESCRIPTION: &str = "APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
/// The description controller-gen gives `kind` on every root kind.
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

pub(crate) fn int_or_string() -> JSONSchemaProps {
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
    "ByteString",
];

/// What kube's `Duration` reads without error (and without a panic: its parser multiplies
/// each component as a float and panics on overflow or a negative component): Go's
/// duration syntax, an optional sign then `0`, nothing, or components of a decimal number
/// of at most nine integer digits and a unit. controller-gen gives `metav1.Duration` a plain
/// string, which admits values no Go or Rust operator can read (a deliberate difference).
pub const GO_DURATION: &str =
    r"^[-+]?(0|(([0-9]{1,9}(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))*)$";

/// kube's `Duration` (`kube::core::Duration`), which serializes as Go's `metav1.Duration`
/// does: controller-gen gives that a plain string. Only by a kube path: a bare `Duration`
/// is as likely to be `std::time::Duration`.
fn is_kube_duration(path: &[String]) -> bool {
    path.last().is_some_and(|name| name == "Duration")
        && matches!(path.first().map(String::as_str), Some("kube" | "kube_core"))
}

/// Whether the type at `path` (as written or imported, last segment the type's name) is a
/// Kubernetes type we know: a k8s-openapi/kube path, or a bare name nothing else declares.
pub fn is_known_path(path: &[String]) -> bool {
    ((is_kubernetes_path(path) || path.len() == 1)
        && path
            .last()
            .is_some_and(|name| KNOWN.contains(&name.as_str())))
        || is_kube_duration(path)
        || table_index(path).is_some()
}

/// The schema of the type at `path` if [`is_known_path`] says it is a type we know, with
/// every `ObjectMeta` in it (the type itself, or a `metadata` of a Kubernetes type inside
/// it) as `meta` says.
pub fn schema_for_path(path: &[String], meta: EmbeddedObjectMeta) -> Option<JSONSchemaProps> {
    if (is_kubernetes_path(path) || path.len() == 1)
        && path.last().is_some_and(|name| name == "ObjectMeta")
    {
        return Some(meta.schema());
    }
    if (is_kubernetes_path(path) || path.len() == 1)
        && let Some(schema) = path.last().and_then(|name| kubernetes_schema(name))
    {
        return Some(schema);
    }
    if is_kube_duration(path) {
        return Some(JSONSchemaProps {
            pattern: Some(GO_DURATION.into()),
            ..typed("string")
        });
    }
    table_index(path).map(|i| {
        let mut schema = table_schema(i).clone();
        if meta != EmbeddedObjectMeta::Object {
            embed_object_meta(&mut schema, meta);
        }
        schema
    })
}

/// The schema an `ObjectMeta` gets below the root of a kind (a pod template's, a volume
/// claim template's, a field of the user's own). At the root the API server owns
/// `metadata` and the CRD says only `type: object`; anywhere else the API server treats it
/// as any other object and prunes whatever its schema does not declare, so controller-gen's
/// default `type: object` stores a template's labels and annotations as `{}`.
///
/// Set per crate with `[package.metadata.operator-gen] embedded-object-meta = "..."`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EmbeddedObjectMeta {
    /// Every field of `ObjectMeta` (as k8s-openapi writes it), so nothing serde writes is
    /// pruned: the default.
    #[default]
    Full,
    /// controller-gen's `crd:generateEmbeddedObjectMeta=true`: `name`, `namespace`,
    /// `labels`, `annotations` and `finalizers`; the API server prunes the other fields
    /// (`generateName`, `ownerReferences`, ...). For byte parity with a Go project built
    /// with that option.
    GenerateEmbedded,
    /// controller-gen's default, `type: object`: the API server prunes everything in it.
    /// For byte parity with a Go project built without the option.
    Object,
}

impl EmbeddedObjectMeta {
    /// The spellings of the manifest key and the CLI flag, in the variants' order.
    pub const NAMES: [&'static str; 3] = ["full", "generate-embedded", "object"];

    /// The variant `name` spells.
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "full" => Self::Full,
            "generate-embedded" => Self::GenerateEmbedded,
            "object" => Self::Object,
            _ => return None,
        })
    }

    /// How the manifest key spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Full => Self::NAMES[0],
            Self::GenerateEmbedded => Self::NAMES[1],
            Self::Object => Self::NAMES[2],
        }
    }

    /// The schema of an `ObjectMeta` below the root. No descriptions below it, as
    /// controller-gen writes its embedded shape: the field's own description says what it
    /// is for.
    pub fn schema(self) -> JSONSchemaProps {
        let string = || typed("string");
        let strings = || JSONSchemaProps {
            items: Some(JSONSchemaPropsOrArray::Schema(Box::new(string()))),
            ..typed("array")
        };
        let string_map = || JSONSchemaProps {
            additional_properties: Some(JSONSchemaPropsOrBool::Schema(Box::new(string()))),
            ..typed("object")
        };
        let mut props: BTreeMap<String, JSONSchemaProps> = match self {
            Self::Object => return typed("object"),
            Self::Full | Self::GenerateEmbedded => [
                ("annotations", string_map()),
                ("finalizers", strings()),
                ("labels", string_map()),
                ("name", string()),
                ("namespace", string()),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
        };
        if self == Self::Full {
            let int64 = || JSONSchemaProps {
                format: Some("int64".into()),
                ..typed("integer")
            };
            let time = || JSONSchemaProps {
                format: Some("date-time".into()),
                ..typed("string")
            };
            let list_of = |key: &str| {
                let index = entry_index(key).expect("ObjectMeta's field types are in the table");
                let mut item = table_schema(index).clone();
                strip_descriptions(&mut item);
                JSONSchemaProps {
                    items: Some(JSONSchemaPropsOrArray::Schema(Box::new(item))),
                    ..typed("array")
                }
            };
            const META: &str = "k8s_openapi::apimachinery::pkg::apis::meta::v1::";
            let mut managed_fields = list_of(&format!("{META}ManagedFieldsEntry"));
            // `fieldsV1` is any JSON object (k8s-openapi's `FieldsV1(serde_json::Value)`,
            // Go's raw JSON): controller-gen's bare `type: object` would prune it to `{}`.
            if let Some(JSONSchemaPropsOrArray::Schema(entry)) = &mut managed_fields.items
                && let Some(fields) = entry
                    .properties
                    .as_mut()
                    .and_then(|p| p.get_mut("fieldsV1"))
            {
                fields.x_kubernetes_preserve_unknown_fields = Some(true);
            }
            props.extend(
                [
                    ("creationTimestamp", time()),
                    ("deletionGracePeriodSeconds", int64()),
                    ("deletionTimestamp", time()),
                    ("generateName", string()),
                    ("generation", int64()),
                    ("managedFields", managed_fields),
                    ("ownerReferences", list_of(&format!("{META}OwnerReference"))),
                    ("resourceVersion", string()),
                    ("selfLink", string()),
                    ("uid", string()),
                ]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v)),
            );
        }
        JSONSchemaProps {
            properties: Some(props),
            ..typed("object")
        }
    }
}

/// Whether `schema` is the bare `type: object` controller-gen gives an `ObjectMeta`.
fn is_bare_object(schema: &JSONSchemaProps) -> bool {
    let mut bare = schema.clone();
    bare.description = None;
    bare == typed("object")
}

/// Gives every `metadata` of a Kubernetes type inside `schema` the shape `meta` says. In the
/// table a Kubernetes type's `metadata` is always its `ObjectMeta` (a list's `ListMeta` has
/// properties), written as controller-gen's bare `type: object`. An embedded resource's
/// `metadata` is left to the API server, which reads it as `ObjectMeta` itself.
fn embed_object_meta(schema: &mut JSONSchemaProps, meta: EmbeddedObjectMeta) {
    let embedded_resource = schema.x_kubernetes_embedded_resource == Some(true);
    if let Some(props) = &mut schema.properties {
        for (name, prop) in props.iter_mut() {
            if name == "metadata" && is_bare_object(prop) {
                if !embedded_resource {
                    let description = prop.description.take();
                    *prop = JSONSchemaProps {
                        description,
                        ..meta.schema()
                    };
                }
            } else {
                embed_object_meta(prop, meta);
            }
        }
    }
    if let Some(JSONSchemaPropsOrArray::Schema(items)) = &mut schema.items {
        embed_object_meta(items, meta);
    }
    if let Some(JSONSchemaPropsOrBool::Schema(values)) = &mut schema.additional_properties {
        embed_object_meta(values, meta);
    }
}

/// `schema` without the descriptions in it.
fn strip_descriptions(schema: &mut JSONSchemaProps) {
    schema.description = None;
    for prop in schema.properties.iter_mut().flat_map(|p| p.values_mut()) {
        strip_descriptions(prop);
    }
    if let Some(JSONSchemaPropsOrArray::Schema(items)) = &mut schema.items {
        strip_descriptions(items);
    }
    if let Some(JSONSchemaPropsOrBool::Schema(values)) = &mut schema.additional_properties {
        strip_descriptions(values);
    }
}

/// Every type of k8s-openapi's `api`, `apimachinery`, `apiextensions_apiserver` and
/// `kube_aggregator` modules as controller-gen writes its Go counterpart (from `k8s.io/api`
/// and its sibling modules): their doc comments as descriptions and their markers as
/// validations. Generated by `cargo xtask known-types`; the parity case `embedded` fails
/// when it is stale. Keyed by the k8s-openapi path of each type, one type a line, sorted.
///
/// Each type is stored once: a subschema that is another type of the table is
/// `{"$ref": "<its path>", ...}`, the other keys replacing that type's own (its field's
/// description, mostly). [`table_schema`] expands them; a line is parsed when its type, or
/// a type that refers to it, is first looked up.
const TABLE_JSON: &str = include_str!("known_types.json");

/// One line of the table: the key and its schema's JSON text, unparsed.
struct Entry {
    key: &'static str,
    json: &'static str,
}

/// The table's entries in key order, found without parsing any schema.
fn entries() -> &'static [Entry] {
    static ENTRIES: OnceLock<Vec<Entry>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        TABLE_JSON
            .lines()
            .filter_map(|line| {
                let rest = line.strip_prefix('"')?;
                let (key, json) = rest.split_once("\": ")?;
                Some(Entry {
                    key,
                    json: json.strip_suffix(',').unwrap_or(json),
                })
            })
            .collect()
    })
}

/// The schema of the entry at `index`, its references expanded, built once.
fn table_schema(index: usize) -> &'static JSONSchemaProps {
    static SCHEMAS: OnceLock<Vec<OnceLock<JSONSchemaProps>>> = OnceLock::new();
    let cells = SCHEMAS.get_or_init(|| entries().iter().map(|_| OnceLock::new()).collect());
    cells[index].get_or_init(|| {
        let mut schema: JSONSchemaProps = serde_json::from_str(entries()[index].json)
            .expect("known_types.json is generated and valid");
        expand_references(&mut schema);
        schema
    })
}

/// Replaces every `{"$ref": key, ...}` in `schema` by the expanded schema of `key` with the
/// reference's other keys put over it.
fn expand_references(schema: &mut JSONSchemaProps) {
    if let Some(target) = schema.ref_path.take() {
        let index = entry_index(&target)
            .unwrap_or_else(|| panic!("known_types.json refers to no entry {target}"));
        let mut over = std::mem::replace(schema, table_schema(index).clone());
        expand_references(&mut over);
        put_over(schema, over);
        return;
    }
    fn each(list: &mut Option<Vec<JSONSchemaProps>>) {
        list.iter_mut().flatten().for_each(expand_references);
    }
    fn each_value(map: &mut Option<BTreeMap<String, JSONSchemaProps>>) {
        map.iter_mut()
            .flat_map(|m| m.values_mut())
            .for_each(expand_references);
    }
    fn or_bool(s: &mut Option<JSONSchemaPropsOrBool>) {
        if let Some(JSONSchemaPropsOrBool::Schema(s)) = s {
            expand_references(s);
        }
    }
    each_value(&mut schema.properties);
    each_value(&mut schema.pattern_properties);
    each_value(&mut schema.definitions);
    each(&mut schema.all_of);
    each(&mut schema.any_of);
    each(&mut schema.one_of);
    or_bool(&mut schema.additional_properties);
    or_bool(&mut schema.additional_items);
    match &mut schema.items {
        Some(JSONSchemaPropsOrArray::Schema(s)) => expand_references(s),
        Some(JSONSchemaPropsOrArray::Schemas(list)) => list.iter_mut().for_each(expand_references),
        None => {}
    }
    if let Some(not) = &mut schema.not {
        expand_references(not);
    }
    for dependency in schema.dependencies.iter_mut().flat_map(|m| m.values_mut()) {
        if let JSONSchemaPropsOrStringArray::Schema(s) = dependency {
            expand_references(s);
        }
    }
}

/// Puts the keys `over` sets over `base`: a description (nearly always the only one)
/// directly, anything else through JSON.
fn put_over(base: &mut JSONSchemaProps, mut over: JSONSchemaProps) {
    if let Some(description) = over.description.take() {
        base.description = Some(description);
    }
    if over == JSONSchemaProps::default() {
        return;
    }
    let (Ok(Value::Object(mut map)), Ok(Value::Object(keys))) =
        (serde_json::to_value(&*base), serde_json::to_value(&over))
    else {
        unreachable!("schemas serialize as JSON objects");
    };
    map.extend(keys);
    *base = serde_json::from_value(Value::Object(map)).expect("a schema with more keys");
}

/// The index of the entry with the full path `key`.
fn entry_index(key: &str) -> Option<usize> {
    entries().binary_search_by(|e| e.key.cmp(key)).ok()
}

/// The keys of the table (full k8s-openapi paths), read once without parsing the schemas.
fn table_names() -> impl Iterator<Item = &'static str> {
    entries().iter().map(|e| e.key)
}

/// The full k8s-openapi paths of the table's types, in order (for recognising a type by
/// its schema).
#[cfg(feature = "types-from-crd")]
pub fn table_paths() -> impl Iterator<Item = &'static str> {
    table_names()
}

/// The last segment of a table key: the type's name.
fn type_name(key: &str) -> &str {
    key.rsplit("::").next().unwrap_or(key)
}

/// The entries by type name: `None` where several entries share the name.
fn by_name() -> &'static HashMap<&'static str, Option<usize>> {
    static BY_NAME: OnceLock<HashMap<&'static str, Option<usize>>> = OnceLock::new();
    BY_NAME.get_or_init(|| {
        let mut map = HashMap::new();
        for (i, entry) in entries().iter().enumerate() {
            map.entry(type_name(entry.key))
                .and_modify(|found| *found = None)
                .or_insert(Some(i));
        }
        map
    })
}

/// For an error about the Kubernetes type at `path` that we do not know: the paths of the
/// known types it most likely means (those of its name in other modules, else the closest
/// names), at most five.
pub fn suggestions(path: &[String]) -> Vec<String> {
    let Some(name) = path.last() else {
        return Vec::new();
    };
    let same_name: Vec<String> = table_names()
        .filter(|k| type_name(k) == name)
        .map(String::from)
        .collect();
    if !same_name.is_empty() {
        return same_name.into_iter().take(5).collect();
    }
    let mut scored: Vec<(f64, &str)> = table_names()
        .map(|k| (strsim::jaro_winkler(name, type_name(k)), k))
        .chain(KNOWN.iter().map(|k| (strsim::jaro_winkler(name, k), *k)))
        .filter(|(score, _)| *score > 0.8)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(5)
        .map(|(_, k)| k.to_string())
        .collect()
}

/// The index of the table entry `path` names: a full k8s-openapi path
/// (`k8s_openapi::api::core::v1::Volume`), or a bare name (a glob import) that only one
/// entry has.
fn table_index(path: &[String]) -> Option<usize> {
    let last = path.last()?;
    if path.first().is_some_and(|p| p == "k8s_openapi") {
        return entry_index(&path.join("::"));
    }
    if path.len() == 1 {
        return by_name().get(last.as_str()).copied().flatten();
    }
    None
}

/// The schema of a Kubernetes type by its Rust name, or `None` if we do not know it.
pub fn kubernetes_schema(name: &str) -> Option<JSONSchemaProps> {
    Some(match name {
        // Below the root: see `EmbeddedObjectMeta` (`schema_for_path` asks it first).
        "ObjectMeta" => typed("object"),
        "Time" | "MicroTime" => JSONSchemaProps { format: Some("date-time".into()), ..typed("string") },
        // k8s-openapi's IntOrString (as Go's) holds an i32: a bigger number would be
        // stored and then fail every typed read of the object. controller-gen writes no
        // bounds (a deliberate difference; inside the table's types the upstream schema
        // stays).
        "IntOrString" => JSONSchemaProps {
            minimum: Some(f64::from(i32::MIN)),
            maximum: Some(f64::from(i32::MAX)),
            ..int_or_string()
        },
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
        // k8s_openapi::ByteString: Go's []byte, base64 in JSON. Not `format: byte` as
        // controller-gen writes a []byte: under that format the API server also admits a
        // JSON list of numbers (which Go reads into a []byte, and ByteString does not) and
        // refuses "" (which ByteString writes for no bytes). The pattern admits exactly
        // what ByteString reads: canonical, padded base64, "" included.
        "ByteString" => JSONSchemaProps { pattern: Some(BASE64.into()), ..typed("string") },
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

/// The fingerprint `cargo xtask known-types` stores of controller-gen's schema of each
/// type (in `known_types.sums`), and the tests compute over the table's expansion:
/// FNV-1a over the JSON with object keys sorted and numbers as f64 (the schema type keeps
/// numbers as f64).
pub fn fingerprint(value: &serde_json::Value) -> u64 {
    use serde_json::Value;
    fn write(value: &Value, out: &mut String) {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for k in keys {
                    out.push_str(&serde_json::to_string(k).unwrap_or_default());
                    out.push(':');
                    write(&map[k], out);
                    out.push(',');
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for v in items {
                    write(v, out);
                    out.push(',');
                }
                out.push(']');
            }
            Value::Number(n) => out.push_str(&format!("{}", n.as_f64().unwrap_or(f64::NAN))),
            other => out.push_str(&other.to_string()),
        }
    }
    let mut text = String::new();
    write(value, &mut text);
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn path(p: &str) -> Vec<String> {
        p.split("::").map(String::from).collect()
    }

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

    #[test]
    fn the_table_has_whole_objects_by_their_k8s_openapi_path() {
        let pod = schema_for_path(
            &path("k8s_openapi::api::core::v1::PodTemplateSpec"),
            EmbeddedObjectMeta::Object,
        )
        .expect("PodTemplateSpec is in the table");
        assert!(pod.properties.unwrap().contains_key("spec"));
        assert!(is_known_path(&path("ResourceRequirements")));
        assert!(!is_known_path(&path(
            "k8s_openapi::api::apps::v1::PodTemplateSpec"
        )));
        assert!(!is_known_path(&path("my_api::Volume")));
        let deployment = schema_for_path(
            &path("k8s_openapi::api::apps::v1::DeploymentSpec"),
            EmbeddedObjectMeta::Object,
        )
        .expect("DeploymentSpec is in the table");
        let template = &deployment.properties.unwrap()["template"];
        assert!(template.properties.as_ref().unwrap().contains_key("spec"));
        assert!(table_names().is_sorted());
        assert!(table_names().count() > 600);
    }

    #[test]
    fn object_meta_below_the_root_keeps_what_its_mode_says() {
        let fields = |s: &JSONSchemaProps| -> Vec<String> {
            s.properties
                .iter()
                .flatten()
                .map(|(k, _)| k.clone())
                .collect()
        };
        let meta = |mode| {
            schema_for_path(
                &path("k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta"),
                mode,
            )
            .unwrap()
        };
        assert_eq!(meta(EmbeddedObjectMeta::Object), typed("object"));
        assert_eq!(
            fields(&meta(EmbeddedObjectMeta::GenerateEmbedded)),
            ["annotations", "finalizers", "labels", "name", "namespace"]
        );
        let full = meta(EmbeddedObjectMeta::Full);
        assert_eq!(
            fields(&full),
            [
                "annotations",
                "creationTimestamp",
                "deletionGracePeriodSeconds",
                "deletionTimestamp",
                "finalizers",
                "generateName",
                "generation",
                "labels",
                "managedFields",
                "name",
                "namespace",
                "ownerReferences",
                "resourceVersion",
                "selfLink",
                "uid"
            ]
        );
        let managed = serde_json::to_value(&full).unwrap();
        assert_eq!(
            managed["properties"]["managedFields"]["items"]["properties"]["fieldsV1"]["x-kubernetes-preserve-unknown-fields"],
            true
        );
        // No descriptions below it, as controller-gen's embedded shape.
        assert!(
            !serde_json::to_string(&full)
                .unwrap()
                .contains("description")
        );
        // A bare name is ObjectMeta too (a glob import).
        assert_eq!(
            schema_for_path(&path("ObjectMeta"), EmbeddedObjectMeta::Full).unwrap(),
            full
        );

        // Inside Kubernetes types, at any depth, the field's own description kept.
        let deployment = schema_for_path(
            &path("k8s_openapi::api::apps::v1::DeploymentSpec"),
            EmbeddedObjectMeta::Full,
        )
        .unwrap();
        let template_meta = &deployment.properties.as_ref().unwrap()["template"]
            .properties
            .as_ref()
            .unwrap()["metadata"];
        assert_eq!(fields(template_meta), fields(&full));
        assert!(
            template_meta
                .description
                .as_deref()
                .unwrap()
                .starts_with("Standard object's metadata.")
        );
        let volume = schema_for_path(
            &path("k8s_openapi::api::core::v1::Volume"),
            EmbeddedObjectMeta::GenerateEmbedded,
        )
        .unwrap();
        let claim = &volume.properties.as_ref().unwrap()["ephemeral"]
            .properties
            .as_ref()
            .unwrap()["volumeClaimTemplate"];
        assert_eq!(
            fields(&claim.properties.as_ref().unwrap()["metadata"]).len(),
            5
        );
        // Every `metadata` a table type holds is given the shape: none is left bare.
        for (i, entry) in entries().iter().enumerate() {
            let mut schema = table_schema(i).clone();
            embed_object_meta(&mut schema, EmbeddedObjectMeta::Full);
            assert!(!has_bare_metadata(&schema), "{}", entry.key);
        }
    }

    fn has_bare_metadata(schema: &JSONSchemaProps) -> bool {
        schema.properties.iter().flatten().any(|(name, prop)| {
            (name == "metadata" && is_bare_object(prop)) || has_bare_metadata(prop)
        }) || matches!(&schema.items, Some(JSONSchemaPropsOrArray::Schema(s)) if has_bare_metadata(s))
            || matches!(&schema.additional_properties, Some(JSONSchemaPropsOrBool::Schema(s)) if has_bare_metadata(s))
    }

    #[test]
    fn bare_names_resolve_only_when_one_entry_has_them() {
        // Declared once (core/v1).
        assert!(is_known_path(&path("PodSpec")));
        // In several API versions: a bare name cannot say which.
        assert!(!is_known_path(&path("ResourceClaimSpec")));
        assert!(is_known_path(&path(
            "k8s_openapi::api::resource::v1::ResourceClaimSpec"
        )));
        assert!(!is_known_path(&path("NoSuchKubernetesType")));
    }

    #[test]
    fn special_types_have_the_schemas_controller_gen_gives_their_go_types() {
        let byte_string =
            schema_for_path(&path("k8s_openapi::ByteString"), EmbeddedObjectMeta::Full).unwrap();
        assert_eq!(byte_string.type_.as_deref(), Some("string"));
        assert_eq!(byte_string.pattern.as_deref(), Some(BASE64));
        let base64 = regex::Regex::new(BASE64).unwrap();
        for (text, canonical) in [
            ("", true),
            ("AA==", true),
            ("AAE=", true),
            ("AAEC", true),
            ("AB==", false),
            ("AAF=", false),
            ("AA", false),
            ("AA=", false),
            ("A===", false),
            ("AA==\n", false),
        ] {
            assert_eq!(base64.is_match(text), canonical, "{text:?}");
            // The oracle: the decoder k8s_openapi::ByteString reads with.
            let decodes =
                base64::Engine::decode(&base64::engine::general_purpose::STANDARD, text).is_ok();
            assert_eq!(decodes, canonical, "{text:?}");
        }
        assert_eq!(
            byte_string,
            schema_for_path(&path("ByteString"), EmbeddedObjectMeta::Object).unwrap()
        );
        for duration in [
            "kube::core::Duration",
            "kube_core::Duration",
            "kube::core::duration::Duration",
        ] {
            assert_eq!(
                schema_for_path(&path(duration), EmbeddedObjectMeta::Object)
                    .and_then(|s| s.pattern),
                Some(GO_DURATION.to_string()),
                "{duration}"
            );
        }
        let go_duration = regex::Regex::new(GO_DURATION).unwrap();
        for (text, reads) in [
            ("", true),
            ("0", true),
            ("1h30m", true),
            ("-1.5h", true),
            ("+300ms", true),
            (".5s", true),
            ("12µs", true),
            ("12μs", true),
            ("1d", false),
            ("5", false),
            ("1h-5m", false),
            ("1e3s", false),
            ("9999999999h", false),
        ] {
            assert_eq!(go_duration.is_match(text), reads, "{text:?}");
        }
        // A bare `Duration` may well be std's.
        assert!(!is_known_path(&path("Duration")));
        let time = schema_for_path(
            &path("k8s_openapi::apimachinery::pkg::apis::meta::v1::Time"),
            EmbeddedObjectMeta::Object,
        );
        assert_eq!(time.unwrap().format.as_deref(), Some("date-time"));
    }

    /// The hand-written schemas are what controller-gen gives (the table has them too).
    #[test]
    fn hand_written_schemas_agree_with_the_table() {
        for name in KNOWN {
            let Some(index) = table_names().position(|k| {
                k.starts_with("k8s_openapi::apimachinery::") && type_name(k) == *name
            }) else {
                continue;
            };
            let mut ours = kubernetes_schema(name).unwrap();
            if *name == "IntOrString" {
                // Bounded to the i32 it holds, on purpose (see kubernetes_schema).
                assert_eq!(ours.maximum, Some(2147483647.0));
                (ours.minimum, ours.maximum) = (None, None);
            }
            assert_eq!(Some(&ours), Some(table_schema(index)), "{name}");
        }
    }

    #[test]
    fn unknown_kubernetes_types_get_a_few_suggestions() {
        let near = suggestions(&path("k8s_openapi::api::apps::v1::DeploymentSpc"));
        assert_eq!(
            near.first().map(String::as_str),
            Some("k8s_openapi::api::apps::v1::DeploymentSpec")
        );
        assert!(near.len() <= 5);
        let moved = suggestions(&path("k8s_openapi::api::core::v1::DeploymentSpec"));
        assert_eq!(moved, ["k8s_openapi::api::apps::v1::DeploymentSpec"]);
    }

    /// Expanding the references gives back controller-gen's schema of every type, the types
    /// of the parity case `embedded` among them, through operator-gen's schema type: nothing
    /// controller-gen writes is lost or changed.
    #[test]
    fn expansion_reproduces_controller_gen() {
        let sums = include_str!("known_types.sums");
        let mut checked = 0;
        for line in sums.lines().filter(|l| !l.starts_with('#')) {
            let (key, sum) = line.split_once(' ').unwrap();
            let schema = schema_for_path(&path(key), EmbeddedObjectMeta::Object)
                .unwrap_or_else(|| panic!("{key}"));
            let schema = if kubernetes_schema(type_name(key)).is_some() {
                // Hand-written (checked against the table above): the table's own.
                table_schema(entry_index(key).unwrap()).clone()
            } else {
                schema
            };
            let written = serde_json::to_value(&schema).unwrap();
            assert_eq!(
                format!("{:016x}", fingerprint(&written)),
                sum,
                "{key}: the expanded schema is not controller-gen's"
            );
            checked += 1;
        }
        assert_eq!(checked, table_names().count());
        for key in [
            "k8s_openapi::api::core::v1::PodTemplateSpec",
            "k8s_openapi::api::batch::v1::JobTemplateSpec",
            "k8s_openapi::api::apps::v1::DeploymentSpec",
            "k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector",
        ] {
            assert!(
                sums.lines().any(|l| l.starts_with(&format!("{key} "))),
                "{key}"
            );
        }
    }

    /// Types of k8s-openapi with no table entry, and why.
    const NOT_IN_THE_TABLE: &[(&str, &str)] = &[
        (
            "k8s_openapi::apimachinery::pkg::apis::meta::v1::WatchEvent",
            "generic over its object (Rust only); the Go type holds a RawExtension",
        ),
        (
            "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps",
            "controller-gen: `+listType` on a field of a named list type (x-kubernetes-validations)",
        ),
        (
            "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrArray",
            "controller-gen: struct fields without JSON tags (custom marshalling)",
        ),
        (
            "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrBool",
            "controller-gen: struct fields without JSON tags (custom marshalling)",
        ),
        (
            "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrStringArray",
            "controller-gen: struct fields without JSON tags (custom marshalling)",
        ),
        (
            "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceValidation",
            "holds JSONSchemaProps",
        ),
        (
            "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionVersion",
            "holds CustomResourceValidation",
        ),
        (
            "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionSpec",
            "holds CustomResourceDefinitionVersion",
        ),
        (
            "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition",
            "holds CustomResourceDefinitionSpec",
        ),
        (
            "k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIServiceSpec",
            "controller-gen: `+listType=atomic` on caBundle, a []byte",
        ),
        (
            "k8s_openapi::kube_aggregator::pkg::apis::apiregistration::v1::APIService",
            "holds APIServiceSpec",
        ),
    ];

    /// The sources of the k8s-openapi release `Cargo.lock` pins, in cargo's registry, at
    /// the Kubernetes version the workspace selects.
    fn k8s_openapi_sources() -> PathBuf {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let lock: toml::Table = std::fs::read_to_string(workspace.join("Cargo.lock"))
            .unwrap()
            .parse()
            .unwrap();
        let version = lock["package"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"].as_str() == Some("k8s-openapi"))
            .and_then(|p| p["version"].as_str())
            .expect("Cargo.lock pins k8s-openapi")
            .to_string();
        let manifest: toml::Table = std::fs::read_to_string(workspace.join("Cargo.toml"))
            .unwrap()
            .parse()
            .unwrap();
        let feature = manifest["workspace"]["dependencies"]["k8s-openapi"]["features"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f.as_str())
            .find(|f| f.starts_with("v1_"))
            .expect("the workspace selects a Kubernetes version of k8s-openapi")
            .to_string();
        let cargo_home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cargo"));
        std::fs::read_dir(cargo_home.join("registry/src"))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok())
            .map(|e| e.path().join(format!("k8s-openapi-{version}/src/{feature}")))
            .find(|p| p.is_dir())
            .unwrap_or_else(|| {
                panic!(
                    "k8s-openapi {version} is not in cargo's registry (run `cargo fetch` in the workspace)"
                )
            })
    }

    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                rust_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }

    /// Every type k8s-openapi declares in its `api`, `apimachinery`, `apiextensions_apiserver`
    /// and `kube_aggregator` modules has a schema by its full path, except the few listed in
    /// [`NOT_IN_THE_TABLE`].
    #[test]
    fn every_k8s_openapi_type_resolves() {
        let root = k8s_openapi_sources();
        let mut files = Vec::new();
        for module in [
            "api",
            "apimachinery",
            "apiextensions_apiserver",
            "kube_aggregator",
        ] {
            rust_files(&root.join(module), &mut files);
        }
        let (mut resolved, mut missing, mut excepted) = (0, Vec::new(), 0);
        for file in &files {
            let text = std::fs::read_to_string(file).unwrap();
            for line in text.lines() {
                let Some(rest) = line
                    .strip_prefix("pub struct ")
                    .or_else(|| line.strip_prefix("pub enum "))
                else {
                    continue;
                };
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let module = file.parent().unwrap().strip_prefix(&root).unwrap();
                let key = std::iter::once("k8s_openapi".to_string())
                    .chain(module.iter().map(|c| c.to_string_lossy().into_owned()))
                    .chain([name])
                    .collect::<Vec<_>>();
                let joined = key.join("::");
                if NOT_IN_THE_TABLE.iter().any(|(k, _)| *k == joined) {
                    assert!(
                        schema_for_path(&key, EmbeddedObjectMeta::Object).is_none(),
                        "{joined} is listed as missing"
                    );
                    excepted += 1;
                } else if schema_for_path(&key, EmbeddedObjectMeta::Object).is_some()
                    && is_known_path(&key)
                {
                    resolved += 1;
                } else {
                    missing.push(joined);
                }
            }
        }
        assert!(missing.is_empty(), "no schema for {missing:#?}");
        assert_eq!(excepted, NOT_IN_THE_TABLE.len());
        assert!(
            resolved > 600,
            "only {resolved} types in {}",
            root.display()
        );
    }
}
