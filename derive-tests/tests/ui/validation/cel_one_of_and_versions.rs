use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::{CustomResource, Schema};

#[derive(Schema)]
#[validation(exactly_one_of = ["a"])]
pub struct Spec {
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
}

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1", labels = ["tier"], deprecated = 3)]
pub struct Thing {
    pub metadata: ObjectMeta,
    pub spec: Spec,
}

fn main() {}
