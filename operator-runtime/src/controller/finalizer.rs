//! The finalizer around a controller's reconcile: added before the first reconcile of an
//! object, the cleanup run once the object is being deleted, removed when the cleanup
//! succeeded.
//!
//! Unlike kube's `finalizer` helper, a new object is reconciled in the same pass that adds the
//! finalizer, with the object the API server returned: controller-runtime authors write it
//! that way (add, update, go on). Ending the pass after the add, as kube's helper does, puts
//! the object back behind every other object queued meanwhile and its debounce: when many
//! objects arrive at once, nothing they need is created until every one of them has its
//! finalizer.

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use json_patch::jsonptr::PointerBuf;
use json_patch::{PatchOperation, RemoveOperation, TestOperation};
use kube::api::{Api, Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt as _};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tracing::debug;

use super::Error;
use super::watches::strip;

/// When to try again to add the finalizer after the API server said the cached copy is
/// older than the object (a conflict): by then the watch has most likely delivered the
/// newer one.
pub(super) const STALE_RETRY: Duration = Duration::from_millis(500);

/// What the pass does with an object, given its finalizers and whether it is being deleted.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Step {
    /// It carries the finalizer and lives: reconcile it.
    Reconcile,
    /// It lives without the finalizer: add it, then reconcile.
    Add,
    /// It is being deleted and carries the finalizer at this index: clean up, then remove it.
    Cleanup(usize),
    /// It is being deleted without the finalizer: nothing of ours is left to do.
    Gone,
}

pub(super) fn step<K: Resource>(obj: &K, name: &str) -> Step {
    let held = obj.finalizers().iter().position(|f| f == name);
    match (obj.meta().deletion_timestamp.is_some(), held) {
        (false, Some(_)) => Step::Reconcile,
        (false, None) => Step::Add,
        (true, Some(index)) => Step::Cleanup(index),
        (true, None) => Step::Gone,
    }
}

/// A merge patch that adds `name` to the object's finalizers, on the condition that the
/// object is still at the resourceVersion of this copy: the list is replaced whole, so a
/// finalizer someone else added meanwhile must not be dropped. The API server answers a
/// newer object with a conflict.
pub(super) fn add_patch<K: Resource>(obj: &K, name: &str) -> Value {
    let mut finalizers = obj.finalizers().to_vec();
    finalizers.push(name.to_string());
    let mut metadata = json!({ "finalizers": finalizers });
    if let Some(version) = obj.resource_version() {
        metadata["resourceVersion"] = Value::String(version);
    }
    json!({ "metadata": metadata })
}

/// A JSON patch that removes the finalizer at `index`, failing (rather than removing another
/// one) if the list moved since this copy. Not a resourceVersion condition: the cleanup
/// usually writes the status, which changes the version but not the finalizers.
pub(super) fn remove_patch(index: usize, name: &str) -> json_patch::Patch {
    let path = PointerBuf::from_tokens(["metadata", "finalizers", &index.to_string()]);
    json_patch::Patch(vec![
        PatchOperation::Test(TestOperation {
            path: path.clone(),
            value: Value::String(name.to_string()),
        }),
        PatchOperation::Remove(RemoveOperation { path }),
    ])
}

/// Whether the API server refused a write because the object changed since the copy it was
/// based on.
pub(super) fn conflict(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 409)
}

/// One pass over `obj` with the finalizer `name`: `reconcile` while it lives (once the
/// finalizer is on), `cleanup` once it is being deleted, then the finalizer removed.
pub(super) async fn finalized<K, E, R, C, RFut, CFut>(
    api: &Api<K>,
    name: &str,
    obj: Arc<K>,
    reconcile: R,
    cleanup: C,
) -> Result<Action, Error<E>>
where
    K: Resource + Clone + Debug + Serialize + DeserializeOwned,
    E: std::error::Error + 'static,
    R: FnOnce(Arc<K>) -> RFut,
    C: FnOnce(Arc<K>) -> CFut,
    RFut: Future<Output = Result<Action, E>>,
    CFut: Future<Output = Result<Action, E>>,
{
    if name.trim().is_empty() {
        return Err(Error::InvalidFinalizer(name.to_string()));
    }
    let object = obj.meta().name.clone().ok_or(Error::UnnamedObject)?;
    match step(obj.as_ref(), name) {
        Step::Reconcile => reconcile(obj).await.map_err(Error::Reconcile),
        Step::Gone => Ok(Action::await_change()),
        Step::Cleanup(index) => {
            // The finalizer stays unless the cleanup succeeded.
            let action = cleanup(obj).await.map_err(Error::Cleanup)?;
            api.patch(
                &object,
                &PatchParams::default(),
                &Patch::Json::<()>(remove_patch(index, name)),
            )
            .await
            .map_err(Error::RemoveFinalizer)?;
            Ok(action)
        }
        Step::Add => {
            let patch = Patch::Merge(add_patch(obj.as_ref(), name));
            match api.patch(&object, &PatchParams::default(), &patch).await {
                Ok(mut added) => {
                    strip(&mut added);
                    reconcile(Arc::new(added)).await.map_err(Error::Reconcile)
                }
                // The cache is behind the object: not a failure, and no pass on a copy that
                // old.
                Err(e) if conflict(&e) => {
                    debug!(
                        object,
                        "the cached copy is behind; adding the finalizer again soon"
                    );
                    Ok(Action::requeue(STALE_RETRY))
                }
                Err(e) => Err(Error::AddFinalizer(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use kube::api::ObjectMeta;

    use super::*;

    fn object(finalizers: &[&str], deleting: bool) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some("a".into()),
                resource_version: Some("42".into()),
                finalizers: Some(finalizers.iter().map(|f| f.to_string()).collect()),
                deletion_timestamp: deleting.then(|| Time(Default::default())),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn the_step_follows_the_finalizer_and_the_deletion() {
        let ours = "example.com/ours";
        assert_eq!(step(&object(&[ours], false), ours), Step::Reconcile);
        assert_eq!(step(&object(&["other.io/x"], false), ours), Step::Add);
        assert_eq!(step(&object(&[], false), ours), Step::Add);
        assert_eq!(
            step(&object(&["other.io/x", ours], true), ours),
            Step::Cleanup(1)
        );
        assert_eq!(step(&object(&["other.io/x"], true), ours), Step::Gone);
    }

    #[test]
    fn the_add_keeps_the_other_finalizers_and_holds_to_the_version() {
        let patch = add_patch(&object(&["other.io/x"], false), "example.com/ours");
        assert_eq!(
            patch,
            json!({"metadata": {
                "finalizers": ["other.io/x", "example.com/ours"],
                "resourceVersion": "42",
            }})
        );
    }

    #[test]
    fn the_removal_tests_the_index_it_removes() {
        let patch = serde_json::to_value(remove_patch(1, "example.com/ours")).unwrap();
        assert_eq!(
            patch,
            json!([
                {"op": "test", "path": "/metadata/finalizers/1", "value": "example.com/ours"},
                {"op": "remove", "path": "/metadata/finalizers/1"},
            ])
        );
    }
}
