use operator_derive::Schema;

#[derive(Schema)]
pub struct Spec {
    #[validation(minimun = 0)]
    pub size: i32,
}

fn main() {}
