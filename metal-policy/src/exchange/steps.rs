//! [`Steps`]: what every request does at the hook point; what it saw goes
//! back to the attempt's scope (`scope`), which records it.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use metal_api::exchange::{fail, Exchange};
use metal_api::{ExchangeError, Operation};
use tokio::time::Instant;
use tracing::debug;

use crate::classify::headers::rate_reading;
use crate::classify::reply::{read_error_reply, refused_reply_status, ErrorReply};
use crate::classify::Class;
use crate::limit::Limits;
use crate::metrics::Metrics;

/// The steps of one request, shared by every request of one client.
pub(crate) struct Steps {
    /// The exchange below (reqwest, or the fake's router).
    pub(crate) next: Arc<dyn Exchange>,
    pub(crate) limits: Arc<dyn Limits>,
    pub(crate) metrics: Metrics,
}

/// What one request saw, for its attempt's scope to record: the reply's
/// status (a refused reply's too), and the reply when it was an error, as
/// the hook point classified it.
pub(crate) struct Replied {
    pub(crate) status: Option<u16>,
    pub(crate) error: Option<ErrorReply>,
}

impl Steps {
    /// Takes the request's turn, sends it under `timeout` and observes the
    /// reply; returns it with what it saw. The attempt already holds its
    /// slot.
    pub(crate) async fn exchange(
        &self,
        operation: &'static Operation,
        mut request: reqwest::Request,
        timeout: Option<Duration>,
    ) -> (reqwest::Result<reqwest::Response>, Replied) {
        let waited = if self.limits.try_turn() {
            Duration::ZERO
        } else {
            self.limits.turn().await
        };
        self.metrics.rate_wait(waited);
        let span = tracing::Span::current();
        span.record("wait_ms", waited.as_millis() as u64);

        if let Some(t) = timeout {
            // reqwest's own timeout also covers reading the body.
            let own = request.timeout_mut();
            *own = Some(own.map_or(t, |o| o.min(t)));
        }
        let started = Instant::now();
        let sent = async {
            let reply = self.next.exchange(operation, request).await?;
            if reply.status().is_success() {
                return Ok((reply, None));
            }
            // An error reply is classified with its body's messages.
            let (reply, error) = read_error_reply(reply).await?;
            Ok((reply, Some(error)))
        };
        let result: reqwest::Result<(reqwest::Response, Option<ErrorReply>)> = match timeout {
            Some(t) => match tokio::time::timeout(t, sent).await {
                Ok(r) => r,
                Err(_) => fail(ExchangeError::NoReply(format!(
                    "attempt timed out after {t:?}"
                )))
                .await
                .map(|r| (r, None)),
            },
            None => sent.await,
        };
        // A reply the exchange refused (a redirect, a body over the
        // bound) still came with a status.
        let status = match &result {
            Ok((r, _)) => Some(r.status().as_u16()),
            Err(e) => refused_reply_status(e),
        };
        self.metrics
            .request(operation.id, status, started.elapsed());
        if let Some(s) = status {
            span.record("http.response.status_code", s);
        }
        match result {
            Ok((reply, error)) => {
                if let Some(reading) = rate_reading(reply.headers(), SystemTime::now) {
                    self.limits.learn(reading).await;
                }
                if let Some(ErrorReply {
                    class: Class::Throttled { retry_after },
                    ..
                }) = &error
                {
                    self.metrics.throttled(operation.id);
                    debug!(
                        operation = operation.id,
                        pause = ?retry_after,
                        "throttled: pausing the client"
                    );
                    self.limits.pause(*retry_after).await;
                }
                (Ok(reply), Replied { status, error })
            }
            Err(e) => {
                debug!(operation = operation.id, error = %e, "no reply");
                (
                    Err(e),
                    Replied {
                        status,
                        error: None,
                    },
                )
            }
        }
    }
}
