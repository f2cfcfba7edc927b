use operator_derive::Schema;

#[derive(Schema)]
pub struct Spec {
    #[validation(minimum = 0)]
    pub name: String,
}

fn main() {}
