use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// What used to go through with a wrong schema: a second default that replaced the first,
/// a range with no value in it, two variants with one JSON name, and a kind that is a tuple
/// struct (a CRD without spec).
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Knob {
    pub metadata: ObjectMeta,
    pub spec: KnobSpec,
}

#[derive(Schema)]
pub struct KnobSpec {
    #[schema(default = 1)]
    #[schema(default = 2)]
    pub size: i32,
    #[validation(minimum = 5, maximum = 5, exclusive_minimum)]
    pub level: i32,
    pub mode: Mode,
}

#[derive(Schema)]
pub enum Mode {
    #[serde(rename = "x")]
    Fast,
    #[serde(rename = "x")]
    Slow,
}

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Dial(pub ObjectMeta);
