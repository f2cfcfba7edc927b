use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Rules the API server would refuse for their estimated cost, each reported at its marker
/// with the factor the API server prints and what to bound: `immutable` on a string without
/// `max_length` in a list without `max_items` (the list's size comes from the request size
/// limit), and a rule on the root that walks an unbounded list of unbounded strings.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
#[validation(cel(rule = "self.spec.tags.all(t, t.startsWith('a') && t.endsWith('z') && t.contains('m'))"))]
pub struct Tagged {
    pub metadata: ObjectMeta,
    pub spec: TaggedSpec,
}

#[derive(Schema)]
pub struct TaggedSpec {
    pub tags: Vec<String>,
    #[schema(list_type = "map", list_map_keys = "name")]
    pub members: Vec<Member>,
}

#[derive(Schema)]
pub struct Member {
    pub name: String,
    #[validation(immutable)]
    pub role: String,
}
