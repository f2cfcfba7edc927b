// A map keyed by an enum gets a rule that holds its keys to the enum's names. Under a
// map with no bound on its size the rule may run on more values than the API server's
// budget allows: the error names that rule, where it is, and the unbounded map above it.
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::{CustomResource, Schema};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

#[derive(CustomResource, Serialize, Deserialize)]
#[resource(group = "fleet.example.com", version = "v1", namespaced)]
pub struct Fleet {
    pub metadata: ObjectMeta,
    pub spec: FleetSpec,
}

#[derive(Schema, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetSpec {
    pub squads: HashMap<String, Squad>,
}

#[derive(Schema, Serialize, Deserialize)]
pub struct Squad {
    #[validation(max_properties = 3)]
    pub logs: BTreeMap<Part, String>,
}

#[derive(Schema, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "camelCase")]
pub enum Part {
    Setup,
    Main,
    Sidecar,
}
