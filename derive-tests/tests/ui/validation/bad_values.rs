use operator_derive::Schema;

#[derive(Schema)]
pub struct Spec {
    #[validation(multiple_of = 0)]
    pub step: i32,
    #[validation(enum = [])]
    pub mode: String,
    #[validation(type = "int")]
    pub count: i32,
    #[validation(minimum = 1, minimum = 2)]
    pub size: i32,
    #[validation(minimum = 1.5)]
    pub whole: i32,
    #[validation(unique_items = 1)]
    pub tags: Vec<String>,
    #[validation(min_items = 1, min_items = 1, items(minimum = 0, bogus = 1))]
    pub ports: Vec<i32>,
    #[validation(a::b = 1)]
    pub path: String,
}

fn main() {}
