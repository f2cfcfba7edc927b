//! Typed objects become text: JSON the way Go writes it, and YAML documents through the
//! [`yaml`] writer. The generators render their files with it; where the files
//! go is the [`sink`](crate::sink)'s business.

use crate::api::Resource;
use crate::api::apiextensions::v1::CustomResourceDefinition;
use serde_json::Value;

pub(crate) mod yaml;

use yaml::Node;

/// Serialises an object ([`crate::api`]'s or k8s-openapi's) to JSON the way Go's
/// encoding/json would write it: integral floats (minimum: 0) print as integers.
pub fn to_json<T: serde::Serialize>(obj: &T) -> Value {
    let mut v = serde_json::to_value(obj).expect("the objects it writes always serialise");
    integral_floats_to_ints(&mut v);
    v
}

fn integral_floats_to_ints(v: &mut Value) {
    match v {
        Value::Number(n) => *n = yaml::integral(n.clone()),
        Value::Array(items) => items.iter_mut().for_each(integral_floats_to_ints),
        Value::Object(map) => map.values_mut().for_each(integral_floats_to_ints),
        _ => {}
    }
}

/// A top-level object as a YAML document (its serialisation carries its `apiVersion` and
/// `kind`).
pub(crate) fn document<T: serde::Serialize + Resource>(obj: &T) -> Node {
    // Straight to the writer's tree, without a JSON value in between: for a large API
    // this is most of the work of rendering.
    yaml::to_node(obj)
}

/// The YAML of one CRD, exactly as it is written to disk.
pub fn crd_yaml(crd: &CustomResourceDefinition) -> String {
    yaml::to_yaml_stream(&[document(crd)])
}
