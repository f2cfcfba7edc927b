use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: ThingSpec,
}

#[derive(Schema)]
#[validation(exactly_one_of = ["a", "missing"])]
pub struct ThingSpec {
    #[validation(unique_items)]
    pub tags: Vec<String>,
    #[validation(cel(rule = "self > 0", reason = "TooBig"))]
    pub a: Option<i32>,
    #[validation(cel(message = "no rule"))]
    pub b: Option<i32>,
    #[validation(at_most_one_of = ["a", "b"])]
    pub c: Option<i32>,
    #[schema(external_docs(url = "not a url"))]
    pub d: Option<i32>,
    #[validation(cel(rule = "self.size() > 0", field_path = "spec.x"))]
    pub e: Option<String>,
}

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", kind = "Twice")]
pub struct TwiceV1 {
    pub metadata: ObjectMeta,
}

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v2", kind = "Twice", scope = "Cluster")]
pub struct TwiceV2 {
    pub metadata: ObjectMeta,
}

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", kind = "Labelled", annotations = ["no-equals-sign"])]
pub struct Labelled {
    pub metadata: ObjectMeta,
}

/// controller-tools' `nogroup` situation: controller-gen writes `_nogroups.yaml`, which the
/// API server refuses.
#[derive(CustomResource)]
#[resource(group = "", version = "v1", kind = "NoGroup")]
pub struct NoGroup {
    pub metadata: ObjectMeta,
}

#[derive(CustomResource)]
#[resource(group = "local", version = "v1", kind = "Dotless")]
pub struct Dotless {
    pub metadata: ObjectMeta,
}
