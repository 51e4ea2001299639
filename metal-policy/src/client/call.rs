//! The one call path every operation shares: for each attempt a
//! concurrency slot and a scope at the hook point (held for the attempt
//! only), the attempt's requests through the hook point (turn, exchange
//! under the attempt timeout, metrics), then what the attempt saw, as a
//! value, and the decision read off its failure's class, the backoff, all
//! within the call's deadline. [`Client::call`] runs any generated
//! operation on it.
//!
//! The attempt's own future (the operation's requests) is boxed once, when
//! it is made, so the call's future stays small and nothing larger than a
//! pointer moves as it passes the layers above.

use std::future::Future;
use std::time::Duration;

use futures::FutureExt;
use metal_api::{Operation, ResponseValue};
use tokio::time::{sleep, timeout_at, Instant};
use tracing::{debug, field::Empty, Instrument};

use super::Client;
use crate::classify::Class;
use crate::error::{AttemptError, Error};
use crate::exchange::{Scope, Seen};
use crate::limit::pace::MAX_THROTTLE_PAUSE;
use crate::retry::budget::Budget;
use crate::retry::decision::{decide, Decision, Idempotency};
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

/// When a call must end.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Deadline {
    /// Its own: its options' deadline, else the client's, from when it
    /// starts.
    Own,
    /// One it shares with other calls (the pages of a list).
    Shared(Option<Instant>),
}

/// What one attempt is given.
#[derive(Clone, Copy)]
pub(crate) struct Attempt<'a> {
    /// The generated client, its requests through this attempt's scope.
    pub(crate) api: &'a metal_api::Client,
    /// Some earlier attempt of this call may have reached the server and
    /// acted (its outcome was unknown).
    pub(crate) after_unknown: bool,
    scope: &'a Scope,
}

impl Attempt<'_> {
    /// One generated operation's result, classified. It takes the result,
    /// not the operation's future, so that future is awaited where it was
    /// made and never moved into a wrapper.
    pub(crate) fn reply<T, E: serde::Serialize>(
        &self,
        result: Result<ResponseValue<T>, metal_api::Error<E>>,
    ) -> Result<T, AttemptError> {
        match result {
            Ok(v) => Ok(v.into_inner()),
            Err(e) => Err(self.scope.classify(e)),
        }
    }
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
/// `create_device` may read a reservation as well as create, and is
/// idempotent through its witness.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Named {
    pub(crate) operation: &'static Operation,
    pub(crate) idempotency: Idempotency,
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
    pub fn call<'a, T, E, F, Fut>(
        &'a self,
        f: F,
    ) -> impl Future<Output = Result<T, Error>> + use<'a, T, E, F, Fut>
    where
        F: FnMut(&'a metal_api::Client) -> Fut,
        Fut: Future<Output = Result<ResponseValue<T>, metal_api::Error<E>>>,
        E: serde::Serialize,
    {
        self.call_with(CallOptions::default(), f)
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
    pub fn call_with<'a, T, E, F, Fut>(
        &'a self,
        options: CallOptions,
        mut f: F,
    ) -> impl Future<Output = Result<T, Error>> + use<'a, T, E, F, Fut>
    where
        F: FnMut(&'a metal_api::Client) -> Fut,
        Fut: Future<Output = Result<ResponseValue<T>, metal_api::Error<E>>>,
        E: serde::Serialize,
    {
        self.run(None, options, move |at| {
            // Mapped in place: the operation's future is moved once, into
            // the attempt's box, and polled where it is.
            f(at.api).map(move |result| at.reply(result).map_err(Failure::Attempt))
        })
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
    /// classification, within the call's deadline (from when it starts).
    pub(crate) fn run<'a, T, F, Fut>(
        &'a self,
        named: Option<Named>,
        options: CallOptions,
        attempt: F,
    ) -> impl Future<Output = Result<T, Error>> + use<'a, T, F, Fut>
    where
        F: FnMut(Attempt<'a>) -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        self.run_until(named, options, Deadline::Own, attempt)
    }

    /// [`Client::run`] with the deadline given (the pages of a list share
    /// one).
    pub(crate) async fn run_until<'a, T, F, Fut>(
        &'a self,
        named: Option<Named>,
        options: CallOptions,
        deadline: Deadline,
        attempt: F,
    ) -> Result<T, Error>
    where
        F: FnMut(Attempt<'a>) -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let deadline = match deadline {
            Deadline::Own => self.deadline_for(&options),
            Deadline::Shared(at) => at,
        };
        let span = tracing::info_span!(
            "metal_call",
            operation = named.map(|n| n.operation.id),
            attempts = Empty
        );
        let mut progress = Progress {
            operation: named.map(|n| n.operation),
            ..Progress::default()
        };
        let result = self
            .attempts(named, options, deadline, &mut progress, attempt)
            .instrument(span.clone())
            .await;
        span.record("attempts", progress.attempts);
        if named.is_none() {
            span.record("operation", progress.operation_id());
        }
        result.map_err(|e| self.inner.secrets.error(e))
    }

    /// The attempts of one call, each within the deadline: the wait for a
    /// slot, the attempt itself and the sleep before the next. What follows
    /// an attempt is decided by [`Retries::failed`], outside this future, so
    /// that the future holds nothing but the awaits.
    async fn attempts<'a, T, F, Fut>(
        &'a self,
        named: Option<Named>,
        options: CallOptions,
        deadline: Option<Instant>,
        progress: &mut Progress,
        mut attempt: F,
    ) -> Result<T, Error>
    where
        F: FnMut(Attempt<'a>) -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let inner = &self.inner;
        let timeout = options.attempt_timeout.unwrap_or(inner.attempt_timeout);
        let mut retries = Retries {
            client: self,
            named,
            options,
            backoff: inner.backoff.start(),
            after_unknown: false,
            throttled_in_a_row: 0,
            refund: None,
        };
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
            // The slot and the scope are held for this attempt only, never
            // while sleeping in backoff.
            let Some(begun) = within(deadline, inner.layer.begin(timeout)).await else {
                return Err(progress.deadline_exceeded());
            };
            // The attempt's future is boxed once, as it is made.
            let made = Box::pin(attempt(Attempt {
                api: begun.api(),
                after_unknown: retries.after_unknown,
                scope: begun.scope(),
            }));
            // A success returns at once; the result goes out of scope
            // before any later wait, so the call's future never holds it.
            let (failure, seen) = {
                let result = within(deadline, made).instrument(span.clone()).await;
                let seen = begun.finish();
                match result {
                    Some(Ok(v)) => {
                        retries.succeeded(progress, &seen, &span);
                        return Ok(v);
                    }
                    Some(Err(failure)) => (Some(failure), seen),
                    None => (None, seen),
                }
            };
            let delay = retries.failed(progress, failure, seen, &span)?;
            if within(deadline, sleep(delay)).await.is_none() {
                return Err(progress.deadline_exceeded());
            }
        }
    }
}

/// What one call's retries keep between attempts.
struct Retries<'a> {
    client: &'a Client,
    named: Option<Named>,
    options: CallOptions,
    backoff: Box<dyn crate::retry::backoff::Backoff>,
    /// Some attempt's outcome was unknown.
    after_unknown: bool,
    /// Throttling replies since the last other failure.
    throttled_in_a_row: u32,
    /// The cost of this call's last retry paid from the budget: given back
    /// if the call then succeeds.
    refund: Option<u32>,
}

impl Retries<'_> {
    /// Records what an attempt's requests saw: the call's operation, when
    /// the client does not name it.
    fn saw(&self, progress: &mut Progress, seen: &Seen, span: &tracing::Span) -> &'static str {
        if self.named.is_none() {
            progress.operation = seen.operation.or(progress.operation);
        }
        let operation = progress.operation_id();
        span.record("operation", operation);
        operation
    }

    /// The budget of this call's retries, when it has one.
    fn budget(&self) -> Option<&Budget> {
        match self.options.retry_budget {
            Some(false) => None,
            _ => self.client.inner.budget.as_ref(),
        }
    }

    /// An attempt succeeded.
    fn succeeded(&self, progress: &mut Progress, seen: &Seen, span: &tracing::Span) {
        let operation = self.saw(progress, seen, span);
        self.client.inner.metrics.attempt(operation, "ok");
        if let Some(b) = self.budget() {
            b.succeeded(self.refund);
        }
    }

    /// Decides after a failed attempt (`None`: its deadline passed), with
    /// what its requests saw: the sleep before the next attempt, or the
    /// call's error. The decision is read off the failure's class; the
    /// retry is paid from the budget (a throttling reply's is free), or
    /// ends the call.
    fn failed(
        &mut self,
        progress: &mut Progress,
        failure: Option<Failure>,
        seen: Seen,
        span: &tracing::Span,
    ) -> Result<Duration, Error> {
        let inner = &self.client.inner;
        let operation = self.saw(progress, &seen, span);
        let error = match failure {
            None => return Err(progress.deadline_exceeded()),
            Some(Failure::Final(e)) => {
                inner.metrics.attempt(operation, "final");
                return Err(e);
            }
            // What the server said reaches logs and errors without the
            // token it may have echoed.
            Some(Failure::Attempt(e)) => inner.secrets.attempt(e),
        };
        inner.metrics.attempt(operation, error.outcome());
        span.record("error.type", error.outcome());
        let idempotency = match (self.options.idempotent, self.named) {
            (Some(true), _) => Idempotency::Idempotent,
            (Some(false), _) => Idempotency::NotIdempotent,
            (None, Some(n)) => n.idempotency,
            (None, None) => match seen.operation {
                Some(op) if op.is_idempotent() => Idempotency::Idempotent,
                _ => Idempotency::NotIdempotent,
            },
        };
        let attempts = progress.attempts;
        let class = error.class();
        let (after, error) = match decide(operation, idempotency, attempts, error) {
            Decision::Stop(e) => return Err(e),
            Decision::Retry {
                after,
                outcome_unknown,
                error,
            } => {
                self.after_unknown |= outcome_unknown;
                (after, error)
            }
        };
        let gave_up = |source| {
            Err(Error::GaveUp {
                operation,
                attempts,
                source,
            })
        };
        if matches!(class, Class::Throttled { .. }) {
            self.throttled_in_a_row += 1;
        } else {
            self.throttled_in_a_row = 0;
        }
        if self.throttled_in_a_row > MAX_THROTTLED_RETRIES {
            return gave_up(error);
        }
        let Some(delay) = self.backoff.next_delay() else {
            return gave_up(error);
        };
        if let Some(b) = self.budget()
            && let Some(cost) = b.cost(class)
        {
            if !b.try_spend(cost) {
                inner.metrics.retry_budget_refused(operation);
                debug!(operation, attempt = attempts, cost, error = %error, "retry budget exhausted");
                return Err(Error::RetryBudgetExhausted {
                    operation,
                    attempts,
                    last: error,
                });
            }
            self.refund = Some(cost);
        }
        // The server's delay, if longer than the backoff's: a `Retry-After:
        // 0` never turns retries into a hot loop.
        let delay = after.map_or(delay, |a| a.min(MAX_THROTTLE_PAUSE).max(delay));
        debug!(operation, attempt = attempts, delay_ms = delay.as_millis() as u64, error = %error, "retrying");
        progress.last = Some(error);
        inner.metrics.retry(operation);
        Ok(delay)
    }
}

/// `f`'s output, or `None` if `deadline` passes first.
async fn within<F: Future>(deadline: Option<Instant>, f: F) -> Option<F::Output> {
    match deadline {
        Some(at) => timeout_at(at, f).await.ok(),
        None => Some(f.await),
    }
}

/// How far a call got: what its deadline's error reports.
#[derive(Default)]
struct Progress {
    /// The call's operation: the client's name for it, else its last
    /// request's.
    operation: Option<&'static Operation>,
    attempts: u32,
    last: Option<AttemptError>,
}

impl Progress {
    /// The error of a call whose deadline passed: the attempts begun, and
    /// the last one's error, if one had failed.
    fn deadline_exceeded(&mut self) -> Error {
        Error::DeadlineExceeded {
            operation: self.operation_id(),
            attempts: self.attempts,
            last: self.last.take(),
        }
    }

    /// The operationId a call reports, `unsent` when nothing was sent (the
    /// generated client refused a parameter before sending).
    fn operation_id(&self) -> &'static str {
        self.operation.map_or("unsent", |o| o.id)
    }
}
