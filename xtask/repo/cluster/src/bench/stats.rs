//! The arithmetic over the measurements: what an operator adds above a floor, ours' overhead
//! as a multiple of Go's, and a median with its range over the rounds.

use std::time::Duration;

use super::results::{Floor, Row};

/// The middle of `values` (the mean of the two middle ones for an even count) and the range,
/// as "m (lo-hi)"; "–" when there are none.
pub(super) fn median_range(mut values: Vec<f64>, fmt: impl Fn(f64) -> String) -> String {
    if values.is_empty() {
        return "–".into();
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    let median = if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    };
    if n == 1 {
        return fmt(median);
    }
    format!(
        "{} ({}-{})",
        fmt(median),
        fmt(values[0]),
        fmt(values[n - 1])
    )
}

/// What an operator adds above the floor, converge and storm; `–` where the operator was
/// faster than the floor run (noise), so a ratio would mean nothing.
pub(super) fn overhead(row: &Row, floor: &Floor) -> (Option<Duration>, Option<Duration>) {
    (
        row.converged.checked_sub(floor.converged),
        row.storm.checked_sub(floor.storm),
    )
}

/// Ours' overhead as a multiple of Go's; none when either run was faster than its floor or
/// Go added nothing.
pub(super) fn overhead_ratio(ours: Option<Duration>, go: Option<Duration>) -> Option<f64> {
    match (ours, go) {
        (Some(o), Some(g)) if !g.is_zero() => Some(o.as_secs_f64() / g.as_secs_f64()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_median_is_the_middle_value_with_the_range() {
        let x = |v: f64| format!("{v:.2}x");
        assert_eq!(median_range(vec![], x), "–");
        assert_eq!(median_range(vec![1.5], x), "1.50x");
        assert_eq!(median_range(vec![3.0, 0.5, 1.0], x), "1.00x (0.50x-3.00x)");
        assert_eq!(
            median_range(vec![2.0, 1.0, 4.0, 3.0], x),
            "2.50x (1.00x-4.00x)"
        );
    }
}
