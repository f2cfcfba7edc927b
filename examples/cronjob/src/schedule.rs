//! Cron schedules: five fields (minute, hour, day of month, month, day of week) with `*`,
//! numbers, names (`JAN`, `MON`), ranges, steps and lists, and the `@hourly`, `@daily`,
//! `@weekly`, `@monthly` and `@yearly` shorthands. Times are UTC.
//!
//! When both the day of month and the day of week are restricted (neither starts with `*`),
//! a day matches if either does, as cron has always done: `0 0 1 * MON` runs on the first of
//! the month and on Mondays.

use std::fmt;

use k8s_openapi::jiff::civil::{Date, DateTime};
use k8s_openapi::jiff::tz::TimeZone;
use k8s_openapi::jiff::{Span, Timestamp};

/// A parsed schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    minutes: u64,
    hours: u64,
    days: u64,
    months: u64,
    weekdays: u64,
    days_restricted: bool,
    weekdays_restricted: bool,
}

/// What is wrong with a schedule, and in which field.
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

/// One field's name, bounds and the names its values may have.
struct Field {
    name: &'static str,
    min: u32,
    max: u32,
    names: &'static [&'static str],
}

const MINUTE: Field = Field {
    name: "minute",
    min: 0,
    max: 59,
    names: &[],
};
const HOUR: Field = Field {
    name: "hour",
    min: 0,
    max: 23,
    names: &[],
};
const DAY: Field = Field {
    name: "day of month",
    min: 1,
    max: 31,
    names: &[],
};
const MONTH: Field = Field {
    name: "month",
    min: 1,
    max: 12,
    names: &[
        "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
    ],
};
// 7 is Sunday too.
const WEEKDAY: Field = Field {
    name: "day of week",
    min: 0,
    max: 7,
    names: &["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"],
};

/// How far ahead [`Schedule::next_after`] looks: a schedule that never fires (`0 0 30 2 *`)
/// has no next time.
const HORIZON_YEARS: i16 = 5;

impl Schedule {
    pub fn parse(schedule: &str) -> Result<Self, ParseError> {
        let error = |why: String| ParseError {
            schedule: schedule.to_string(),
            why,
        };
        let text = match schedule.trim() {
            "@yearly" | "@annually" => "0 0 1 1 *",
            "@monthly" => "0 0 1 * *",
            "@weekly" => "0 0 * * 0",
            "@daily" | "@midnight" => "0 0 * * *",
            "@hourly" => "0 * * * *",
            other if other.starts_with('@') => {
                return Err(error(format!(
                    "unknown shorthand {other} (known: @yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly)"
                )));
            }
            other => other,
        };
        let fields: Vec<&str> = text.split_whitespace().collect();
        let [minute, hour, day, month, weekday] = fields[..] else {
            return Err(error(format!(
                "{} fields; a schedule has five: minute, hour, day of month, month, day of week",
                fields.len()
            )));
        };
        let mut weekdays = bits(weekday, &WEEKDAY).map_err(error)?;
        if weekdays & (1 << 7) != 0 {
            weekdays = (weekdays & !(1 << 7)) | 1;
        }
        Ok(Schedule {
            minutes: bits(minute, &MINUTE).map_err(error)?,
            hours: bits(hour, &HOUR).map_err(error)?,
            days: bits(day, &DAY).map_err(error)?,
            months: bits(month, &MONTH).map_err(error)?,
            weekdays,
            days_restricted: !day.starts_with('*'),
            weekdays_restricted: !weekday.starts_with('*'),
        })
    }

    fn day_matches(&self, date: Date) -> bool {
        let day = has(self.days, date.day());
        let weekday = has(self.weekdays, date.weekday().to_sunday_zero_offset());
        match (self.days_restricted, self.weekdays_restricted) {
            (true, true) => day || weekday,
            (true, false) => day,
            (false, true) => weekday,
            (false, false) => true,
        }
    }

    /// The first time after `after` (a whole minute) at which the schedule fires, or `None`
    /// when it does not within five years.
    pub fn next_after(&self, after: Timestamp) -> Option<Timestamp> {
        let start = Timestamp::from_second(after.as_second().div_euclid(60) * 60 + 60).ok()?;
        let mut at: DateTime = start.to_zoned(TimeZone::UTC).datetime();
        let last_year = at.year() + HORIZON_YEARS;
        while at.year() <= last_year {
            if !has(self.months, at.month()) {
                at = at
                    .date()
                    .first_of_month()
                    .checked_add(Span::new().months(1))
                    .ok()?
                    .at(0, 0, 0, 0);
            } else if !self.day_matches(at.date()) {
                at = at.date().tomorrow().ok()?.at(0, 0, 0, 0);
            } else if !has(self.hours, at.hour()) {
                at = at
                    .date()
                    .at(at.hour(), 0, 0, 0)
                    .checked_add(Span::new().hours(1))
                    .ok()?;
            } else if !has(self.minutes, at.minute()) {
                at = at.checked_add(Span::new().minutes(1)).ok()?;
            } else {
                return Some(at.to_zoned(TimeZone::UTC).ok()?.timestamp());
            }
        }
        None
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

fn has(bits: u64, value: i8) -> bool {
    (0..64).contains(&value) && bits & (1 << value) != 0
}

/// The values one field allows, as bits.
fn bits(text: &str, field: &Field) -> Result<u64, String> {
    let mut out = 0u64;
    for part in text.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => {
                let step: u32 = step.parse().ok().filter(|s| *s > 0).ok_or_else(|| {
                    format!("{}: step {step:?} is not a positive number", field.name)
                })?;
                (range, Some(step))
            }
            None => (part, None),
        };
        let (low, high) = if range == "*" {
            (field.min, field.max)
        } else if let Some((a, b)) = range.split_once('-') {
            (value(a, field)?, value(b, field)?)
        } else {
            let v = value(range, field)?;
            (v, if step.is_some() { field.max } else { v })
        };
        if low > high {
            return Err(format!(
                "{}: range {range} runs backwards ({low} > {high})",
                field.name
            ));
        }
        for v in (low..=high).step_by(step.unwrap_or(1) as usize) {
            out |= 1 << v;
        }
    }
    Ok(out)
}

fn value(text: &str, field: &Field) -> Result<u32, String> {
    let upper = text.to_ascii_uppercase();
    let offset = if field.min == 1 { 1 } else { 0 };
    let v = match field.names.iter().position(|n| *n == upper) {
        Some(i) => i as u32 + offset,
        None => text.parse().map_err(|_| {
            let names = if field.names.is_empty() {
                String::new()
            } else {
                format!(" or a name ({})", field.names.join(", "))
            };
            format!(
                "{}: {text:?} is not a number from {} to {}{names}",
                field.name, field.min, field.max
            )
        })?,
    };
    if v < field.min || v > field.max {
        return Err(format!(
            "{}: {v} is out of range ({} to {})",
            field.name, field.min, field.max
        ));
    }
    Ok(v)
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
        // Lists, ranges with steps, and 7 as Sunday.
        assert_eq!(
            next("5,50 10-18/4 * * *", after).as_deref(),
            Some("2026-11-26T10:50:00Z")
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
        assert_eq!(
            why("60 * * * *"),
            "schedule \"60 * * * *\": minute: 60 is out of range (0 to 59)"
        );
        assert!(
            why("* * * FOO *")
                .contains("month: \"FOO\" is not a number from 1 to 12 or a name (JAN")
        );
        assert!(why("*/0 * * * *").contains("minute: step \"0\" is not a positive number"));
        assert!(why("* 5-2 * * *").contains("hour: range 5-2 runs backwards"));
        assert!(why("@every 5m").contains("unknown shorthand @every 5m"));
    }
}
