//! The errors of one attempt ([`AttemptError`]: a [`crate::Class`] with
//! its details; [`AttemptError::class`] is `classify`'s) and of one call
//! ([`Error`], what a controller gets back).
//!
//! No variant ever carries the auth token.

use std::time::Duration;

use uuid::Uuid;

/// A boxed error source that travels across tasks.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What went wrong with one attempt (one HTTP exchange): its [`crate::Class`]
/// ([`AttemptError::class`], found by [`crate::classify::classify`]) with
/// the details that go with it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AttemptError {
    /// The request never reached the server (connection refused, DNS): the
    /// server did not act, so any operation may be retried.
    #[error("request not sent: {source}")]
    NotSent {
        /// The connection error.
        #[source]
        source: BoxError,
    },
    /// 429, or 503 with `Retry-After`: the server did not act and asks us to
    /// slow down. `retry_after` is what `Retry-After` or `X-RateLimit-Reset`
    /// said, when either was readable.
    #[error("throttled by the server (HTTP {status}){}", fmt_retry_after(*.retry_after))]
    Throttled {
        /// 429 or 503.
        status: u16,
        /// When the server said to come back.
        retry_after: Option<Duration>,
    },
    /// The request was sent and no usable answer came back: a 5xx, a timeout,
    /// a reset, a reply cut short. The server may or may not have acted.
    #[error("outcome unknown{}: {detail}", fmt_status(*.status))]
    Unknown {
        /// The HTTP status, when one arrived.
        status: Option<u16>,
        /// What happened, in words (never the token).
        detail: String,
        /// The underlying error, when there is one.
        #[source]
        source: Option<BoxError>,
    },
    /// The server refused the request (400, 401, 403, 404, 409, 422, ...):
    /// retrying the same request cannot help.
    #[error("rejected with HTTP {status}: {}", messages.join("; "))]
    Rejected {
        /// The HTTP status.
        status: u16,
        /// The server's `errors` (and `error`) messages.
        messages: Vec<String>,
    },
    /// The API's answer to a `next-available` create that finds no
    /// hardware reservation (a 503 saying so, without `Retry-After`):
    /// permanent ([`crate::Permanent::NoReservationAvailable`]).
    #[error("no hardware reservation available (HTTP 503): {}", messages.join("; "))]
    NoReservationAvailable {
        /// The server's messages.
        messages: Vec<String>,
    },
    /// A success status whose body does not decode as the spec says.
    #[error("HTTP {status} reply does not decode: {detail}")]
    Decode {
        /// The HTTP status.
        status: u16,
        /// The decoder's complaint and the start of the body.
        detail: String,
    },
    /// The request could not be built (the generated client's own
    /// validation refused a parameter); nothing was sent.
    #[error("invalid request, not sent: {reason}")]
    InvalidRequest {
        /// What the client-side validation said.
        reason: String,
    },
    /// The reply body is larger than the configured bound
    /// ([`metal_api::ConfigBuilder::max_body`]); it was not read.
    #[error("HTTP {status} reply is larger than {limit} bytes")]
    TooLarge {
        /// The HTTP status.
        status: u16,
        /// The bound, in bytes.
        limit: u64,
    },
}

fn fmt_retry_after(d: Option<Duration>) -> String {
    d.map(|d| format!(", retry after {:.3} s", d.as_secs_f64()))
        .unwrap_or_default()
}

fn fmt_status(s: Option<u16>) -> String {
    s.map(|s| format!(" (HTTP {s})")).unwrap_or_default()
}

impl AttemptError {
    /// A short name of the failure, as the `outcome` label of
    /// `equinix_api_attempts_total` and the `error.type` of traces.
    pub fn outcome(&self) -> &'static str {
        match self {
            Self::NotSent { .. } => "not_sent",
            Self::Throttled { .. } => "throttled",
            Self::Unknown { .. } => "unknown",
            Self::Rejected { .. } => "rejected",
            Self::NoReservationAvailable { .. } => "no_reservation",
            Self::Decode { .. } => "decode",
            Self::InvalidRequest { .. } => "invalid",
            Self::TooLarge { .. } => "too_large",
        }
    }

    /// The call's error when this attempt's failure ends it of its own
    /// (a permanent one, or one whose retry is not allowed): what the
    /// server said, under `operation`; `None` for the failures that only
    /// end a call through its retry policy ([`Error::OutcomeUnknown`],
    /// [`Error::GaveUp`], ...), which carry the attempt error whole.
    pub(crate) fn permanent(self, operation: &'static str) -> Result<Error, Self> {
        Ok(match self {
            Self::Rejected { status, messages } => Error::Rejected {
                operation,
                status,
                messages,
            },
            // The typed create names it (Error::NoReservationAvailable);
            // any other call gets the server's refusal as it came.
            Self::NoReservationAvailable { messages } => Error::Rejected {
                operation,
                status: 503,
                messages,
            },
            Self::Decode { status, detail } => Error::Decode {
                operation,
                status,
                detail,
            },
            Self::InvalidRequest { reason } => Error::InvalidRequest { operation, reason },
            Self::TooLarge { status, limit } => Error::TooLarge {
                operation,
                status,
                limit,
            },
            other => return Err(other),
        })
    }

    /// The HTTP status of the reply, when one arrived.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::NotSent { .. } | Self::InvalidRequest { .. } => None,
            Self::NoReservationAvailable { .. } => Some(503),
            Self::Throttled { status, .. }
            | Self::Rejected { status, .. }
            | Self::Decode { status, .. }
            | Self::TooLarge { status, .. } => Some(*status),
            Self::Unknown { status, .. } => *status,
        }
    }
}

/// Why a call failed. Calls return data or an error, never both.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The API refused the request; it is not retried.
    #[error("{operation}: the API refused the request (HTTP {status}): {}", messages.join("; "))]
    Rejected {
        /// The operation (the spec's operationId).
        operation: &'static str,
        /// The HTTP status (400, 401, 403, 404, 409, 422, ...).
        status: u16,
        /// The server's error messages.
        messages: Vec<String>,
    },
    /// A success reply that does not decode; not retried.
    #[error("{operation}: HTTP {status} reply does not decode: {detail}")]
    Decode {
        /// The operation.
        operation: &'static str,
        /// The HTTP status.
        status: u16,
        /// The decoder's complaint.
        detail: String,
    },
    /// The reply is larger than the configured bound; not retried.
    #[error("{operation}: HTTP {status} reply is larger than {limit} bytes")]
    TooLarge {
        /// The operation.
        operation: &'static str,
        /// The HTTP status.
        status: u16,
        /// The bound, in bytes.
        limit: u64,
    },
    /// The request is invalid before anything is sent.
    #[error("{operation}: invalid request: {reason}")]
    InvalidRequest {
        /// The operation.
        operation: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// `create_device` needs a hardware reservation to be idempotent.
    #[error("createDevice: the request must name a hardware reservation (a UUID)")]
    NoReservation,
    /// `create_device` with `hardware_reservation_id: "next-available"`:
    /// the project has no provisionable hardware reservation matching the
    /// plan and the metro or facility (the API's `503` "There are no
    /// available hardware reservations for selected plan and facility").
    /// Returned at once, not retried; see the crate docs.
    #[error("createDevice: no hardware reservation available: {}", messages.join("; "))]
    NoReservationAvailable {
        /// The server's error messages.
        messages: Vec<String>,
    },
    /// Another API user took the hardware reservation first.
    #[error("createDevice: race lost: reservation {reservation} holds device {device:?}, which is not ours")]
    RaceLost {
        /// The reservation we asked for.
        reservation: Uuid,
        /// The device now on it, when the API said.
        device: Option<Uuid>,
    },
    /// An SSH key with this label exists with a different public key.
    #[error("SSH key label {label:?} is already used by a different key ({existing:?})")]
    SshKeyLabelConflict {
        /// The label asked for.
        label: String,
        /// The existing key's ID.
        existing: Option<Uuid>,
    },
    /// A non-idempotent operation (reboot) was sent and no usable answer came
    /// back; it is not retried, since it may have happened.
    #[error("{operation}: outcome unknown after {attempts} attempt(s): {source}")]
    OutcomeUnknown {
        /// The operation.
        operation: &'static str,
        /// Attempts made.
        attempts: u32,
        /// The last attempt's error.
        #[source]
        source: AttemptError,
    },
    /// The backoff policy gave up on a retryable failure, or the server
    /// throttled more than [`crate::retry::MAX_THROTTLED_RETRIES`] retries
    /// in a row (the source is then [`AttemptError::Throttled`]).
    #[error("{operation}: gave up after {attempts} attempt(s): {source}")]
    GaveUp {
        /// The operation.
        operation: &'static str,
        /// Attempts made.
        attempts: u32,
        /// The last attempt's error.
        #[source]
        source: AttemptError,
    },
    /// A retriable failure, and the client's retry budget
    /// ([`crate::RetryBudget`]) holds too few tokens for another retry: the
    /// call ends at once instead of sleeping and trying again. Retries have
    /// been failing across the client (an outage, most likely); a first
    /// attempt is never refused, so later calls still find out when the
    /// service is back.
    #[error("{operation}: retry budget exhausted after {attempts} attempt(s): {last}")]
    RetryBudgetExhausted {
        /// The operation.
        operation: &'static str,
        /// Attempts made.
        attempts: u32,
        /// The last attempt's error.
        #[source]
        last: AttemptError,
    },
    /// A list has more distinct entries than the client's bound
    /// ([`crate::ClientBuilder::max_list_entries`]); it was not followed
    /// further.
    #[error("{operation}: the list has more than {limit} entries (stopped at page {page})")]
    ListTooLong {
        /// The list operation.
        operation: &'static str,
        /// The bound, in entries.
        limit: usize,
        /// The page that went past it.
        page: u32,
    },
    /// A page of a list repeats entries of earlier pages only, while its
    /// `meta` says more pages follow: the server's pages do not advance, so
    /// the list is not followed further. Listing again may succeed (a list
    /// that shifted under many new entries can look so once).
    #[error("{operation}: page {page} adds no entry the earlier pages lacked, though more are announced")]
    PageRepeats {
        /// The list operation.
        operation: &'static str,
        /// The page that added nothing.
        page: u32,
    },
    /// A list asked for at most `limit` pages
    /// ([`crate::DeviceQuery::max_pages`]) announced more after its last
    /// allowed page: the pages before this error were all it read.
    #[error("{operation}: more than {limit} pages; stopped after page {limit}")]
    TooManyPages {
        /// The list operation.
        operation: &'static str,
        /// The bound, in pages.
        limit: u32,
    },
    /// The call's deadline passed.
    #[error("{operation}: deadline exceeded after {attempts} attempt(s){}", last.as_ref().map(|e| format!(": {e}")).unwrap_or_default())]
    DeadlineExceeded {
        /// The operation.
        operation: &'static str,
        /// Attempts made (or begun).
        attempts: u32,
        /// The last attempt's error, if one had failed.
        #[source]
        last: Option<AttemptError>,
    },
}

impl Error {
    /// The HTTP status behind this error, when there is one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Rejected { status, .. }
            | Self::Decode { status, .. }
            | Self::TooLarge { status, .. } => Some(*status),
            Self::OutcomeUnknown { source, .. }
            | Self::GaveUp { source, .. }
            | Self::RetryBudgetExhausted { last: source, .. } => source.status(),
            Self::DeadlineExceeded { last, .. } => last.as_ref().and_then(AttemptError::status),
            Self::NoReservationAvailable { .. } => Some(503),
            _ => None,
        }
    }

    /// Whether the API said the resource does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::Rejected { status: 404, .. })
    }
}
