//! The fake's one clock. Every schedule and every settle of the model, the
//! timestamps the API shows and the times of the call log read it: tokio's
//! clock, run [`crate::FakeBuilder::time_scale`] times faster from the
//! start, plus every advance ([`crate::Fake::advance`],
//! `POST /_fake/clock`). At scale 1 and no advance it is tokio's clock
//! itself, so paused-clock tests stay deterministic. The rate limit and
//! injected latency stay on tokio's own clock (real time).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::time::Instant;

/// The fastest the clock runs: 10000 times real time.
pub(crate) const MAX_TIME_SCALE: f64 = 10_000.0;

/// The most the clock can be advanced in all (ten years): the fake's
/// instants stay far from overflowing.
pub(crate) const MAX_ADVANCE: Duration = Duration::from_secs(10 * 365 * 24 * 3600);

/// Whole seconds, rounded up: what a `Retry-After` (or an
/// `X-RateLimit-Reset`) header can say.
pub(crate) fn whole_seconds(d: Duration) -> u64 {
    d.as_secs() + u64::from(d.subsec_nanos() > 0)
}

/// Why the fake's clock refused an advance ([`crate::Fake::advance`],
/// `POST /_fake/clock`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClockError {
    /// The total advance would pass ten years.
    #[error("the clock is advanced by at most {} s in all", MAX_ADVANCE.as_secs())]
    TooFar,
}

/// The fake's clock.
#[derive(Debug)]
pub(crate) struct Clock {
    wall: Wall,
    scale: f64,
    /// The total advance, in nanoseconds (ten years fit in 64 bits).
    advanced: AtomicU64,
}

/// The clock as the API's timestamps show it: the wall-clock time of an
/// instant on the fake's clock. Cheap to copy into the world.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wall {
    start: Instant,
    /// The wall-clock time at `start`, in whole seconds.
    start_wall: DateTime<Utc>,
}

impl Wall {
    /// The wall-clock time the clock started at: when a seeded record
    /// that keeps no creation time was created.
    pub(crate) fn started(&self) -> DateTime<Utc> {
        self.start_wall
    }

    /// The instant on the fake's clock of the wall-clock time `at` (the
    /// clock's start for a time before it, as a time past is due at once).
    pub(crate) fn instant(&self, at: DateTime<Utc>) -> Instant {
        let since = (at - self.start_wall).to_std().unwrap_or_default();
        self.start.checked_add(since).unwrap_or(self.start)
    }

    /// The wall-clock time of `at`.
    pub(crate) fn wall(&self, at: Instant) -> DateTime<Utc> {
        let since = at.saturating_duration_since(self.start);
        self.start_wall + chrono::Duration::from_std(since).unwrap_or_default()
    }
}

impl Clock {
    /// A clock starting now at `scale` times real time (`scale` checked by
    /// the builder: finite, from 1 to [`MAX_TIME_SCALE`]).
    pub(crate) fn new(scale: f64) -> Self {
        let start_wall = DateTime::from_timestamp(Utc::now().timestamp(), 0).unwrap_or_default();
        Self {
            wall: Wall {
                start: Instant::now(),
                start_wall,
            },
            scale,
            advanced: AtomicU64::new(0),
        }
    }

    /// Now, on the fake's clock.
    pub(crate) fn now(&self) -> Instant {
        let real = Instant::now();
        let advanced = self.advanced();
        if self.scale == 1.0 && advanced.is_zero() {
            return real;
        }
        let start = self.wall.start;
        let elapsed = real.saturating_duration_since(start);
        let scaled = Duration::try_from_secs_f64(elapsed.as_secs_f64() * self.scale)
            .unwrap_or(Duration::MAX);
        // Bounded by the scale, the process's life and MAX_ADVANCE, the sum
        // stays far below an overflow; saturate rather than panic anyway.
        start
            .checked_add(scaled.saturating_add(advanced))
            .unwrap_or(real)
    }

    /// The clock as timestamps show it.
    pub(crate) fn wall(&self) -> Wall {
        self.wall
    }

    /// Moves the clock on by `by`; returns the total advance.
    pub(crate) fn advance(&self, by: Duration) -> Result<Duration, ClockError> {
        let by = u64::try_from(by.as_nanos()).map_err(|_| ClockError::TooFar)?;
        let max = MAX_ADVANCE.as_nanos() as u64;
        let before = self
            .advanced
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |total| {
                total.checked_add(by).filter(|t| *t <= max)
            })
            .map_err(|_| ClockError::TooFar)?;
        Ok(Duration::from_nanos(before + by))
    }

    /// The total advance so far.
    pub(crate) fn advanced(&self) -> Duration {
        Duration::from_nanos(self.advanced.load(Ordering::Acquire))
    }

    /// How much faster than real time the clock runs.
    pub(crate) fn scale(&self) -> f64 {
        self.scale
    }
}
