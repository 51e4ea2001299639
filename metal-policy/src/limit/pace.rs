//! The pace of the client's requests: the spacing it keeps without
//! information from the server, and, with learning on, the spacing the
//! server's `X-RateLimit-Remaining`/`-Reset` headers announce.
//!
//! A reply saying `Remaining: r` and `Reset: t` means the server will take
//! `r` more requests until `t`. The client spreads them evenly: one request
//! every `(t - now) / r` (every `t - now` when `r` is 0: the next request
//! at the reset), never faster than the `api_rate` the user configured. The
//! learned spacing holds until `t`; after it, without a newer reading, the
//! client goes back to its configured (or default) spacing.
//!
//! Against a server with fixed windows this spends each window's budget
//! evenly over the window. Against a token bucket (the fake's: `Remaining`
//! is the tokens left, `Reset` when the bucket is full again) it settles
//! where the client spends tokens as fast as they come back: the emptier the
//! bucket, the later the reset and the fewer the tokens, so the slower the
//! pace, and the other way round.

use std::time::Duration;

/// The longest a server's `Retry-After`/`X-RateLimit-Reset` may pause us.
pub(crate) const MAX_THROTTLE_PAUSE: Duration = Duration::from_secs(300);
/// How long a throttling reply without a usable reset time pauses the
/// whole client.
pub(crate) const DEFAULT_THROTTLE_PAUSE: Duration = Duration::from_secs(5);

/// The longest learned spacing: however little budget a reply announces
/// and however far its reset, the next request goes within this (the
/// longest a throttling reply may pause the client). A server that means
/// it answers 429.
pub(crate) const MAX_LEARNED_SPACING: Duration = MAX_THROTTLE_PAUSE;

/// The longest a reading holds: a reset further away than this lapses
/// after it (unless a newer reading comes first, as one does with every
/// reply).
pub(crate) const MAX_READING_SPAN: Duration = Duration::from_secs(365 * 24 * 3600);

/// What one reply said about the server's budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Reading {
    /// `X-RateLimit-Remaining`: requests the server will still take.
    pub(crate) remaining: u64,
    /// The time from now to `X-RateLimit-Reset`.
    pub(crate) until: Duration,
}

/// How a rate limiter paces requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pace {
    /// The spacing without a reading in force: the configured `api_rate`,
    /// or the default.
    pub(crate) base: Duration,
    /// No learned spacing is shorter: the configured `api_rate`, or zero
    /// when none was configured.
    pub(crate) floor: Duration,
    /// Whether readings set the spacing.
    pub(crate) learn: bool,
    /// How many limiters share the server's budget (the processes of
    /// shared limits, while each falls back to its own limiter): each
    /// spends `1/share` of it.
    pub(crate) share: u32,
}

impl Pace {
    /// Always `spacing`, whatever the replies say.
    #[cfg(test)]
    pub(crate) fn fixed(spacing: Duration) -> Self {
        Self {
            base: spacing,
            floor: spacing,
            learn: false,
            share: 1,
        }
    }

    /// This pace for one of `n` limiters sharing the server's budget: each
    /// spacing `n` times as long.
    #[cfg(any(feature = "redis", test))]
    pub(crate) fn shared_by(self, n: u32) -> Self {
        let n = n.max(1);
        Self {
            base: self.base.saturating_mul(n),
            floor: self.floor.saturating_mul(n),
            share: self.share.saturating_mul(n),
            ..self
        }
    }

    /// The spacing that spreads `reading.remaining` requests evenly until
    /// the reset, never longer than [`MAX_LEARNED_SPACING`] and never
    /// shorter than the floor; `None` when learning is off or the reading
    /// says nothing usable (a reset already past).
    pub(crate) fn learned(&self, reading: Reading) -> Option<Duration> {
        if !self.learn || reading.until.is_zero() {
            return None;
        }
        let per = u32::try_from(reading.remaining.max(1)).unwrap_or(u32::MAX);
        let spacing = (reading.until / per).saturating_mul(self.share);
        Some(spacing.min(MAX_LEARNED_SPACING).max(self.floor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn learning(floor: Duration) -> Pace {
        Pace {
            base: Duration::from_secs(2),
            floor,
            learn: true,
            share: 1,
        }
    }

    fn reading(remaining: u64, until_ms: u64) -> Reading {
        Reading {
            remaining,
            until: Duration::from_millis(until_ms),
        }
    }

    #[test]
    fn remaining_is_spread_until_the_reset() {
        let p = learning(Duration::ZERO);
        assert_eq!(
            p.learned(reading(50, 1000)),
            Some(Duration::from_millis(20))
        );
        assert_eq!(
            p.learned(reading(0, 3000)),
            Some(Duration::from_secs(3)),
            "none left: the next at the reset"
        );
        assert_eq!(p.learned(reading(10, 0)), None, "a reset already past");
        assert_eq!(
            Pace::fixed(Duration::from_secs(1)).learned(reading(50, 1000)),
            None
        );
    }

    #[test]
    fn never_slower_than_the_cap_whatever_the_reset() {
        let p = learning(Duration::ZERO);
        for until in [
            Duration::from_secs(365 * 24 * 3600),
            Duration::from_secs(i64::MAX as u64),
            Duration::MAX,
        ] {
            for remaining in [0, 1, 5] {
                assert_eq!(
                    p.learned(Reading { remaining, until }),
                    Some(MAX_LEARNED_SPACING),
                    "{remaining} left in {until:?}"
                );
            }
        }
        // Shared by many, still capped.
        let p = learning(Duration::ZERO).shared_by(u32::MAX);
        assert_eq!(p.learned(reading(1, 1000)), Some(MAX_LEARNED_SPACING));
    }

    #[test]
    fn never_faster_than_the_floor_and_shared_by_n() {
        let p = learning(Duration::from_millis(100));
        assert_eq!(
            p.learned(reading(50, 1000)),
            Some(Duration::from_millis(100))
        );
        let p = learning(Duration::ZERO).shared_by(3);
        assert_eq!(p.base, Duration::from_secs(6));
        assert_eq!(
            p.learned(reading(50, 1000)),
            Some(Duration::from_millis(60))
        );
    }
}
