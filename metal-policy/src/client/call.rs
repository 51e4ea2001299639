//! The one call path every operation shares: for each attempt a
//! concurrency slot (held for the attempt only), the attempt's requests
//! through the hook point (turn, exchange under the attempt timeout,
//! metrics), then the classification of a failure and the backoff, all
//! within the call's deadline. [`Client::call`] runs any generated
//! operation on it.

use std::future::Future;
use std::time::Duration;

use metal_api::{Operation, ResponseValue};
use tokio::time::{sleep, timeout_at, Instant};
use tracing::{debug, field::Empty, Instrument};

use super::Client;
use crate::classify;
use crate::error::{AttemptError, Error};
use crate::exchange::Scope;
use crate::limit;
use crate::limit::rate::MAX_THROTTLE_PAUSE;
use crate::retry::decision::{classify as decide, Decision, Idempotency};
use crate::retry::MAX_THROTTLED_RETRIES;

/// Per-call settings that override the client's, without building a second
/// client.
///
/// ```
/// use std::time::Duration;
/// let options = metal_policy::CallOptions::new()
///     .deadline(Some(Duration::from_secs(30)))
///     .attempt_timeout(Some(Duration::from_secs(5)))
///     .idempotent(true)
///     .retry_budget(false);
/// # drop(options);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CallOptions {
    deadline: Option<Option<Duration>>,
    attempt_timeout: Option<Option<Duration>>,
    idempotent: Option<bool>,
    retry_budget: Option<bool>,
}

impl CallOptions {
    /// The client's settings, unchanged.
    pub fn new() -> Self {
        Self::default()
    }

    /// This call's whole-call deadline (`None`: none), instead of the
    /// client's.
    pub fn deadline(mut self, deadline: Option<Duration>) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// This call's limit on each exchange (`None`: none), instead of the
    /// client's.
    pub fn attempt_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.attempt_timeout = Some(timeout);
        self
    }

    /// Whether an attempt whose outcome is unknown may be repeated,
    /// instead of what the request's HTTP method says (GET, HEAD, PUT and
    /// DELETE may; POST and PATCH may not). Say `true` only for an
    /// operation that is safe to repeat, `false` for one that is not.
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = Some(idempotent);
        self
    }

    /// Whether this call's retries are paid from the client's retry budget
    /// (default `true`, when the client has one). `false` leaves the call
    /// out of the budget: its retries spend nothing and are never refused
    /// (the backoff and the deadline still bound them), and its successes
    /// give nothing back. For a call that must get through an outage, such
    /// as the one that records a device the server already created.
    pub fn retry_budget(mut self, on: bool) -> Self {
        self.retry_budget = Some(on);
        self
    }
}

/// What one attempt is given.
pub(crate) struct Attempt<'a> {
    /// The generated client, through the policy's layer.
    pub(crate) api: &'a metal_api::Client,
    /// Some earlier attempt of this call may have reached the server and
    /// acted (its outcome was unknown).
    pub(crate) after_unknown: bool,
}

/// How one attempt failed: an exchange to classify, or a final answer the
/// operation itself reached (race lost, label conflict).
pub(crate) enum Failure {
    Attempt(AttemptError),
    Final(Error),
}

impl From<AttemptError> for Failure {
    fn from(e: AttemptError) -> Self {
        Self::Attempt(e)
    }
}

/// A call the client names itself, because it is more than its requests:
/// `create_device` reads a reservation, then creates, and is idempotent
/// through its witness.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Named {
    pub(crate) operation: &'static Operation,
    pub(crate) idempotency: Idempotency,
}

/// Awaits one generated operation's reply, classified.
pub(crate) async fn send<T, E: serde::Serialize>(
    reply: impl Future<Output = Result<ResponseValue<T>, metal_api::Error<E>>>,
) -> Result<T, AttemptError> {
    match reply.await {
        Ok(v) => Ok(v.into_inner()),
        Err(e) => {
            let status = Scope::current().and_then(|s| s.last().status);
            Err(classify::api_error(e, status).await)
        }
    }
}

impl Client {
    /// Runs any generated operation under the full policy: a concurrency
    /// slot per attempt, a rate-limit turn per request, the attempt
    /// timeout, classification, backoff, the deadline, metrics and tracing
    /// under the operationId. `f` makes one attempt with the generated
    /// client; it is called again for each retry.
    ///
    /// An attempt whose outcome is unknown (a 5xx, a timeout, a dropped
    /// connection) is repeated when the request's method is idempotent
    /// (GET, HEAD, PUT, DELETE) and not for POST or PATCH, which end with
    /// [`Error::OutcomeUnknown`]; [`Client::call_with`] overrides this.
    ///
    /// ```no_run
    /// # async fn demo(client: metal_policy::Client) -> Result<(), metal_policy::Error> {
    /// let project = client
    ///     .call(|api| api.find_project_by_id().id(uuid::Uuid::nil()).send())
    ///     .await?;
    /// println!("{:?}", project.name);
    /// # Ok(()) }
    /// ```
    pub async fn call<'a, T, E, F, Fut>(&'a self, f: F) -> Result<T, Error>
    where
        F: FnMut(&'a metal_api::Client) -> Fut,
        Fut: Future<Output = Result<ResponseValue<T>, metal_api::Error<E>>>,
        E: serde::Serialize,
    {
        self.call_with(CallOptions::default(), f).await
    }

    /// [`Client::call`] with per-call settings.
    ///
    /// ```no_run
    /// # async fn demo(client: metal_policy::Client) -> Result<(), metal_policy::Error> {
    /// use std::time::Duration;
    /// use metal_policy::CallOptions;
    /// let options = CallOptions::new().deadline(Some(Duration::from_secs(10)));
    /// let keys = client.call_with(options, |api| api.find_ssh_keys().send()).await?;
    /// # drop(keys); Ok(()) }
    /// ```
    pub async fn call_with<'a, T, E, F, Fut>(
        &'a self,
        options: CallOptions,
        mut f: F,
    ) -> Result<T, Error>
    where
        F: FnMut(&'a metal_api::Client) -> Fut,
        Fut: Future<Output = Result<ResponseValue<T>, metal_api::Error<E>>>,
        E: serde::Serialize,
    {
        self.run(None, options, |at| {
            let reply = f(at.api);
            async move { send(reply).await.map_err(Failure::Attempt) }
        })
        .await
    }

    /// When a call that starts now must end.
    pub(crate) fn deadline_for(&self, options: &CallOptions) -> Option<Instant> {
        options
            .deadline
            .unwrap_or(self.inner.deadline)
            // A deadline past what the clock holds is no deadline.
            .and_then(|d| Instant::now().checked_add(d))
    }

    /// Runs one logical call: attempts made by `attempt`, retried per the
    /// classification, within the call's deadline.
    pub(crate) async fn run<'a, T, F, Fut>(
        &'a self,
        named: Option<Named>,
        options: CallOptions,
        attempt: F,
    ) -> Result<T, Error>
    where
        F: FnMut(Attempt<'a>) -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let deadline = self.deadline_for(&options);
        self.run_until(named, options, deadline, attempt).await
    }

    /// [`Client::run`] with the deadline given (the pages of a list share
    /// one).
    pub(crate) async fn run_until<'a, T, F, Fut>(
        &'a self,
        named: Option<Named>,
        options: CallOptions,
        deadline: Option<Instant>,
        attempt: F,
    ) -> Result<T, Error>
    where
        F: FnMut(Attempt<'a>) -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let scope = Scope::new(
            options
                .attempt_timeout
                .unwrap_or(self.inner.attempt_timeout),
        );
        let mut progress = Progress::default();
        let span = tracing::info_span!(
            "metal_call",
            operation = named.map(|n| n.operation.id),
            attempts = Empty
        );
        let fut = self.retry_loop(named, options, &scope, &mut progress, attempt);
        let result = match deadline {
            Some(at) => timeout_at(at, fut).instrument(span.clone()).await,
            None => Ok(fut.instrument(span.clone()).await),
        };
        span.record("attempts", progress.attempts);
        if named.is_none() {
            span.record("operation", operation_id(None, &scope));
        }
        match result {
            Ok(r) => r.map_err(|e| self.inner.secrets.error(e)),
            Err(_elapsed) => Err(Error::DeadlineExceeded {
                operation: operation_id(named, &scope),
                attempts: progress.attempts,
                last: progress.last.take(),
            }),
        }
    }

    async fn retry_loop<'a, T, F, Fut>(
        &'a self,
        named: Option<Named>,
        options: CallOptions,
        scope: &std::sync::Arc<Scope>,
        progress: &mut Progress,
        mut attempt: F,
    ) -> Result<T, Error>
    where
        F: FnMut(Attempt<'a>) -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let inner = &self.inner;
        let budget = match options.retry_budget {
            Some(false) => None,
            _ => inner.budget.as_ref(),
        };
        let mut backoff = inner.backoff.start();
        let mut after_unknown = false;
        // Throttling replies since the last other failure.
        let mut throttled_in_a_row = 0u32;
        // The cost of this call's last retry paid from the budget: given
        // back if the call then succeeds.
        let mut refund = None;
        loop {
            progress.attempts += 1;
            let span = tracing::debug_span!(
                "metal_attempt",
                operation = Empty,
                attempt = progress.attempts,
                otel.kind = "client",
                http.request.resend_count = progress.attempts - 1,
                error.type = Empty,
            );
            let result = async {
                // The slot is held for this attempt only, never while
                // sleeping in backoff.
                let _slot = limit::acquire(&*inner.limits, &inner.metrics).await;
                scope
                    .run(attempt(Attempt {
                        api: &inner.api,
                        after_unknown,
                    }))
                    .await
            }
            .instrument(span.clone())
            .await;
            let operation = operation_id(named, scope);
            span.record("operation", operation);
            let error = match result {
                Ok(v) => {
                    inner.metrics.attempt(operation, "ok");
                    if let Some(b) = budget {
                        b.succeeded(refund);
                    }
                    return Ok(v);
                }
                Err(Failure::Final(e)) => {
                    inner.metrics.attempt(operation, "final");
                    return Err(e);
                }
                // What the server said reaches logs and errors without the
                // token it may have echoed.
                Err(Failure::Attempt(e)) => inner.secrets.attempt(e),
            };
            inner.metrics.attempt(operation, error.class());
            span.record("error.type", error.class());
            let idempotency = match (options.idempotent, named) {
                (Some(true), _) => Idempotency::Idempotent,
                (Some(false), _) => Idempotency::NotIdempotent,
                (None, Some(n)) => n.idempotency,
                (None, None) => match scope.last().operation {
                    Some(op) if op.is_idempotent() => Idempotency::Idempotent,
                    _ => Idempotency::NotIdempotent,
                },
            };
            match decide(operation, idempotency, progress.attempts, error) {
                Decision::Stop(e) => return Err(e),
                Decision::Retry {
                    after,
                    outcome_unknown,
                    error,
                } => {
                    after_unknown |= outcome_unknown;
                    if matches!(error, AttemptError::Throttled { .. }) {
                        throttled_in_a_row += 1;
                    } else {
                        throttled_in_a_row = 0;
                    }
                    if throttled_in_a_row > MAX_THROTTLED_RETRIES {
                        return Err(Error::GaveUp {
                            operation,
                            attempts: progress.attempts,
                            source: error,
                        });
                    }
                    let Some(delay) = backoff.next_delay() else {
                        return Err(Error::GaveUp {
                            operation,
                            attempts: progress.attempts,
                            source: error,
                        });
                    };
                    // The budget pays for the retry (a throttling reply's
                    // is free), or ends the call now.
                    if let Some(b) = budget {
                        if let Some(cost) = b.cost(&error) {
                            if !b.try_spend(cost) {
                                inner.metrics.retry_budget_refused(operation);
                                debug!(operation, attempt = progress.attempts, cost, error = %error, "retry budget exhausted");
                                return Err(Error::RetryBudgetExhausted {
                                    operation,
                                    attempts: progress.attempts,
                                    last: error,
                                });
                            }
                            refund = Some(cost);
                        }
                    }
                    // The server's delay, if longer than the backoff's: a
                    // `Retry-After: 0` never turns retries into a hot loop.
                    let delay = after.map_or(delay, |a| a.min(MAX_THROTTLE_PAUSE).max(delay));
                    debug!(operation, attempt = progress.attempts, delay_ms = delay.as_millis() as u64, error = %error, "retrying");
                    progress.last = Some(error);
                    inner.metrics.retry(operation);
                    sleep(delay).await;
                }
            }
        }
    }
}

/// The operationId a call reports: the client's name for it, else its last
/// request's, else that nothing was sent (the generated client refused a
/// parameter before sending).
fn operation_id(named: Option<Named>, scope: &Scope) -> &'static str {
    named
        .map(|n| n.operation)
        .or(scope.last().operation)
        .map_or("unsent", |o| o.id)
}

#[derive(Default)]
struct Progress {
    attempts: u32,
    last: Option<AttemptError>,
}
