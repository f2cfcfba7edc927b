use operator_derive::Schema;

#[derive(Schema)]
pub struct Spec {
    #[validation(min_length = "ten")]
    pub name: String,
}

fn main() {}
