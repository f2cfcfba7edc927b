//! Fixed cases beside the random ones: serde shapes of data-carrying enums and flattened
//! fields that real operators write, each with probes chosen by hand (the forms serde reads,
//! and the mixes it refuses: another variant's fields under `deny_unknown_fields`, content
//! for a unit variant, a flattened enum with no variant or two). The contract is the random
//! cases' one, and one more: what serde writes back, the API server stores as written (a
//! field it pruned would be lost on the operator's next write).

use serde_json::{Value, json};

use super::vocabulary::{Case, Fixed};

/// `DERIVE` stands for the derives: with `Schema` for operator-gen, without for rustc.
const SHAPES: &[(&str, &str)] = &[
    (
        "TaggedDeny",
        r#"
DERIVE
pub struct TaggedDenySpec { pub backend: TaggedDenyBackend }
DERIVE
#[serde(tag = "type", deny_unknown_fields)]
pub enum TaggedDenyBackend { S3 { bucket: String }, Gcs { project: String, region: Option<String> } }
"#,
    ),
    (
        "PayloadDeny",
        r#"
DERIVE
pub struct PayloadDenySpec { pub store: PayloadDenyStore }
DERIVE
#[serde(tag = "type", rename_all = "lowercase")]
pub enum PayloadDenyStore { Local(PayloadDenyLocal), Remote(PayloadDenyRemote) }
DERIVE
#[serde(deny_unknown_fields)]
pub struct PayloadDenyLocal { pub path: String }
DERIVE
pub struct PayloadDenyRemote { pub bucket: String }
"#,
    ),
    (
        "Adjacent",
        r#"
DERIVE
pub struct AdjacentSpec { pub action: AdjacentAction }
DERIVE
#[serde(tag = "kind", content = "params")]
pub enum AdjacentAction { Restart, Scale(AdjacentScale), Run { command: Vec<String> } }
DERIVE
#[serde(deny_unknown_fields)]
pub struct AdjacentScale { pub replicas: i32 }
"#,
    ),
    (
        "UntaggedDeny",
        r#"
DERIVE
pub struct UntaggedDenySpec { pub auth: UntaggedDenyAuth }
DERIVE
#[serde(untagged, deny_unknown_fields)]
pub enum UntaggedDenyAuth { Token { token: String }, Basic { username: String, password: String } }
"#,
    ),
    (
        "FlatExternal",
        r#"
DERIVE
pub struct FlatExternalSpec {
    pub name: String,
    #[serde(flatten)]
    pub source: FlatExternalSource,
}
DERIVE
#[serde(rename_all = "camelCase")]
pub enum FlatExternalSource { Git { url: String }, Helm { chart: String } }
"#,
    ),
    (
        "FlatInternal",
        r#"
DERIVE
pub struct FlatInternalSpec {
    pub name: String,
    #[serde(flatten)]
    pub source: FlatInternalSource,
}
DERIVE
#[serde(tag = "sourceType", rename_all = "camelCase")]
pub enum FlatInternalSource { Git { url: String }, Helm { chart: String } }
"#,
    ),
    (
        "OptVariant",
        r#"
DERIVE
pub struct OptVariantSpec { pub choices: Vec<OptVariantChoice> }
DERIVE
pub enum OptVariantChoice { A(Option<String>), B { x: Option<i32> } }
"#,
    ),
    (
        "CfgAttr",
        r#"
DERIVE
#[cfg_attr(all(), serde(rename_all = "camelCase"))]
pub struct CfgAttrSpec {
    pub some_field: String,
    #[cfg_attr(all(), serde(default, skip_serializing_if = "Option::is_none"))]
    pub other_field: Option<String>,
}
"#,
    ),
    (
        "StructTag",
        r#"
DERIVE
pub struct StructTagSpec { pub inner: StructTagInner }
DERIVE
#[serde(tag = "kind")]
pub struct StructTagInner { pub a: String }
"#,
    ),
    (
        "NestedExtra",
        r#"
DERIVE
pub struct NestedExtraSpec {
    pub name: String,
    #[serde(flatten)]
    pub meta: NestedExtraMeta,
}
DERIVE
pub struct NestedExtraMeta {
    pub version: String,
    #[serde(flatten)]
    pub extra: serde_json::Map<String, serde_json::Value>,
}
"#,
    ),
];

/// The probes of each shape: what serde reads, and what it refuses.
fn probes(kind: &str) -> Vec<Value> {
    match kind {
        "TaggedDeny" => vec![
            json!({"backend": {"type": "S3", "bucket": "b"}}),
            json!({"backend": {"type": "S3", "bucket": "b", "project": "p"}}),
            json!({"backend": {"type": "S3", "bucket": "b", "region": "r"}}),
            json!({"backend": {"type": "Gcs", "project": "p"}}),
            json!({"backend": {"type": "Gcs", "project": "p", "region": "r"}}),
            json!({"backend": {"type": "Gcs", "project": "p", "bucket": "b"}}),
            json!({"backend": {"type": "Gcs"}}),
        ],
        "PayloadDeny" => vec![
            json!({"store": {"type": "local", "path": "p"}}),
            json!({"store": {"type": "local", "path": "p", "bucket": "b"}}),
            json!({"store": {"type": "remote", "bucket": "b"}}),
            json!({"store": {"type": "remote", "bucket": "b", "path": "p"}}),
        ],
        "Adjacent" => vec![
            json!({"action": {"kind": "Restart"}}),
            json!({"action": {"kind": "Restart", "params": {}}}),
            json!({"action": {"kind": "Restart", "params": {"replicas": 1}}}),
            json!({"action": {"kind": "Scale", "params": {"replicas": 1}}}),
            json!({"action": {"kind": "Scale", "params": {"replicas": 1, "command": ["x"]}}}),
            json!({"action": {"kind": "Scale"}}),
            json!({"action": {"kind": "Run", "params": {"command": ["x"]}}}),
            json!({"action": {"kind": "Run", "params": {"command": ["x"], "replicas": 1}}}),
        ],
        "UntaggedDeny" => vec![
            json!({"auth": {"token": "t"}}),
            json!({"auth": {"token": "t", "username": "u"}}),
            json!({"auth": {"username": "u", "password": "p"}}),
            json!({"auth": {"token": "t", "username": "u", "password": "p"}}),
            json!({"auth": {}}),
        ],
        "FlatExternal" => vec![
            json!({"name": "n", "git": {"url": "u"}}),
            json!({"name": "n", "helm": {"chart": "c"}}),
            json!({"name": "n"}),
            json!({"name": "n", "git": {"url": "u"}, "helm": {"chart": "c"}}),
        ],
        "FlatInternal" => vec![
            json!({"name": "n", "sourceType": "git", "url": "u"}),
            json!({"name": "n", "sourceType": "helm", "chart": "c"}),
            json!({"name": "n", "sourceType": "git"}),
            json!({"name": "n", "sourceType": "helm", "url": "u"}),
            json!({"name": "n"}),
        ],
        "OptVariant" => vec![
            json!({"choices": [{"A": "s"}]}),
            json!({"choices": [{"A": null}]}),
            json!({"choices": [{"B": {}}, {"B": {"x": 1}}]}),
            json!({"choices": [{}]}),
        ],
        "CfgAttr" => vec![
            json!({"someField": "a"}),
            json!({"someField": "a", "otherField": "b"}),
            json!({"some_field": "a"}),
        ],
        "StructTag" => vec![
            json!({"inner": {"a": "x"}}),
            json!({"inner": {"kind": "StructTagInner", "a": "x"}}),
            json!({"inner": {"kind": "Other", "a": "x"}}),
        ],
        "NestedExtra" => vec![
            json!({"name": "n", "version": "v"}),
            json!({"name": "n", "version": "v", "foo": 1, "bar": {"b": [true]}}),
        ],
        _ => unreachable!("a shape without probes: {kind}"),
    }
}

/// The fixed cases, as cases of the contract.
pub fn cases() -> Vec<Case> {
    SHAPES
        .iter()
        .map(|(kind, types)| Case {
            seed: 0,
            kind: (*kind).to_string(),
            group: format!("{}.shapes.wire.example.com", kind.to_ascii_lowercase()),
            structs: Vec::new(),
            fixed: Some(Fixed {
                types,
                probes: probes(kind),
            }),
        })
        .collect()
}
