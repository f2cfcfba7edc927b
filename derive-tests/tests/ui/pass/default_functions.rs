//! A CRD default written beside the serde default function it restates: the derive writes
//! a test (`#[cfg(test)]`, so not in this program) over `drifted()`, which lists every field
//! whose literal is not what its function returns.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::{CustomResource, Schema};
use serde::{Deserialize, Serialize};

mod defaults {
    pub fn image() -> String {
        "memcached:1.6.26-alpine".into()
    }
    pub fn replicas() -> Option<i32> {
        Some(3)
    }
    pub fn ports() -> Vec<u16> {
        vec![11211]
    }
}

#[derive(CustomResource, Clone, Debug)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Cache {
    pub metadata: ObjectMeta,
    pub spec: CacheSpec,
}

#[derive(Schema, Clone, Debug, Serialize, Deserialize)]
pub struct CacheSpec {
    #[serde(default = "defaults::image")]
    #[schema(default = "memcached:1.6.26-alpine")]
    pub image: String,
    #[serde(default = "defaults::replicas")]
    #[schema(default = 3)]
    pub replicas: Option<i32>,
    #[serde(default = "CacheSpec::verbose")]
    #[schema(default = false)]
    pub verbose: bool,
    #[serde(default = "defaults::ports")]
    #[schema(no_default)]
    pub ports: Vec<u16>,
}

impl CacheSpec {
    fn verbose() -> bool {
        false
    }
}

/// The same fields with literals that drifted from their functions.
#[derive(Schema, Clone, Debug, Serialize, Deserialize)]
pub struct DriftedSpec {
    #[serde(default = "defaults::image")]
    #[schema(default = "memcached:1.6")]
    pub image: String,
    #[serde(default = "defaults::replicas")]
    #[schema(default = 3)]
    pub replicas: Option<i32>,
    #[serde(default = "defaults::ports")]
    #[schema(default = [11211, 11212])]
    pub ports: Vec<u16>,
}

#[derive(CustomResource, Clone, Debug)]
#[resource(group = "test.example.com", version = "v1")]
pub struct Drifted {
    pub metadata: ObjectMeta,
    pub spec: DriftedSpec,
}

fn main() {
    assert!(__operator_rs_default_functions_of_CacheSpec::drifted().is_empty());
    let crd = serde_json::to_value(Cache::crd()).unwrap();
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"];
    assert_eq!(spec["image"]["default"], "memcached:1.6.26-alpine");
    assert!(spec["ports"]["default"].is_null());

    assert_eq!(
        __operator_rs_default_functions_of_DriftedSpec::drifted(),
        [
            "`DriftedSpec.image`: #[schema(default = \"memcached:1.6\")] is the CRD's default, but `defaults::image()`, which serde fills the field with, writes \"memcached:1.6.26-alpine\"; make the two agree",
            "`DriftedSpec.ports`: #[schema(default = [11211,11212])] is the CRD's default, but `defaults::ports()`, which serde fills the field with, writes [11211]; make the two agree",
        ]
    );
}
