use operator_derive::Schema;

#[derive(Schema)]
#[validation(optional)]
#[schema(default = 1)]
pub struct Spec {
    pub size: i32,
}

fn main() {}
