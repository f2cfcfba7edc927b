//! How many progress reports a controller sends: a token bucket, shared by all its reconciles.
//!
//! A report of work under way (a rollout's counts) is superseded by the next write, so when a
//! thousand objects roll out at once the API server that runs the rollouts need not also take
//! a thousand interim status writes: the controller sends up to `rate` of them a second (a
//! second's worth at once) and the rest wait for their object's next reconcile.

use std::sync::Mutex;
use std::time::Instant;

#[derive(Debug)]
pub(crate) struct Throttle {
    /// Tokens added per second; 0: none ever.
    rate: u32,
    /// (tokens left, when they were counted).
    bucket: Mutex<(f64, Instant)>,
}

impl Throttle {
    /// Up to `rate` takes a second, `rate` of them at once; none when `rate` is 0.
    pub(crate) fn per_second(rate: u32) -> Self {
        Self {
            rate,
            bucket: Mutex::new((f64::from(rate), Instant::now())),
        }
    }

    /// Takes a token if one is left.
    pub(crate) fn try_take(&self) -> bool {
        self.try_take_at(Instant::now())
    }

    fn try_take_at(&self, now: Instant) -> bool {
        let rate = f64::from(self.rate);
        let mut bucket = self.bucket.lock().unwrap_or_else(|e| e.into_inner());
        let (tokens, counted) = *bucket;
        let elapsed = now.saturating_duration_since(counted).as_secs_f64();
        let tokens = (tokens + elapsed * rate).min(rate);
        let taken = tokens >= 1.0;
        *bucket = (if taken { tokens - 1.0 } else { tokens }, now.max(counted));
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn takes(throttle: &Throttle, at: Instant, tries: usize) -> usize {
        (0..tries).filter(|_| throttle.try_take_at(at)).count()
    }

    #[test]
    fn a_second_of_reports_at_once_then_the_rate() {
        let throttle = Throttle::per_second(5);
        let start = Instant::now();
        assert_eq!(
            takes(&throttle, start, 20),
            5,
            "the burst is a second's worth"
        );
        assert_eq!(takes(&throttle, start + Duration::from_millis(100), 20), 0);
        // 0.5 + 0.4 s later: 2.5 tokens.
        assert_eq!(takes(&throttle, start + Duration::from_millis(500), 20), 2);
        assert_eq!(takes(&throttle, start + Duration::from_secs(2), 20), 5);
        // Idle for long does not bank more than a second's worth.
        assert_eq!(takes(&throttle, start + Duration::from_secs(60), 20), 5);
    }

    #[test]
    fn rate_zero_sends_none() {
        let throttle = Throttle::per_second(0);
        let start = Instant::now();
        assert_eq!(takes(&throttle, start, 3), 0);
        assert_eq!(takes(&throttle, start + Duration::from_secs(3600), 3), 0);
    }

    #[test]
    fn a_clock_read_before_the_last_one_takes_nothing_extra() {
        // Reconciles read the clock before taking the lock: one may come in with an instant
        // older than the last count.
        let throttle = Throttle::per_second(1);
        let start = Instant::now();
        assert!(throttle.try_take_at(start + Duration::from_secs(1)));
        assert!(!throttle.try_take_at(start));
        assert!(throttle.try_take_at(start + Duration::from_secs(2)));
    }
}
