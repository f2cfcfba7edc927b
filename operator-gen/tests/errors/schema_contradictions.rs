use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use std::collections::BTreeMap;

/// What the API server refused, or what silently lost a field, found by the generative
/// test: defaults and examples that break their own schema, list-map keys it cannot use,
/// rules on oldSelf where old and new items cannot be paired, and a flattened field that
/// takes another field's JSON name.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Pond {
    pub metadata: ObjectMeta,
    pub spec: PondSpec,
}

#[derive(Schema)]
pub struct PondSpec {
    #[validation(maximum = 10)]
    #[schema(default = 11)]
    pub depth: i32,
    #[validation(enum = ["clear", "murky"])]
    #[schema(default = "green")]
    pub water: String,
    #[validation(pattern = "^[a-z]+$")]
    #[schema(example = "Duck 1")]
    pub bird: String,
    #[schema(default = json!({"kind": "carp"}))]
    pub fish: Fish,
    #[schema(default = json!({"count": 1, "colour": "red"}))]
    pub frogs: Option<Frogs>,
    #[schema(list_type = "set")]
    #[schema(default = ["a", "a"])]
    pub tags: Vec<String>,
    #[schema(list_type = "map", list_map_keys = "name")]
    pub ducks: Vec<Duck>,
    #[schema(list_type = "map", list_map_keys = "age")]
    pub geese: Vec<Duck>,
    #[schema(list_type = "set")]
    pub swans: Vec<Duck>,
    pub reeds: Vec<Reed>,
    pub rocks: BTreeMap<String, Reed>,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Schema)]
pub struct Fish {
    pub kind: String,
    pub size: i32,
}

#[derive(Schema)]
pub struct Frogs {
    pub count: i32,
}

#[derive(Schema)]
pub struct Duck {
    pub id: String,
    pub age: Option<i32>,
}

#[derive(Schema)]
pub struct Reed {
    #[validation(immutable)]
    pub height: i32,
}

#[derive(Schema)]
pub struct Extra {
    pub depth: i64,
}
