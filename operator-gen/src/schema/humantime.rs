//! A `std::time::Duration` read and written with `#[serde(with = "humantime_serde")]`: a
//! string such as `1h 30m` or `500ms`, written by humantime's `format_duration` and read by
//! its `parse_duration`.
//!
//! The pattern admits numbers of one to nine digits, each followed by a unit that every
//! humantime 2.x reads, the parts side by side or one space apart (`90s`, `1h30m`,
//! `2days 4h`), at most 64 characters. Within those bounds no sum overflows, so every
//! admitted string reads; and everything `format_duration` writes for durations under a
//! billion years is admitted. Left out: fractions (`1.5h`), `µs`, `wk` and `yr`, which only
//! later 2.x releases read, and spaces elsewhere, which humantime also skips.

use crate::api::apiextensions::v1::JSONSchemaProps;

/// The units humantime 2.0 reads, which later 2.x releases read too; longer names first.
const UNITS: &[&str] = &[
    "nanos", "nsec", "ns", "usec", "us", "millis", "msec", "ms", "seconds", "second", "secs",
    "sec", "s", "minutes", "minute", "mins", "min", "m", "hours", "hour", "hrs", "hr", "h", "days",
    "day", "d", "weeks", "week", "w", "months", "month", "M", "years", "year", "y",
];

/// The longest string admitted: `format_duration` writes at most 60 characters below a
/// billion years (`999999999years 11months 30days 23h 59m 59s 999ms 999us 999ns`).
const MAX_LENGTH: i64 = 64;

pub(super) fn duration() -> JSONSchemaProps {
    let part = format!("[0-9]{{1,9}}({})", UNITS.join("|"));
    JSONSchemaProps {
        type_: Some("string".into()),
        pattern: Some(format!("^{part}( ?{part})*$")),
        max_length: Some(MAX_LENGTH),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::LazyLock;
    use std::time::Duration;

    use proptest::prelude::*;
    use regex::Regex;

    use super::*;

    fn admits(s: &str) -> bool {
        static PATTERN: LazyLock<Regex> =
            LazyLock::new(|| Regex::new(&duration().pattern.unwrap()).unwrap());
        PATTERN.is_match(s) && s.len() as i64 <= MAX_LENGTH
    }

    /// Numbers, units (also ones humantime refuses or only later releases read), spaces.
    fn duration_like() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            "0",
            "1",
            "5",
            "30",
            "90",
            "999999999",
            "1000000000",
            "18446744073709551615",
            "h",
            "m",
            "s",
            "ms",
            "us",
            "ns",
            "M",
            "d",
            "w",
            "y",
            "mins",
            "hours",
            "years",
            "month",
            "millis",
            "nanos",
            "secs",
            "min",
            "hr",
            "µs",
            "wk",
            "yr",
            "S",
            "H",
            "mo",
            " ",
            " ",
            ".",
            "5.5",
            "-",
            "+",
        ]);
        prop::collection::vec(piece, 1..12).prop_map(|p| p.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]

        /// What the pattern admits, humantime reads.
        #[test]
        fn admitted_strings_read(s in duration_like()) {
            if admits(&s) {
                prop_assert!(humantime::parse_duration(&s).is_ok(), "{:?} admitted, not read", s);
            }
        }

        /// What humantime writes below a billion years, the pattern admits, and it reads
        /// back as the same duration.
        #[test]
        fn written_durations_are_admitted(secs in 0u64..31_557_600_000_000_000, nanos in 0u32..1_000_000_000, small in 0u64..100_000) {
            for d in [Duration::new(secs, nanos), Duration::new(small, 0), Duration::from_nanos(small)] {
                let s = humantime::format_duration(d).to_string();
                prop_assert!(admits(&s), "{:?} refused", s);
                prop_assert_eq!(humantime::parse_duration(&s).unwrap(), d);
            }
        }
    }

    #[test]
    fn the_forms_people_write() {
        for (s, admitted) in [
            ("30s", true),
            ("90s", true),
            ("1h30m", true),
            ("1h 30m", true),
            ("2days 4h", true),
            ("500ms", true),
            ("1M", true),
            ("0s", true),
            (
                "999999999years 11months 30days 23h 59m 59s 999ms 999us 999ns",
                true,
            ),
            ("", false),
            ("5", false),
            ("1.5h", false),
            ("1 h", false),
            ("1h  30m", false),
            (" 1h", false),
            ("1000000000s", false),
            ("1mo", false),
            ("-1s", false),
            ("1H", false),
        ] {
            assert_eq!(admits(s), admitted, "{s:?}");
            if admitted {
                assert!(humantime::parse_duration(s).is_ok(), "{s:?}");
            }
        }
        // As many of the largest parts as fit: no overflow.
        let most = "999999999y".repeat(6);
        assert!(admits(&most) && humantime::parse_duration(&most).is_ok());
        assert!(!admits(&"999999999y".repeat(7)));
    }
}
