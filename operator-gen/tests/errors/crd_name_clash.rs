use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Two kinds of one group whose CRDs would share a name (`Widget` and `WIDGET` both make
/// `widgets`): refused at the second, before any file is written.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Widget {
    pub metadata: ObjectMeta,
    pub spec: Size,
}

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", kind = "WIDGET")]
pub struct Shouting {
    pub metadata: ObjectMeta,
    pub spec: Size,
}

#[derive(Schema)]
pub struct Size {
    pub size: i32,
}
