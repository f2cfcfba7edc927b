//! `status` of a Memcached from what was observed: its Deployment and its pods. Pure, so every
//! condition is unit-tested; the reconciler writes the result only when it differs.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use k8s_openapi::jiff::Timestamp;

use operator_runtime::conditions;

use crate::api::v1alpha1::{Memcached, MemcachedStatus};

pub const AVAILABLE: &str = "Available";
pub const PROGRESSING: &str = "Progressing";
pub const DEGRADED: &str = "Degraded";

/// Reasons of the Available condition.
pub const READY: &str = "Ready";
pub const CREATING: &str = "Creating";
pub const UPDATING: &str = "Updating";
pub const UNAVAILABLE: &str = "Unavailable";

/// What the reconciler saw of a Memcached's world.
#[derive(Debug, Clone, Default)]
pub struct Observed<'a> {
    pub deployment: Option<&'a Deployment>,
    /// Names of this Memcached's pods that are not being deleted.
    pub pods: Vec<String>,
    /// The Memcached is being deleted and its finalizer runs.
    pub finalizing: bool,
}

/// The status the Memcached should have. Conditions whose status, reason and message are
/// unchanged keep their `lastTransitionTime`, so recomputing an unchanged world yields an equal
/// status and no write.
pub fn desired(mc: &Memcached, observed: &Observed<'_>, now: Timestamp) -> MemcachedStatus {
    let size = mc.spec.size;
    let generation = mc.metadata.generation;
    let (ready, rollout_done, replica_failure) = match observed.deployment {
        Some(d) => {
            let status = d.status.clone().unwrap_or_default();
            let observed_current = match (status.observed_generation, d.metadata.generation) {
                (Some(seen), Some(current)) => seen >= current,
                _ => false,
            };
            let failure = status
                .conditions
                .unwrap_or_default()
                .into_iter()
                .find(|c| c.type_ == "ReplicaFailure" && c.status == "True");
            let ready = status.ready_replicas.unwrap_or(0);
            let updated = status.updated_replicas.unwrap_or(0);
            let total = status.replicas.unwrap_or(0);
            let done = observed_current
                && d.spec.as_ref().and_then(|s| s.replicas) == Some(size)
                && ready == size
                && updated == size
                && total == size;
            (ready, done, failure)
        }
        None => (0, false, None),
    };

    let previous = mc
        .status
        .as_ref()
        .map(|s| s.conditions.as_slice())
        .unwrap_or_default();
    let was_available = previous.iter().find(|p| p.type_ == AVAILABLE);

    let mut conditions = Vec::with_capacity(3);
    let condition = |type_, status, reason, message| {
        conditions::new(type_, status, reason, message).generation(generation)
    };
    let available = ready == size && observed.deployment.is_some();
    conditions.push(if available {
        condition(
            AVAILABLE,
            true,
            READY,
            format!("{ready}/{size} pods are ready"),
        )
    } else {
        condition(
            AVAILABLE,
            false,
            unavailable_reason(was_available, generation),
            format!("{ready}/{size} pods are ready"),
        )
    });
    conditions.push(if rollout_done {
        condition(
            PROGRESSING,
            false,
            "Complete",
            format!("the Deployment runs {size} ready pods"),
        )
    } else {
        condition(
            PROGRESSING,
            true,
            "Scaling",
            format!("scaling the Deployment to {size} pods ({ready} ready)"),
        )
    });
    conditions.push(if observed.finalizing {
        condition(
            DEGRADED,
            true,
            "Finalizing",
            "the Memcached is being deleted".to_string(),
        )
    } else if let Some(failure) = replica_failure {
        condition(
            DEGRADED,
            true,
            "ReplicaFailure",
            failure
                .message
                .unwrap_or_else(|| "the Deployment cannot create pods".into()),
        )
    } else {
        condition(
            DEGRADED,
            false,
            "AsExpected",
            "no problem found".to_string(),
        )
    });

    let mut pods = observed.pods.clone();
    pods.sort();
    pods.dedup();
    MemcachedStatus {
        nodes: pods,
        conditions: conditions::stamp(previous, conditions, now),
    }
}

/// Why a Memcached that is not available is not: it has never been ([`CREATING`]), its spec
/// changed since it was and the Deployment is catching up ([`UPDATING`]), or it lost
/// availability with no change of spec ([`UNAVAILABLE`]: pods died, a node went away).
/// The reason sticks until the Memcached is available again, so that reaching the new size
/// after an edit is told apart from recovering after a loss.
fn unavailable_reason(was: Option<&Condition>, generation: Option<i64>) -> &'static str {
    match was {
        None => CREATING,
        Some(c) if c.status == "True" => {
            if c.observed_generation == generation {
                UNAVAILABLE
            } else {
                UPDATING
            }
        }
        // Not available before either: keep the reason (one written by an older version, or
        // by hand, says no more than "not available").
        Some(c) => match c.reason.as_str() {
            CREATING => CREATING,
            UPDATING => UPDATING,
            _ => UNAVAILABLE,
        },
    }
}

/// The event a change of availability is worth, if any: `(warning, reason)`. Becoming available
/// for the first time or again after a loss is news; losing it without a spec change needs a
/// person's attention; the dips and returns of an edit (every resize) are what the user asked
/// for, and the conditions already say so.
pub fn availability_event(
    before: &MemcachedStatus,
    after: &MemcachedStatus,
) -> Option<(bool, &'static str)> {
    let now = find(after, AVAILABLE)?;
    let was = find(before, AVAILABLE);
    if was.is_some_and(|w| w.status == now.status) {
        return None;
    }
    match (now.status.as_str(), was.map(|w| w.reason.as_str())) {
        ("True", Some(UPDATING)) => None,
        ("True", _) => Some((false, AVAILABLE)),
        (_, _) if now.reason == UNAVAILABLE => Some((true, UNAVAILABLE)),
        _ => None,
    }
}

/// Whether `status` reports a change the user asked for that is still under way (a new
/// Memcached being created, a resize catching up: Progressing, not Degraded, Available
/// `Creating` or `Updating`), whose next report supersedes it: the runtime paces those
/// writes (`Report::Progress`: held back for a few seconds after the apply, then at most
/// every fifteen, within the controller's budget of them). The end of a rollout, a failure,
/// a loss of availability and anything outside a rollout are written at once.
pub fn is_progress(status: &MemcachedStatus) -> bool {
    conditions::is_true(&status.conditions, PROGRESSING)
        && !conditions::is_true(&status.conditions, DEGRADED)
        && find(status, AVAILABLE).is_some_and(|c| matches!(c.reason.as_str(), CREATING | UPDATING))
}

/// The condition of `type_` in `status`, if any.
pub fn find<'a>(status: &'a MemcachedStatus, type_: &str) -> Option<&'a Condition> {
    conditions::find(&status.conditions, type_)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v1alpha1::MemcachedSpec;
    use k8s_openapi::api::apps::v1::{DeploymentCondition, DeploymentSpec, DeploymentStatus};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

    fn mc(size: i32, generation: i64) -> Memcached {
        let mut mc = Memcached::new(
            "cache",
            MemcachedSpec {
                size,
                ..Default::default()
            },
        );
        mc.metadata.generation = Some(generation);
        mc
    }

    fn deployment(replicas: i32, ready: i32, observed_current: bool) -> Deployment {
        Deployment {
            metadata: kube::api::ObjectMeta {
                generation: Some(4),
                ..Default::default()
            },
            spec: Some(DeploymentSpec {
                replicas: Some(replicas),
                ..Default::default()
            }),
            status: Some(DeploymentStatus {
                observed_generation: Some(if observed_current { 4 } else { 3 }),
                replicas: Some(ready),
                updated_replicas: Some(ready),
                ready_replicas: Some(ready),
                ..Default::default()
            }),
        }
    }

    fn t(secs: i64) -> Timestamp {
        Timestamp::from_second(secs).unwrap()
    }

    fn summary(status: &MemcachedStatus) -> Vec<(String, String, String)> {
        status
            .conditions
            .iter()
            .map(|c| (c.type_.clone(), c.status.clone(), c.reason.clone()))
            .collect()
    }

    fn triple(t: &str, s: &str, r: &str) -> (String, String, String) {
        (t.into(), s.into(), r.into())
    }

    #[test]
    fn converged_deployment_is_available_and_done() {
        let d = deployment(3, 3, true);
        let observed = Observed {
            deployment: Some(&d),
            pods: vec!["c".into(), "a".into(), "b".into()],
            finalizing: false,
        };
        let status = desired(&mc(3, 2), &observed, t(100));
        assert_eq!(status.nodes, ["a", "b", "c"]);
        assert_eq!(
            summary(&status),
            [
                triple(AVAILABLE, "True", "Ready"),
                triple(PROGRESSING, "False", "Complete"),
                triple(DEGRADED, "False", "AsExpected"),
            ]
        );
        for c in &status.conditions {
            assert_eq!(c.observed_generation, Some(2));
            assert_eq!(c.last_transition_time, Time(t(100)));
        }
        assert_eq!(
            find(&status, AVAILABLE).unwrap().message,
            "3/3 pods are ready"
        );
    }

    #[test]
    fn scaling_up_is_progressing_and_not_available() {
        let d = deployment(5, 3, true);
        let observed = Observed {
            deployment: Some(&d),
            ..Default::default()
        };
        let status = desired(&mc(5, 3), &observed, t(100));
        assert_eq!(
            summary(&status)[..2],
            [
                triple(AVAILABLE, "False", "Creating"),
                triple(PROGRESSING, "True", "Scaling"),
            ]
        );
        assert_eq!(
            find(&status, AVAILABLE).unwrap().message,
            "3/5 pods are ready"
        );
    }

    #[test]
    fn a_deployment_that_has_not_seen_its_spec_is_still_progressing() {
        let d = deployment(3, 3, false);
        let observed = Observed {
            deployment: Some(&d),
            ..Default::default()
        };
        let status = desired(&mc(3, 1), &observed, t(1));
        assert_eq!(find(&status, PROGRESSING).unwrap().status, "True");
    }

    #[test]
    fn no_deployment_yet_is_unavailable_even_at_size_zero() {
        let status = desired(&mc(0, 1), &Observed::default(), t(1));
        assert_eq!(find(&status, AVAILABLE).unwrap().status, "False");
        let d = deployment(0, 0, true);
        let observed = Observed {
            deployment: Some(&d),
            ..Default::default()
        };
        let status = desired(&mc(0, 1), &observed, t(1));
        assert_eq!(find(&status, AVAILABLE).unwrap().status, "True");
    }

    #[test]
    fn replica_failure_and_finalizing_are_degraded() {
        let mut d = deployment(2, 0, true);
        d.status.as_mut().unwrap().conditions = Some(vec![DeploymentCondition {
            type_: "ReplicaFailure".into(),
            status: "True".into(),
            message: Some("exceeded quota".into()),
            ..Default::default()
        }]);
        let observed = Observed {
            deployment: Some(&d),
            ..Default::default()
        };
        let degraded = find(&desired(&mc(2, 1), &observed, t(1)), DEGRADED)
            .unwrap()
            .clone();
        assert_eq!(
            (degraded.status.as_str(), degraded.reason.as_str()),
            ("True", "ReplicaFailure")
        );
        assert_eq!(degraded.message, "exceeded quota");

        let finalizing = Observed {
            finalizing: true,
            ..Default::default()
        };
        let degraded = find(&desired(&mc(2, 1), &finalizing, t(1)), DEGRADED)
            .unwrap()
            .clone();
        assert_eq!(
            (degraded.status.as_str(), degraded.reason.as_str()),
            ("True", "Finalizing")
        );
    }

    #[test]
    fn recomputing_an_unchanged_world_gives_an_equal_status() {
        let d = deployment(3, 3, true);
        let observed = Observed {
            deployment: Some(&d),
            pods: vec!["a".into()],
            finalizing: false,
        };
        let mut m = mc(3, 2);
        let first = desired(&m, &observed, t(100));
        m.status = Some(first.clone());
        let second = desired(&m, &observed, t(500));
        assert_eq!(first, second, "nothing changed, so nothing may be written");

        // A transition moves only the transitioning condition's time.
        let scaling = deployment(3, 2, true);
        let observed = Observed {
            deployment: Some(&scaling),
            ..observed
        };
        let third = desired(&m, &observed, t(900));
        assert_eq!(
            find(&third, AVAILABLE).unwrap().last_transition_time,
            Time(t(900))
        );
        assert_eq!(
            find(&third, DEGRADED).unwrap().last_transition_time,
            Time(t(100))
        );
    }

    /// Steps a Memcached through `worlds` (size, generation, ready pods), writing each desired
    /// status back as the reconciler does; returns the status of each.
    fn statuses(worlds: &[(i32, i64, i32)]) -> Vec<MemcachedStatus> {
        let mut m = mc(1, 1);
        let mut out = Vec::new();
        for (i, &(size, generation, ready)) in worlds.iter().enumerate() {
            m.spec.size = size;
            m.metadata.generation = Some(generation);
            let d = deployment(size, ready, true);
            let observed = Observed {
                deployment: Some(&d),
                ..Default::default()
            };
            let after = desired(&m, &observed, t(i as i64));
            m.status = Some(after.clone());
            out.push(after);
        }
        out
    }

    /// The Available reason of each step of [`statuses`] and the event it is worth.
    fn walk(worlds: &[(i32, i64, i32)]) -> Vec<(String, Option<(bool, &'static str)>)> {
        let mut before = MemcachedStatus::default();
        statuses(worlds)
            .into_iter()
            .map(|after| {
                let step = (
                    find(&after, AVAILABLE).unwrap().reason.clone(),
                    availability_event(&before, &after),
                );
                before = after;
                step
            })
            .collect()
    }

    #[test]
    fn creations_and_edits_under_way_are_progress_and_nothing_else_is() {
        let progress = |worlds: &[(i32, i64, i32)]| -> Vec<bool> {
            statuses(worlds).iter().map(is_progress).collect()
        };
        // Created, then ready.
        assert_eq!(progress(&[(1, 1, 0), (1, 1, 1)]), [true, false]);
        // Resized, catching up, done.
        assert_eq!(
            progress(&[(1, 1, 1), (3, 2, 1), (3, 2, 3)]),
            [false, true, false]
        );
        // Pods lost with no edit: a state to report at once, as is the recovery.
        assert_eq!(
            progress(&[(2, 1, 2), (2, 1, 1), (2, 1, 2)]),
            [false, false, false]
        );
        // Failing or being deleted is never progress.
        let d = deployment(3, 1, true);
        let observed = Observed {
            deployment: Some(&d),
            finalizing: true,
            ..Default::default()
        };
        assert!(!is_progress(&desired(&mc(3, 2), &observed, t(1))));
    }

    #[test]
    fn creation_is_news_once_available_and_silent_before() {
        assert_eq!(
            walk(&[(1, 1, 0), (1, 1, 0), (1, 1, 1)]),
            [
                (CREATING.to_string(), None),
                (CREATING.to_string(), None),
                (READY.to_string(), Some((false, AVAILABLE))),
            ]
        );
    }

    #[test]
    fn an_edit_dips_and_returns_without_events() {
        assert_eq!(
            walk(&[(1, 1, 1), (3, 2, 1), (3, 2, 2), (3, 2, 3)]),
            [
                (READY.to_string(), Some((false, AVAILABLE))),
                (UPDATING.to_string(), None),
                (UPDATING.to_string(), None),
                (READY.to_string(), None),
            ]
        );
    }

    #[test]
    fn a_loss_without_an_edit_warns_and_the_recovery_is_news() {
        assert_eq!(
            walk(&[(2, 1, 2), (2, 1, 1), (2, 1, 0), (2, 1, 2)]),
            [
                (READY.to_string(), Some((false, AVAILABLE))),
                (UNAVAILABLE.to_string(), Some((true, UNAVAILABLE))),
                (UNAVAILABLE.to_string(), None),
                (READY.to_string(), Some((false, AVAILABLE))),
            ]
        );
    }

    #[test]
    fn an_edit_before_the_first_availability_is_still_creation() {
        assert_eq!(
            walk(&[(1, 1, 0), (2, 2, 1), (2, 2, 2)]),
            [
                (CREATING.to_string(), None),
                (CREATING.to_string(), None),
                (READY.to_string(), Some((false, AVAILABLE))),
            ]
        );
    }

    #[test]
    fn a_rollouts_steps_share_their_state_and_its_end_does_not() {
        // What the runtime's pacing compares: the steps of a resize differ in their counts
        // only (one report every so often), its end is a new state (at once).
        let at = |size, generation, ready, current: Option<&MemcachedStatus>| {
            let mut m = mc(size, generation);
            m.status = current.cloned();
            let d = deployment(size, ready, true);
            let observed = Observed {
                deployment: Some(&d),
                ..Default::default()
            };
            desired(&m, &observed, t(1))
        };
        let done = at(1, 1, 1, None);
        let one = at(3, 2, 1, Some(&done));
        let two = at(3, 2, 2, Some(&one));
        let three = at(3, 2, 3, Some(&two));
        assert!(is_progress(&one) && is_progress(&two) && !is_progress(&three));
        assert!(conditions::same_state(&one.conditions, &two.conditions));
        assert_ne!(one, two);
        assert!(!conditions::same_state(&two.conditions, &three.conditions));
        let again = at(4, 3, 2, Some(&two));
        assert!(is_progress(&again));
        assert!(!conditions::same_state(&two.conditions, &again.conditions));
    }
}
