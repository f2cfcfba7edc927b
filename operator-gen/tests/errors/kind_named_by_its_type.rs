use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Without `kind = "..."` the type's name is the kind; one the API server would refuse is
/// reported at the name.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
#[allow(non_camel_case_types)]
pub struct Gadget_v2 {
    pub metadata: ObjectMeta,
    pub spec: GadgetSpec,
}

#[derive(Schema)]
pub struct GadgetSpec {
    pub size: i32,
}
