use operator_derive::Schema;

#[derive(Schema)]
pub struct Spec {
    #[validation(minimum = 10, maximum = 1)]
    pub size: i32,
    #[validation(max_items = 3)]
    pub tags: Option<String>,
}


#[derive(Schema)]
pub enum Source {
    #[validation(min_length = 1)]
    Image(String),
}

fn main() {}
