//! The conversions between `v2` and the hub `v1`, as plain `From`/`TryFrom` impls, and the
//! webhook that serves them.
//!
//! `v2` to `v1` always works (the parts are joined); `v1` to `v2` fails only on a window
//! without its `-`, which the `v1` schema's pattern already refuses, so stored objects always
//! convert. Metadata and status are carried over as they are, so a round trip loses nothing.

use operator_runtime::webhook::{Conversion, Webhooks};

use crate::{v1, v2};

/// Why a `v1` Backup has no `v2` form.
#[derive(Debug, thiserror::Error)]
#[error("spec.window {0:?} is not \"HH:MM-HH:MM\"")]
pub struct BadWindow(pub String);

impl From<v2::Backup> for v1::Backup {
    fn from(b: v2::Backup) -> Self {
        v1::Backup {
            metadata: b.metadata,
            spec: v1::BackupSpec {
                source: b.spec.source,
                window: format!("{}-{}", b.spec.window.start, b.spec.window.end),
                keep: b.spec.keep,
            },
            status: b.status,
        }
    }
}

impl TryFrom<v1::Backup> for v2::Backup {
    type Error = BadWindow;

    fn try_from(b: v1::Backup) -> Result<Self, BadWindow> {
        let Some((start, end)) = b.spec.window.split_once('-') else {
            return Err(BadWindow(b.spec.window));
        };
        Ok(v2::Backup {
            spec: v2::BackupSpec {
                source: b.spec.source,
                window: v2::Window {
                    start: start.to_string(),
                    end: end.to_string(),
                },
                keep: b.spec.keep,
            },
            metadata: b.metadata,
            status: b.status,
        })
    }
}

/// The conversion of Backup, through the hub `v1`.
pub fn conversion() -> Conversion<v1::Backup> {
    Conversion::<v1::Backup>::hub().spoke::<v2::Backup>()
}

/// The webhooks of this example: the conversion at `/convert`.
pub fn webhooks() -> Webhooks {
    Webhooks::new().conversion(conversion())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hub(window: &str) -> v1::Backup {
        let mut b = v1::Backup::new(
            "nightly",
            v1::BackupSpec {
                source: "data".into(),
                window: window.into(),
                keep: Some(3),
            },
        );
        b.metadata.labels = Some([("team".to_string(), "storage".to_string())].into());
        b.status = Some(v1::BackupStatus {
            last_copy: Some("2026-11-24T02:10:00Z".into()),
        });
        b
    }

    #[test]
    fn a_round_trip_through_v2_gives_the_same_object() {
        let original = hub("02:00-04:30");
        let spoke = v2::Backup::try_from(original.clone()).unwrap();
        assert_eq!(spoke.spec.window.start, "02:00");
        assert_eq!(spoke.spec.window.end, "04:30");
        assert_eq!(spoke.metadata, original.metadata);
        assert_eq!(v1::Backup::from(spoke), original);
    }

    #[test]
    fn a_window_without_its_dash_does_not_convert() {
        let err = v2::Backup::try_from(hub("0200")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "spec.window \"0200\" is not \"HH:MM-HH:MM\""
        );
    }
}
