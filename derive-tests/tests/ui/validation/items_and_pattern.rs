use operator_derive::Schema;

#[derive(Schema)]
pub struct Spec {
    #[validation(items(max_length = 5))]
    pub sizes: Vec<i32>,
    #[validation(pattern = "[unclosed")]
    pub name: String,
}

fn main() {}
