//! The policy's layer at the hook point below the generated client: the
//! steps every request takes, whether it comes from a [`crate::Metal`]
//! method, from [`crate::Client::call`], or from the raw client that
//! [`crate::Client::api`] hands out.
//!
//! 1. Outside a policy call, a concurrency slot for this request (inside
//!    one, the call's attempt already holds it).
//! 2. A rate-limit turn.
//! 3. One exchange through the next layer (reqwest, or the fake's router),
//!    under the attempt timeout: the timeout covers the exchange only,
//!    never the waits before it.
//! 4. The reply observed: latency and status in the metrics, under the
//!    operationId; its `X-RateLimit-Remaining`/`-Reset` set the client's
//!    pace when learning is on; a throttling reply (429, or 503 with
//!    `Retry-After`) pauses the whole client.
//!
//! A policy call runs each attempt in a [`Scope`] (a tokio task-local), so
//! its requests use the call's attempt timeout, and the call learns which
//! operation its requests were and what status they saw.

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use metal_api::exchange::{fail, BoxFuture, Exchange};
use metal_api::{ExchangeError, Operation};
use tokio::time::Instant;
use tracing::{debug, field::Empty, Instrument};

use crate::classify;
use crate::limit::{self, Limits};
use crate::metrics::Metrics;

tokio::task_local! {
    static SCOPE: Arc<Scope>;
}

/// What the requests of one policy call share with the call.
#[derive(Debug)]
pub(crate) struct Scope {
    attempt_timeout: Option<Duration>,
    last: Mutex<Last>,
}

/// The last request a call made.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Last {
    /// Its operation, known as soon as it reaches the hook point.
    pub(crate) operation: Option<&'static Operation>,
    /// Its reply's status, once one arrived.
    pub(crate) status: Option<u16>,
}

impl Scope {
    /// A scope whose requests each get `attempt_timeout`.
    pub(crate) fn new(attempt_timeout: Option<Duration>) -> Arc<Self> {
        Arc::new(Self {
            attempt_timeout,
            last: Mutex::new(Last::default()),
        })
    }

    /// Runs `f` with this scope current.
    pub(crate) async fn run<F: std::future::Future>(self: &Arc<Self>, f: F) -> F::Output {
        SCOPE.scope(Arc::clone(self), f).await
    }

    /// The scope of the call running now, if any.
    pub(crate) fn current() -> Option<Arc<Self>> {
        SCOPE.try_with(Arc::clone).ok()
    }

    /// The last request seen.
    pub(crate) fn last(&self) -> Last {
        // Two plain fields, valid after any panic mid-update.
        *self.last.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn saw(&self, operation: &'static Operation, status: Option<u16>) {
        *self.last.lock().unwrap_or_else(|p| p.into_inner()) = Last {
            operation: Some(operation),
            status,
        };
    }
}

/// The policy's layer over the next exchange.
pub(crate) struct PolicyExchange {
    pub(crate) next: Arc<dyn Exchange>,
    pub(crate) limits: Arc<dyn Limits>,
    pub(crate) metrics: Metrics,
    /// The attempt timeout of requests made outside a policy call.
    pub(crate) attempt_timeout: Option<Duration>,
}

impl Exchange for PolicyExchange {
    fn exchange<'a>(
        &'a self,
        operation: &'static Operation,
        mut request: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
        let span = tracing::debug_span!(
            "metal_request",
            operation = operation.id,
            otel.kind = "client",
            http.request.method = operation.method.as_str(),
            http.response.status_code = Empty,
            wait_ms = Empty,
        );
        Box::pin(
            async move {
                let scope = Scope::current();
                if let Some(s) = &scope {
                    s.saw(operation, None);
                }
                // A request of the raw client holds a slot for itself only.
                let _slot = match &scope {
                    None => Some(limit::acquire(&*self.limits, &self.metrics).await),
                    Some(_) => None,
                };
                let waited = self.limits.turn().await;
                self.metrics.rate_wait(waited);
                let span = tracing::Span::current();
                span.record("wait_ms", waited.as_millis() as u64);

                let timeout = scope
                    .as_ref()
                    .map_or(self.attempt_timeout, |s| s.attempt_timeout);
                if let Some(t) = timeout {
                    // reqwest's own timeout also covers reading the body.
                    let own = request.timeout_mut();
                    *own = Some(own.map_or(t, |o| o.min(t)));
                }
                let started = Instant::now();
                let sent = self.next.exchange(operation, request);
                let result = match timeout {
                    Some(t) => match tokio::time::timeout(t, sent).await {
                        Ok(r) => r,
                        Err(_) => {
                            fail(ExchangeError::NoReply(format!(
                                "attempt timed out after {t:?}"
                            )))
                            .await
                        }
                    },
                    None => sent.await,
                };
                // A reply the exchange refused (a redirect, a body over the
                // bound) still came with a status.
                let status = match &result {
                    Ok(r) => Some(r.status().as_u16()),
                    Err(e) => match ExchangeError::find(e) {
                        Some(
                            ExchangeError::Redirect { status, .. }
                            | ExchangeError::BodyTooLarge { status, .. },
                        ) => Some(*status),
                        _ => None,
                    },
                };
                self.metrics
                    .request(operation.id, status, started.elapsed());
                if let Some(s) = &scope {
                    s.saw(operation, status);
                }
                if let Some(s) = status {
                    span.record("http.response.status_code", s);
                }
                match &result {
                    Ok(reply) => {
                        if let Some(reading) =
                            classify::rate_reading(reply.headers(), SystemTime::now())
                        {
                            self.limits.learn(reading).await;
                        }
                        if let Some(pause) =
                            classify::throttled(reply.status().as_u16(), reply.headers())
                        {
                            self.metrics.throttled(operation.id);
                            debug!(
                                operation = operation.id,
                                ?pause,
                                "throttled: pausing the client"
                            );
                            self.limits.pause(pause).await;
                        }
                    }
                    Err(e) => debug!(operation = operation.id, error = %e, "no reply"),
                }
                result
            }
            .instrument(span),
        )
    }
}
