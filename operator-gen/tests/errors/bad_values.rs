use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: ThingSpec,
}

#[derive(Schema)]
pub struct ThingSpec {
    #[schema(default = "three")]
    pub size: i32,
    #[validation(pattern = "([a-z")]
    pub name: String,
    #[schema(list_map_keys = "name")]
    pub items: Vec<String>,
}
