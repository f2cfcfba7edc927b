// A duration that goes over the wire as "30s" through serde code written by hand: its
// fields say nothing about its JSON, so without markers the generator refuses it at the
// impl, and the serde_with derive that goes through FromStr is refused the same way.
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use operator_derive::{CustomResource, Schema};
use serde::{Deserialize, Serialize};

pub struct Interval {
    seconds: u64,
}

impl Serialize for Interval {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}s", self.seconds))
    }
}

#[derive(serde_with::SerializeDisplay, serde_with::DeserializeFromStr)]
pub struct Release {
    major: u32,
    minor: u32,
}

#[derive(Schema, Serialize, Deserialize)]
pub struct ProbeSpec {
    pub every: Interval,
    pub release: Release,
}

#[derive(CustomResource, Serialize, Deserialize)]
#[resource(group = "probes.example.com", version = "v1")]
pub struct Probe {
    pub metadata: ObjectMeta,
    pub spec: ProbeSpec,
}
