//! Cron schedules, read and stepped through by the [croner] crate (as the Go tutorial leaves
//! them to `robfig/cron`). Times are UTC.
//!
//! A schedule has the five fields Kubernetes' CronJob takes (minute, hour, day of month, month,
//! day of week) with `*`, numbers, names (`JAN`, `MON`), ranges, steps and lists, or one of
//! the shorthands `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight` and
//! `@hourly`. croner also reads extensions of its own (`L`, `W`, `#`, a `+` before the day of
//! week), which Kubernetes' parser refuses: they are refused here before croner reads the
//! schedule, so that the webhook admits exactly what a Kubernetes CronJob would.
//!
//! When both the day of month and the day of week are restricted (neither is `*`), a day
//! matches if either does, as cron has always done: `0 0 1 * MON` runs on the first of the
//! month and on Mondays.

use std::fmt;

use croner::Cron;
use croner::errors::CronError;
use croner::parser::{CronParser, Seconds, Year};
use k8s_openapi::jiff::Timestamp;
use k8s_openapi::jiff::tz::TimeZone;

/// A parsed schedule.
#[derive(Debug, Clone)]
pub struct Schedule(Cron);

/// Why a schedule does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub schedule: String,
    pub why: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "schedule {:?}: {}", self.schedule, self.why)
    }
}

impl std::error::Error for ParseError {}

/// The five fields, and the values each takes (named in errors).
const FIELDS: [(&str, &str); 5] = [
    ("minute", "0-59"),
    ("hour", "0-23"),
    ("day of month", "1-31"),
    ("month", "1-12 or JAN-DEC"),
    ("day of week", "0-7 (0 and 7 are Sunday) or SUN-SAT"),
];

/// croner reading five fields, or a shorthand, as Kubernetes' parser does.
fn parser() -> CronParser {
    CronParser::builder()
        // Five fields: no seconds, no year.
        .seconds(Seconds::Disallowed)
        .year(Year::Disallowed)
        // `5/15` is `5-59/15`, as in Kubernetes' parser.
        .sloppy_ranges(true)
        .build()
}

impl Schedule {
    pub fn parse(schedule: &str) -> Result<Self, ParseError> {
        // croner knows every shorthand Kubernetes takes but `@midnight`.
        let text = match schedule.trim() {
            s if s.eq_ignore_ascii_case("@midnight") => "@daily",
            s => s,
        };
        if let Some(why) = croners_own(text) {
            return Err(ParseError {
                schedule: schedule.to_string(),
                why,
            });
        }
        parser().parse(text).map(Schedule).map_err(|e| ParseError {
            schedule: schedule.to_string(),
            why: why(text, e),
        })
    }

    /// The first time after `after` at which the schedule fires, or `None` when croner finds
    /// none (`0 0 30 2 *` never fires).
    pub fn next_after(&self, after: Timestamp) -> Option<Timestamp> {
        let after = after.to_zoned(TimeZone::UTC);
        let next = self.0.find_next_occurrence(&after, false).ok()?;
        Some(next.timestamp())
    }

    /// The runs due after `earliest` up to `now`: the latest of them (the one to start;
    /// earlier ones are missed for good) and how many there were, stopping at `limit`.
    pub fn due(&self, earliest: Timestamp, now: Timestamp, limit: usize) -> Due {
        let mut due = Due::default();
        let mut at = earliest;
        while let Some(next) = self.next_after(at) {
            if next > now {
                due.next = Some(next);
                break;
            }
            due.latest = Some(next);
            due.count += 1;
            if due.count >= limit {
                break;
            }
            at = next;
        }
        due
    }
}

/// What [`Schedule::due`] found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Due {
    /// The latest run due, if any.
    pub latest: Option<Timestamp>,
    /// How many runs were due (at most the limit).
    pub count: usize,
    /// The first run after now, when it was reached.
    pub next: Option<Timestamp>,
}

/// The first of croner's extensions in `text` (`L`, `W`, `#`, `+`), which Kubernetes' parser
/// refuses, said with its field. Month and day names are Kubernetes' own (`JUL`, `WED`).
fn croners_own(text: &str) -> Option<String> {
    const NAMES: [&str; 19] = [
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC", "SUN",
        "MON", "TUE", "WED", "THU", "FRI", "SAT",
    ];
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != FIELDS.len() {
        return None;
    }
    for (field, (name, values)) in fields.iter().zip(FIELDS) {
        let extension = field
            .split([',', '-', '/'])
            .map(str::to_ascii_uppercase)
            .filter(|atom| !NAMES.contains(&atom.as_str()))
            .find_map(|atom| atom.chars().find(|c| matches!(c, 'L' | 'W' | '#' | '+')));
        if let Some(c) = extension {
            return Some(format!(
                "{name} {field:?}: `{c}` is croner's extension, which Kubernetes refuses \
                 ({name} takes {values})"
            ));
        }
    }
    None
}

/// croner's reason for refusing `text`, with the field it is about: croner names none, so each
/// field is tried alone (the others `*`) to find the first it refuses.
fn why(text: &str, error: CronError) -> String {
    if text.starts_with('@') {
        return format!(
            "unknown shorthand {text} (known: @yearly, @annually, @monthly, @weekly, @daily, \
             @midnight, @hourly)"
        );
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != FIELDS.len() {
        return format!(
            "{} fields; a schedule has five: minute, hour, day of month, month, day of week",
            fields.len()
        );
    }
    for (i, (name, values)) in FIELDS.iter().enumerate() {
        let alone: Vec<&str> = (0..FIELDS.len())
            .map(|j| if j == i { fields[i] } else { "*" })
            .collect();
        if let Err(e) = parser().parse(&alone.join(" ")) {
            return format!(
                "{name} {:?}: {} ({name} takes {values})",
                fields[i],
                reason(e)
            );
        }
    }
    reason(error)
}

/// croner's message, as a clause: `Component error: Number out of bounds.` reads
/// `number out of bounds`.
fn reason(error: CronError) -> String {
    let message = match error {
        CronError::ComponentError(message) => message,
        other => other.to_string(),
    };
    let message = message.trim_end_matches('.');
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn next(schedule: &str, after: &str) -> Option<String> {
        Schedule::parse(schedule)
            .unwrap()
            .next_after(at(after))
            .map(|t| t.to_string())
    }

    #[test]
    fn the_next_time_of_common_schedules() {
        let after = "2026-11-26T10:17:30Z";
        assert_eq!(
            next("* * * * *", after).as_deref(),
            Some("2026-11-26T10:18:00Z")
        );
        assert_eq!(
            next("*/15 * * * *", after).as_deref(),
            Some("2026-11-26T10:30:00Z")
        );
        assert_eq!(
            next("0 9 * * *", after).as_deref(),
            Some("2026-11-27T09:00:00Z")
        );
        assert_eq!(
            next("@hourly", after).as_deref(),
            Some("2026-11-26T11:00:00Z")
        );
        assert_eq!(
            next("@midnight", after).as_deref(),
            Some("2026-11-27T00:00:00Z")
        );
        // 2026-11-26 is a Thursday: the next Monday is the 30th.
        assert_eq!(
            next("30 8 * * MON", after).as_deref(),
            Some("2026-11-30T08:30:00Z")
        );
        assert_eq!(
            next("0 0 1 JAN *", after).as_deref(),
            Some("2027-01-01T00:00:00Z")
        );
        assert_eq!(
            next("@monthly", after).as_deref(),
            Some("2026-12-01T00:00:00Z")
        );
        // Lists, ranges with steps, a start with a step, and 7 as Sunday.
        assert_eq!(
            next("5,50 10-18/4 * * *", after).as_deref(),
            Some("2026-11-26T10:50:00Z")
        );
        assert_eq!(
            next("20/25 * * * *", after).as_deref(),
            Some("2026-11-26T10:20:00Z")
        );
        assert_eq!(
            next("0 12 * * 7", after).as_deref(),
            Some("2026-11-29T12:00:00Z")
        );
        // Exactly on a run: the next one, not the same.
        assert_eq!(
            next("0 * * * *", "2026-11-26T10:00:00Z").as_deref(),
            Some("2026-11-26T11:00:00Z")
        );
    }

    #[test]
    fn day_of_month_or_day_of_week_when_both_are_given() {
        // The 1st of December 2026 is a Tuesday; Monday the 30th comes first.
        assert_eq!(
            next("0 0 1 * MON", "2026-11-26T10:00:00Z").as_deref(),
            Some("2026-11-30T00:00:00Z")
        );
        assert_eq!(
            next("0 0 1 * MON", "2026-11-30T10:00:00Z").as_deref(),
            Some("2026-12-01T00:00:00Z")
        );
    }

    #[test]
    fn leap_days_and_schedules_that_never_fire() {
        assert_eq!(
            next("0 0 29 2 *", "2026-11-26T10:00:00Z").as_deref(),
            Some("2028-02-29T00:00:00Z")
        );
        assert_eq!(next("0 0 30 2 *", "2026-11-26T10:00:00Z"), None);
    }

    #[test]
    fn the_runs_due_between_two_times() {
        let every_ten = Schedule::parse("*/10 * * * *").unwrap();
        let due = every_ten.due(at("2026-11-26T10:05:00Z"), at("2026-11-26T10:41:00Z"), 100);
        assert_eq!(due.count, 4);
        assert_eq!(due.latest, Some(at("2026-11-26T10:40:00Z")));
        assert_eq!(due.next, Some(at("2026-11-26T10:50:00Z")));
        let none = every_ten.due(at("2026-11-26T10:05:00Z"), at("2026-11-26T10:09:00Z"), 100);
        assert_eq!(none.latest, None);
        assert_eq!(none.next, Some(at("2026-11-26T10:10:00Z")));
        let capped = every_ten.due(at("2026-11-01T00:00:00Z"), at("2026-11-26T10:41:00Z"), 100);
        assert_eq!(capped.count, 100);
    }

    #[test]
    fn mistakes_say_which_field_and_why() {
        let why = |s: &str| Schedule::parse(s).unwrap_err().to_string();
        assert_eq!(
            why("* * *"),
            "schedule \"* * *\": 3 fields; a schedule has five: minute, hour, day of month, month, day of week"
        );
        // Six fields would be croner's seconds; Kubernetes takes five.
        assert!(why("0 * * * * *").contains("6 fields; a schedule has five"));
        let out_of_range = why("60 * * * *");
        assert!(
            out_of_range.starts_with("schedule \"60 * * * *\": minute \"60\": ")
                && out_of_range.ends_with(" (minute takes 0-59)"),
            "{out_of_range}"
        );
        let cases = [
            ("0 25 * * *", "hour \"25\": "),
            ("* * * FOO *", "month \"FOO\": "),
            ("*/0 * * * *", "minute \"*/0\": "),
            ("* 5-2 * * *", "hour \"5-2\": "),
            ("0 0 * * 8", "day of week \"8\": "),
            ("0 0 32 * *", "day of month \"32\": "),
        ];
        for (schedule, field) in cases {
            let why = why(schedule);
            assert!(why.contains(field), "{schedule}: {why}");
        }
        assert!(why("@every 5m").contains("unknown shorthand @every 5m"));
        // croner's extensions, which Kubernetes' parser refuses; names with the same letters
        // are Kubernetes' own.
        for (schedule, said) in [
            ("0 0 L * *", "day of month \"L\": `L` is croner's extension"),
            ("0 0 15W * *", "day of month \"15W\": `W`"),
            ("0 0 * * 5#3", "day of week \"5#3\": `#`"),
            ("0 0 * * FRIL", "day of week \"FRIL\": `L`"),
            ("0 0 1 * +MON", "day of week \"+MON\": `+`"),
            ("0 0 * JUL-DEC wed", ""),
        ] {
            match Schedule::parse(schedule) {
                Ok(_) => assert!(said.is_empty(), "{schedule} admitted"),
                Err(e) => assert!(!said.is_empty() && e.why.contains(said), "{schedule}: {e}"),
            }
        }
    }
}
