//! At most `parallelism` attempts in flight, waiters served first come,
//! first served (tokio's [`Semaphore`] is fair).

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::metrics::{GaugeGuard, Metrics};

/// The concurrency limit, with its `waiting`/`in_flight` gauges.
#[derive(Debug)]
pub(crate) struct Concurrency {
    slots: Arc<Semaphore>,
    /// The limit shared with other processes, taken after the local slot.
    #[cfg(feature = "redis")]
    pub(crate) shared: Option<Arc<crate::shared::Shared>>,
}

/// A held slot; dropping it frees the slot and lowers `in_flight`.
#[derive(Debug)]
pub(crate) struct Slot {
    _permit: OwnedSemaphorePermit,
    #[cfg(feature = "redis")]
    _shared: Option<crate::shared::SharedSlot>,
    _in_flight: GaugeGuard,
}

impl Concurrency {
    /// `n` slots (at least one).
    pub(crate) fn new(n: usize) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(n.max(1))),
            #[cfg(feature = "redis")]
            shared: None,
        }
    }

    /// Waits for a slot. Cancel-safe: dropping the future while it waits
    /// leaves the queue and lowers `waiting`.
    pub(crate) async fn acquire(&self, metrics: &Metrics) -> Slot {
        let waiting = GaugeGuard::hold(&metrics.waiting);
        // The semaphore is never closed (we own it and never call close),
        // so acquire_owned cannot fail; handle the impossible case by
        // waiting forever rather than panicking.
        let permit = match self.slots.clone().acquire_owned().await {
            Ok(p) => p,
            Err(_) => std::future::pending().await,
        };
        #[cfg(feature = "redis")]
        let shared = match &self.shared {
            Some(s) => Some(s.acquire_slot().await),
            None => None,
        };
        drop(waiting);
        Slot {
            _permit: permit,
            #[cfg(feature = "redis")]
            _shared: shared,
            _in_flight: GaugeGuard::hold(&metrics.in_flight),
        }
    }
}
