//! When to try again: the backoff schedule ([`backoff`]), the client-wide
//! retry budget ([`budget`]) and the decision after a failed attempt
//! (`decision`).

pub mod backoff;
pub mod budget;
pub(crate) mod decision;
