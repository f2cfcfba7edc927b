use operator_derive::Schema;

#[derive(Schema)]
pub struct Spec {
    #[schema(list_map_keys = "name")]
    pub items: Vec<String>,
    #[schema(list_type = "map")]
    pub others: Vec<String>,
    #[schema(map_type = "atomic")]
    pub name: String,
}

fn main() {}
