use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Thing {
    #[validation(min_properties = 1)]
    pub metadata: ObjectMeta,
    pub spec: ThingSpec,
}

#[derive(Schema)]
#[validation(one_of = json!([{"required": ["a"]}, {"properties": {"missing": {"minLength": 1}}}]))]
pub struct ThingSpec {
    #[validation(any_of = json!([{"type": "string"}, {"type": "integer"}]))]
    pub a: Option<String>,
    #[validation(all_of = json!([]))]
    pub b: Option<String>,
    #[validation(not = json!([{"required": ["a"]}]))]
    pub c: Option<String>,
}
