use std::sync::LazyLock;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::{CustomResource, Schema};
use regex::Regex;

const PREFIX: &str = "v";

// The regex the attribute names is built when the operator runs: the CRD cannot carry it.
static VERSION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!("^{PREFIX}[0-9]+$")).unwrap());

#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Release {
    pub metadata: ObjectMeta,
    pub spec: ReleaseSpec,
}

#[derive(Schema, garde::Validate, serde::Serialize, serde::Deserialize)]
pub struct ReleaseSpec {
    #[garde(pattern(VERSION))]
    pub version: String,
}

fn main() {}
