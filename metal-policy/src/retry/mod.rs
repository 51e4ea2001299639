//! When to try again: the backoff schedule and the classification of a
//! failed attempt.

pub mod backoff;
pub(crate) mod classify;
