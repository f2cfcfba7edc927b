use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Attributes of schemars and the validation crates that the CRD could not follow.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Till {
    pub metadata: ObjectMeta,
    pub spec: TillSpec,
}

#[derive(Schema, JsonSchema, Validate)]
pub struct TillSpec {
    #[schemars(rename = "total")]
    pub sum: i64,
    #[schemars(description = "Cash in the drawer.")]
    pub cash: i64,
    #[schemars(with = "String")]
    pub note: u32,
    #[validate(regex(path = *CODE))]
    pub code: String,
    #[schemars(length(min = 1))]
    pub count: i32,
    #[garde(length(bytes, max = 10))]
    pub label: String,
    #[validate(length(min = MIN))]
    pub name: String,
    #[validate(regex(path = *ANCHORED))]
    pub anchored: String,
    #[validate(regex = "SEMVER_RE")]
    pub version: String,
    #[garde(pattern(Regex::new("^[a-z]+$").unwrap()))]
    pub tag: String,
    #[validate(range(max = 2 * MAX))]
    pub size: i32,
}

/// Built when the operator runs: operator-gen cannot read its pattern.
static ANCHORED: LazyLock<Regex> = LazyLock::new(|| Regex::new(&format!("^{PREFIX}$")).unwrap());
