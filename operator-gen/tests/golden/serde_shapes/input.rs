//! serde decides JSON names and which fields are required.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

/// Gadget exercises serde attributes.
#[derive(CustomResource)]
#[resource(group = "test.example.com", version = "v1beta1", kind = "Gadget", scope = "Cluster")]
#[subresource(status)]
pub struct Gadget {
    pub metadata: ObjectMeta,
    pub spec: GadgetSpec,
    pub status: Option<GadgetStatus>,
}

#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct GadgetSpec {
    pub snake_case_name: String,
    #[serde(rename = "explicit-name")]
    pub renamed: bool,
    #[serde(skip)]
    pub internal: String,
    pub r#type: Kind,
    #[serde(flatten)]
    pub common: Common,
    pub boxed: Option<Box<Inner>>,
    pub wrapper: Wrapper,
    pub transparent: Transparent,
    pub started: Option<Time>,
    pub port: IntOrString,
    pub memory: Quantity,
    pub extra: Option<serde_json::Value>,
    pub matrix: Vec<Vec<u32>>,
    pub fixed: [u8; 4],
}

/// Kind is a string enum.
#[derive(Schema)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    FirstKind,
    #[serde(rename = "other")]
    SecondKind,
    #[serde(skip)]
    Hidden,
}

/// Common fields, flattened into the parent.
#[derive(Schema)]
pub struct Common {
    pub shared: String,
    pub maybe: Option<String>,
}

/// Inner is reached through Option<Box<_>>.
#[derive(Schema)]
#[serde(default)]
pub struct Inner {
    pub value: i8,
}

/// Wrapper is a newtype: it serialises as its content.
#[derive(Schema)]
pub struct Wrapper(pub String);

/// Transparent has one field and serialises as it.
#[derive(Schema)]
#[serde(transparent)]
pub struct Transparent {
    pub value: u64,
}

#[derive(Schema)]
pub struct GadgetStatus {
    #[serde(default)]
    pub ready: bool,
}
