//! The server-side rate limit's token bucket (on tokio's clock, so a
//! paused clock drives it) and the `X-RateLimit-*` values it gives each
//! request.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tokio::time::Instant;

use crate::clock::whole_seconds;

/// The server-side rate limit: a token bucket holding one second's worth of
/// requests, refilled continuously at the limit. A client spacing its
/// requests at the limit never meets a 429, whatever their phase; a client
/// that bursts meets 429s once the bucket is empty.
pub(crate) struct Bucket {
    tokens: f64,
    last: Instant,
}

impl Bucket {
    pub(crate) fn full(limit: u32, now: Instant) -> Self {
        Self {
            tokens: f64::from(limit),
            last: now,
        }
    }

    /// Refills for the time since the last request and reports the bucket
    /// without taking a token: the headers of a reply that spends nothing
    /// (a request without a valid token).
    pub(crate) fn peek(&mut self, limit: u32, now: Instant) -> RateHeaders {
        let per_second = f64::from(limit);
        self.refill(per_second, now);
        let refill = Duration::from_secs_f64((per_second - self.tokens) / per_second);
        RateHeaders {
            limit,
            remaining: self.tokens.floor() as u32,
            reset: whole_seconds(refill),
            until: refill,
        }
    }

    fn refill(&mut self, per_second: f64, now: Instant) {
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.tokens = (self.tokens + elapsed * per_second).min(per_second);
        self.last = now;
    }

    /// Refills for the time since the last request, then takes a token.
    pub(crate) fn take(&mut self, limit: u32, now: Instant) -> Result<RateHeaders, RateHeaders> {
        let per_second = f64::from(limit);
        self.refill(per_second, now);
        if self.tokens < 1.0 {
            // Whole seconds until one token is back, at least 1 (the
            // granularity of `Retry-After`).
            let wait = Duration::from_secs_f64((1.0 - self.tokens) / per_second);
            return Err(RateHeaders {
                limit,
                remaining: 0,
                reset: whole_seconds(wait).max(1),
                until: wait,
            });
        }
        self.tokens -= 1.0;
        // Whole seconds until the bucket is full again.
        let refill = Duration::from_secs_f64((per_second - self.tokens) / per_second);
        Ok(RateHeaders {
            limit,
            remaining: self.tokens.floor() as u32,
            reset: whole_seconds(refill),
            until: refill,
        })
    }
}

/// The `X-RateLimit-*` values of one request.
#[derive(Debug)]
pub(crate) struct RateHeaders {
    pub(crate) limit: u32,
    pub(crate) remaining: u32,
    /// Whole seconds until the reset (a 429's `Retry-After`).
    pub(crate) reset: u64,
    /// The exact time until the reset.
    pub(crate) until: Duration,
}

impl RateHeaders {
    /// `X-RateLimit-Reset` as the real API sends it: the Unix time of the
    /// reset, in whole seconds, rounded up (never before the reset).
    pub(crate) fn reset_at(&self, now: SystemTime) -> u64 {
        let at = (now + self.until)
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        whole_seconds(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_spaced_at_the_limit_are_never_refused() {
        let start = Instant::now();
        let mut bucket = Bucket::full(10, start);
        // Drain the initial burst, then go on at exactly 10 per second.
        for _ in 0..10 {
            assert!(bucket.take(10, start).is_ok());
        }
        for i in 1..=100u64 {
            let at = start + Duration::from_millis(100 * i);
            assert!(bucket.take(10, at).is_ok(), "request {i}");
        }
    }

    #[test]
    fn the_reset_is_a_unix_time_rounded_up() {
        let start = Instant::now();
        let mut bucket = Bucket::full(10, start);
        let h = bucket.take(10, start).ok().unwrap();
        // One token short of full: back in 100 ms.
        assert_eq!(h.until, Duration::from_millis(100));
        let now = UNIX_EPOCH + Duration::from_millis(1_700_000_000_950);
        assert_eq!(h.reset_at(now), 1_700_000_002);
        let now = UNIX_EPOCH + Duration::from_millis(1_700_000_000_500);
        assert_eq!(h.reset_at(now), 1_700_000_001);
    }

    #[test]
    fn a_peek_reports_the_bucket_without_spending() {
        let start = Instant::now();
        let mut bucket = Bucket::full(4, start);
        assert_eq!(bucket.peek(4, start).remaining, 4);
        assert_eq!(bucket.peek(4, start).remaining, 4);
        assert_eq!(bucket.take(4, start).ok().map(|h| h.remaining), Some(3));
        let h = bucket.peek(4, start);
        assert_eq!((h.remaining, h.until), (3, Duration::from_millis(250)));
    }

    #[test]
    fn a_burst_beyond_the_bucket_is_refused_with_a_retry_time() {
        let start = Instant::now();
        let mut bucket = Bucket::full(3, start);
        let remaining: Vec<u32> = (0..3)
            .map(|_| bucket.take(3, start).map(|h| h.remaining).unwrap_or(99))
            .collect();
        assert_eq!(remaining, vec![2, 1, 0]);
        let refused = bucket.take(3, start).err().map(|h| (h.remaining, h.reset));
        assert_eq!(refused, Some((0, 1)));
        // A third of a second later one token is back.
        assert!(bucket.take(3, start + Duration::from_millis(334)).is_ok());
    }
}
