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
    (
        "Times",
        r#"
DERIVE
pub struct TimesSpec {
    pub at: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time,
    pub ts: k8s_openapi::jiff::Timestamp,
}
"#,
    ),
    (
        "Net",
        r#"
DERIVE
pub struct NetSpec {
    pub v4: std::net::Ipv4Addr,
    pub v6: std::net::Ipv6Addr,
    pub ip: Option<std::net::IpAddr>,
    pub listen: Option<std::net::SocketAddr>,
    pub peer: Option<core::net::SocketAddrV6>,
    pub bind: Option<std::net::SocketAddrV4>,
    MAX8
    pub routes: BTreeMap<std::net::IpAddr, String>,
    pub id: Option<uuid::Uuid>,
    pub net4: Option<ipnet::Ipv4Net>,
    pub nets: Option<Vec<ipnet::IpNet>>,
}
"#,
    ),
    (
        "Human",
        r#"
DERIVE
pub struct HumanSpec {
    #[serde(with = "humantime_serde")]
    pub every: std::time::Duration,
    #[serde(default, with = "humantime_serde")]
    pub timeout: Option<std::time::Duration>,
    #[serde(with = "humantime_serde")]
    pub grace: Option<std::time::Duration>,
}
"#,
    ),
    (
        "Naive",
        r#"
DERIVE
pub struct NaiveSpec {
    pub day: chrono::NaiveDate,
    pub at: Option<chrono::NaiveDateTime>,
    pub time: Option<chrono::NaiveTime>,
    pub when: Option<chrono::DateTime<chrono::Utc>>,
}
"#,
    ),
    (
        "EmbeddedMeta",
        r#"
DERIVE
pub struct EmbeddedMetaSpec {
    pub account: EmbeddedMetaAccount,
    pub pod: Option<k8s_openapi::api::core::v1::PodTemplateSpec>,
    pub claims: Option<Vec<k8s_openapi::api::core::v1::PersistentVolumeClaimTemplate>>,
    pub scratch: Option<k8s_openapi::api::core::v1::Volume>,
}
DERIVE
pub struct EmbeddedMetaAccount {
    pub metadata: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta>,
}
"#,
    ),
    (
        "Semver",
        r#"
DERIVE
pub struct SemverSpec { pub version: semver::Version, pub from: Option<Vec<semver::Version>> }
"#,
    ),
    (
        "SemverReq",
        r#"
DERIVE
pub struct SemverReqSpec { pub req: semver::VersionReq, pub also: Option<Vec<semver::VersionReq>> }
"#,
    ),
    (
        "OffsetTime",
        r#"
DERIVE
pub struct OffsetTimeSpec {
    #[serde(with = "time::serde::rfc3339")]
    pub at: time::OffsetDateTime,
    #[serde(default, with = "time::serde::rfc3339::option")]
    pub until: Option<time::OffsetDateTime>,
}
"#,
    ),
    (
        "Cidrs",
        r#"
DERIVE
pub struct CidrsSpec {
    pub cidr: CidrsCidr,
    pub except: Option<Vec<CidrsCidr>>,
}
DERIVE
#[serde(untagged)]
pub enum CidrsCidr { Addr(std::net::IpAddr), Net(ipnet::IpNet) }
"#,
    ),
    (
        "HandWritten",
        r#"
DERIVE
pub struct HandWrittenSpec { pub every: HandWrittenLapse, pub grace: Option<HandWrittenLapse> }
MARKED #[derive(Schema)]
MARKED #[validation(type = "string", pattern = "^[0-9]{1,9}s$")]
pub struct HandWrittenLapse { seconds: u64 }
impl serde::Serialize for HandWrittenLapse {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}s", self.seconds))
    }
}
impl<'de> serde::Deserialize<'de> for HandWrittenLapse {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <String as serde::Deserialize>::deserialize(d)?;
        let seconds = text.strip_suffix('s').and_then(|n| n.parse().ok());
        seconds.map(|seconds| HandWrittenLapse { seconds }).ok_or_else(|| serde::de::Error::custom("not a number of seconds"))
    }
}
"#,
    ),
    (
        "NullDefault",
        r#"
DERIVE
pub struct NullDefaultSpec {
    #[serde(default = "null_default_label")]
MARKED #[schema(default = "legal")]
    pub label: Option<String>,
    #[serde(default = "null_default_color")]
MARKED #[schema(default = "Red")]
    pub color: Option<NullDefaultColor>,
    #[serde(default)]
    pub palette: Vec<Option<NullDefaultColor>>,
    pub inner: NullDefaultInner,
}
fn null_default_label() -> Option<String> { Some("legal".into()) }
fn null_default_color() -> Option<NullDefaultColor> { Some(NullDefaultColor::Red) }
DERIVE
pub enum NullDefaultColor { Red, Green }
DERIVE
#[serde(default)]
pub struct NullDefaultInner { pub size: Option<u32>, pub name: String }
impl Default for NullDefaultInner { fn default() -> Self { Self { size: Some(3), name: "n".into() } } }
"#,
    ),
    (
        "Skipped",
        r#"
DERIVE
pub struct SkippedSpec { pub block: Vec<SkippedFeature> }
DERIVE
#[serde(rename_all = "kebab-case")]
pub enum SkippedFeature { Steal, StealWithoutFilter, #[serde(other, skip_serializing)] Unknown }
"#,
    ),
    (
        "FlatMap",
        r#"
DERIVE
pub struct FlatMapSpec { pub selector: FlatMapSelector }
DERIVE
pub struct FlatMapSelector { #[serde(flatten)] pub labels: BTreeMap<String, String> }
"#,
    ),
    (
        "Generic",
        r#"
DERIVE
pub struct GenericSpec { pub servers: GenericRole<GenericConfig>, pub maybe: GenericGroup<Option<String>> }
DERIVE
pub struct GenericRole<C> { pub config: C, pub groups: BTreeMap<String, GenericGroup<C>> }
DERIVE
pub struct GenericGroup<T> { pub replicas: Option<u16>, pub config: T }
DERIVE
pub struct GenericConfig { pub tick: u32 }
"#,
    ),
    (
        "Keys",
        r#"
DERIVE
pub struct KeysSpec {
    MAX8
    pub small: BTreeMap<i8, String>,
    MAX8
    pub port: BTreeMap<u16, String>,
    MAX8
    pub wide: BTreeMap<u64, String>,
    MAX8
    pub signed: BTreeMap<i64, String>,
    MAX8
    pub nonzero: BTreeMap<std::num::NonZeroU32, String>,
    MAX8
    pub flags: BTreeMap<bool, String>,
}
"#,
    ),
    (
        "AnyJson",
        r#"
DERIVE
pub struct AnyJsonSpec {
    pub values: serde_json::Value,
    pub maybe: Option<serde_json::Value>,
    pub list: Vec<serde_json::Value>,
}
"#,
    ),
    (
        "FlatOptional",
        r#"
DERIVE
pub struct FlatOptionalSpec {
    pub name: String,
    #[serde(flatten)]
    pub pair: Option<FlatOptionalPair>,
}
DERIVE
pub struct FlatOptionalPair { pub x: String, pub y: String, pub z: Option<String> }
"#,
    ),
    (
        "FlatInVariant",
        r#"
DERIVE
pub struct FlatInVariantSpec { pub o: FlatInVariantOuter, pub u: FlatInVariantLoose, pub a: FlatInVariantAdj }
DERIVE
#[serde(tag = "type")]
pub enum FlatInVariantOuter {
    A { name: String, #[serde(flatten)] src: FlatInVariantSource },
    B { other: String },
}
DERIVE
#[serde(untagged)]
pub enum FlatInVariantLoose {
    A { name: String, #[serde(flatten)] store: FlatInVariantStore },
    B { other: String },
}
DERIVE
#[serde(tag = "kind", content = "with")]
pub enum FlatInVariantAdj {
    A { name: String, #[serde(flatten)] src: FlatInVariantSource },
    B { other: String },
}
DERIVE
#[serde(rename_all = "camelCase")]
pub enum FlatInVariantSource { Git { url: String }, Helm { chart: String } }
DERIVE
#[serde(tag = "storeType")]
pub enum FlatInVariantStore { Disk { path: String }, Memory { size: i32 } }
"#,
    ),
    (
        "OptFlatTagged",
        r#"
DERIVE
pub struct OptFlatTaggedSpec {
    pub name: String,
    #[serde(flatten)]
    pub source: Option<OptFlatTaggedSource>,
}
DERIVE
#[serde(tag = "sourceType", rename_all = "camelCase")]
pub enum OptFlatTaggedSource { Git { url: String }, Helm { chart: String } }
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
        "Times" => {
            let at = |t: &str| json!({"at": t, "ts": "2024-01-01T00:00:00Z"});
            let ts = |t: &str| json!({"at": "2024-01-01T00:00:00Z", "ts": t});
            let mut out = Vec::new();
            for t in [
                "2024-01-01T00:00:00Z",
                "2024-01-01T00:00:00+02:00",
                "2024-01-01T00:00:00.123456789Z",
                "2024-01-01T00:00:00",
                "2024-01-01 00:00:00Z",
                "2024-01-01t00:00:00z",
                "2024-01-01",
                "2024-01-01T00:00Z",
                "2024-01-01T00:00:00+0200",
            ] {
                out.push(at(t));
                out.push(ts(t));
            }
            // What the API server's date-time admits and jiff does not read (k8s-openapi's
            // `Time` holds a jiff Timestamp too, but keeps controller-gen's schema).
            for t in [
                "2024-01-01T00:00:00.1234567891Z",
                "2024-01-01T00:00:00,5Z",
                "2024-01-01T00:00:00+24:00",
                "2024-01-01T00:00:00.999999999-23:59",
            ] {
                out.push(ts(t));
            }
            out
        }
        "Net" => {
            let base = json!({"v4": "192.0.2.1", "v6": "2001:db8::1", "routes": {}});
            let with = |field: &str, value: &str| {
                let mut spec = base.clone();
                spec[field] = json!(value);
                spec
            };
            let mut out = vec![base.clone()];
            for v4 in [
                "0.0.0.0",
                "255.255.255.255",
                "01.2.3.4",
                "1.2.3",
                "256.0.0.1",
                "::1",
            ] {
                out.push(with("v4", v4));
            }
            for v6 in [
                "::",
                "::ffff:192.0.2.1",
                "2001:DB8:0:0:0:0:0:1",
                "1:2:3:4:5:6:7::",
                "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255",
                "1:2:3:4:5:6:7:8::",
                "1:2:3:4:5:6::1.2.3.4",
                "fe80::1%1",
                "00001::",
                "192.0.2.1",
            ] {
                out.push(with("v6", v6));
            }
            for ip in [
                "10.0.0.1",
                "fd00::1",
                "::ffff:10.0.0.1",
                "10.0.0.01",
                "host",
            ] {
                out.push(with("ip", ip));
            }
            for listen in [
                "0.0.0.0:8080",
                "[::]:443",
                "[fe80::1%4294967295]:1",
                "[::1]:65536",
                "[::1]",
                "localhost:80",
            ] {
                out.push(with("listen", listen));
            }
            for peer in [
                "[2001:db8::1%2]:0",
                "[::1]:08",
                "1.2.3.4:5",
                "[::1%4294967296]:5",
            ] {
                out.push(with("peer", peer));
            }
            for bind in ["192.0.2.1:65535", "192.0.2.1:0080", "[::1]:80"] {
                out.push(with("bind", bind));
            }
            for id in [
                "67e55044-10b1-426f-9247-bb680e5fe0c8",
                "67E55044-10B1-426F-9247-BB680E5FE0C8",
                "00000000-0000-0000-0000-000000000000",
                "67e5504410b1426f9247bb680e5fe0c8",
                "{67e55044-10b1-426f-9247-bb680e5fe0c8}",
                "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
                "67e55044-10b1-426f-9247-bb680e5fe0c",
                "67e55044-10b1-426f-9247-bb680e5fe0cg",
            ] {
                out.push(with("id", id));
            }
            for net4 in [
                "10.0.0.0/8",
                "10.0.0.1/32",
                "10.0.0.0/33",
                "010.0.0.0/8",
                "10.0.0.0/08",
                "10.0.0.0",
            ] {
                out.push(with("net4", net4));
            }
            for net in [
                "::/0",
                "fd00::/8",
                "::ffff:10.0.0.0/104",
                "0.0.0.0/0",
                "fd00::/129",
                "fd00::/0128",
            ] {
                let mut spec = base.clone();
                spec["nets"] = json!([net]);
                out.push(spec);
            }
            for key in ["10.0.0.1", "2001:db8::1", "10.0.0.256", "fe80::1%1"] {
                let mut spec = base.clone();
                spec["routes"][key] = json!("r");
                out.push(spec);
            }
            out
        }
        "Human" => {
            let base = json!({"every": "30s", "grace": null});
            let mut out = vec![base.clone(), json!({"every": "30s"})];
            for every in [
                "0s",
                "90s",
                "1h30m",
                "1h 30m",
                "2days 4h",
                "1M",
                "500ms",
                "1.5h",
                "1 h",
                "5",
                "",
                "1000000000s",
                "1mo",
                "-1s",
            ] {
                let mut spec = base.clone();
                spec["every"] = json!(every);
                out.push(spec);
            }
            for (field, value) in [
                ("timeout", json!(null)),
                ("timeout", json!("5m")),
                ("timeout", json!(5)),
                ("grace", json!("1h")),
                ("grace", json!("soon")),
            ] {
                let mut spec = base.clone();
                spec[field] = value;
                out.push(spec);
            }
            out
        }
        "Naive" => {
            let base = json!({"day": "2024-02-29"});
            let mut out = vec![base.clone()];
            for day in [
                "2023-02-28",
                "2023-02-29",
                "2000-02-29",
                "1900-02-29",
                "2024-04-31",
                "2024-13-01",
                "0000-01-01",
                "9999-12-31",
                "2024-1-05",
                "+2024-01-05",
                "12024-01-05",
                "2024-01-05 ",
                "2024/01/05",
            ] {
                out.push(json!({"day": day}));
            }
            for (field, value) in [
                ("at", "2024-02-29T13:05:00"),
                ("at", "2024-02-29T13:05:00.5"),
                ("at", "2024-02-29T13:05:00.123456789"),
                ("at", "2024-02-29T13:05:00.1234567891"),
                ("at", "2023-02-29T13:05:00"),
                ("at", "2024-02-29T24:00:00"),
                ("at", "2024-02-29T13:05:60"),
                ("at", "2024-02-29T13:05"),
                ("at", "2024-02-29 13:05:00"),
                ("at", "2024-02-29t13:05:00"),
                ("at", "2024-02-29T13:05:00Z"),
                ("at", "2024-02-29T13:05:00+01:00"),
                ("time", "00:00:00"),
                ("time", "23:59:59.999999999"),
                ("time", "23:59:60"),
                ("time", "24:00:00"),
                ("time", "7:05:00"),
                ("time", "13:05"),
                ("time", "13:05:00Z"),
                ("when", "2024-02-29T13:05:00Z"),
                ("when", "2024-02-29T13:05:00.5+01:00"),
                ("when", "2024-02-29T13:05:00"),
            ] {
                let mut spec = base.clone();
                spec[field] = json!(value);
                out.push(spec);
            }
            out
        }
        "EmbeddedMeta" => {
            // Every field of ObjectMeta that k8s-openapi writes, and the parts of it that
            // templates carry.
            let full = json!({
                "name": "n",
                "generateName": "n-",
                "namespace": "ns",
                "labels": {"app": "web", "example.com/tier": "front"},
                "annotations": {"eks.amazonaws.com/role-arn": "arn:aws:iam::1:role/r"},
                "finalizers": ["example.com/cleanup"],
                "ownerReferences": [{
                    "apiVersion": "v1", "kind": "ConfigMap", "name": "owner",
                    "uid": "d9607e19-f88f-11e6-a518-42010a800195", "controller": true
                }],
                "uid": "u", "resourceVersion": "7", "generation": 3, "selfLink": "/x",
                "creationTimestamp": "2024-02-29T13:05:00Z",
                "deletionTimestamp": "2024-03-01T00:00:00Z",
                "deletionGracePeriodSeconds": 30,
                "managedFields": [{"manager": "m", "operation": "Apply", "fieldsType": "FieldsV1",
                                   "fieldsV1": {"f:metadata": {}}}]
            });
            let labels = json!({"labels": {"app": "web"}, "annotations": {"a": "b"}});
            vec![
                json!({"account": {}}),
                json!({"account": {"metadata": full}}),
                json!({"account": {"metadata": labels}, "pod": {"metadata": labels}}),
                json!({"account": {}, "pod": {"metadata": full}}),
                json!({"account": {}, "claims": [{"metadata": labels, "spec": {}}]}),
                json!({"account": {}, "scratch": {"name": "s", "ephemeral": {
                    "volumeClaimTemplate": {"metadata": labels, "spec": {}}}}}),
                json!({"account": {"metadata": {"labels": {"app": 1}}}}),
                json!({"account": {"metadata": {"finalizers": "one"}}}),
            ]
        }
        "Semver" => {
            let mut out = vec![json!({"version": "1.2.3", "from": null})];
            for version in [
                "0.0.0",
                "1.2.3-rc.1+build.5",
                "1.2.3-0a.x-y.0",
                "1.2.3+001.b",
                "9999999999999999999.0.0",
                "18446744073709551615.0.0",
                "18446744073709551616.0.0",
                "01.2.3",
                "1.2.3-01",
                "1.2.3-",
                "1.2.3+",
                "1.2.3-a..b",
                "v1.2.3",
                "1.2",
                " 1.2.3",
            ] {
                out.push(json!({"version": version}));
                out.push(json!({"version": "1.0.0", "from": [version]}));
            }
            out
        }
        "SemverReq" => {
            let mut out = vec![json!({"req": "*", "also": null})];
            let many = |n: usize| vec![">=1.2.3"; n].join(", ");
            for req in [
                ">=1.2.3, <2",
                "^1.2",
                "~1",
                " x ",
                "1.*",
                "1.2.X",
                "=1.2.3-rc.1",
                "1.2.3+build.5",
                " >= 1.2.3 , <2 ",
                "18446744073709551615.0.0",
                &many(32),
                &many(33),
                "",
                "*, 1",
                ">=*",
                "1.*.3",
                "1.2-rc",
                "01",
                "18446744073709551616",
                ">= 1.2.3,",
                "\t1",
                "v1",
            ] {
                out.push(json!({"req": req}));
                out.push(json!({"req": "*", "also": [req]}));
            }
            out
        }
        "OffsetTime" => {
            let base = json!({"at": "2024-02-29T13:05:00Z"});
            let mut out = vec![base.clone()];
            for at in [
                "2024-02-29T13:05:00.123456789+05:30",
                "2024-02-29T13:05:00.5-00:00",
                "0000-01-01T00:00:00-23:59",
                "9999-12-31T23:59:59.999999999+23:59",
                "2023-02-29T13:05:00Z",
                "2024-02-29T24:00:00Z",
                "2024-02-29T13:05:60Z",
                "2016-12-31T23:59:60Z",
                "2024-02-29t13:05:00Z",
                "2024-02-29T13:05:00z",
                "2024-02-29 13:05:00Z",
                "2024-02-29T13:05:00.1234567891Z",
                "2024-02-29T13:05:00,5Z",
                "2024-02-29T13:05:00+24:00",
                "2024-02-29T13:05:00+0100",
                "2024-02-29T13:05:00",
                "+2024-02-29T13:05:00Z",
                "12024-02-29T13:05:00Z",
            ] {
                out.push(json!({"at": at}));
            }
            for until in [
                json!(null),
                json!("2024-03-01T00:00:00+01:00"),
                json!("2024-03-01"),
                json!([2024, 61, 0, 0, 0, 0, 0, 0, 0]),
            ] {
                let mut spec = base.clone();
                spec["until"] = until;
                out.push(spec);
            }
            out
        }
        "Cidrs" => {
            let mut out = Vec::new();
            for cidr in [
                "10.0.0.1",
                "10.0.0.0/8",
                "fd00::1",
                "fd00::/8",
                "::ffff:10.0.0.0/104",
                "10.0.0.0/33",
                "010.0.0.0/8",
                "10.0.0.01",
                "host",
                "",
            ] {
                out.push(json!({"cidr": cidr}));
                out.push(json!({"cidr": "0.0.0.0/0", "except": [cidr]}));
            }
            out
        }
        "Generic" => {
            let servers = json!({"config": {"tick": 1}, "groups": {"a": {"replicas": 2, "config": {"tick": 2}}}});
            vec![
                json!({"servers": servers, "maybe": {}}),
                json!({"servers": servers, "maybe": {"config": "x", "replicas": 1}}),
                json!({"servers": servers, "maybe": {"config": null}}),
                json!({"servers": servers, "maybe": {"config": 5}}),
                json!({"servers": {"config": {}, "groups": {}}, "maybe": {}}),
                json!({"servers": {"config": {"tick": 1}, "groups": {"a": {"config": "x"}}}, "maybe": {}}),
                json!({"servers": {"config": {"tick": 1}, "groups": {"a": {}}}, "maybe": {}}),
            ]
        }
        "HandWritten" => vec![
            json!({"every": "10s"}),
            json!({"every": "10s", "grace": "0s"}),
            json!({"every": "007s"}),
            json!({"every": "10m"}),
            json!({"every": {"seconds": 10}}),
            json!({"every": 10}),
            json!({"every": "+5s"}),
        ],
        "NullDefault" => vec![
            json!({"label": null, "inner": {"size": null}}),
            json!({"inner": {}}),
            json!({"label": "x", "inner": {"size": 5, "name": "m"}}),
            json!({"color": null, "palette": [null, "Green"], "inner": {}}),
            json!({"color": "Green", "inner": {}}),
            json!({"color": "Blue", "inner": {}}),
            json!({"palette": ["Blue"], "inner": {}}),
        ],
        "Skipped" => vec![
            json!({"block": ["steal", "steal-without-filter"]}),
            json!({"block": ["unknown"]}),
            json!({"block": ["from-a-newer-version"]}),
        ],
        "FlatMap" => vec![
            json!({"selector": {}}),
            json!({"selector": {"zone": "a", "disk": "ssd"}}),
            json!({"selector": {"zone": 1}}),
        ],
        "Keys" => {
            let base = json!({
                "small": {"-128": "a", "127": "b"},
                "port": {"0": "a", "65535": "b"},
                "wide": {"18446744073709551615": "a"},
                "signed": {"-9223372036854775808": "a", "9223372036854775807": "b"},
                "nonzero": {"1": "a", "4294967295": "b"},
                "flags": {"true": "a", "false": "b"},
            });
            let mut out = vec![base.clone()];
            for (field, key) in [
                ("small", "128"),
                ("small", "-129"),
                ("small", "+1"),
                ("small", "01"),
                ("small", "-0"),
                ("small", "1.0"),
                ("port", "65536"),
                ("port", "-1"),
                ("port", "x"),
                ("port", ""),
                ("wide", "18446744073709551616"),
                ("signed", "9223372036854775808"),
                ("signed", "-9223372036854775809"),
                ("nonzero", "0"),
                ("nonzero", "4294967296"),
                ("flags", "True"),
                ("flags", "1"),
            ] {
                let mut spec = base.clone();
                spec[field][key] = json!("z");
                out.push(spec);
            }
            out
        }
        "AnyJson" => vec![
            json!({"values": null, "list": []}),
            json!({"values": {"a": [1, null]}, "maybe": null, "list": [null, 1, "x"]}),
            json!({"values": 1, "maybe": {"b": true}, "list": [{}]}),
            json!({"list": []}),
        ],
        "FlatOptional" => vec![
            json!({"name": "n"}),
            json!({"name": "n", "x": "a", "y": "b"}),
            json!({"name": "n", "x": "a", "y": "b", "z": "c"}),
            json!({"name": "n", "x": "a"}),
            json!({"name": "n", "z": "c"}),
        ],
        "FlatInVariant" => {
            let b = json!({"type": "B", "other": "x"});
            let ub = json!({"other": "x"});
            let ab = json!({"kind": "B", "with": {"other": "x"}});
            let spec = |o: Value, u: Value, a: Value| json!({"o": o, "u": u, "a": a});
            vec![
                spec(b.clone(), ub.clone(), ab.clone()),
                spec(
                    json!({"type": "A", "name": "n", "git": {"url": "u"}}),
                    json!({"name": "n", "storeType": "Disk", "path": "p"}),
                    json!({"kind": "A", "with": {"name": "n", "helm": {"chart": "c"}}}),
                ),
                spec(json!({"type": "A", "name": "n"}), ub.clone(), ab.clone()),
                spec(
                    b.clone(),
                    json!({"name": "n", "storeType": "Disk"}),
                    ab.clone(),
                ),
                spec(b, ub, json!({"kind": "A", "with": {"name": "n"}})),
            ]
        }
        "OptFlatTagged" => vec![
            json!({"name": "n"}),
            json!({"name": "n", "sourceType": "git", "url": "u"}),
            json!({"name": "n", "sourceType": "git"}),
            json!({"name": "n", "url": "u"}),
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
