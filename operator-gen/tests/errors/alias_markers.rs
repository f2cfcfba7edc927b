use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: ThingSpec,
}

/// Size is an alias, so it cannot carry markers (rustc refuses helper attributes here).
#[validation(minimum = 1)]
pub type Size = i32;

#[derive(Schema)]
pub struct ThingSpec {
    pub size: Size,
    pub other: Option<Size>,
    /// Items of a group nested in a marker are named with their parent.
    #[validation(items(bogus = 1))]
    pub tags: Vec<String>,
}
