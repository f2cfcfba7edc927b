use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Rules the API server cannot compile: CEL sees a value through its schema's type, and a
/// serde_json::Value has none (nor has a list of them); and a one-of group whose field has
/// a default, which the API server fills in, so the group can never hold another field.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Note {
    pub metadata: ObjectMeta,
    pub spec: NoteSpec,
}

#[derive(Schema)]
#[validation(at_most_one_of = ["extra", "text"], exactly_one_of = ["title", "body"])]
pub struct NoteSpec {
    #[validation(immutable)]
    pub payload: serde_json::Value,
    #[validation(cel(rule = "self.size() < 10"))]
    pub attachments: Vec<serde_json::Value>,
    pub extra: Option<serde_json::Value>,
    pub text: Option<String>,
    #[schema(default = "untitled")]
    pub title: Option<String>,
    pub body: Option<String>,
}
