//! When to try again: the backoff schedule ([`backoff`]), the client-wide
//! retry budget ([`budget`]) and the decision after a failed attempt
//! (`decision`).

pub mod backoff;
pub mod budget;
pub(crate) mod decision;

/// The most retries in a row after throttling replies (429, or 503 with
/// `Retry-After`) before a call gives up with [`crate::Error::GaveUp`]
/// (its source [`crate::AttemptError::Throttled`]). Such retries cost no
/// retry budget, so without this bound a server that throttles every
/// request would hold a call until its deadline. Each of them sleeps at
/// least the backoff's delay, however short the server's `Retry-After`.
pub const MAX_THROTTLED_RETRIES: u32 = 10;
