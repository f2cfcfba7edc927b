//! The JSON Patch a defaulting webhook answers with.
//!
//! What a defaulter changed is the difference between the typed object serialized before
//! and after it ran. That difference cannot be sent as it is: the API server applies the
//! patch to the object *it* sent, which can differ from the typed serialization (fields the
//! Rust type does not know are missing from it; fields the request left out can appear
//! there, filled in by `#[serde(default)]` or serialized as `null`). A diff between the raw
//! object and the typed one would remove the unknown fields; a diff between the two typed
//! serializations could name paths the raw object lacks. So the changes are carried over
//! onto a copy of the raw object, key by key, leaving everything the defaulter did not
//! touch as the API server sent it, and the patch is the diff from the raw object to that
//! copy: it applies to the raw object by construction.

use serde_json::Value;

/// The patch that makes `raw` what the handler made of it: the changes from `before` to
/// `after`, made where they belong in `raw`. Empty when the handler changed nothing.
pub(crate) fn defaulting_patch(raw: &Value, before: &Value, after: &Value) -> json_patch::Patch {
    if before == after {
        return json_patch::Patch(Vec::new());
    }
    let mut target = raw.clone();
    carry_over(&mut target, before, after);
    json_patch::diff(raw, &target)
}

/// Makes in `target` the changes that turn `before` into `after`.
fn carry_over(target: &mut Value, before: &Value, after: &Value) {
    if before == after {
        return;
    }
    match (target, before, after) {
        (Value::Object(target), Value::Object(before), Value::Object(after)) => {
            for (key, was) in before {
                match (after.get(key), target.get_mut(key)) {
                    (None, _) => {
                        target.remove(key);
                    }
                    (Some(now), Some(slot)) => carry_over(slot, was, now),
                    // The typed object had a value the request did not (a serde default):
                    // only a change to it is the handler's.
                    (Some(now), None) => {
                        if was != now {
                            target.insert(key.clone(), now.clone());
                        }
                    }
                }
            }
            for (key, now) in after {
                if !before.contains_key(key) {
                    target.insert(key.clone(), now.clone());
                }
            }
        }
        // Lists are positional: element i of the request is element i of the typed list, as
        // long as the lengths agree. Elements keep what the type does not know when they are
        // changed in place, appended or cut off at the end; any other reshaping takes the
        // handler's list whole.
        (Value::Array(target), Value::Array(before), Value::Array(after))
            if target.len() == before.len()
                && (after.len() == before.len()
                    || after.starts_with(before)
                    || before.starts_with(after)) =>
        {
            let common = before.len().min(after.len());
            for ((slot, was), now) in target.iter_mut().zip(before).zip(after).take(common) {
                carry_over(slot, was, now);
            }
            target.truncate(after.len());
            target.extend(after[common..].iter().cloned());
        }
        (target, _, after) => *target = after.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The patch, checked to apply to `raw` and to give `expected`.
    fn patch_of(raw: Value, before: Value, after: Value, expected: Value) -> Value {
        let patch = defaulting_patch(&raw, &before, &after);
        let mut patched = raw.clone();
        json_patch::patch(&mut patched, &patch).expect("the patch applies to the request's object");
        assert_eq!(patched, expected);
        serde_json::to_value(&patch).unwrap()
    }

    #[test]
    fn a_changed_field_is_replaced() {
        let patch = patch_of(
            json!({"spec": {"size": 1}}),
            json!({"spec": {"size": 1}}),
            json!({"spec": {"size": 3}}),
            json!({"spec": {"size": 3}}),
        );
        assert_eq!(
            patch,
            json!([{"op": "replace", "path": "/spec/size", "value": 3}])
        );
    }

    #[test]
    fn nothing_changed_is_an_empty_patch() {
        let raw = json!({"spec": {"size": 1, "unknown": true}});
        let typed = json!({"spec": {"size": 1, "optional": null}});
        assert!(defaulting_patch(&raw, &typed, &typed).0.is_empty());
    }

    #[test]
    fn fields_the_type_does_not_know_are_kept() {
        let patch = patch_of(
            json!({"metadata": {"name": "a", "futureField": 1}, "spec": {"size": 1, "extra": "x"}}),
            json!({"metadata": {"name": "a"}, "spec": {"size": 1}}),
            json!({"metadata": {"name": "a", "labels": {"l": "v"}}, "spec": {"size": 2}}),
            json!({"metadata": {"name": "a", "futureField": 1, "labels": {"l": "v"}}, "spec": {"size": 2, "extra": "x"}}),
        );
        assert_eq!(
            patch,
            json!([
                {"op": "add", "path": "/metadata/labels", "value": {"l": "v"}},
                {"op": "replace", "path": "/spec/size", "value": 2},
            ])
        );
    }

    #[test]
    fn fields_the_request_left_out_are_added_only_when_changed() {
        // `replicas` is serialized as null and `mode` filled by a serde default: neither is
        // in the request. Only the changed one may appear in the patch, and as an add.
        let patch = patch_of(
            json!({"spec": {}}),
            json!({"spec": {"replicas": null, "mode": "auto", "paused": false}}),
            json!({"spec": {"replicas": 2, "mode": "auto", "paused": false}}),
            json!({"spec": {"replicas": 2}}),
        );
        assert_eq!(
            patch,
            json!([{"op": "add", "path": "/spec/replicas", "value": 2}])
        );
    }

    #[test]
    fn a_missing_parent_is_created_with_the_new_values() {
        patch_of(
            json!({"metadata": {"name": "a"}}),
            json!({"metadata": {"name": "a"}, "spec": {"size": 0}}),
            json!({"metadata": {"name": "a"}, "spec": {"size": 1}}),
            json!({"metadata": {"name": "a"}, "spec": {"size": 1}}),
        );
    }

    #[test]
    fn a_field_set_to_none_is_removed() {
        let patch = patch_of(
            json!({"spec": {"size": 1, "note": "x"}}),
            json!({"spec": {"size": 1, "note": "x"}}),
            json!({"spec": {"size": 1}}),
            json!({"spec": {"size": 1}}),
        );
        assert_eq!(patch, json!([{"op": "remove", "path": "/spec/note"}]));
    }

    #[test]
    fn list_elements_keep_unknown_fields_when_changed_in_place_or_appended() {
        patch_of(
            json!({"spec": {"ports": [{"port": 80, "x": 1}, {"port": 81, "x": 2}]}}),
            json!({"spec": {"ports": [{"port": 80}, {"port": 81}]}}),
            json!({"spec": {"ports": [{"port": 80, "name": "http"}, {"port": 81}]}}),
            json!({"spec": {"ports": [{"port": 80, "x": 1, "name": "http"}, {"port": 81, "x": 2}]}}),
        );
        patch_of(
            json!({"spec": {"ports": [{"port": 80, "x": 1}, {"port": 81, "x": 2}]}}),
            json!({"spec": {"ports": [{"port": 80}, {"port": 81}]}}),
            json!({"spec": {"ports": [{"port": 80}, {"port": 81}, {"port": 82}]}}),
            json!({"spec": {"ports": [{"port": 80, "x": 1}, {"port": 81, "x": 2}, {"port": 82}]}}),
        );
        patch_of(
            json!({"spec": {"ports": [{"port": 80, "x": 1}, {"port": 81, "x": 2}]}}),
            json!({"spec": {"ports": [{"port": 80}, {"port": 81}]}}),
            json!({"spec": {"ports": [{"port": 80}]}}),
            json!({"spec": {"ports": [{"port": 80, "x": 1}]}}),
        );
    }

    #[test]
    fn a_reshaped_list_is_taken_whole() {
        // An element removed from the middle: pairing elements by position would give the
        // second element's unknown fields to the third.
        patch_of(
            json!({"spec": {"ports": [{"port": 80, "x": 1}, {"port": 81, "x": 2}, {"port": 82, "x": 3}]}}),
            json!({"spec": {"ports": [{"port": 80}, {"port": 81}, {"port": 82}]}}),
            json!({"spec": {"ports": [{"port": 80}, {"port": 82}]}}),
            json!({"spec": {"ports": [{"port": 80}, {"port": 82}]}}),
        );
        patch_of(
            json!({"spec": {"ports": [{"port": 80, "x": 1}, {"port": 81, "x": 2}]}}),
            json!({"spec": {"ports": [{"port": 80}, {"port": 81}]}}),
            json!({"spec": {"ports": [{"port": 81}]}}),
            json!({"spec": {"ports": [{"port": 81}]}}),
        );
    }

    #[test]
    fn keys_with_slashes_and_tildes_are_escaped() {
        let patch = patch_of(
            json!({"metadata": {"annotations": {}}}),
            json!({"metadata": {"annotations": {}}}),
            json!({"metadata": {"annotations": {"example.com/a~b": "1"}}}),
            json!({"metadata": {"annotations": {"example.com/a~b": "1"}}}),
        );
        assert_eq!(
            patch,
            json!([{"op": "add", "path": "/metadata/annotations/example.com~1a~0b", "value": "1"}])
        );
    }
}
