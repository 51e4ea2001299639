//! When to try again: the backoff schedule ([`backoff`]) and the decision
//! after a failed attempt (`decision`).

pub mod backoff;
pub(crate) mod decision;
