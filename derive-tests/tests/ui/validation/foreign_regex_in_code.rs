use operator_derive::Schema;
use regex::Regex;

// A regular expression written as Rust code in the attribute: the CRD cannot carry it.
#[derive(Schema, garde::Validate)]
pub struct Spec {
    #[garde(pattern(Regex::new("^[a-z]+$").unwrap()))]
    pub channel: String,
}

fn main() {}
