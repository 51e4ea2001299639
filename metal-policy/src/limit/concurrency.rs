//! At most `parallelism` holders at once, waiters served first come, first
//! served (tokio's [`Semaphore`] is fair).

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The concurrency limit.
#[derive(Debug)]
pub(crate) struct Concurrency {
    slots: Arc<Semaphore>,
}

impl Concurrency {
    /// `n` slots (at least one).
    pub(crate) fn new(n: usize) -> Self {
        Self {
            slots: Arc::new(Semaphore::new(n.max(1))),
        }
    }

    /// A slot at once, if one is free (never before a waiter: the
    /// semaphore hands released slots to waiters first).
    pub(crate) fn try_acquire(&self) -> Option<OwnedSemaphorePermit> {
        self.slots.clone().try_acquire_owned().ok()
    }

    /// Waits for a slot. Cancel-safe: dropping the future while it waits
    /// leaves the queue.
    pub(crate) async fn acquire(&self) -> OwnedSemaphorePermit {
        // The semaphore is never closed (we own it and never call close),
        // so acquire_owned cannot fail; handle the impossible case by
        // waiting forever rather than panicking.
        match self.slots.clone().acquire_owned().await {
            Ok(p) => p,
            Err(_) => std::future::pending().await,
        }
    }
}
