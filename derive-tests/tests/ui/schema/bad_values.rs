use operator_derive::Schema;

#[derive(Schema)]
pub struct Spec {
    #[schema(list_type = "bag")]
    pub items: Vec<String>,
    #[schema(map_type = "loose")]
    pub labels: std::collections::BTreeMap<String, String>,
    #[schema(nullable = false)]
    pub name: String,
    #[schema(list_type = "map", list_map_keys = "")]
    pub entries: Vec<String>,
    #[schema(default = Some(1))]
    pub size: i32,
    #[schema(titel = "x")]
    pub other: String,
}

fn main() {}
