//! Kubernetes types recognised by their schema: a sub-schema that is exactly what
//! operator-gen writes for a k8s-openapi type becomes that type.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::api::apiextensions::v1::JSONSchemaProps;
use crate::known_types::{EmbeddedObjectMeta, schema_for_path, table_paths};

/// The schemas of the known types, by a signature that cuts the comparisons down.
pub struct KnownTypes {
    by_signature: HashMap<String, Vec<(String, JSONSchemaProps)>>,
}

/// What two schemas must share to be compared at all.
fn signature(s: &JSONSchemaProps) -> String {
    let keys: Vec<&String> = s.properties.iter().flat_map(|p| p.keys()).collect();
    format!(
        "{:?}|{keys:?}|{}|{:?}",
        s.type_,
        s.any_of.is_some(),
        s.pattern
    )
}

/// Stable API versions before beta and alpha ones, then shorter paths: the type a reader
/// expects when two have one schema.
fn rank(path: &str) -> (bool, bool, usize, String) {
    (
        path.contains("alpha"),
        path.contains("beta"),
        path.len(),
        path.to_string(),
    )
}

impl KnownTypes {
    /// [`KnownTypes::new`], built once per process for each shape of `ObjectMeta`.
    pub fn shared(meta: EmbeddedObjectMeta) -> Arc<KnownTypes> {
        type Built = Vec<(EmbeddedObjectMeta, Arc<KnownTypes>)>;
        static BUILT: OnceLock<Mutex<Built>> = OnceLock::new();
        let mut built = BUILT
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((_, known)) = built.iter().find(|(m, _)| *m == meta) {
            return Arc::clone(known);
        }
        let known = Arc::new(KnownTypes::new(meta));
        built.push((meta, Arc::clone(&known)));
        known
    }

    /// Every table type and the special ones (`Condition`, `Quantity`, `ByteString`), with
    /// each `ObjectMeta` below them as `meta` shapes it (as the CRD will be generated).
    pub fn new(meta: EmbeddedObjectMeta) -> Self {
        let mut paths: Vec<String> = table_paths().map(str::to_string).collect();
        paths.extend(
            [
                "k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition",
                "k8s_openapi::apimachinery::pkg::api::resource::Quantity",
                "k8s_openapi::ByteString",
            ]
            .map(String::from),
        );
        let mut by_signature: HashMap<String, Vec<(String, JSONSchemaProps)>> = HashMap::new();
        for path in paths {
            let segments: Vec<String> = path.split("::").map(String::from).collect();
            let Some(schema) = schema_for_path(&segments, meta) else {
                continue;
            };
            // A bare object or a preserved one is no type a reader would recognise.
            if schema.properties.as_ref().is_none_or(|p| p.is_empty()) && schema.pattern.is_none() {
                continue;
            }
            let list = by_signature.entry(signature(&schema)).or_default();
            if !list.iter().any(|(p, _)| *p == path) {
                list.push((path, schema));
            }
        }
        for list in by_signature.values_mut() {
            list.sort_by_key(|(path, _)| rank(path));
        }
        KnownTypes { by_signature }
    }

    /// The path of the known type whose schema `s` is: exactly, but for the description of
    /// a field, which wins over the type's (`field`).
    pub fn find(&self, s: &JSONSchemaProps, field: bool) -> Option<String> {
        let candidates = self.by_signature.get(&signature(s))?;
        candidates.iter().find_map(|(path, schema)| {
            let same = if field && s.description.is_some() && s.description != schema.description {
                let mut expected = schema.clone();
                expected.description.clone_from(&s.description);
                expected == *s
            } else {
                schema == s
            };
            same.then(|| path.clone())
        })
    }
}
