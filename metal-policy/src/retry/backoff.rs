//! How long to wait before the next attempt: our own small [`Backoff`]
//! trait, its factory, and the default [`ExponentialBackoff`].
//!
//! Elapsed time is measured with [`tokio::time::Instant`], so tests on
//! tokio's paused clock see the policy give up deterministically.

use std::time::Duration;

use rand::Rng;
use tokio::time::Instant;

/// One call's backoff schedule.
pub trait Backoff: Send {
    /// The delay before the next attempt, or `None` to give up.
    fn next_delay(&mut self) -> Option<Duration>;
}

/// Makes a fresh [`Backoff`] for every call (each page of a list is a call
/// of its own here).
pub trait BackoffFactory: Send + Sync {
    /// Starts a schedule; its clock starts now.
    fn start(&self) -> Box<dyn Backoff>;
}

/// Exponential backoff with jitter. The defaults are those of the reference
/// design (cenkalti/backoff's): 500 ms initial interval, multiplier 1.5,
/// randomization factor 0.5, 60 s maximum interval, 15 min maximum elapsed
/// time.
///
/// ```
/// use metal_policy::{BackoffFactory, ExponentialBackoff};
/// let policy = ExponentialBackoff { randomization_factor: 0.0, ..Default::default() };
/// let mut schedule = policy.start();
/// assert_eq!(schedule.next_delay(), Some(std::time::Duration::from_millis(500)));
/// assert_eq!(schedule.next_delay(), Some(std::time::Duration::from_millis(750)));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ExponentialBackoff {
    /// The first delay (before jitter).
    pub initial_interval: Duration,
    /// Each delay is the previous one times this.
    pub multiplier: f64,
    /// Each delay is drawn uniformly from `d * (1 ± randomization_factor)`.
    pub randomization_factor: f64,
    /// No delay (before jitter) grows beyond this.
    pub max_interval: Duration,
    /// Give up once this much time has passed since the schedule started;
    /// `None` never gives up.
    pub max_elapsed_time: Option<Duration>,
}

impl Default for ExponentialBackoff {
    fn default() -> Self {
        Self {
            initial_interval: Duration::from_millis(500),
            multiplier: 1.5,
            randomization_factor: 0.5,
            max_interval: Duration::from_secs(60),
            max_elapsed_time: Some(Duration::from_secs(15 * 60)),
        }
    }
}

impl BackoffFactory for ExponentialBackoff {
    fn start(&self) -> Box<dyn Backoff> {
        Box::new(ExponentialSchedule {
            policy: self.clone(),
            current: self.initial_interval,
            started: Instant::now(),
        })
    }
}

struct ExponentialSchedule {
    policy: ExponentialBackoff,
    current: Duration,
    started: Instant,
}

impl Backoff for ExponentialSchedule {
    fn next_delay(&mut self) -> Option<Duration> {
        let elapsed = self.started.elapsed();
        if let Some(max) = self.policy.max_elapsed_time
            && elapsed >= max
        {
            return None;
        }
        let base = self.current;
        let factor = self.policy.randomization_factor.clamp(0.0, 1.0);
        let delay = if factor > 0.0 {
            let jitter: f64 = rand::rng().random_range(-factor..=factor);
            base.mul_f64(1.0 + jitter)
        } else {
            base
        };
        let grown = base.mul_f64(self.policy.multiplier.max(1.0));
        self.current = grown.min(self.policy.max_interval);
        if let Some(max) = self.policy.max_elapsed_time {
            // Never sleep past the point where we would give up anyway.
            if elapsed + delay > max {
                return None;
            }
        }
        Some(delay)
    }
}

/// Adapts the `backoff` crate's `ExponentialBackoff` (feature `backoff`).
/// Its clock is `std::time::Instant`, so it does not follow tokio's paused
/// clock; prefer [`ExponentialBackoff`].
#[cfg(feature = "backoff")]
#[derive(Clone, Debug)]
pub struct BackoffCrate(pub backoff::ExponentialBackoff);

#[cfg(feature = "backoff")]
impl BackoffFactory for BackoffCrate {
    fn start(&self) -> Box<dyn Backoff> {
        let mut b = self.0.clone();
        backoff::backoff::Backoff::reset(&mut b);
        Box::new(BackoffCrateSchedule(b))
    }
}

#[cfg(feature = "backoff")]
struct BackoffCrateSchedule(backoff::ExponentialBackoff);

#[cfg(feature = "backoff")]
impl Backoff for BackoffCrateSchedule {
    fn next_delay(&mut self) -> Option<Duration> {
        backoff::backoff::Backoff::next_backoff(&mut self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn grows_caps_and_gives_up_on_the_tokio_clock() {
        let policy = ExponentialBackoff {
            randomization_factor: 0.0,
            max_interval: Duration::from_secs(1),
            max_elapsed_time: Some(Duration::from_secs(10)),
            ..Default::default()
        };
        let mut s = policy.start();
        assert_eq!(s.next_delay(), Some(Duration::from_millis(500)));
        assert_eq!(s.next_delay(), Some(Duration::from_millis(750)));
        assert_eq!(s.next_delay(), Some(Duration::from_secs(1)));
        assert_eq!(s.next_delay(), Some(Duration::from_secs(1)));
        tokio::time::advance(Duration::from_secs(9)).await;
        assert_eq!(s.next_delay(), Some(Duration::from_secs(1)));
        tokio::time::advance(Duration::from_millis(500)).await;
        assert_eq!(s.next_delay(), None, "would sleep past max elapsed");
    }

    #[test]
    fn jitter_stays_in_bounds() {
        let mut s = ExponentialBackoff::default().start();
        for _ in 0..50 {
            let d = s.next_delay().unwrap();
            assert!(d <= Duration::from_secs(90), "{d:?}");
        }
        let mut s = ExponentialBackoff::default().start();
        let d = s.next_delay().unwrap();
        assert!(d >= Duration::from_millis(250) && d <= Duration::from_millis(750));
    }
}

#[cfg(all(test, feature = "backoff"))]
mod backoff_crate_tests {
    use super::*;

    #[test]
    fn adapter_yields_the_crates_delays_and_gives_up() {
        let inner = backoff::ExponentialBackoff {
            initial_interval: Duration::from_millis(100),
            randomization_factor: 0.0,
            multiplier: 2.0,
            max_elapsed_time: Some(Duration::ZERO),
            ..Default::default()
        };
        let mut s = BackoffCrate(inner).start();
        // max_elapsed_time zero: the crate gives up at once.
        assert_eq!(s.next_delay(), None);
        let inner = backoff::ExponentialBackoff {
            initial_interval: Duration::from_millis(100),
            randomization_factor: 0.0,
            multiplier: 2.0,
            max_elapsed_time: None,
            ..Default::default()
        };
        let mut s = BackoffCrate(inner).start();
        assert_eq!(s.next_delay(), Some(Duration::from_millis(100)));
        assert_eq!(s.next_delay(), Some(Duration::from_millis(200)));
    }
}
