//! The one place where a failed attempt becomes a decision: retry, or stop
//! with which [`Error`].
//!
//! | attempt failure                  | idempotent op | non-idempotent op |
//! |----------------------------------|---------------|-------------------|
//! | not sent (connect, DNS)          | retry         | retry             |
//! | throttled (429, 503+Retry-After) | retry         | retry             |
//! | outcome unknown (5xx, timeout)   | retry         | `OutcomeUnknown`  |
//! | rejected (4xx)                   | `Rejected`    | `Rejected`        |
//! | reply does not decode            | `Decode`      | `Decode`          |
//! | invalid before sending           | `InvalidRequest` | `InvalidRequest` |
//! | reply larger than the bound      | `TooLarge`    | `TooLarge`        |
//!
//! An operation is idempotent by its HTTP method (GET, HEAD, PUT, DELETE),
//! unless the call says otherwise (`CallOptions::idempotent`) or the client
//! made it so (the witness of `create_device`, the checks of power and
//! move).

use std::time::Duration;

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

/// Classifies one failed attempt of `operation`. `attempts` counts attempts
/// made so far, this one included.
pub(crate) fn classify(
    operation: &'static str,
    idempotency: Idempotency,
    attempts: u32,
    error: AttemptError,
) -> Decision {
    match error {
        AttemptError::NotSent { .. } => Decision::Retry {
            after: None,
            outcome_unknown: false,
            error,
        },
        AttemptError::Throttled { retry_after, .. } => Decision::Retry {
            after: retry_after,
            outcome_unknown: false,
            error,
        },
        AttemptError::Unknown { .. } => match idempotency {
            Idempotency::Idempotent => Decision::Retry {
                after: None,
                outcome_unknown: true,
                error,
            },
            Idempotency::NotIdempotent => Decision::Stop(Error::OutcomeUnknown {
                operation,
                attempts,
                source: error,
            }),
        },
        AttemptError::Rejected { status, messages } => Decision::Stop(Error::Rejected {
            operation,
            status,
            messages,
        }),
        AttemptError::Decode { status, detail } => Decision::Stop(Error::Decode {
            operation,
            status,
            detail,
        }),
        AttemptError::InvalidRequest { reason } => {
            Decision::Stop(Error::InvalidRequest { operation, reason })
        }
        AttemptError::TooLarge { status, limit } => Decision::Stop(Error::TooLarge {
            operation,
            status,
            limit,
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
            classify("findDeviceById", Idempotency::Idempotent, 1, unknown()),
            Decision::Retry {
                outcome_unknown: true,
                ..
            }
        ));
        assert!(matches!(
            classify("performAction", Idempotency::NotIdempotent, 1, unknown()),
            Decision::Stop(Error::OutcomeUnknown { attempts: 1, .. })
        ));
    }

    #[test]
    fn not_sent_and_throttled_retry_even_non_idempotent() {
        let not_sent = AttemptError::NotSent {
            source: "connection refused".into(),
        };
        assert!(matches!(
            classify("performAction", Idempotency::NotIdempotent, 1, not_sent),
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
            classify("performAction", Idempotency::NotIdempotent, 1, throttled),
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
                classify("createDevice", Idempotency::Idempotent, 1, e),
                Decision::Stop(Error::Rejected { status: s, ref messages, .. }) if s == status && messages == &["nope"]
            ));
        }
        let e = AttemptError::Decode {
            status: 200,
            detail: "x".into(),
        };
        assert!(matches!(
            classify("findDeviceById", Idempotency::Idempotent, 1, e),
            Decision::Stop(Error::Decode { .. })
        ));
        let e = AttemptError::InvalidRequest { reason: "x".into() };
        assert!(matches!(
            classify("findDeviceById", Idempotency::Idempotent, 1, e),
            Decision::Stop(Error::InvalidRequest { .. })
        ));
    }
}
