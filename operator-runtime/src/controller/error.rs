//! Why a reconcile failed, and which failures are no failure (the object already gone).

use std::time::Duration;

/// Why a reconcile failed: the operator's error `E`, or the finalizer's bookkeeping.
#[derive(Debug, thiserror::Error)]
pub enum Error<E: std::error::Error + 'static> {
    /// The reconcile failed.
    #[error(transparent)]
    Reconcile(E),
    /// The cleanup of an object being deleted failed; its finalizer stays.
    #[error("cleanup before deletion: {0}")]
    Cleanup(#[source] E),
    /// The finalizer could not be added before the first reconcile.
    #[error("adding the finalizer: {0}")]
    AddFinalizer(#[source] kube::Error),
    /// The finalizer could not be removed after a successful cleanup.
    #[error("removing the finalizer: {0}")]
    RemoveFinalizer(#[source] kube::Error),
    /// The object has no name, so no finalizer can be patched onto it.
    #[error("the object has no name")]
    UnnamedObject,
    /// The finalizer name is empty.
    #[error("invalid finalizer name {0:?}")]
    InvalidFinalizer(String),
    /// The reconcile (or cleanup) panicked; the message of the panic. Retried with the
    /// backoff of any failure, and counted in `controller_runtime_reconcile_panics_total`.
    #[error("the reconcile panicked: {0}")]
    Panicked(String),
    /// The reconcile (or cleanup) ran longer than
    /// [`Controller::reconcile_timeout`](super::Controller::reconcile_timeout) and was stopped
    /// at its next `.await`.
    #[error("the reconcile took longer than {0:?} and was stopped")]
    TimedOut(Duration),
}

impl<E: std::error::Error + 'static> Error<E> {
    /// Whether the error only says that the object is already gone: its finalizer removed
    /// and the object deleted while a copy queued before (from the cache) was reconciled
    /// again, or deleted before its finalizer could be added. Nothing is left to do, so it is
    /// not a failure to retry.
    pub(super) fn already_gone(&self) -> bool {
        match self {
            Self::AddFinalizer(e) | Self::RemoveFinalizer(e) => not_found(e),
            Self::Cleanup(e) => {
                let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
                while let Some(e) = source {
                    if let Some(e) = e.downcast_ref::<kube::Error>() {
                        return not_found(e);
                    }
                    source = e.source();
                }
                false
            }
            _ => false,
        }
    }
}

fn not_found(e: &kube::Error) -> bool {
    matches!(e, kube::Error::Api(s) if s.code == 404)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("wrapped: {0}")]
    struct Wrapped(#[source] kube::Error);

    fn api_error(code: u16) -> kube::Error {
        kube::Error::Api(Box::new(kube::core::Status {
            code,
            ..Default::default()
        }))
    }

    #[test]
    fn only_a_missing_object_at_cleanup_or_finalizer_removal_is_already_gone() {
        assert!(Error::<Wrapped>::RemoveFinalizer(api_error(404)).already_gone());
        assert!(!Error::<Wrapped>::RemoveFinalizer(api_error(409)).already_gone());
        assert!(Error::<Wrapped>::AddFinalizer(api_error(404)).already_gone());
        assert!(!Error::<Wrapped>::AddFinalizer(api_error(422)).already_gone());
        assert!(Error::Cleanup(Wrapped(api_error(404))).already_gone());
        assert!(!Error::Cleanup(Wrapped(api_error(500))).already_gone());
        // A missing object while reconciling is the operator's to judge.
        assert!(!Error::Reconcile(Wrapped(api_error(404))).already_gone());
    }
}
