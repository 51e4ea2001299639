//! The limits every request passes, behind one small interface
//! ([`Limits`]: a concurrency slot, a rate-limit turn, a pause after a
//! throttling reply), chosen once when the client is built: the in-process
//! [`local::LocalLimits`] (a FIFO [`concurrency`] limit and one client-wide
//! [`rate`] limiter), or, with feature `redis`, the limits shared by
//! several processes (`crate::shared`). The rate's spacing is fixed, or
//! learned from the replies' rate-limit headers ([`pace`]).

pub(crate) mod concurrency;
mod interface;
pub(crate) mod local;
pub(crate) mod pace;
pub(crate) mod rate;

pub(crate) use interface::{acquire, Held, Limits, Slot};
