//! A regex the crate declares, named by a validation crate's attribute: the CRD carries its
//! pattern, so the API server refuses what the operator's check refuses.

use std::sync::LazyLock;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::{CustomResource, Schema};
use regex::Regex;
use serde::{Deserialize, Serialize};

lazy_static::lazy_static! {
    static ref SEMVER: Regex = Regex::new(r"^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$").unwrap();
}

static CHANNEL: LazyLock<Regex> = LazyLock::new(|| Regex::new("^[a-z]+$").expect("a valid regex"));

#[derive(CustomResource, Clone, Debug)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Release {
    pub metadata: ObjectMeta,
    pub spec: ReleaseSpec,
}

#[derive(Schema, garde::Validate, Clone, Debug, Serialize, Deserialize)]
pub struct ReleaseSpec {
    #[garde(pattern(*SEMVER))]
    pub version: String,
    #[garde(pattern(CHANNEL))]
    pub channel: String,
}

fn main() {
    use garde::Validate as _;
    let crd = Release::crd();
    let schema = serde_json::to_value(&crd.spec.versions[0].schema).unwrap();
    let spec = &schema["openAPIV3Schema"]["properties"]["spec"]["properties"];
    assert_eq!(spec["version"]["pattern"], SEMVER.as_str());
    assert_eq!(spec["channel"]["pattern"], CHANNEL.as_str());

    let good = ReleaseSpec { version: "1.2.3".into(), channel: "stable".into() };
    assert!(good.validate().is_ok());
    let bad = ReleaseSpec { version: "SEMVER".into(), channel: "stable".into() };
    assert!(bad.validate().is_err());
}
