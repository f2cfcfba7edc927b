use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

// Print columns and selectable fields that name what the schema does not have: a column
// the API server would accept and kubectl would print as <none> in every row, and
// selectable fields the API server would refuse when the CRD is installed.
#[derive(CustomResource)]
#[resource(
    group = "cache.example.com",
    version = "v1",
    kind = "Cluster",
    selectable_fields = [".spec.members", ".spec.storage.size", ".metadata.name", ".spec.peers.name"]
)]
#[subresource(status)]
#[printcolumn(name = "Ready", type = "integer", json_path = ".status.readyMembers")]
#[printcolumn(name = "Leader", type = "string", json_path = ".status.leader.address")]
#[printcolumn(name = "Peer", type = "string", json_path = ".spec.peers[0].hostname")]
#[printcolumn(name = "Size", type = "integer", json_path = ".spec.members")]
pub struct Cluster {
    pub metadata: ObjectMeta,
    pub spec: ClusterSpec,
    pub status: Option<ClusterStatus>,
}

#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSpec {
    pub members: i32,
    pub storage: Storage,
    pub peers: Vec<Peer>,
}

#[derive(Schema)]
pub struct Storage {
    pub class: String,
}

#[derive(Schema)]
pub struct Peer {
    pub name: String,
    pub port: i32,
}

#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterStatus {
    pub ready_replicas: i32,
    pub leader: Option<String>,
}
