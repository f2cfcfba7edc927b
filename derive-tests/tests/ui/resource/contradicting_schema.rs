use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::{CustomResource, Schema};

// What the API server would refuse, refused at compile time at the marker: a default that
// breaks the field's own bound, and a list-map key that is not a field of the items.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Pond {
    pub metadata: ObjectMeta,
    pub spec: PondSpec,
}

#[derive(Schema, serde::Serialize, serde::Deserialize)]
pub struct PondSpec {
    #[validation(maximum = 10)]
    #[schema(default = 11)]
    pub depth: i32,
    #[schema(list_type = "map", list_map_keys = "name")]
    pub ducks: Vec<Duck>,
}

#[derive(Schema, serde::Serialize, serde::Deserialize)]
pub struct Duck {
    pub id: String,
}

fn main() {}
