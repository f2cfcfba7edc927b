//! `status.conditions` as the Kubernetes API conventions keep them (apimachinery's
//! `meta.SetStatusCondition` in Go): one condition per type, `lastTransitionTime` moved only
//! when the status changes, `observedGeneration` saying which spec the condition describes.
//!
//! Recomputing the conditions of an unchanged world gives equal conditions, so a status writer
//! that compares before it writes ([`Context::write_status`](crate::controller::Context::write_status))
//! sends nothing.
//!
//! ```
//! use k8s_openapi::jiff::Timestamp;
//! use operator_runtime::conditions;
//!
//! let mut list = Vec::new();
//! let t0 = Timestamp::from_second(1_000).unwrap();
//! conditions::set(&mut list, conditions::new("Ready", false, "Creating", "0/3 ready").generation(Some(1)), t0);
//! let t1 = Timestamp::from_second(2_000).unwrap();
//! // Same status, new message: the transition time stays.
//! conditions::set(&mut list, conditions::new("Ready", false, "Creating", "1/3 ready").generation(Some(1)), t1);
//! assert_eq!(list[0].last_transition_time.0, t0);
//! assert_eq!(list[0].message, "1/3 ready");
//! assert!(!conditions::is_true(&list, "Ready"));
//! ```

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;

/// A condition being built: [`new`] then [`generation`](NewCondition::generation), handed to
/// [`set`] or [`stamp`].
#[derive(Debug, Clone, PartialEq)]
pub struct NewCondition(Condition);

impl NewCondition {
    /// The `metadata.generation` of the object whose spec this condition describes.
    #[must_use]
    pub fn generation(mut self, generation: Option<i64>) -> Self {
        self.0.observed_generation = generation;
        self
    }

    /// The condition, with its transition time at the Unix epoch (not yet placed in time).
    pub fn into_inner(self) -> Condition {
        self.0
    }
}

/// A condition of `type_` with `status` `"True"` or `"False"`, a CamelCase `reason` and a
/// human `message`.
pub fn new(
    type_: impl Into<String>,
    status: bool,
    reason: impl Into<String>,
    message: impl Into<String>,
) -> NewCondition {
    NewCondition(Condition {
        type_: type_.into(),
        status: if status { "True" } else { "False" }.to_string(),
        reason: reason.into(),
        message: message.into(),
        observed_generation: None,
        last_transition_time: Time(Timestamp::UNIX_EPOCH),
    })
}

/// Puts `condition` into `list`: replaces the one of its type (keeping its
/// `lastTransitionTime` when the status is the same) or appends it with `now`.
pub fn set(list: &mut Vec<Condition>, condition: NewCondition, now: Timestamp) {
    let mut condition = condition.0;
    match list.iter_mut().find(|c| c.type_ == condition.type_) {
        Some(existing) => {
            condition.last_transition_time = if existing.status == condition.status {
                existing.last_transition_time.clone()
            } else {
                Time(now)
            };
            *existing = condition;
        }
        None => {
            condition.last_transition_time = Time(now);
            list.push(condition);
        }
    }
}

/// The conditions `next`, in their order, each with the transition time of the same type in
/// `previous` when its status did not change, and `now` otherwise: for a controller that
/// computes its whole list of conditions from what it observed.
pub fn stamp(
    previous: &[Condition],
    next: impl IntoIterator<Item = NewCondition>,
    now: Timestamp,
) -> Vec<Condition> {
    let mut list: Vec<Condition> = Vec::new();
    for condition in next {
        let mut condition = condition.0;
        condition.last_transition_time = match find(previous, &condition.type_) {
            Some(p) if p.status == condition.status => p.last_transition_time.clone(),
            _ => Time(now),
        };
        list.retain(|c| c.type_ != condition.type_);
        list.push(condition);
    }
    list
}

/// Removes the condition of `type_`; whether there was one.
pub fn remove(list: &mut Vec<Condition>, type_: &str) -> bool {
    let before = list.len();
    list.retain(|c| c.type_ != type_);
    list.len() != before
}

/// The condition of `type_`, if any.
pub fn find<'a>(list: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    list.iter().find(|c| c.type_ == type_)
}

/// Whether the condition of `type_` is there with status `"True"`.
pub fn is_true(list: &[Condition], type_: &str) -> bool {
    find(list, type_).is_some_and(|c| c.status == "True")
}

/// Whether the condition of `type_` is there with status `"False"`.
pub fn is_false(list: &[Condition], type_: &str) -> bool {
    find(list, type_).is_some_and(|c| c.status == "False")
}

/// Whether two lists say the same thing in the terms a client acts on: the same condition
/// types, each with the same status, reason and `observedGeneration`. Messages and transition
/// times are left out, so a change of detail alone (a count in a message) is not a change of
/// state: a reconciler can report such details less often than state changes.
pub fn same_state(a: &[Condition], b: &[Condition]) -> bool {
    a.len() == b.len()
        && a.iter().all(|x| {
            find(b, &x.type_).is_some_and(|y| {
                x.status == y.status
                    && x.reason == y.reason
                    && x.observed_generation == y.observed_generation
            })
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: i64) -> Timestamp {
        Timestamp::from_second(s).unwrap()
    }

    #[test]
    fn set_moves_the_transition_time_only_when_the_status_changes() {
        let mut list = Vec::new();
        set(&mut list, new("Ready", false, "A", "a"), at(1));
        set(&mut list, new("Ready", false, "B", "b"), at(2));
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].last_transition_time.0, at(1));
        assert_eq!(list[0].reason, "B");
        set(
            &mut list,
            new("Ready", true, "C", "c").generation(Some(4)),
            at(3),
        );
        assert_eq!(list[0].last_transition_time.0, at(3));
        assert_eq!(list[0].observed_generation, Some(4));
        set(&mut list, new("Degraded", false, "D", "d"), at(5));
        assert_eq!(list.len(), 2);
        assert!(is_true(&list, "Ready"));
        assert!(is_false(&list, "Degraded"));
        assert!(!is_true(&list, "Missing") && !is_false(&list, "Missing"));
        assert!(remove(&mut list, "Ready"));
        assert!(!remove(&mut list, "Ready"));
    }

    #[test]
    fn stamp_keeps_times_of_unchanged_statuses_and_the_given_order() {
        let previous = stamp(
            &[],
            [new("A", true, "r", "m"), new("B", false, "r", "m")],
            at(1),
        );
        let next = stamp(
            &previous,
            [
                new("B", true, "r", "m"),
                new("A", true, "r2", "m2"),
                new("C", false, "r", "m"),
            ],
            at(2),
        );
        let times: Vec<_> = next
            .iter()
            .map(|c| (c.type_.as_str(), c.last_transition_time.0))
            .collect();
        assert_eq!(times, [("B", at(2)), ("A", at(1)), ("C", at(2))]);
        // An unchanged world stamps equal.
        let again = stamp(&next, next.iter().map(|c| NewCondition(c.clone())), at(9));
        assert_eq!(again, next);
    }

    #[test]
    fn same_state_ignores_messages_and_times_but_not_status_reason_or_generation() {
        let a = stamp(
            &[],
            [
                new("A", true, "r", "1/3").generation(Some(2)),
                new("B", false, "r", "m"),
            ],
            at(1),
        );
        let detail = stamp(
            &[],
            [
                new("B", false, "r", "other"),
                new("A", true, "r", "2/3").generation(Some(2)),
            ],
            at(5),
        );
        assert!(same_state(&a, &detail));
        let changed = |c: NewCondition| stamp(&[], [c, new("B", false, "r", "m")], at(1));
        assert!(!same_state(
            &a,
            &changed(new("A", false, "r", "1/3").generation(Some(2)))
        ));
        assert!(!same_state(
            &a,
            &changed(new("A", true, "s", "1/3").generation(Some(2)))
        ));
        assert!(!same_state(
            &a,
            &changed(new("A", true, "r", "1/3").generation(Some(3)))
        ));
        assert!(!same_state(&a, &a[..1]));
        assert!(same_state(&[], &[]));
    }
}
