use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::{CustomResource, Schema};

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Generic<T> {
    pub metadata: ObjectMeta,
    pub spec: T,
}

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub enum NotAStruct {
    A,
}

#[derive(CustomResource)]
#[resource(version = "v1")]
pub struct NoGroup {
    pub metadata: ObjectMeta,
}

#[derive(Schema)]
#[resource(group = "test.example.com", version = "v1")]
pub struct NotARoot {
    pub size: i32,
}

fn main() {}
