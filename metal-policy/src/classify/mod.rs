//! The one classification: what one exchange means to whoever sent it
//! ([`Class`]: not sent, throttled with the server's delay, outcome
//! unknown, or permanent with its reason), found by one function,
//! [`classify`], for the policy's calls, for the requests of the raw client
//! it hands out, and for whatever sends them (reqwest, or the fake's
//! in-process router, which answers in HTTP too). The retry decision, the
//! retry budget's cost and the client-wide pause are read off the class;
//! `metal-fake` describes its faults in its terms.
//!
//! - `class`: [`Class`], [`Permanent`], [`Exchanged`] and [`classify`];
//! - `headers`: when the server says to come back, and its budget;
//! - `reply`: from what the hook point and the generated client returned
//!   to an [`crate::AttemptError`], the class with its details.
//!
//! # "No hardware reservation available" is not retried
//!
//! A `next-available` create that finds no reservation is answered `503`
//! without `Retry-After` (kubernetes-retired/cluster-api-provider-packet
//! issue 191). Any other such 503 is an unknown outcome and is retried;
//! this one is [`Permanent::NoReservationAvailable`], and the call ends
//! with [`crate::Error::NoReservationAvailable`], because:
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

mod class;
pub(crate) mod headers;
pub(crate) mod reply;

pub use class::{classify, Class, Exchanged, Permanent};

/// A header map of these pairs, for the tests of this module.
#[cfg(test)]
fn test_headers(pairs: &[(&'static str, &str)]) -> reqwest::header::HeaderMap {
    let mut h = reqwest::header::HeaderMap::new();
    for (k, v) in pairs {
        h.insert(*k, reqwest::header::HeaderValue::from_str(v).unwrap());
    }
    h
}
