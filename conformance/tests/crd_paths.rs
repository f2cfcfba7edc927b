//! operator-gen's checks of selectable fields against the API server's.
//!
//! operator-gen refuses a selectable field the API server would refuse when the CRD is
//! installed (a CRD that fails there fails whole, far from the marker). This test holds the
//! two to each other on the local kube-apiserver: for each path, the generator's verdict on
//! `selectable_fields = [path]`, and the API server's on the same CRD with that selectable
//! field (a server-side dry run of its creation). The two must agree on every path here, and
//! each path has the verdict written beside it, so a change on either side shows.
//!
//! It needs the control plane, so it is `#[ignore]`d for plain `cargo test`; `cargo xtask
//! test` runs it.

use std::path::{Path, PathBuf};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

/// A kind with scalars of each type, an object, a list of objects, a list of strings, maps of
/// strings and of objects, an int-or-string and a field of any type.
const API: &str = r#"
use std::collections::BTreeMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

/// Shop is a kind for the selectable-field checks.
#[derive(CustomResource)]
#[resource(group = "paths.example.com", version = "v1", kind = "Shop"SELECTABLE)]
#[subresource(status)]
pub struct Shop {
    pub metadata: ObjectMeta,
    pub spec: ShopSpec,
    pub status: Option<ShopStatus>,
}

/// ShopSpec is what the shop is.
#[derive(Schema)]
#[serde(rename_all = "camelCase")]
pub struct ShopSpec {
    pub owner: String,
    pub size: i32,
    pub large: i64,
    pub open: bool,
    pub floor: i32,
    pub code: String,
    pub kind: ShopKind,
    pub price: f64,
    pub address: Address,
    pub items: Vec<Item>,
    pub tags: Vec<String>,
    pub labels: BTreeMap<String, String>,
    pub rooms: BTreeMap<String, Address>,
    pub port: IntOrString,
    #[schema(schemaless, preserve_unknown_fields)]
    pub extra: Option<serde_json::Value>,
}

/// ShopKind is a string enum.
#[derive(Schema)]
pub enum ShopKind { Small, Big }

/// Address is an object.
#[derive(Schema)]
pub struct Address {
    pub city: String,
}

/// Item is a list element.
#[derive(Schema)]
pub struct Item {
    pub name: String,
}

/// ShopStatus is what the shop reports.
#[derive(Schema)]
pub struct ShopStatus {
    pub ready: Option<bool>,
}
"#;

fn generate(selectable: &[&str]) -> Result<CustomResourceDefinition, String> {
    let list = if selectable.is_empty() {
        String::new()
    } else {
        let quoted: Vec<String> = selectable.iter().map(|p| format!("{p:?}")).collect();
        format!(", selectable_fields = [{}]", quoted.join(", "))
    };
    let text = API.replace("SELECTABLE", &list);
    let options = operator_gen::Options {
        allow_dangerous_types: true,
        ..Default::default()
    };
    let texts = vec![(PathBuf::from("src/api.rs"), text)];
    let generated = operator_gen::generate_from_texts(Path::new("src"), texts, &options)
        .map_err(|e| e.to_string())?;
    let crd = operator_gen::output::to_json(&generated.crds[0]);
    Ok(serde_json::from_value(crd).unwrap())
}

/// The API server's verdict on `crd` with these selectable fields: `Err` with its message
/// when it refuses the creation.
async fn api_server(
    crds: &Api<CustomResourceDefinition>,
    crd: &CustomResourceDefinition,
    selectable: &[&str],
) -> Result<(), String> {
    let mut value = serde_json::to_value(crd).unwrap();
    value["spec"]["versions"][0]["selectableFields"] = Value::Array(
        selectable
            .iter()
            .map(|p| json!({ "jsonPath": p }))
            .collect(),
    );
    let crd: CustomResourceDefinition = serde_json::from_value(value).unwrap();
    let dry_run = PostParams {
        dry_run: true,
        ..Default::default()
    };
    match crds.create(&dry_run, &crd).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) => Err(status.message),
        Err(e) => panic!("the dry run did not reach a verdict: {e}"),
    }
}

#[tokio::test]
#[ignore = "needs the local control plane; run by cargo xtask test"]
async fn selectable_field_refusals_agree_with_the_api_server() {
    let env = envtest::TestEnv::connect().await.unwrap();
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let base = generate(&[]).expect("the kind without selectable fields generates");
    // The API server's limit, and one more.
    const EIGHT: [&str; 8] = [
        ".spec.owner",
        ".spec.size",
        ".spec.large",
        ".spec.open",
        ".spec.kind",
        ".spec.address.city",
        ".status.ready",
        ".spec.floor",
    ];
    let nine: Vec<&str> = EIGHT.iter().copied().chain([".spec.code"]).collect();
    // (paths, whether operator-gen refuses them)
    let cases: &[(&[&str], bool)] = &[
        (&[".spec.owner"], false),
        (&[".spec.size"], false),
        (&[".spec.large"], false),
        (&[".spec.open"], false),
        (&[".spec.kind"], false),
        (&[".spec.address.city"], false),
        (&[".status.ready"], false),
        (&EIGHT, false),
        (&[".spec.labels.a"], false),
        (&[".spec.rooms.a.city"], false),
        (&[".spec.price"], true),
        (&[".spec.port"], true),
        (&[".spec.extra"], true),
        (&[".spec.extra.a"], true),
        (&[".spec.rooms.a"], true),
        (&[".spec.rooms.a.street"], true),
        (&[".spec.address"], true),
        (&[".spec.items"], true),
        (&[".spec.tags"], true),
        (&[".spec"], true),
        (&[".spec.ownr"], true),
        (&[".spec.nothing.here"], true),
        (&[".spec.owner.first"], true),
        (&[".spec.items.name"], true),
        (&[".spec.items[0].name"], true),
        (&[".spec.tags[0]"], true),
        (&[".metadata.name"], true),
        (&[".metadata.labels.app"], true),
        (&[".spec.owner", ".spec.owner"], true),
        (&nine, true),
    ];
    let mut disagreements = Vec::new();
    for (paths, refused) in cases {
        let ours = generate(paths);
        let theirs = api_server(&crds, &base, paths).await;
        if ours.is_err() != *refused {
            disagreements.push(format!("{paths:?}: operator-gen says {ours:?}"));
        }
        if ours.is_err() != theirs.is_err() {
            disagreements.push(format!(
                "{paths:?}: operator-gen {}, the API server {}",
                verdict(&ours.map(|_| ())),
                verdict(&theirs)
            ));
        }
    }
    assert!(
        disagreements.is_empty(),
        "operator-gen and the API server disagree:\n{}",
        disagreements.join("\n")
    );
}

fn verdict(result: &Result<(), String>) -> String {
    match result {
        Ok(()) => "accepts".into(),
        Err(message) => format!("refuses ({message})"),
    }
}
