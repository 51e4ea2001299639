//! What a reply's headers say about time: when to come back
//! (`Retry-After`, `X-RateLimit-Reset`) and the server's budget
//! (`X-RateLimit-Remaining` until `X-RateLimit-Reset`). Every number is
//! read with checked arithmetic: one no clock holds is unreadable, never
//! an overflow.

use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, HeaderName, RETRY_AFTER};

use crate::limit::pace::Reading;

// Named once: a lookup by text parses the name on every reply.
static REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
static RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");

/// When the server says to come back: `Retry-After` (delta seconds or an
/// HTTP date), else `X-RateLimit-Reset` (delta seconds, or a Unix time when
/// the number is large). `now` is the wall clock, for dates.
pub(crate) fn retry_delay(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    retry_after(headers, now).or_else(|| reset_delay(headers, now))
}

/// What `Retry-After` says (delta seconds or an HTTP date), if readable.
pub(crate) fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let v = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(v).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// The time until `X-RateLimit-Reset`: delta seconds, or a Unix time when
/// the number is large (more than a year of seconds). A Unix time the
/// system clock cannot represent (past `i64::MAX` seconds, say) is
/// unreadable: `None`, never an overflow.
fn reset_delay(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let n = header_number(headers, &RESET)?;
    if n > 365 * 24 * 3600 {
        let at = SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(n))?;
        return Some(at.duration_since(now).unwrap_or(Duration::ZERO));
    }
    Some(Duration::from_secs(n))
}

fn header_number(headers: &HeaderMap, name: &HeaderName) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

/// What a reply's `X-RateLimit-Remaining` and `X-RateLimit-Reset` say
/// about the server's budget (both needed; `Reset` read as for
/// [`retry_delay`]); `None` without them. The wall clock is read only when
/// the reply has them.
pub(crate) fn rate_reading(
    headers: &HeaderMap,
    now: impl FnOnce() -> SystemTime,
) -> Option<Reading> {
    let remaining = header_number(headers, &REMAINING)?;
    Some(Reading {
        remaining,
        until: reset_delay(headers, now())?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::test_headers as headers;

    #[test]
    fn retry_after_seconds_date_and_reset() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        assert_eq!(
            retry_delay(&headers(&[("retry-after", "7")]), now),
            Some(Duration::from_secs(7))
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(42));
        assert_eq!(
            retry_delay(&headers(&[("retry-after", &date)]), now),
            Some(Duration::from_secs(42))
        );
        assert_eq!(
            retry_delay(&headers(&[("x-ratelimit-reset", "1700000013")]), now),
            Some(Duration::from_secs(13))
        );
        assert_eq!(
            retry_delay(&headers(&[("x-ratelimit-reset", "9")]), now),
            Some(Duration::from_secs(9))
        );
        assert_eq!(retry_delay(&headers(&[("retry-after", "soon")]), now), None);
    }

    #[test]
    fn a_reading_needs_remaining_and_reset_in_either_form() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let reading = |pairs: &[(&'static str, &str)]| rate_reading(&headers(pairs), || now);
        assert_eq!(
            reading(&[
                ("x-ratelimit-limit", "100"),
                ("x-ratelimit-remaining", "40"),
                ("x-ratelimit-reset", "1700000020"),
            ]),
            Some(Reading {
                remaining: 40,
                until: Duration::from_secs(20)
            })
        );
        assert_eq!(
            reading(&[("x-ratelimit-remaining", "3"), ("x-ratelimit-reset", "2")]),
            Some(Reading {
                remaining: 3,
                until: Duration::from_secs(2)
            })
        );
        assert_eq!(reading(&[("x-ratelimit-reset", "2")]), None);
        assert_eq!(reading(&[("x-ratelimit-remaining", "3")]), None);
        assert_eq!(
            reading(&[
                ("x-ratelimit-remaining", "many"),
                ("x-ratelimit-reset", "2")
            ]),
            None
        );
        // Retry-After is not the budget's reset.
        assert_eq!(
            reading(&[("x-ratelimit-remaining", "3"), ("retry-after", "9")]),
            None
        );
    }
}
