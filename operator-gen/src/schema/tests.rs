use super::cel_field;

fn generate(text: &str) -> Result<crate::Generated, crate::Error> {
    crate::generate_from_texts(
        std::path::Path::new("src"),
        vec![("src/lib.rs".into(), text.to_string())],
        &crate::Options::default(),
    )
}

/// [`generate`] with the kind `Thing` of spec `ThingSpec` added after `types`.
fn generate_kind(types: &str) -> Result<crate::Generated, crate::Error> {
    generate(&format!(
        "{types}\n#[derive(CustomResource)]\n#[resource(group = \"test.example.com\", version = \"v1\")]\npub struct Thing {{ pub metadata: ObjectMeta, pub spec: ThingSpec }}\n"
    ))
}

/// The message of the error generating a kind of `types` gives.
fn error_of(types: &str) -> String {
    generate_kind(types).unwrap_err().to_string()
}

/// The first CRD's spec schema, as JSON.
fn spec_schema(generated: &crate::Generated) -> serde_json::Value {
    crate::render::to_json(&generated.crds[0])["spec"]["versions"][0]["schema"]
            ["openAPIV3Schema"]["properties"]["spec"]
            .clone()
}

/// The properties of the first CRD's spec, as JSON.
fn spec_properties(generated: &crate::Generated) -> serde_json::Value {
    spec_schema(generated)["properties"].clone()
}

#[test]
fn an_option_whose_missing_value_is_not_none_keeps_its_null() {
    let generated = generate_kind(
        r#"
fn legal() -> Option<String> { Some("legal".into()) }
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(default = "legal")]
    #[schema(default = "legal")]
    pub written_null: Option<String>,
    #[serde(default = "legal", skip_serializing_if = "Option::is_none")]
    #[schema(no_default)]
    pub left_out: Option<String>,
    #[serde(default)]
    pub plain: Option<String>,
    pub bare: Option<String>,
    pub inner: Filled,
    pub derived: Derived,
}
#[derive(Schema)]
#[serde(default)]
pub struct Filled { pub size: Option<u32>, #[serde(default)] pub own: Option<u32> }
impl Default for Filled { fn default() -> Self { Self { size: Some(3), own: None } } }
#[derive(Schema, Default)]
#[serde(default)]
pub struct Derived { pub size: Option<u32> }
"#,
    )
    .unwrap();
    let properties = spec_properties(&generated);
    assert_eq!(properties["written_null"]["nullable"], true);
    for plain in ["left_out", "plain", "bare"] {
        assert!(properties[plain]["nullable"].is_null(), "{plain}");
    }
    assert_eq!(properties["inner"]["properties"]["size"]["nullable"], true);
    assert!(properties["inner"]["properties"]["own"]["nullable"].is_null());
    assert!(properties["derived"]["properties"]["size"]["nullable"].is_null());
}

#[test]
fn a_default_function_needs_the_crds_default_beside_it_or_no_default() {
    let missing = error_of(
        r#"
mod defaults { pub fn image() -> String { "memcached:1.6".into() } }
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(default = "defaults::image")]
    pub image: String,
}
"#,
    );
    assert!(
            missing.contains("src/lib.rs:5:23: error: serde fills this field with `defaults::image()` when it is missing, and the CRD has no default"),
            "{missing}"
        );
    assert!(missing.contains("#[schema(default = ...)]"), "{missing}");
    let generated = generate_kind(
            r#"
mod defaults { pub fn image() -> String { "memcached:1.6".into() } pub fn id() -> String { String::new() } }
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(default = "defaults::image")]
    #[schema(default = "memcached:1.6")]
    pub image: String,
    #[serde(default = "defaults::id")]
    #[schema(no_default)]
    pub id: String,
}
"#,
        )
        .unwrap();
    let properties = spec_properties(&generated);
    assert_eq!(properties["image"]["default"], "memcached:1.6");
    assert!(properties["id"]["default"].is_null());
    let both = error_of(
        r#"
fn id() -> String { String::new() }
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(default = "id")]
    #[schema(default = "x", no_default)]
    pub id: String,
}
"#,
    );
    assert!(both.contains("keep one of them"), "{both}");
    let stray = error_of(
        r#"
#[derive(Schema)]
pub struct ThingSpec {
    #[schema(no_default)]
    pub id: String,
}
"#,
    );
    assert!(
        stray.contains("src/lib.rs:4:14: error: #[schema(no_default)] keeps"),
        "{stray}"
    );
}

#[test]
fn a_nullable_enum_holds_its_values_so_that_null_passes() {
    let generated = generate_kind(
        r#"
fn red() -> Option<Color> { Some(Color::Red) }
#[derive(Schema)]
pub enum Color { Red, Green }
#[derive(Schema, Serialize_repr, Deserialize_repr)]
#[repr(u8)]
pub enum Level { Low = 1, Mid, High }
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(default = "red")]
    #[schema(default = "Red")]
    pub color: Option<Color>,
    pub palette: Vec<Option<Color>>,
    pub plain: Color,
    pub levels: Vec<Option<Level>>,
}
"#,
    )
    .unwrap();
    let properties = spec_properties(&generated);
    assert_eq!(properties["color"]["nullable"], true);
    assert!(properties["color"]["enum"].is_null());
    assert_eq!(properties["color"]["pattern"], "^(Red|Green)$");
    assert_eq!(properties["palette"]["items"]["pattern"], "^(Red|Green)$");
    assert!(properties["palette"]["items"]["enum"].is_null());
    assert_eq!(
        properties["plain"]["enum"],
        serde_json::json!(["Red", "Green"])
    );
    let levels = &properties["levels"]["items"];
    assert!(levels["enum"].is_null());
    assert_eq!(levels["minimum"], 1.0);
    assert_eq!(levels["maximum"], 3.0);
}

#[test]
fn a_type_serialized_by_hand_is_what_its_markers_say() {
    // Its fields say nothing about its JSON: without markers it is refused, at the impl.
    let types = r#"
pub struct Lapse { duration: std::time::Duration, is_negative: bool }
mod wire {
    impl serde::Serialize for super::Lapse {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> { todo!() }
    }
}
#[derive(Schema)]
pub struct ThingSpec { pub timeout: Option<Lapse> }
"#;
    let error = generate_kind(types).unwrap_err().to_string();
    assert!(
        error.contains("`Lapse` is read and written by a hand-written `impl Serialize for Lapse`"),
        "{error}"
    );
    assert!(
        error.contains("impl serde::Serialize for super::Lapse"),
        "{error}"
    );
    // With markers that say what it looks like, they are its whole schema.
    let generated = generate_kind(&types.replace(
            "pub struct Lapse",
            "#[derive(Schema)]\n#[validation(type = \"string\", pattern = \"^[0-9]+s$\")]\npub struct Lapse",
        ))
        .unwrap();
    assert_eq!(
        spec_properties(&generated)["timeout"],
        serde_json::json!({"type": "string", "pattern": "^[0-9]+s$"})
    );
    // An impl in a `const _` block is seen too.
    let error = generate_kind(&types.replace("mod wire {", "const _: () = {").replace(
        "    }\n}\n#[derive(Schema)]\npub struct ThingSpec",
        "    }\n};\n#[derive(Schema)]\npub struct ThingSpec",
    ))
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("hand-written `impl Serialize for Lapse`"),
        "{error}"
    );
    // A `type` marker against what serde's derive writes is refused; on a type that
    // derives no serde (its impl is a macro's, out of sight) it is the schema.
    let error = error_of(
        r#"
#[derive(Schema, Serialize, Deserialize)]
#[validation(type = "string")]
pub struct Span { secs: u64 }
#[derive(Schema)]
pub struct ThingSpec { pub span: Span }
"#,
    );
    assert!(
        error.contains("`type = \"string\"` on `Span`, which serde's derive writes as an object"),
        "{error}"
    );
    let generated = generate_kind(
        r#"
#[derive(Schema)]
#[validation(type = "string", max_length = 20)]
pub struct Span { secs: u64 }
#[derive(Schema)]
pub struct ThingSpec { pub span: Span }
"#,
    )
    .unwrap();
    assert_eq!(
        spec_properties(&generated)["span"],
        serde_json::json!({"type": "string", "maxLength": 20})
    );
    // serde_with's derives that go through Display and FromStr are hand-written too.
    let error = error_of(
        r#"
#[derive(serde_with::DeserializeFromStr, serde_with::SerializeDisplay)]
pub struct Version { major: u32, minor: u32 }
#[derive(Schema)]
pub struct ThingSpec { pub version: Version }
"#,
    );
    assert!(
        error.contains("`Version` is read and written by `#[derive(DeserializeFromStr)]`"),
        "{error}"
    );
}

#[test]
fn imports_are_followed_through_super_and_re_exported_modules() {
    let generated = generate_kind(
        r#"
use k8s_openapi::api::core::v1::Toleration;
pub use k8s_openapi::apimachinery;
pub mod v1 {
    use super::Toleration;
    #[derive(Schema)]
    pub struct Placement {
        pub tolerations: Vec<Toleration>,
        pub since: Option<crate::apimachinery::pkg::apis::meta::v1::Time>,
        pub until: Option<super::apimachinery::pkg::apis::meta::v1::Time>,
    }
}
#[derive(Schema)]
pub struct ThingSpec { pub placement: v1::Placement }
"#,
    )
    .unwrap();
    let placement = &spec_properties(&generated)["placement"]["properties"];
    assert_eq!(
        placement["tolerations"]["items"]["properties"]["effect"]["type"],
        "string"
    );
    assert_eq!(placement["since"]["format"], "date-time");
    assert_eq!(placement["until"]["format"], "date-time");
}

#[test]
fn a_field_read_through_a_module_is_required_unless_it_has_a_default() {
    // serde reads a missing `Option` field as `None` only with its own reading.
    let generated = generate_kind(
        r#"
use std::time::Duration;
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(with = "humantime_serde")]
    pub grace: Option<Duration>,
    #[serde(default, with = "humantime_serde")]
    pub timeout: Option<std::time::Duration>,
    #[serde(with = "humantime_serde")]
    pub every: Duration,
    #[serde(with = "crate::as_string")]
    #[validation(type = "string")]
    pub count: Option<u32>,
    #[serde(serialize_with = "crate::write_count")]
    #[validation(type = "integer")]
    pub written: Option<u32>,
}
"#,
    )
    .unwrap();
    let spec = spec_schema(&generated);
    assert_eq!(
        spec["required"],
        serde_json::json!(["count", "every", "grace"])
    );
    let properties = &spec["properties"];
    assert_eq!(properties["every"]["type"], "string");
    assert_eq!(properties["every"]["maxLength"], 64);
    assert!(properties["every"]["nullable"].is_null());
    // humantime_serde writes `None` as null and reads it back.
    assert_eq!(properties["grace"]["nullable"], true);
    assert_eq!(properties["timeout"]["nullable"], true);
    assert_eq!(
        properties["grace"]["pattern"],
        properties["every"]["pattern"]
    );
    assert!(properties["count"]["nullable"].is_null());
}

#[test]
fn an_untagged_enum_of_strings_reads_what_any_variant_reads() {
    let generated = generate_kind(
        r#"
#[derive(Schema)]
#[serde(untagged)]
pub enum Cidr { Addr(std::net::IpAddr), Net(ipnet::IpNet) }
#[derive(Schema)]
pub enum Color { Red, Green }
#[derive(Schema)]
#[serde(untagged)]
pub enum Paint { Named(Color), Code(std::net::Ipv4Addr) }
#[derive(Schema)]
#[serde(untagged)]
pub enum Loose { Named(Color), Any(String) }
#[derive(Schema)]
pub struct ThingSpec { pub cidr: Cidr, pub paint: Paint, pub loose: Loose }
"#,
    )
    .unwrap();
    let properties = spec_properties(&generated);
    let cidr = &properties["cidr"];
    assert_eq!(cidr["type"], "string");
    assert_eq!(cidr["maxLength"], 49);
    let pattern = regex::Regex::new(cidr["pattern"].as_str().unwrap()).unwrap();
    for (s, admitted) in [
        ("10.0.0.1", true),
        ("10.0.0.0/8", true),
        ("fd00::/8", true),
        ("::1", true),
        ("10.0.0.0/33", false),
        ("host", false),
    ] {
        assert_eq!(pattern.is_match(s), admitted, "{s}");
    }
    let paint = regex::Regex::new(properties["paint"]["pattern"].as_str().unwrap()).unwrap();
    assert!(paint.is_match("Red") && paint.is_match("10.0.0.1") && !paint.is_match("Blue"));
    assert_eq!(properties["loose"], serde_json::json!({"type": "string"}));
    // Lengths a variant's pattern implies are kept; a variant carrying an Option reads null.
    let generated = generate_kind(
        r#"
#[derive(Schema)]
#[validation(pattern = "^[a-z]{1,5}$", max_length = 5)]
pub struct Short(pub String);
#[derive(Schema)]
#[serde(untagged)]
pub enum Either { Short(Short), Addr(Option<std::net::Ipv4Addr>) }
#[derive(Schema)]
pub struct ThingSpec { pub either: Either }
"#,
    )
    .unwrap();
    let either = &spec_properties(&generated)["either"];
    assert_eq!(either["maxLength"], 15);
    assert_eq!(either["nullable"], true);
    // A variant's lengths that its pattern does not imply cannot be kept for it alone.
    let error = error_of(
        r#"
#[derive(Schema)]
#[validation(pattern = "^[a-z]+$", max_length = 5)]
pub struct Short(pub String);
#[derive(Schema)]
#[serde(untagged)]
pub enum Either { Short(Short), Addr(std::net::Ipv4Addr) }
#[derive(Schema)]
pub struct ThingSpec { pub either: Either }
"#,
    );
    assert!(
        error.contains("whose lengths (at most 5) its pattern does not already imply"),
        "{error}"
    );
}

#[test]
fn humantime_serde_on_another_type_needs_markers() {
    let error = error_of(
        r#"
#[derive(Schema)]
pub struct ThingSpec {
    #[serde(with = "humantime_serde")]
    pub at: std::time::SystemTime,
}
"#,
    );
    assert!(
            error.contains("#[serde(with = \"humantime_serde\")] changes how serde reads and writes this field's JSON"),
            "{error}"
        );
}

#[test]
fn a_type_used_many_times_has_the_same_schema_at_every_use() {
    let generated = generate_kind(
        r#"
            #[derive(Schema)]
            pub struct ThingSpec {
                pub first: Shared,
                pub second: Option<Shared>,
                pub third: Vec<Shared>,
                pub fourth: Shared,
            }
            /// Shared is used four times.
            #[derive(Schema)]
            #[validation(max_properties = 3)]
            pub struct Shared {
                #[validation(minimum = 1)]
                pub count: i32,
            }
            "#,
    )
    .unwrap();
    let spec = spec_properties(&generated);
    let first = &spec["first"];
    assert_eq!(first["description"], "Shared is used four times.");
    assert_eq!(first["maxProperties"], 3);
    assert_eq!(first["properties"]["count"]["minimum"], 1);
    assert_eq!(&spec["second"], first);
    assert_eq!(&spec["third"]["items"], first);
    assert_eq!(&spec["fourth"], first);
}

#[test]
fn a_broken_type_used_many_times_is_reported_once() {
    let err = generate(
            r#"
            #[derive(CustomResource)]
            #[resource(group = "test.example.com", version = "v1")]
            pub struct Thing { pub metadata: ObjectMeta, pub spec: ThingSpec }
            #[derive(Schema)]
            pub struct ThingSpec { pub a: Node, pub b: Node, pub c: Vec<Node>, pub d: Bad, pub e: Bad }
            #[derive(Schema)]
            pub struct Node { pub children: Vec<Node> }
            #[derive(Schema)]
            pub struct Bad { pub pair: (i32, i32) }
            "#,
        )
        .unwrap_err();
    let crate::Error::Invalid(errors) = err else {
        panic!("{err}")
    };
    let messages: Vec<String> = errors
        .iter()
        .map(|e| format!("{}:{} {}", e.at.line, e.at.column, e.message))
        .collect();
    assert_eq!(messages.len(), 2, "{messages:#?}");
    assert!(
        messages[0].starts_with("8:49 recursive type: Node -> Node"),
        "{messages:#?}"
    );
    assert!(
        messages[1].starts_with("10:40 unsupported type `(i32 , i32)`"),
        "{messages:#?}"
    );
}

/// A Kubernetes type named through a glob import of its module, also one whose name
/// other API groups share, is that module's type.
#[test]
fn kubernetes_types_resolve_through_glob_imports() {
    let generated = generate_kind(
        r#"
            use k8s_openapi::api::core::v1::*;
            use k8s_openapi::api::apps::v1::*;
            #[derive(Schema)]
            pub struct ThingSpec {
                pub source: TypedLocalObjectReference,
                pub rollout: DeploymentStrategy,
            }
            "#,
    )
    .unwrap();
    let spec = spec_properties(&generated);
    assert_eq!(
        spec["source"]["required"],
        serde_json::json!(["kind", "name"])
    );
    assert!(spec["rollout"]["properties"]["rollingUpdate"].is_object());
}

/// A flattened map of any JSON takes the fields the struct does not name; a flattened
/// map of typed values is refused.
#[test]
fn a_flattened_map_of_any_json_keeps_unknown_fields() {
    let generated = generate_kind(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec {
                pub size: i32,
                pub inner: Inner,
                #[serde(flatten)]
                pub extra: std::collections::HashMap<String, serde_json::Value>,
            }
            #[derive(Schema)]
            pub struct Inner { #[serde(flatten)] pub rest: serde_json::Map<String, serde_json::Value> }
            "#,
        )
        .unwrap();
    let spec = &crate::render::to_json(&generated.crds[0])["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
        ["properties"]["spec"];
    assert_eq!(spec["x-kubernetes-preserve-unknown-fields"], true);
    assert_eq!(spec["required"], serde_json::json!(["inner", "size"]));
    assert!(spec["properties"].get("extra").is_none());
    assert_eq!(
        spec["properties"]["inner"],
        serde_json::json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true})
    );

    let err = error_of(
        r#"
            #[derive(Schema)]
            pub struct ThingSpec {
                #[serde(flatten)]
                pub labels: std::collections::BTreeMap<String, String>,
                pub size: i32,
            }
            "#,
    );
    assert!(
        err.contains(
            "src/lib.rs:5:29: error: #[serde(flatten)] of this type has no structural schema"
        ),
        "{err}"
    );
}

/// An enum with serde_repr's derives is its discriminants, as integers.
#[test]
fn serde_repr_enums_are_their_discriminants() {
    let generated = generate_kind(
        r#"
            #[derive(Schema, Serialize_repr, Deserialize_repr)]
            #[repr(i32)]
            pub enum Level { Low = -2, Mid, High = 0x10, Top }
            #[derive(Schema, serde_repr::Serialize_repr, serde_repr::Deserialize_repr)]
            #[repr(u8)]
            pub enum Open { Known = 1, #[serde(other)] Unknown = 255 }
            #[derive(Schema)]
            pub struct ThingSpec { pub level: Level, pub open: Open }
            "#,
    )
    .unwrap();
    let spec = spec_properties(&generated);
    assert_eq!(
        spec["level"],
        serde_json::json!({"type": "integer", "format": "int32", "enum": [-2, -1, 16, 17]})
    );
    assert_eq!(
        spec["open"],
        serde_json::json!({"type": "integer", "minimum": 0, "maximum": 255})
    );

    let err = error_of(
        r#"
            const TWO: u8 = 2;
            #[derive(Schema, Serialize_repr, Deserialize)]
            #[repr(u8)]
            pub enum Half { A }
            #[derive(Schema, Serialize_repr, Deserialize_repr)]
            pub enum NoRepr { A }
            #[derive(Schema, Serialize_repr, Deserialize_repr)]
            #[repr(u8)]
            pub enum Constant { A = TWO }
            #[derive(Schema)]
            pub struct ThingSpec { pub half: Half, pub no_repr: NoRepr, pub constant: Constant }
            "#,
    );
    for expected in [
        "5:22: error: `Half` derives one of serde_repr's Serialize_repr and Deserialize_repr but not the other",
        "7:22: error: `NoRepr` derives serde_repr's traits, which write the discriminant as the #[repr] integer",
        "10:37: error: operator-gen reads discriminants written as integer literals",
    ] {
        assert!(err.contains(expected), "{expected}\n{err}");
    }
}

/// An untagged enum of an integer and a string is an int-or-string with each side's
/// constraints; the API server applies each to its own type.
#[test]
fn untagged_integer_or_string_enums_are_int_or_string() {
    let generated = generate_kind(
        r#"
            #[derive(Schema)]
            #[serde(untagged)]
            pub enum Port { Number(std::num::NonZeroU16), Name(PortName) }
            #[derive(Schema)]
            #[validation(pattern = "^[a-z]+$", max_length = 15)]
            pub struct PortName(String);
            #[derive(Schema)]
            pub enum Mode { Fast, #[serde(rename = "slow.mode")] Slow }
            #[derive(Schema)]
            #[serde(untagged)]
            pub enum Level { Named(Mode), Signed(i8) }
            #[derive(Schema)]
            pub struct ThingSpec { pub port: Port, pub level: Level }
            "#,
    )
    .unwrap();
    let spec = spec_properties(&generated);
    let any_of = serde_json::json!([{"type": "integer"}, {"type": "string"}]);
    assert_eq!(
        spec["port"],
        serde_json::json!({
            "anyOf": any_of, "x-kubernetes-int-or-string": true,
            "minimum": 1, "maximum": 65535, "pattern": "^[a-z]+$", "maxLength": 15,
        })
    );
    assert_eq!(
        spec["level"],
        serde_json::json!({
            "anyOf": any_of, "x-kubernetes-int-or-string": true,
            "minimum": -128, "maximum": 127, "pattern": "^(Fast|slow\\.mode)$",
        })
    );
    let err = error_of(
        r#"
            #[derive(Schema, Serialize_repr, Deserialize_repr)]
            #[repr(u8)]
            pub enum Code { A = 1 }
            #[derive(Schema)]
            #[serde(untagged)]
            pub enum Either { Code(Code), Text(String) }
            #[derive(Schema)]
            pub struct ThingSpec { pub either: Either }
            "#,
    );
    assert!(
        err.contains("the integer variant of this untagged enum takes only some integers"),
        "{err}"
    );
}

/// A map's keys are held to what the key type reads; what CEL cannot check is refused.
#[test]
fn map_keys_are_held_to_what_the_key_type_reads() {
    let generated = generate_kind(
        r#"
            use std::collections::{BTreeMap, HashMap};
            #[derive(Schema)]
            pub enum Color { Red, #[serde(rename = "it's")] Quote, #[serde(skip)] Hidden }
            #[derive(Schema)]
            #[validation(pattern = "^[a-z]+$", min_length = 2)]
            pub struct Name(String);
            #[derive(Schema)]
            pub struct ThingSpec {
                #[validation(max_properties = 2)]
                pub by_color: BTreeMap<Color, String>,
                #[validation(max_properties = 8)]
                pub by_char: HashMap<char, i32>,
                #[validation(max_properties = 8)]
                pub by_name: BTreeMap<Name, BTreeMap<String, i32>>,
            }
            "#,
    )
    .unwrap();
    let spec = spec_properties(&generated);
    let rule = |field: &str| spec[field]["x-kubernetes-validations"].clone();
    assert_eq!(
        rule("by_color"),
        serde_json::json!([{
            "rule": "self.all(k, k in ['Red', 'it\\'s'])",
            "message": "keys must be one of Red, it's"
        }])
    );
    assert_eq!(rule("by_char")[0]["rule"], "self.all(k, size(k) == 1)");
    assert_eq!(
        rule("by_name")[0]["rule"],
        "self.all(k, size(k) >= 2 && k.matches('^[a-z]+$'))"
    );
    assert!(
        spec["by_name"]["additionalProperties"]
            .get("x-kubernetes-validations")
            .is_none(),
        "String keys take any string"
    );

    let err = error_of(
        r#"
            use std::collections::BTreeMap;
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
            #[derive(Schema)]
            pub struct ThingSpec { pub at: BTreeMap<Time, String> }
            "#,
    );
    assert!(
        err.contains("the keys of this map have the format `date-time`"),
        "{err}"
    );
    // What to do is said on a help line under the excerpt, as rustc does.
    assert!(err.contains("^^^^\n  = help: use String keys"), "{err}");

    // Without a bound, the API server would refuse the rule: refused here, at the field.
    let err = error_of(
        r#"
            #[derive(Schema)]
            pub struct ThingSpec {
                #[validation(max_items = 2)]
                pub lists: Vec<std::collections::BTreeMap<char, String>>,
            }
            "#,
    );
    assert!(
            err.contains("src/lib.rs:5:28: error: the keys of this map read only some strings, so operator-gen holds them to that with the CEL rule `self.all(k, size(k) == 1)`; the API server refuses such a rule on a map without `maxProperties`"),
            "{err}"
        );
}

/// indexmap's map and set are a map and a list to serde, as std's are; a hasher named
/// as a third argument changes nothing on the wire.
#[test]
fn index_maps_and_hashers_serialize_as_maps_and_lists() {
    let generated = generate_kind(
        r#"
            use indexmap::{IndexMap, IndexSet};
            #[derive(Schema)]
            pub struct ThingSpec {
                pub ordered: IndexMap<String, i32>,
                pub tags: IndexSet<String>,
                pub hashed: std::collections::HashMap<String, bool, std::hash::RandomState>,
            }
            "#,
    )
    .unwrap();
    let spec = spec_properties(&generated);
    assert_eq!(spec["ordered"]["additionalProperties"]["format"], "int32");
    assert_eq!(spec["tags"]["items"]["type"], "string");
    assert_eq!(spec["hashed"]["additionalProperties"]["type"], "boolean");
}

/// Go's metav1.Duration has no k8s-openapi type: the error points at kube's.
#[test]
fn a_metav1_duration_points_at_kubes() {
    let err = error_of(
        r#"
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::Duration;
            #[derive(Schema)]
            pub struct ThingSpec { pub every: Duration }
            "#,
    );
    assert!(
        err.contains("= help: k8s-openapi has no metav1.Duration: use `kube::core::Duration`"),
        "{err}"
    );
}

/// Modules imported under another name, also through `{self as ...}` and `{self}`.
#[test]
fn kubernetes_types_resolve_through_module_aliases() {
    let generated = generate_kind(
        r#"
            use k8s_openapi::api::core::v1 as corev1;
            use k8s_openapi::api::apps::{self};
            use k8s_openapi::apimachinery::pkg::apis::meta::v1::{self as metav1};
            #[derive(Schema)]
            pub struct ThingSpec {
                pub resources: corev1::ResourceRequirements,
                pub strategy: apps::v1::DeploymentStrategy,
                pub selector: metav1::LabelSelector,
            }
            "#,
    )
    .unwrap();
    let spec = spec_properties(&generated);
    assert!(spec["resources"]["properties"]["limits"].is_object());
    assert!(spec["strategy"]["properties"]["rollingUpdate"].is_object());
    assert!(spec["selector"]["properties"]["matchLabels"].is_object());
}

/// Types named through the crate's re-exports: a `pub use ... as` at the root, a glob
/// re-export of a child module, reached by `crate::`, `super::` and plain paths.
#[test]
fn types_resolve_through_re_exports() {
    let generated = generate(
        r#"
            pub use api::v1::shared::Shared as Common;
            pub mod api {
                pub use self::v1::*;
                pub mod v1 {
                    pub mod shared {
                        #[derive(Schema)]
                        pub struct Shared { pub x: i32 }
                    }
                    mod types {
                        #[derive(Schema)]
                        pub struct Inner { pub y: String }
                    }
                    pub use types::*;
                    use super::super::Common;
                    #[derive(CustomResource)]
                    #[resource(group = "test.example.com", version = "v1")]
                    pub struct Thing { pub metadata: ObjectMeta, pub spec: ThingSpec }
                    #[derive(Schema)]
                    pub struct ThingSpec {
                        pub a: Common,
                        pub b: crate::Common,
                        pub c: super::v1::Inner,
                        pub d: crate::api::Inner,
                        pub e: crate::api::Shared2,
                    }
                    pub use shared::Shared as Shared2;
                }
            }
            "#,
    )
    .unwrap();
    let spec = spec_properties(&generated);
    for field in ["a", "b", "e"] {
        assert!(
            spec[field]["properties"]["x"].is_object(),
            "{field}: {spec}"
        );
    }
    for field in ["c", "d"] {
        assert!(
            spec[field]["properties"]["y"].is_object(),
            "{field}: {spec}"
        );
    }
}

#[test]
fn cel_names_are_escaped_as_the_api_server_expects() {
    assert_eq!(cel_field("cron"), "cron");
    assert_eq!(cel_field("max-surge"), "max__dash__surge");
    assert_eq!(cel_field("a.b/c"), "a__dot__b__slash__c");
    assert_eq!(cel_field("a__b"), "a__underscores__b");
    assert_eq!(cel_field("namespace"), "__namespace__");
}

/// One-of rules name the fields as CEL spells them; their messages as they are.
#[test]
fn one_of_rules_escape_the_names_they_test() {
    let generated = generate(
        r#"
            #[derive(CustomResource)]
            #[resource(group = "a.example.com", version = "v1", kind = "Thing")]
            pub struct Thing { pub metadata: ObjectMeta, pub spec: ThingSpec }
            #[derive(Schema)]
            #[serde(rename_all = "kebab-case")]
            #[validation(exactly_one_of = ["max-surge", "namespace"])]
            pub struct ThingSpec { pub max_surge: Option<i32>, pub namespace: Option<String> }
            "#,
    )
    .unwrap();
    let spec = &generated.crds[0].spec.versions[0]
        .schema
        .as_ref()
        .unwrap()
        .open_api_v3_schema
        .as_ref()
        .unwrap()
        .properties
        .as_ref()
        .unwrap()["spec"];
    let rule = &spec.x_kubernetes_validations.as_ref().unwrap()[0];
    assert_eq!(
        rule.rule,
        "[has(self.max__dash__surge),has(self.__namespace__)].filter(x,x==true).size() == 1"
    );
    assert_eq!(
        rule.message.as_deref(),
        Some("exactly one of the fields in [max-surge namespace] must be set")
    );
}

/// serde_json writes integer and bool map keys as strings and reads back only the
/// strings it writes: the keys are held to that.
#[test]
fn integer_and_bool_map_keys_are_held_to_what_serde_json_reads() {
    let generated = generate_kind(
        r#"
            use std::collections::BTreeMap;
            #[derive(Schema)]
            pub struct ThingSpec {
                #[validation(max_properties = 8)]
                pub ports: BTreeMap<u16, String>,
                #[validation(max_properties = 8)]
                pub small: BTreeMap<i8, String>,
                #[validation(max_properties = 8)]
                pub wide: BTreeMap<i64, String>,
                #[validation(max_properties = 8)]
                pub flags: BTreeMap<bool, String>,
            }
            "#,
    )
    .unwrap();
    let spec = spec_properties(&generated);
    let rule = |field: &str| spec[field]["x-kubernetes-validations"][0]["rule"].clone();
    assert_eq!(
        rule("ports"),
        "self.all(k, k.matches('^(0|[1-9][0-9]*)$') && uint(k) <= 65535u)"
    );
    assert_eq!(
        rule("small"),
        "self.all(k, k.matches('^(0|-?[1-9][0-9]*)$') && int(k) >= -128 && int(k) <= 127)"
    );
    assert_eq!(
        rule("wide"),
        "self.all(k, k.matches('^(0|-?[1-9][0-9]*)$') && int(k) <= 9223372036854775807)"
    );
    assert_eq!(rule("flags"), "self.all(k, k in ['true', 'false'])");
    assert_eq!(
        spec["ports"]["x-kubernetes-validations"][0]["message"],
        "keys must be integers from 0 to 65535, in decimal without leading zeros"
    );
}

/// Where serde refuses fields a variant does not name, the variant's rule refuses the
/// other variants' fields; an adjacently tagged unit variant takes no content.
#[test]
fn generic_types_are_built_for_each_use_with_its_arguments() {
    let generated = generate_kind(
        r#"
pub mod shared {
    #[derive(Schema)]
    pub struct Role<Config, Extra> {
        pub config: Config,
        pub role_groups: std::collections::BTreeMap<String, RoleGroup<Config>>,
        #[serde(flatten)]
        pub extra: Extra,
    }
    #[derive(Schema)]
    pub struct RoleGroup<T> { pub replicas: Option<u16>, pub config: T }
    #[derive(Schema)]
    #[serde(untagged)]
    pub enum Either<A, B> { Left(A), Right(B) }
}
pub mod zk {
    #[derive(Schema)]
    pub struct ZkConfig { pub tick: u32 }
    #[derive(Schema)]
    pub struct Ports { pub client: u16 }
}
use shared::{Either, Role};
#[derive(Schema)]
pub struct ThingSpec {
    pub servers: Role<zk::ZkConfig, zk::Ports>,
    pub maybe: shared::RoleGroup<Option<String>>,
    pub plain: shared::RoleGroup<String>,
    pub label: Either<u16, String>,
}
"#,
    )
    .unwrap();
    let spec = spec_schema(&generated);
    let servers = &spec["properties"]["servers"];
    assert_eq!(
        servers["properties"]["config"]["properties"]["tick"]["type"],
        "integer"
    );
    assert_eq!(servers["properties"]["client"]["type"], "integer");
    let group = &servers["properties"]["role_groups"]["additionalProperties"];
    assert_eq!(
        group["properties"]["config"]["required"],
        serde_json::json!(["tick"])
    );
    assert_eq!(group["required"], serde_json::json!(["config"]));
    // An `Option` argument makes the field optional, as serde reads it.
    let maybe = &spec["properties"]["maybe"];
    assert_eq!(maybe["properties"]["config"]["type"], "string");
    assert!(maybe["required"].is_null(), "{maybe}");
    assert_eq!(
        spec["properties"]["plain"]["required"],
        serde_json::json!(["config"])
    );
    assert_eq!(
        spec["properties"]["label"]["x-kubernetes-int-or-string"],
        true
    );

    let error = error_of(
        r#"
#[derive(Schema)]
pub struct Nest<T> { pub v: T, pub next: Option<Box<Nest<Vec<T>>>> }
#[derive(Schema)]
pub struct ThingSpec { pub nest: Nest<i32> }
"#,
    );
    assert!(
        error.contains("`Nest` holds an instance of itself with other type arguments"),
        "{error}"
    );
    let error = error_of(
        r#"
#[derive(Schema)]
pub struct Pair<A, B> { pub a: A, pub b: B }
#[derive(Schema)]
pub struct ThingSpec { pub pair: Pair<String> }
"#,
    );
    assert!(
        error.contains("`Pair` takes 2 type arguments (<A, B>), and 1 are given here"),
        "{error}"
    );
    // Arguments left out take their defaults, which may name the parameters before them.
    let generated = generate_kind(
        r#"
pub mod shared {
    #[derive(Schema)]
    pub struct Config { pub shared: bool }
    #[derive(Schema)]
    pub struct Role<T, U = Config, V = Vec<T>> { pub config: T, pub role: U, pub all: V }
}
#[derive(Schema)]
pub struct Config { pub own: u8 }
#[derive(Schema)]
pub struct ThingSpec { pub role: shared::Role<Config>, pub other: shared::Role<Config, String> }
"#,
    )
    .unwrap();
    let spec = spec_properties(&generated);
    let role = &spec["role"]["properties"];
    assert_eq!(role["config"]["required"], serde_json::json!(["own"]));
    assert_eq!(role["role"]["required"], serde_json::json!(["shared"]));
    assert_eq!(role["all"]["items"]["required"], serde_json::json!(["own"]));
    assert_eq!(spec["other"]["properties"]["role"]["type"], "string");
    let error = error_of(
        r#"
#[derive(Schema)]
pub struct Role<T, U = String> { pub config: T, pub role: U }
#[derive(Schema)]
pub struct ThingSpec { pub role: Role }
"#,
    );
    assert!(
        error.contains(
            "`Role` takes 2 type arguments (<T, U>, the last 1 with defaults), and 0 are given here"
        ),
        "{error}"
    );
}

#[test]
fn a_struct_of_one_flattened_map_is_that_map() {
    let generated = generate_kind(
            r#"
#[derive(Schema)]
pub struct NodeSelector { #[serde(flatten)] pub node_selector: std::collections::BTreeMap<String, String> }
#[derive(Schema)]
pub struct ThingSpec { pub selector: Option<NodeSelector> }
"#,
        )
        .unwrap();
    assert_eq!(
        spec_properties(&generated)["selector"],
        serde_json::json!({"type": "object", "additionalProperties": {"type": "string"}})
    );
}

#[test]
fn a_variant_serde_never_writes_is_not_stored() {
    let generated = generate_kind(
        r#"
#[derive(Schema)]
#[serde(rename_all = "kebab-case")]
pub enum Feature { Steal, Mirror, #[serde(other, skip_serializing)] Unknown }
#[derive(Schema)]
pub struct ThingSpec { pub block: Vec<Feature> }
"#,
    )
    .unwrap();
    assert_eq!(
        spec_properties(&generated)["block"]["items"]["enum"],
        serde_json::json!(["steal", "mirror"])
    );
    let error = error_of(
        r#"
#[derive(Schema)]
pub enum Gone { #[serde(other, skip_serializing)] Unknown }
#[derive(Schema)]
pub struct ThingSpec { pub gone: Gone }
"#,
    );
    assert!(
        error.contains("enum `Gone` has no variant serde both reads and writes"),
        "{error}"
    );
    // schemars' skip on a variant serde writes would leave it out of schemars' schema only.
    let error = error_of(
        r#"
#[derive(Schema)]
pub enum Feature { Steal, #[schemars(skip)] Mirror }
#[derive(Schema)]
pub struct ThingSpec { pub block: Vec<Feature> }
"#,
    );
    assert!(
        error.contains("#[schemars(skip)] would shape the schemars schema but not the CRD"),
        "{error}"
    );
}

#[test]
fn enum_rules_refuse_what_serde_refuses() {
    let generated = generate_kind(
        r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub backend: Backend, pub action: Action, pub auth: Auth }
            #[derive(Schema)]
            #[serde(tag = "type", deny_unknown_fields)]
            pub enum Backend { S3 { bucket: String }, Gcs { project: String } }
            #[derive(Schema)]
            #[serde(tag = "kind", content = "params")]
            pub enum Action { Restart, Scale(Scale), Run { command: Vec<String> } }
            #[derive(Schema)]
            #[serde(deny_unknown_fields)]
            pub struct Scale { pub replicas: i32 }
            #[derive(Schema)]
            #[serde(untagged, deny_unknown_fields)]
            pub enum Auth { Token { token: String }, Basic { username: String, password: String } }
            "#,
    )
    .unwrap();
    let spec = spec_properties(&generated);
    let rules = |field: &str| {
        spec[field]["x-kubernetes-validations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["rule"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        rules("backend"),
        [
            "self.type != 'S3' || (has(self.bucket) && !has(self.project))",
            "self.type != 'Gcs' || (has(self.project) && !has(self.bucket))",
        ]
    );
    assert_eq!(
        rules("action"),
        [
            "self.kind != 'Restart' || (!has(self.params))",
            "self.kind != 'Scale' || (has(self.params) && has(self.params.replicas) && !has(self.params.command))",
            // Run's fields are the enum's: without deny_unknown_fields on it, serde
            // ignores the others.
            "self.kind != 'Run' || (has(self.params) && has(self.params.command))",
        ]
    );
    assert_eq!(
        rules("auth"),
        [
            "(has(self.token) && !has(self.password) && !has(self.username)) || (has(self.password) && has(self.username) && !has(self.token))"
        ]
    );
    assert_eq!(
        spec["backend"]["x-kubernetes-validations"][0]["message"],
        "type S3 needs bucket, and none of project"
    );
}

/// A flattened enum's fields join the struct's; what its own object checked (one
/// variant of an externally tagged enum, an internally tagged one's variant rules)
/// moves with them.
#[test]
fn flattened_enums_keep_their_checks() {
    let generated = generate_kind(
        r#"
            #[derive(Schema)]
            pub struct ThingSpec {
                pub name: String,
                #[serde(flatten)]
                pub source: Source,
                #[serde(flatten)]
                pub store: Store,
                #[serde(flatten)]
                pub meta: Meta,
            }
            #[derive(Schema)]
            #[serde(rename_all = "camelCase")]
            pub enum Source { Git { url: String }, Helm { chart: String } }
            #[derive(Schema)]
            #[serde(tag = "storeType")]
            pub enum Store { Disk { path: String }, Memory { size: i32 } }
            #[derive(Schema)]
            pub struct Meta {
                pub version: String,
                #[serde(flatten)]
                pub extra: serde_json::Map<String, serde_json::Value>,
            }
            "#,
    )
    .unwrap();
    let spec = spec_schema(&generated);
    let rules: Vec<&str> = spec["x-kubernetes-validations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["rule"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        [
            "[has(self.git),has(self.helm)].filter(x,x==true).size() == 1",
            "self.storeType != 'Disk' || (has(self.path))",
            "self.storeType != 'Memory' || (has(self.size))",
        ]
    );
    assert_eq!(spec["x-kubernetes-preserve-unknown-fields"], true);
    assert_eq!(
        spec["required"],
        serde_json::json!(["name", "storeType", "version"])
    );

    // An optional flattened struct: serde reads `None` (and drops what is there) unless
    // all its required fields are there.
    let generated = generate_kind(
        r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub name: String, #[serde(flatten)] pub pair: Option<Pair> }
            #[derive(Schema)]
            pub struct Pair { pub x: String, pub y: String, pub z: Option<String> }
            "#,
    )
    .unwrap();
    let spec = spec_schema(&generated);
    assert_eq!(
        spec["x-kubernetes-validations"],
        serde_json::json!([{
            "rule": "(has(self.x) && has(self.y)) || !(has(self.x) || has(self.y) || has(self.z))",
            "message": "x, y must be set with any of x, y, z"
        }])
    );
    assert_eq!(spec["required"], serde_json::json!(["name"]));
}

/// What serde writes and reads, also where the attributes say it unusually.
#[test]
fn serde_attributes_that_name_fields_unusually() {
    let generated = generate_kind(
        r#"
            #[derive(Schema)]
            #[cfg_attr(feature = "serde", serde(rename_all = "camelCase"))]
            pub struct ThingSpec {
                pub some_field: String,
                #[cfg_attr(feature = "serde", serde(default))]
                pub other_field: Vec<String>,
                pub inner: Inner,
                pub strict: Strict,
                pub choices: Vec<Choice>,
                pub at: chrono::DateTime<chrono::Utc>,
                // What the error for a type of another crate advises.
                #[schema(schemaless)]
                #[validation(type = "string", format = "uri")]
                pub day: url::Url,
                pub on: chrono::NaiveDate,
                pub time: chrono::NaiveTime,
                pub release: semver::Version,
            }
            #[derive(Schema)]
            #[serde(tag = "kind", rename = "inner")]
            pub struct Inner { pub a: String }
            #[derive(Schema)]
            #[serde(deny_unknown_fields)]
            pub struct Strict {
                pub kept: String,
                #[serde(skip_deserializing)]
                pub written_only: String,
            }
            #[derive(Schema)]
            pub enum Choice { A(Option<String>), B { x: i32 } }
            "#,
    )
    .unwrap();
    let spec = spec_properties(&generated);
    let names = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(&spec),
        [
            "at",
            "choices",
            "day",
            "inner",
            "on",
            "otherField",
            "release",
            "someField",
            "strict",
            "time"
        ]
    );
    assert_eq!(
        spec["inner"]["properties"]["kind"],
        serde_json::json!({"type": "string", "enum": ["inner"]})
    );
    assert_eq!(
        spec["day"],
        serde_json::json!({"type": "string", "format": "uri"})
    );
    // semver's versions: numbers up to u64::MAX without leading zeros.
    let release = regex::Regex::new(spec["release"]["pattern"].as_str().unwrap()).unwrap();
    for (version, admitted) in [
        ("0.1.2-rc.1+b.01", true),
        ("18446744073709551615.0.0", true),
        ("18446744073709551616.0.0", false),
        ("01.2.3", false),
    ] {
        assert_eq!(release.is_match(version), admitted, "{version}");
    }
    // chrono's dates and times without a zone, as its serde writes them.
    assert_eq!(spec["on"]["format"], "date");
    let pattern = spec["on"]["pattern"].as_str().unwrap();
    assert!(pattern.contains("-02-29"), "{pattern}");
    assert_eq!(
        spec["time"],
        serde_json::json!({"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]{1,9})?$"})
    );
    assert_eq!(names(&spec["strict"]["properties"]), ["kept"]);
    assert_eq!(
        spec["choices"]["items"]["properties"]["A"]["nullable"],
        true
    );
    assert_eq!(spec["at"]["type"], "string");
    assert_eq!(spec["at"]["format"], "date-time");
    assert!(
        spec["at"]["pattern"]
            .as_str()
            .unwrap()
            .contains("(Z|[+-]([01][0-9]|2[0-3])")
    );

    let err = error_of(
        r#"
            #[derive(Schema)]
            pub struct ThingSpec {
                #[serde(rename(serialize = "outName", deserialize = "inName"))]
                pub name: String,
            }
            "#,
    );
    assert!(
        err.contains(
            "src/lib.rs:5:21: error: serde writes this field as `outName` and reads it as `inName`"
        ),
        "{err}"
    );
}

/// A field the variant rules must name but CEL cannot is an error at its variant, not
/// a rule that does not compile.
#[test]
fn a_variant_field_cel_cannot_name_is_refused_at_the_variant() {
    let err = error_of(
        r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub value: Value }
            #[derive(Schema)]
            #[serde(tag = "type")]
            pub enum Value {
                A { #[serde(rename = "return")] ret: String },
                B { #[serde(rename = "1st")] first: String },
            }
            "#,
    );
    assert!(
            err.contains("src/lib.rs:8:17: error: operator-gen checks the fields of `Value`'s variants with CEL rules, and CEL cannot name the field `1st`"),
            "{err}"
        );
    // A keyword is escaped, not refused.
    generate_kind(
        r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub value: Value }
            #[derive(Schema)]
            #[serde(tag = "type")]
            pub enum Value { A { #[serde(rename = "return")] ret: String } }
            "#,
    )
    .unwrap();
}

/// The rules of a variant's own object (here a flattened enum's) hold for that variant
/// only: where the tag names it, or where its required fields are.
#[test]
fn a_variants_own_rules_hold_for_that_variant() {
    let generated = generate_kind(
            r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub tagged: Tagged, pub loose: Loose, pub source: Option<Src> }
            #[derive(Schema)]
            #[serde(tag = "type")]
            pub enum Tagged { A { name: String, #[serde(flatten)] src: Source }, B { other: String } }
            #[derive(Schema)]
            #[serde(untagged)]
            pub enum Loose { A { name: String, #[serde(flatten)] src: Source }, B { other: String } }
            #[derive(Schema)]
            pub enum Source { Git { url: String }, Helm { chart: String } }
            #[derive(Schema)]
            pub struct Src { pub name: String, #[serde(flatten)] pub kind: Option<Kind> }
            #[derive(Schema)]
            #[serde(tag = "kind")]
            pub enum Kind { Git { url: String } }
            "#,
        )
        .unwrap();
    let spec = spec_properties(&generated);
    let rules = |v: &serde_json::Value| {
        v["x-kubernetes-validations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["rule"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        rules(&spec["tagged"]),
        [
            "self.type != 'A' || (has(self.name))",
            "self.type != 'B' || (has(self.other))",
            "self.type != 'A' || ([has(self.Git),has(self.Helm)].filter(x,x==true).size() == 1)",
        ]
    );
    assert_eq!(
        rules(&spec["loose"]),
        [
            "!(has(self.name)) || ([has(self.Git),has(self.Helm)].filter(x,x==true).size() == 1)",
            "(has(self.name)) || (has(self.other))",
        ]
    );
    // An optional flattened enum's variant rules hold where serde reads it: its tag there.
    assert_eq!(
        rules(&spec["source"]),
        [
            "!(has(self.kind)) || (self.kind != 'Git' || (has(self.url)))",
            "(has(self.kind)) || !(has(self.kind) || has(self.url))",
        ]
    );
}

/// What serde writes under one name and reads under another, or writes and then
/// refuses, has no schema; a name CEL cannot spell is refused where it is declared.
#[test]
fn names_serde_and_cel_disagree_on_are_refused_where_written() {
    let err = |types: &str| generate_kind(types).unwrap_err().to_string();
    let e = err(r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub v: V }
            #[derive(Schema)]
            pub enum V { #[serde(rename(serialize = "out", deserialize = "in"))] A { x: i32 } }
            "#);
    assert!(
        e.contains(
            "src/lib.rs:5:82: error: serde writes variant `A` as `out` and reads it as `in`"
        ),
        "{e}"
    );
    let e = err(r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub name: String, #[serde(flatten)] pub src: Src }
            #[derive(Schema)]
            pub enum Src { #[serde(rename = "1git")] Git { url: String }, Helm { chart: String } }
            "#);
    assert!(
            e.contains("src/lib.rs:3:81: error: the fields of this flattened type are checked with CEL rules on this struct, and CEL cannot name its field `1git`"),
            "{e}"
        );
    // A variant that refuses the others' fields: the error is at the field's own variant.
    let e = err(r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub v: V }
            #[derive(Schema)]
            #[serde(tag = "type", deny_unknown_fields)]
            pub enum V { A { x: i32 }, B { #[serde(rename = "2y")] y: Option<i32> } }
            "#);
    assert!(
            e.contains("src/lib.rs:6:40: error: operator-gen checks the fields of `V`'s variants with CEL rules, and CEL cannot name the field `2y`"),
            "{e}"
        );
    // A tagged struct that denies unknown fields refuses its own tag when reading, so
    // the schema does not admit it.
    let generated = generate_kind(
        r#"
            #[derive(Schema)]
            pub struct ThingSpec { pub inner: Inner }
            #[derive(Schema)]
            #[serde(tag = "kind", deny_unknown_fields)]
            pub struct Inner { pub a: String }
            "#,
    )
    .unwrap();
    assert!(
        spec_properties(&generated)["inner"]["properties"]
            .get("kind")
            .is_none()
    );
}
