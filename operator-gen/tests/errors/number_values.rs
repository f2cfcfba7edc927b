use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Reading {
    pub metadata: ObjectMeta,
    pub spec: ReadingSpec,
}

/// The extremes of i64 are whole numbers (no error here); a negative length is the one
/// mistake, named as such.
#[derive(Schema)]
pub struct ReadingSpec {
    #[validation(minimum = -9223372036854775808, maximum = 9223372036854775807)]
    pub offset: i64,
    #[validation(max_length = -1)]
    pub label: String,
}
