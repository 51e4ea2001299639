//! The two limits every request passes: a FIFO concurrency limit
//! ([`concurrency`]) and one client-wide rate limiter ([`rate`]).

pub(crate) mod concurrency;
pub(crate) mod rate;
