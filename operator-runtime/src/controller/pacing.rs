//! How status writes are paced ([`Context::report`](super::Context::report)): a change of
//! state at once; a report of work under way (a rollout's counts) held back while the work
//! is young, then at most every so often, and within the controller's budget of such reports.
//!
//! A rollout this process started moments ago (a new object, a resize) is usually done
//! within seconds, and each of its steps (the first report of what it created, every pod
//! ready) would be a status write that the next one replaces. When a thousand objects change
//! at once, those writes compete with the rollouts themselves for the API server.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::Value;

/// The pacing of progress reports, set on the controller with
/// [`Controller::status_pacing`](super::Controller::status_pacing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusPacing {
    /// How long after this process sent a new desired state (an apply of an owned object)
    /// the first report of the work under way waits: work done within it is reported once,
    /// done.
    pub grace: Duration,
    /// How often, at most, a report whose state is already on the object (the same
    /// conditions, only the details differ) is written again.
    pub every: Duration,
}

impl Default for StatusPacing {
    /// Five seconds of grace, a report every fifteen: memcached's benchmark settings (at a
    /// thousand objects, half the requests of the controller-runtime operator).
    fn default() -> Self {
        StatusPacing {
            grace: Duration::from_secs(5),
            every: Duration::from_secs(15),
        }
    }
}

impl StatusPacing {
    /// No holding back: every report is written at once (still within the budget).
    pub const NONE: StatusPacing = StatusPacing {
        grace: Duration::ZERO,
        every: Duration::ZERO,
    };

    /// How long a progress report waits, if at all: `reported` when the object's status
    /// already has its state (then [`every`](Self::every) from this process's last write,
    /// `written_ago`), else [`grace`](Self::grace) from the last apply (`applied_ago`). An
    /// unknown time (nothing written or applied by this process) does not hold it.
    pub(crate) fn delay(
        &self,
        reported: bool,
        applied_ago: Option<Duration>,
        written_ago: Option<Duration>,
    ) -> Option<Duration> {
        let left = if reported {
            self.every.checked_sub(written_ago?)
        } else {
            self.grace.checked_sub(applied_ago?)
        };
        left.filter(|left| !left.is_zero())
    }
}

/// What a status is, for [`Context::report`](super::Context::report).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    /// A change of state (done, failed, lost, a new generation seen), or anything outside
    /// work under way: written at once.
    Change,
    /// A report of work under way that the next write supersedes (a rollout's "2 of 3 pods
    /// ready"): paced by the controller's [`StatusPacing`] and its budget of progress
    /// reports (`--progress-reports` a second).
    Progress,
}

/// The outcome of [`Context::report`](super::Context::report).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reported {
    /// The status was written.
    Written,
    /// The object's status already says it: nothing written.
    Unchanged,
    /// Not written yet: reconcile again after this long (`Action::requeue`) to report it,
    /// unless something changes first.
    Later(Duration),
}

/// The state the conditions of a status say (each condition's type, status, reason and
/// observed generation, not its message or time), from the status's JSON; `None` when it
/// has no `conditions` list.
fn state(status: &Value) -> Option<BTreeSet<[String; 4]>> {
    let text = |c: &Value, key: &str| match &c[key] {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let conditions = status.get("conditions")?.as_array()?;
    Some(
        conditions
            .iter()
            .map(|c| {
                [
                    text(c, "type"),
                    text(c, "status"),
                    text(c, "reason"),
                    text(c, "observedGeneration"),
                ]
            })
            .collect(),
    )
}

/// Whether `current` already says the state `desired` says (see [`state`]).
pub(crate) fn same_state(current: &Value, desired: &Value) -> bool {
    match (state(current), state(desired)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const S: Duration = Duration::from_secs(1);

    #[test]
    fn a_young_rollout_waits_out_the_grace_then_its_progress_comes_sparingly() {
        let pacing = StatusPacing::default();
        // Not reported yet: five seconds from the apply.
        assert_eq!(pacing.delay(false, Some(S), None), Some(4 * S));
        assert_eq!(pacing.delay(false, Some(5 * S), None), None);
        assert_eq!(pacing.delay(false, None, None), None, "no apply of ours");
        // Reported: fifteen seconds from our last write.
        assert_eq!(pacing.delay(true, Some(S), Some(10 * S)), Some(5 * S));
        assert_eq!(pacing.delay(true, Some(S), Some(15 * S)), None);
        assert_eq!(
            pacing.delay(true, Some(S), None),
            None,
            "written by another instance"
        );
        assert_eq!(StatusPacing::NONE.delay(false, Some(S), Some(S)), None);
        assert_eq!(StatusPacing::NONE.delay(true, Some(S), Some(S)), None);
    }

    #[test]
    fn the_state_is_the_conditions_without_their_messages_and_times() {
        let status = |ready: &str, message: &str, generation: i64, pods: i64| {
            json!({"readyReplicas": pods, "conditions": [
                {"type": "Available", "status": ready, "reason": "Updating", "message": message,
                 "observedGeneration": generation, "lastTransitionTime": "2026-01-01T00:00:00Z"},
                {"type": "Progressing", "status": "True", "reason": "Rolling"}
            ]})
        };
        assert!(same_state(
            &status("False", "1 of 3", 2, 1),
            &status("False", "2 of 3", 2, 2)
        ));
        assert!(!same_state(
            &status("False", "1 of 3", 2, 1),
            &status("True", "3 of 3", 2, 3)
        ));
        assert!(!same_state(
            &status("False", "1 of 3", 1, 1),
            &status("False", "1 of 3", 2, 1)
        ));
        assert!(!same_state(&json!({}), &status("False", "", 1, 0)));
        assert!(!same_state(&json!(null), &json!(null)));
    }
}
