use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// serde attributes that put something else than the Rust type on the wire, and Rust types
/// whose JSON has no schema: each is an error at the attribute or the type, never the
/// Rust type's schema.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Meter {
    pub metadata: ObjectMeta,
    pub spec: MeterSpec,
}

#[derive(Schema)]
pub struct MeterSpec {
    #[serde(with = "as_string")]
    pub reading: u32,
    #[serde(serialize_with = "write_hex")]
    pub written: u32,
    #[serde(deserialize_with = "lenient")]
    pub read: bool,
    pub written_only: Written,
    pub read_only: Read,
    pub both_ways: TwoTypes,
    pub huge: u128,
    pub nothing: (),
    pub unsized_array: [u8; LEN],
    pub unit: Unit,
    pub misnamed: Misnamed,
}

#[derive(Schema)]
#[serde(into = "String")]
pub struct Written(u16);

#[derive(Schema)]
#[serde(try_from = "String")]
pub struct Read(u16);

#[derive(Schema)]
#[serde(into = "String", from = "u16")]
pub struct TwoTypes(u16);

#[derive(Schema)]
#[serde(tag = "kind")]
pub enum Unit {
    #[serde(with = "as_string")]
    Plain(u32),
}

#[derive(Schema)]
#[serde(rename_all = "Title Case")]
pub struct Misnamed {
    #[serde(renam = "x")]
    pub a: u8,
}
