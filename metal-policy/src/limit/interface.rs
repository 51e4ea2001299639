//! The interface every request's limits implement ([`Limits`]), and the
//! slot a call's attempt holds.

use std::time::Duration;

use async_trait::async_trait;

use crate::metrics::{GaugeGuard, Metrics};

/// A held concurrency slot; dropping it gives the slot back.
pub(crate) type Slot = Box<dyn Send>;

/// Where a request waits before it is sent.
#[async_trait]
pub(crate) trait Limits: Send + Sync {
    /// Waits for a concurrency slot (FIFO). Cancel-safe: a dropped wait
    /// leaves the queue.
    async fn slot(&self) -> Slot;
    /// A slot at once, when one is free with nobody waiting before it
    /// (`None`: wait with [`Limits::slot`]). The fast path of the usual
    /// case, which makes no future; by default there is none.
    fn try_slot(&self) -> Option<Slot> {
        None
    }
    /// Waits for this request's rate-limit turn; returns how long it
    /// waited. Cancel-safe: a dropped wait does not burn its turn.
    async fn turn(&self) -> Duration;
    /// Takes this request's turn at once if it is now (`false`: wait with
    /// [`Limits::turn`]). The fast path of an idle limiter, which makes no
    /// future; by default there is none.
    fn try_turn(&self) -> bool {
        false
    }
    /// Pauses every request for `pause` (the default pause when `None`,
    /// bounded by [`super::pace::MAX_THROTTLE_PAUSE`]).
    async fn pause(&self, pause: Option<Duration>);
    /// Learns the pace from what a reply said about the server's budget
    /// (nothing when learning is off).
    async fn learn(&self, reading: super::pace::Reading);
}

/// A held slot that keeps `equinix_api_in_flight` up while it lives.
pub(crate) struct Held {
    _slot: Slot,
    _in_flight: GaugeGuard,
}

/// Waits for a slot of `limits`, with `equinix_api_waiting` up meanwhile.
pub(crate) async fn acquire(limits: &dyn Limits, metrics: &Metrics) -> Held {
    let slot = match limits.try_slot() {
        Some(slot) => slot,
        None => {
            let _waiting = GaugeGuard::hold(&metrics.waiting);
            limits.slot().await
        }
    };
    Held {
        _slot: slot,
        _in_flight: GaugeGuard::hold(&metrics.in_flight),
    }
}
