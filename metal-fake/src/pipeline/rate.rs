//! The rate-limit step: the server-side rate limit (a token bucket, on
//! tokio's clock, so a paused clock drives it: `bucket`) and the
//! `X-RateLimit-*` values it gives each request; over the limit, `429`
//! with `Retry-After`.

use std::time::Duration;

use tokio::time::Instant;

use super::bucket::RateHeaders;
use super::{Context, Outcome, Pipeline, Step};

impl Pipeline {
    /// Takes one token for the request, or stops with `429`.
    pub(super) fn rate_limit(&self, mut cx: Context) -> Step {
        let Some(limit) = self.config.rate_limit else {
            return Ok(cx);
        };
        let taken = self
            .bucket
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take(limit, Instant::now());
        match taken {
            Ok(rate) => {
                cx.rate = Some(rate);
                Ok(cx)
            }
            Err(rate) => {
                let retry_after = Duration::from_secs(rate.reset);
                cx.rate = Some(rate);
                Err(cx.stop(Outcome::Throttled { retry_after }))
            }
        }
    }

    /// The rate-limit headers of a reply that spends no token (`None`
    /// without a rate limit).
    pub(super) fn peek(&self) -> Option<RateHeaders> {
        let limit = self.config.rate_limit?;
        let mut b = self.bucket.lock().unwrap_or_else(|e| e.into_inner());
        Some(b.peek(limit, Instant::now()))
    }
}
