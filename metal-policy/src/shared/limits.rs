//! [`SharedBackend`]: the shared limits behind the client's [`Limits`]
//! interface. A slot is the process's own FIFO slot, then a shared one; a
//! turn and a pause are the shared schedule's (each with the backend's
//! local fallback while Redis is away).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use prometheus::{IntCounter, IntGauge};

use super::backend::Shared;
use super::config::SharedLimits;
use super::error::SharedLimitsError;
use crate::limit::concurrency::Concurrency;
use crate::limit::pace::{Pace, Reading};
use crate::limit::{Limits, Slot};

/// The limits shared through Redis.
pub(crate) struct SharedBackend {
    /// This process's own FIFO order among its calls.
    local: Concurrency,
    shared: Arc<Shared>,
}

impl SharedBackend {
    /// The backend for a client with these limits (its gauge of degraded
    /// mode, its counter of vanished schedules); connects lazily.
    pub(crate) fn new(
        config: SharedLimits,
        pace: Pace,
        burst: u32,
        parallelism: usize,
        degraded: IntGauge,
        vanished: IntCounter,
    ) -> Result<Self, SharedLimitsError> {
        Ok(Self {
            local: Concurrency::new(parallelism),
            shared: Arc::new(Shared::new(
                config,
                pace,
                burst,
                parallelism,
                degraded,
                vanished,
            )?),
        })
    }
}

#[async_trait]
impl Limits for SharedBackend {
    async fn slot(&self) -> Slot {
        let own = self.local.acquire().await;
        let shared = self.shared.acquire_slot().await;
        Box::new((own, shared))
    }

    async fn turn(&self) -> Duration {
        self.shared.acquire_turn().await
    }

    async fn pause(&self, pause: Option<Duration>) {
        self.shared.pause(pause).await;
    }

    async fn learn(&self, reading: Reading) {
        self.shared.learn(reading).await;
    }
}
