//! The one place where an HTTP reply, or the lack of one, becomes an
//! [`AttemptError`]: for the policy's calls, for the requests of the raw
//! client it hands out, and for whatever sends them (reqwest, or the fake's
//! in-process router, which answers in HTTP too).
//!
//! - never sent (connection refused, DNS, [`ExchangeError::NotSent`]) →
//!   [`AttemptError::NotSent`];
//! - 429, or 503 with `Retry-After` → [`AttemptError::Throttled`], with the
//!   delay read from `Retry-After` (seconds or HTTP date) or, for a 429,
//!   `X-RateLimit-Reset` (seconds, or a Unix time; it comes with every
//!   reply, so it never makes a 503 throttling);
//! - 501 Not Implemented (the server does not offer the operation; the
//!   fake answers it for an operation it does not model) →
//!   [`AttemptError::Rejected`]: permanent;
//! - 503 without `Retry-After` whose message says that no hardware
//!   reservation is available ("There are no available hardware
//!   reservations for selected plan and facility", the answer to a
//!   `next-available` create) → [`AttemptError::Rejected`]: permanent for
//!   this call (see below);
//! - other 5xx (an HTML 502 from a proxy included), 408, timeouts, resets,
//!   bodies cut short, [`ExchangeError::NoReply`] → [`AttemptError::Unknown`];
//! - 3xx (redirects are never followed: the token would go along) and other
//!   4xx → [`AttemptError::Rejected`] with the body's `errors` and `error`
//!   messages (for a redirect, where it pointed);
//! - a reply larger than the configured bound → [`AttemptError::TooLarge`];
//! - a success status whose body does not decode → [`AttemptError::Decode`],
//!   with its real status;
//! - the generated client's own parameter validation →
//!   [`AttemptError::InvalidRequest`].
//!
//! Error bodies are read up to [`ERROR_BODY_PREFIX`] bytes, never whole.
//!
//! # "No hardware reservation available" is not retried
//!
//! A `next-available` create that finds no reservation is answered `503`
//! without `Retry-After` (kubernetes-retired/cluster-api-provider-packet
//! issue 191). Any other such 503 is an unknown outcome and is retried;
//! this one is returned at once, and `create_device` turns it into
//! [`crate::Error::NoReservationAvailable`], because:
//!
//! - the server says what happened: it did not act (nothing to recover,
//!   unlike a 503 from a failing proxy);
//! - capacity comes back only when a device is deleted and its reservation
//!   released (minutes: packngo issue 139 reports about 4) or when more is
//!   bought, not on a backoff's schedule; retrying would hold the call for
//!   up to the backoff's 15 minutes and spend the client-wide retry budget
//!   that other calls need, turning a capacity shortage into what looks
//!   like an outage;
//! - the controller is the one that can decide what to do: wait and
//!   requeue, or ask for another plan or metro.
//!
//! A 503 that carries `Retry-After` is throttling, whatever its message,
//! and is retried after that time.

use std::time::{Duration, SystemTime};

use metal_api::{ExchangeError, ResponseValue};
use reqwest::header::HeaderMap;

use crate::error::AttemptError;
use crate::limit::pace::Reading;

/// How much of an undocumented error reply is read for its messages.
pub const ERROR_BODY_PREFIX: usize = 4096;
/// How much of a body an error message quotes.
const SNIPPET: usize = 200;

/// Whether a reply with `status` and `headers` asks the client to slow
/// down, and for how long (`Some(None)`: throttled, no readable time).
pub(crate) fn throttled(status: u16, headers: &HeaderMap) -> Option<Option<Duration>> {
    // Every reply passes here: read the headers only for the two statuses
    // that can mean "slow down".
    match status {
        429 => Some(retry_delay(headers, SystemTime::now())),
        // Only `Retry-After` makes a 503 throttling: `X-RateLimit-Reset`
        // comes with every reply of the API (packngo reads it from each),
        // so it says nothing about this one.
        503 => retry_after(headers, SystemTime::now()).map(Some),
        _ => None,
    }
}

/// Classifies a reply that is not a success.
pub(crate) fn from_status(
    status: u16,
    headers: &HeaderMap,
    messages: Vec<String>,
    body: &str,
) -> AttemptError {
    if let Some(retry_after) = throttled(status, headers) {
        return AttemptError::Throttled {
            status,
            retry_after,
        };
    }
    if no_reservation_available(status, &messages) {
        return AttemptError::Rejected { status, messages };
    }
    match status {
        501 => AttemptError::Rejected { status, messages },
        408 | 500..=599 => AttemptError::Unknown {
            status: Some(status),
            detail: if messages.is_empty() {
                body.to_string()
            } else {
                messages.join("; ")
            },
            source: None,
        },
        300..=399 => redirect(
            status,
            headers
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .unwrap_or(""),
        ),
        400..=499 => AttemptError::Rejected { status, messages },
        _ => AttemptError::Decode {
            status,
            detail: format!("status not in the spec; body starts {body:?}"),
        },
    }
}

/// The words of the API's answer to a `next-available` create that finds
/// no hardware reservation.
const NO_RESERVATION_AVAILABLE: &str = "no available hardware reservations";

/// Whether a reply is the API's "no hardware reservation available" (a 503
/// whose message says so; see the module docs).
pub(crate) fn no_reservation_available(status: u16, messages: &[String]) -> bool {
    status == 503
        && messages
            .iter()
            .any(|m| m.to_ascii_lowercase().contains(NO_RESERVATION_AVAILABLE))
}

/// A redirect, permanent: it is never followed (the token would go along).
fn redirect(status: u16, location: &str) -> AttemptError {
    AttemptError::Rejected {
        status,
        messages: vec![format!("redirect to {location:?} not followed")],
    }
}

/// Classifies what a generated operation returned. `status` is the status
/// the exchange saw, for the failures that lost it (a body that does not
/// decode).
pub(crate) async fn api_error<E: serde::Serialize>(
    error: metal_api::Error<E>,
    status: Option<u16>,
) -> AttemptError {
    match error {
        metal_api::Error::InvalidRequest(reason) => AttemptError::InvalidRequest { reason },
        metal_api::Error::CommunicationError(e) => from_reqwest(e),
        metal_api::Error::InvalidUpgrade(e) | metal_api::Error::ResponseBodyError(e) => {
            match exchange_error(&e) {
                Some(classified) => classified,
                None => AttemptError::Unknown {
                    status: e.status().map(|s| s.as_u16()).or(status),
                    detail: "reply body failed".into(),
                    source: Some(Box::new(e.without_url())),
                },
            }
        }
        metal_api::Error::ErrorResponse(rv) => {
            let status = rv.status().as_u16();
            let headers = rv.headers().clone();
            from_status(status, &headers, messages_of(rv), "")
        }
        metal_api::Error::UnexpectedResponse(response) => {
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let (text, read_error) = prefix(response).await;
            if let Some(e) = read_error.as_ref().and_then(exchange_error) {
                return e;
            }
            from_status(status, &headers, error_messages(&text), &snippet(&text))
        }
        metal_api::Error::InvalidResponsePayload(bytes, e) => {
            let text = String::from_utf8_lossy(&bytes);
            match status {
                Some(s) if !(200..300).contains(&s) => {
                    from_status(s, &HeaderMap::new(), error_messages(&text), &snippet(&text))
                }
                _ => AttemptError::Decode {
                    status: status.unwrap_or(0),
                    detail: format!("{e}; body starts {:?}", snippet(&text)),
                },
            }
        }
        metal_api::Error::Custom(detail) => AttemptError::Unknown {
            status,
            detail,
            source: None,
        },
    }
}

/// The first [`ERROR_BODY_PREFIX`] bytes of a reply, as text, and the
/// error that ended the read early, if any.
async fn prefix(mut response: reqwest::Response) -> (String, Option<reqwest::Error>) {
    let mut buf = Vec::new();
    let mut failed = None;
    while buf.len() < ERROR_BODY_PREFIX {
        match response.chunk().await {
            Ok(Some(chunk)) => buf.extend_from_slice(&chunk),
            Ok(None) => break,
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    buf.truncate(ERROR_BODY_PREFIX);
    (String::from_utf8_lossy(&buf).into_owned(), failed)
}

/// The classification an exchange gave a failure of its own, if it did.
fn exchange_error(e: &reqwest::Error) -> Option<AttemptError> {
    Some(match ExchangeError::find(e)? {
        ExchangeError::NotSent(detail) => AttemptError::NotSent {
            source: detail.clone().into(),
        },
        ExchangeError::NoReply(detail) => AttemptError::Unknown {
            status: None,
            detail: detail.clone(),
            source: None,
        },
        ExchangeError::BodyTooLarge { status, limit } => AttemptError::TooLarge {
            status: *status,
            limit: *limit,
        },
        ExchangeError::Redirect { status, location } => redirect(*status, location),
        other => AttemptError::Unknown {
            status: None,
            detail: other.to_string(),
            source: None,
        },
    })
}

fn from_reqwest(e: reqwest::Error) -> AttemptError {
    if let Some(classified) = exchange_error(&e) {
        return classified;
    }
    // Strip the URL: it holds no token, but keeps errors short and stable.
    let e = e.without_url();
    if e.is_connect() {
        AttemptError::NotSent {
            source: Box::new(e),
        }
    } else if e.is_builder() {
        AttemptError::InvalidRequest {
            reason: e.to_string(),
        }
    } else {
        let detail = if e.is_timeout() {
            "timed out after sending"
        } else {
            "connection failed after sending"
        };
        AttemptError::Unknown {
            status: e.status().map(|s| s.as_u16()),
            detail: detail.into(),
            source: Some(Box::new(e)),
        }
    }
}

/// The `errors` and `error` messages of a documented error reply.
fn messages_of<E: serde::Serialize>(rv: ResponseValue<E>) -> Vec<String> {
    serde_json::to_value(rv.into_inner())
        .map(|v| messages_in(&v))
        .unwrap_or_default()
}

/// The `errors`/`error` messages of an error body, when it is JSON.
fn error_messages(text: &str) -> Vec<String> {
    serde_json::from_str::<serde_json::Value>(text)
        .map(|v| messages_in(&v))
        .unwrap_or_default()
}

fn messages_in(v: &serde_json::Value) -> Vec<String> {
    let mut out: Vec<String> = v["errors"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|m| m.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    out.extend(v["error"].as_str().map(str::to_string));
    out
}

fn snippet(text: &str) -> String {
    text.chars().take(SNIPPET).collect()
}

/// When the server says to come back: `Retry-After` (delta seconds or an
/// HTTP date), else `X-RateLimit-Reset` (delta seconds, or a Unix time when
/// the number is large). `now` is the wall clock, for dates.
pub(crate) fn retry_delay(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    retry_after(headers, now).or_else(|| reset_delay(headers, now))
}

/// What `Retry-After` says (delta seconds or an HTTP date), if readable.
fn retry_after(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let v = headers.get("retry-after")?.to_str().ok()?.trim();
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
    let n = header_number(headers, "x-ratelimit-reset")?;
    if n > 365 * 24 * 3600 {
        let at = SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(n))?;
        return Some(at.duration_since(now).unwrap_or(Duration::ZERO));
    }
    Some(Duration::from_secs(n))
}

fn header_number(headers: &HeaderMap, name: &str) -> Option<u64> {
    headers.get(name)?.to_str().ok()?.trim().parse().ok()
}

/// What a reply's `X-RateLimit-Remaining` and `X-RateLimit-Reset` say
/// about the server's budget (both needed; `Reset` read as for
/// [`retry_delay`]); `None` without them.
pub(crate) fn rate_reading(headers: &HeaderMap, now: SystemTime) -> Option<Reading> {
    Some(Reading {
        remaining: header_number(headers, "x-ratelimit-remaining")?,
        until: reset_delay(headers, now)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

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
    fn hostile_numbers_never_overflow_a_time() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let huge = [
            u64::MAX.to_string(),
            (i64::MAX as u64 + 1).to_string(),
            i64::MAX.to_string(),
        ];
        for n in &huge {
            for name in ["x-ratelimit-reset", "retry-after"] {
                let h = headers(&[(name, n)]);
                // Whatever each says, reading it never panics.
                let _ = retry_delay(&h, now);
                let _ = throttled(429, &h);
                let _ = throttled(503, &h);
            }
            let h = headers(&[("x-ratelimit-remaining", "5"), ("x-ratelimit-reset", n)]);
            let _ = rate_reading(&h, now);
        }
        // A Unix time past what the clock holds is unreadable.
        for n in [u64::MAX.to_string(), (i64::MAX as u64 + 1).to_string()] {
            let h = headers(&[("x-ratelimit-remaining", "5"), ("x-ratelimit-reset", &n)]);
            assert_eq!(rate_reading(&h, now), None, "{n}");
            assert_eq!(retry_delay(&h, now), None, "{n}");
        }
        // Retry-After in seconds holds any u64.
        assert_eq!(
            retry_delay(&headers(&[("retry-after", &u64::MAX.to_string())]), now),
            Some(Duration::from_secs(u64::MAX))
        );
        // Negative numbers are not numbers of seconds.
        for n in ["-1", "-9223372036854775808"] {
            assert_eq!(retry_delay(&headers(&[("retry-after", n)]), now), None);
            assert_eq!(
                retry_delay(&headers(&[("x-ratelimit-reset", n)]), now),
                None
            );
            assert_eq!(
                rate_reading(
                    &headers(&[("x-ratelimit-remaining", n), ("x-ratelimit-reset", "9")]),
                    now
                ),
                None
            );
        }
    }

    #[test]
    fn a_reading_needs_remaining_and_reset_in_either_form() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let reading = |pairs: &[(&'static str, &str)]| rate_reading(&headers(pairs), now);
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

    #[test]
    fn statuses_classify() {
        let none = HeaderMap::new();
        assert!(matches!(
            from_status(429, &none, vec![], ""),
            AttemptError::Throttled { status: 429, .. }
        ));
        assert!(matches!(
            from_status(503, &headers(&[("retry-after", "1")]), vec![], ""),
            AttemptError::Throttled { status: 503, .. }
        ));
        for s in [408, 500, 502, 503] {
            assert!(matches!(
                from_status(s, &none, vec![], "<html>"),
                AttemptError::Unknown { status: Some(x), .. } if x == s
            ));
        }
        for s in [400, 401, 403, 404, 409, 422, 501] {
            assert!(matches!(
                from_status(s, &none, vec!["m".into()], ""),
                AttemptError::Rejected { status, .. } if status == s
            ));
        }
        let redirect = from_status(
            302,
            &headers(&[("location", "http://elsewhere/")]),
            vec![],
            "",
        );
        assert!(
            matches!(&redirect, AttemptError::Rejected { status: 302, messages } if messages[0].contains("http://elsewhere/")),
            "{redirect:?}"
        );
    }

    #[test]
    fn no_reservation_available_is_permanent_only_without_retry_after() {
        let none = HeaderMap::new();
        let msg = vec![
            "There are no available hardware reservations for selected plan and facility".into(),
        ];
        assert!(matches!(
            from_status(503, &none, msg.clone(), ""),
            AttemptError::Rejected { status: 503, messages } if messages == msg
        ));
        // With Retry-After it is throttling, retried after that time.
        assert!(matches!(
            from_status(503, &headers(&[("retry-after", "3")]), msg.clone(), ""),
            AttemptError::Throttled { status: 503, .. }
        ));
        // The rate-limit headers every reply carries do not make it
        // throttling.
        let rate = headers(&[
            ("x-ratelimit-limit", "10"),
            ("x-ratelimit-remaining", "9"),
            ("x-ratelimit-reset", "1700000013"),
        ]);
        assert!(matches!(
            from_status(503, &rate, msg.clone(), ""),
            AttemptError::Rejected { status: 503, .. }
        ));
        assert!(matches!(
            from_status(503, &rate, vec![], ""),
            AttemptError::Unknown {
                status: Some(503),
                ..
            }
        ));
        // Another 503 stays an unknown outcome; another status with the
        // message is what its status says.
        assert!(matches!(
            from_status(503, &none, vec!["Service Unavailable".into()], ""),
            AttemptError::Unknown {
                status: Some(503),
                ..
            }
        ));
        assert!(matches!(
            from_status(500, &none, msg, ""),
            AttemptError::Unknown {
                status: Some(500),
                ..
            }
        ));
    }

    #[test]
    fn messages_come_from_errors_and_error() {
        assert_eq!(
            error_messages(r#"{"errors":["a","b"],"error":"c"}"#),
            vec!["a", "b", "c"]
        );
        assert!(error_messages("<html>").is_empty());
    }
}
