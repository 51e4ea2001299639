//! The in-process limits: one FIFO concurrency limit and one rate limiter
//! for the whole client.

use std::time::Duration;

use async_trait::async_trait;

use super::concurrency::Concurrency;
use super::pace::{Pace, Reading};
use super::rate::RateLimiter;
use super::{Limits, Slot};

/// The limits of one process.
#[derive(Debug)]
pub(crate) struct LocalLimits {
    concurrency: Concurrency,
    rate: RateLimiter,
}

impl LocalLimits {
    /// `parallelism` slots; requests at `pace`, up to `burst` at once.
    pub(crate) fn new(parallelism: usize, pace: Pace, burst: u32) -> Self {
        Self {
            concurrency: Concurrency::new(parallelism),
            rate: RateLimiter::with_pace(pace, burst),
        }
    }
}

#[async_trait]
impl Limits for LocalLimits {
    async fn slot(&self) -> Slot {
        Box::new(self.concurrency.acquire().await)
    }

    fn try_slot(&self) -> Option<Slot> {
        self.concurrency.try_acquire().map(|p| Box::new(p) as Slot)
    }

    async fn turn(&self) -> Duration {
        self.rate.acquire().await
    }

    fn try_turn(&self) -> bool {
        self.rate.try_now()
    }

    async fn pause(&self, pause: Option<Duration>) {
        self.rate.pause(pause);
    }

    async fn learn(&self, reading: Reading) {
        self.rate.learn(reading);
    }
}
