//! The one place where a failed attempt becomes a decision, read off its
//! class: retry, or stop with which [`Error`].
//!
//! | attempt failure                  | idempotent op | non-idempotent op |
//! |----------------------------------|---------------|-------------------|
//! | not sent (connect, DNS)          | retry         | retry             |
//! | throttled (429, 503+Retry-After) | retry         | retry             |
//! | outcome unknown (5xx, timeout)   | retry         | `OutcomeUnknown`  |
//! | rejected (4xx, 3xx, 501)         | `Rejected`    | `Rejected`        |
//! | no hardware reservation (503)    | `Rejected`    | `Rejected`        |
//! | reply does not decode            | `Decode`      | `Decode`          |
//! | invalid before sending           | `InvalidRequest` | `InvalidRequest` |
//! | reply larger than the bound      | `TooLarge`    | `TooLarge`        |
//!
//! An operation is idempotent by its HTTP method (GET, HEAD, PUT, DELETE),
//! unless the call says otherwise (`CallOptions::idempotent`) or the client
//! made it so (the witness of `create_device`, the checks of power and
//! move).

use std::time::Duration;

use crate::classify::Class;
use crate::error::{AttemptError, Error};

/// Whether repeating an operation can do more than doing it once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Idempotency {
    /// Safe to repeat after an unknown outcome (reads, updates, deletes,
    /// and the operations the client makes idempotent).
    Idempotent,
    /// Never repeated once it may have reached the server (reboot).
    NotIdempotent,
}

/// What to do after a failed attempt.
#[derive(Debug)]
pub(crate) enum Decision {
    /// Try again; `after` is the server's requested delay, if it gave one.
    Retry {
        /// The server's `Retry-After`/`X-RateLimit-Reset`, when throttled.
        after: Option<Duration>,
        /// The server may have acted on this attempt.
        outcome_unknown: bool,
        /// The error, kept for `GaveUp`/`DeadlineExceeded`.
        error: AttemptError,
    },
    /// Stop with this error.
    Stop(Error),
}

/// Decides after one failed attempt of `operation`, by the failure's
/// class. `attempts` counts attempts made so far, this one included.
pub(crate) fn decide(
    operation: &'static str,
    idempotency: Idempotency,
    attempts: u32,
    error: AttemptError,
) -> Decision {
    let retry = |after, outcome_unknown, error| Decision::Retry {
        after,
        outcome_unknown,
        error,
    };
    match error.class() {
        Class::NotSent => retry(None, false, error),
        Class::Throttled { retry_after } => retry(retry_after, false, error),
        Class::OutcomeUnknown => match idempotency {
            Idempotency::Idempotent => retry(None, true, error),
            Idempotency::NotIdempotent => Decision::Stop(Error::OutcomeUnknown {
                operation,
                attempts,
                source: error,
            }),
        },
        Class::Permanent(_) => Decision::Stop(match error.permanent(operation) {
            Ok(e) => e,
            // Every permanent failure has its own error; should one be
            // added without, the call still ends, with the attempt's error.
            Err(source) => Error::GaveUp {
                operation,
                attempts,
                source,
            },
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown() -> AttemptError {
        AttemptError::Unknown {
            status: Some(502),
            detail: "bad gateway".into(),
            source: None,
        }
    }

    #[test]
    fn unknown_outcome_retries_only_idempotent_operations() {
        assert!(matches!(
            decide("findDeviceById", Idempotency::Idempotent, 1, unknown()),
            Decision::Retry {
                outcome_unknown: true,
                ..
            }
        ));
        assert!(matches!(
            decide("performAction", Idempotency::NotIdempotent, 1, unknown()),
            Decision::Stop(Error::OutcomeUnknown { attempts: 1, .. })
        ));
    }

    #[test]
    fn not_sent_and_throttled_retry_even_non_idempotent() {
        let not_sent = AttemptError::NotSent {
            source: "connection refused".into(),
        };
        assert!(matches!(
            decide("performAction", Idempotency::NotIdempotent, 1, not_sent),
            Decision::Retry {
                outcome_unknown: false,
                ..
            }
        ));
        let throttled = AttemptError::Throttled {
            status: 429,
            retry_after: Some(Duration::from_secs(7)),
        };
        assert!(matches!(
            decide("performAction", Idempotency::NotIdempotent, 1, throttled),
            Decision::Retry { after: Some(d), .. } if d == Duration::from_secs(7)
        ));
    }

    #[test]
    fn rejections_decode_failures_and_invalid_requests_are_permanent() {
        for status in [400, 401, 403, 404, 409, 422] {
            let e = AttemptError::Rejected {
                status,
                messages: vec!["nope".into()],
            };
            assert!(matches!(
                decide("createDevice", Idempotency::Idempotent, 1, e),
                Decision::Stop(Error::Rejected { status: s, ref messages, .. }) if s == status && messages == &["nope"]
            ));
        }
        let e = AttemptError::Decode {
            status: 200,
            detail: "x".into(),
        };
        assert!(matches!(
            decide("findDeviceById", Idempotency::Idempotent, 1, e),
            Decision::Stop(Error::Decode { .. })
        ));
        let e = AttemptError::InvalidRequest { reason: "x".into() };
        assert!(matches!(
            decide("findDeviceById", Idempotency::Idempotent, 1, e),
            Decision::Stop(Error::InvalidRequest { .. })
        ));
    }
}
