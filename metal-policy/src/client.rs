//! [`Client`], the policy client, and its [`ClientBuilder`]: the one call
//! path every operation shares (concurrency slot → rate limiter → one
//! attempt under a timeout → classification → backoff), and the
//! [`Metal`] implementation on top of it.

use std::collections::HashSet;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::stream::{self, BoxStream, StreamExt, TryStreamExt};
use metal_api::{types, Config, ConfigError, DeviceState};
use prometheus::Registry;
use tokio::time::{sleep, timeout, timeout_at, Instant};
use tracing::{debug, debug_span, info_span, Instrument};
use uuid::Uuid;

use crate::error::{AttemptError, Error};
use crate::http::HttpTransport;
use crate::limit::concurrency::Concurrency;
use crate::limit::rate::{RateLimiter, MAX_THROTTLE_PAUSE};
use crate::metal::{Fields, Metal};
use crate::metrics::Metrics;
use crate::retry::backoff::{BackoffFactory, ExponentialBackoff};
use crate::retry::classify::{classify, Decision, Idempotency};
use crate::transport::{KeyOwner, Request, Response, Transport};

/// The default number of calls in flight.
pub const DEFAULT_PARALLELISM: usize = 1;
/// The default minimum spacing between requests.
pub const DEFAULT_API_RATE: Duration = Duration::from_secs(2);
/// The default page size of list operations (the API's own maximum is
/// larger; 100 keeps each page's reply small and quick).
pub const DEFAULT_PER_PAGE: u32 = 100;
/// The prefix of the witness tag `create_device` adds to the request.
pub const WITNESS_TAG_PREFIX: &str = "wrapngo-idempotency-";
/// The most pages a list follows before stopping (protects against a
/// server whose `meta` never ends).
const MAX_PAGES: u32 = 100_000;

/// Why a [`Client`] could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Neither [`ClientBuilder::config`] nor [`ClientBuilder::transport`]
    /// was given.
    #[error("no transport: call ClientBuilder::config or ClientBuilder::transport")]
    NoTransport,
    /// The HTTP transport could not be made from the configuration.
    #[error("HTTP transport: {0}")]
    Config(#[source] ConfigError),
    /// The metrics could not be registered (e.g. already registered).
    #[error("registering metrics: {0}")]
    Metrics(#[source] prometheus::Error),
    /// `per_page` must be at least 1.
    #[error("per_page must be at least 1")]
    ZeroPerPage,
    /// The Redis URL of [`ClientBuilder::shared_limits`] is not valid.
    #[cfg(feature = "redis")]
    #[error("shared limits: {0}")]
    SharedLimits(#[source] redis::RedisError),
}

/// Builds a [`Client`]. Defaults: `parallelism` 1, `api_rate` 2 s, burst 1,
/// [`ExponentialBackoff::default`], no per-attempt timeout (the HTTP
/// transport's own timeouts apply), no whole-call deadline, `per_page` 100,
/// no metrics registry.
///
/// ```
/// use std::time::Duration;
/// let config = metal_api::Config::builder().auth_token("t").build()?;
/// let client = metal_policy::Client::builder()
///     .config(config)
///     .parallelism(3)
///     .api_rate(Duration::from_millis(500))
///     .deadline(Some(Duration::from_secs(600)))
///     .build()?;
/// let metal: std::sync::Arc<dyn metal_policy::Metal> = std::sync::Arc::new(client);
/// # drop(metal);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Default)]
pub struct ClientBuilder {
    config: Option<Config>,
    transport: Option<Arc<dyn Transport>>,
    parallelism: Option<usize>,
    api_rate: Option<Duration>,
    burst: Option<u32>,
    backoff: Option<Arc<dyn BackoffFactory>>,
    attempt_timeout: Option<Duration>,
    deadline: Option<Duration>,
    per_page: Option<u32>,
    registry: Option<Registry>,
    #[cfg(feature = "redis")]
    shared_limits: Option<crate::shared::SharedLimits>,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("config", &self.config) // Config redacts its token.
            .field("transport", &self.transport.as_ref().map(|_| "<transport>"))
            .field("parallelism", &self.parallelism)
            .field("api_rate", &self.api_rate)
            .field("burst", &self.burst)
            .field("backoff", &self.backoff.as_ref().map(|_| "<backoff>"))
            .field("attempt_timeout", &self.attempt_timeout)
            .field("deadline", &self.deadline)
            .field("per_page", &self.per_page)
            .field("registry", &self.registry.is_some())
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// Talks HTTP to the API with this configuration (auth token, base
    /// URL, HTTP timeouts). Ignored when [`Self::transport`] is also given.
    pub fn config(mut self, config: Config) -> Self {
        self.config = Some(config);
        self
    }

    /// Sends requests through any [`Transport`] (e.g. `metal-fake`'s
    /// in-process one). Takes precedence over [`Self::config`].
    pub fn transport(mut self, t: Arc<dyn Transport>) -> Self {
        self.transport = Some(t);
        self
    }

    /// How many attempts may be in flight at once (default 1; 0 counts
    /// as 1). Waiters are served first come, first served.
    pub fn parallelism(mut self, n: usize) -> Self {
        self.parallelism = Some(n);
        self
    }

    /// The minimum average spacing between requests, client-wide (default
    /// 2 s). `Duration::ZERO` disables client-side rate limiting; the
    /// server's throttling replies are still honoured.
    pub fn api_rate(mut self, spacing: Duration) -> Self {
        self.api_rate = Some(spacing);
        self
    }

    /// How many requests may go at once before spacing applies (default
    /// 1; 0 counts as 1).
    pub fn burst(mut self, n: u32) -> Self {
        self.burst = Some(n);
        self
    }

    /// The backoff policy (default [`ExponentialBackoff::default`]).
    pub fn backoff(mut self, f: Arc<dyn BackoffFactory>) -> Self {
        self.backoff = Some(f);
        self
    }

    /// A limit on each attempt (each HTTP exchange, and each lookup plus
    /// create of `create_device`); an attempt that runs over counts as an
    /// unknown outcome. Default `None`.
    pub fn attempt_timeout(mut self, t: Option<Duration>) -> Self {
        self.attempt_timeout = t;
        self
    }

    /// A limit on each whole call, retries and waits included (for lists:
    /// all pages). Default `None`: the backoff's maximum elapsed time bounds
    /// retries instead.
    pub fn deadline(mut self, t: Option<Duration>) -> Self {
        self.deadline = t;
        self
    }

    /// Entries per page of list operations (default 100).
    pub fn per_page(mut self, n: u32) -> Self {
        self.per_page = Some(n);
        self
    }

    /// Registers the client's metrics with this registry.
    pub fn registry(mut self, r: Registry) -> Self {
        self.registry = Some(r);
        self
    }

    /// Shares the rate limit (`api_rate`, `burst`), the concurrency limit
    /// (`parallelism`) and throttling pauses with every process configured
    /// with the same Redis and prefix; falls back to local limits while
    /// Redis is away (see [`crate::shared`]). Default: in-process limits.
    #[cfg(feature = "redis")]
    pub fn shared_limits(mut self, s: crate::shared::SharedLimits) -> Self {
        self.shared_limits = Some(s);
        self
    }

    /// Builds the client.
    pub fn build(self) -> Result<Client, BuildError> {
        let transport: Arc<dyn Transport> = match (self.transport, &self.config) {
            (Some(t), _) => t,
            (None, Some(c)) => Arc::new(HttpTransport::new(c).map_err(BuildError::Config)?),
            (None, None) => return Err(BuildError::NoTransport),
        };
        let per_page = self.per_page.unwrap_or(DEFAULT_PER_PAGE);
        if per_page == 0 {
            return Err(BuildError::ZeroPerPage);
        }
        let metrics = Metrics::new(self.registry.as_ref()).map_err(BuildError::Metrics)?;
        #[allow(unused_mut)] // mutated with feature `redis` only
        let mut concurrency = Concurrency::new(self.parallelism.unwrap_or(DEFAULT_PARALLELISM));
        #[cfg(feature = "redis")]
        let shared = match self.shared_limits {
            Some(s) => Some(Arc::new(
                crate::shared::Shared::new(
                    s,
                    self.api_rate.unwrap_or(DEFAULT_API_RATE),
                    self.burst.unwrap_or(1),
                    self.parallelism.unwrap_or(DEFAULT_PARALLELISM),
                    metrics.shared_degraded.clone(),
                )
                .map_err(BuildError::SharedLimits)?,
            )),
            None => None,
        };
        #[cfg(feature = "redis")]
        {
            concurrency.shared = shared.clone();
        }
        Ok(Client {
            inner: Arc::new(Inner {
                transport,
                concurrency,
                #[cfg(feature = "redis")]
                shared,
                rate: RateLimiter::new(
                    self.api_rate.unwrap_or(DEFAULT_API_RATE),
                    self.burst.unwrap_or(1),
                ),
                backoff: self
                    .backoff
                    .unwrap_or_else(|| Arc::new(ExponentialBackoff::default())),
                attempt_timeout: self.attempt_timeout,
                deadline: self.deadline,
                per_page,
                metrics,
            }),
        })
    }
}

/// The policy client: implements [`Metal`] over a [`Transport`] with the
/// guarantees described in the crate docs. Cheap to clone; clones share
/// every limit.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("per_page", &self.inner.per_page)
            .field("attempt_timeout", &self.inner.attempt_timeout)
            .field("deadline", &self.inner.deadline)
            .finish_non_exhaustive()
    }
}

struct Inner {
    transport: Arc<dyn Transport>,
    concurrency: Concurrency,
    /// The limits shared through Redis, when configured.
    #[cfg(feature = "redis")]
    shared: Option<Arc<crate::shared::Shared>>,
    rate: RateLimiter,
    backoff: Arc<dyn BackoffFactory>,
    attempt_timeout: Option<Duration>,
    deadline: Option<Duration>,
    per_page: u32,
    metrics: Metrics,
}

/// Takes one page's entries and `meta` out of a reply.
type PageOf<T> = fn(Response) -> Option<(Vec<T>, Option<types::Meta>)>;

/// How one attempt failed: an HTTP exchange to classify, or a final answer
/// the operation itself reached (race lost, label conflict).
enum Failure {
    Attempt(AttemptError),
    Final(Error),
}

impl From<AttemptError> for Failure {
    fn from(e: AttemptError) -> Self {
        Self::Attempt(e)
    }
}

/// What an attempt knows about the call it belongs to.
#[derive(Clone)]
struct Ctx {
    inner: Arc<Inner>,
    /// Some earlier attempt of this call may have reached the server and
    /// acted (its outcome was unknown).
    after_unknown: bool,
}

impl Ctx {
    /// One HTTP request: waits for the rate limiter, then sends.
    async fn send(&self, request: Request) -> Result<Response, AttemptError> {
        self.inner.send(request).await
    }
}

#[derive(Default)]
struct Progress {
    attempts: u32,
    last: Option<AttemptError>,
}

impl Inner {
    /// Every HTTP request passes here: the shared rate limiter, then one
    /// exchange, observed by metrics and tracing.
    async fn send(&self, request: Request) -> Result<Response, AttemptError> {
        let endpoint = request.operation();
        let success_status = request.success_status();
        #[cfg(feature = "redis")]
        let waited = match &self.shared {
            Some(s) => s.acquire_turn().await,
            None => self.rate.acquire().await,
        };
        #[cfg(not(feature = "redis"))]
        let waited = self.rate.acquire().await;
        self.metrics.rate_wait(waited);
        let started = Instant::now();
        let result = self.transport.send(request).await;
        let latency = started.elapsed();
        self.metrics.request(
            endpoint,
            success_status,
            result.as_ref().map(|_| ()),
            latency,
        );
        // The attempt's span carries the last request's status and wait.
        let span = tracing::Span::current();
        span.record("wait_ms", waited.as_millis() as u64);
        match &result {
            Ok(_) => span.record("status", success_status),
            Err(e) => span.record("status", e.status().unwrap_or(0)),
        };
        match &result {
            Ok(_) => debug!(
                endpoint,
                status = success_status,
                wait_ms = waited.as_millis() as u64,
                "request done"
            ),
            Err(e) => {
                debug!(endpoint, status = ?e.status(), wait_ms = waited.as_millis() as u64, error = %e, "request failed");
                if let AttemptError::Throttled { retry_after, .. } = e {
                    self.rate.pause(*retry_after);
                    #[cfg(feature = "redis")]
                    if let Some(s) = &self.shared {
                        s.pause(*retry_after).await;
                    }
                }
            }
        }
        result
    }
}

impl Client {
    /// A builder with the documented defaults.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    fn call_deadline(&self) -> Option<Instant> {
        self.inner.deadline.map(|d| Instant::now() + d)
    }

    /// Runs one logical call: attempts made by `attempt`, retried per the
    /// classification, within `deadline`.
    async fn run<T, F, Fut>(
        &self,
        operation: &'static str,
        idempotency: Idempotency,
        deadline: Option<Instant>,
        attempt: F,
    ) -> Result<T, Error>
    where
        F: FnMut(Ctx) -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let mut progress = Progress::default();
        let span = info_span!("metal_call", operation, attempts = tracing::field::Empty);
        let fut = self.retry_loop(operation, idempotency, &mut progress, attempt);
        let result = match deadline {
            Some(at) => timeout_at(at, fut).instrument(span.clone()).await,
            None => Ok(fut.instrument(span.clone()).await),
        };
        span.record("attempts", progress.attempts);
        match result {
            Ok(r) => r,
            Err(_elapsed) => Err(Error::DeadlineExceeded {
                operation,
                attempts: progress.attempts,
                last: progress.last.take(),
            }),
        }
    }

    async fn retry_loop<T, F, Fut>(
        &self,
        operation: &'static str,
        idempotency: Idempotency,
        progress: &mut Progress,
        mut attempt: F,
    ) -> Result<T, Error>
    where
        F: FnMut(Ctx) -> Fut,
        Fut: Future<Output = Result<T, Failure>>,
    {
        let inner = &self.inner;
        let mut backoff = inner.backoff.start();
        let mut after_unknown = false;
        loop {
            progress.attempts += 1;
            let ctx = Ctx {
                inner: inner.clone(),
                after_unknown,
            };
            let span = debug_span!(
                "metal_attempt",
                operation,
                attempt = progress.attempts,
                status = tracing::field::Empty,
                wait_ms = tracing::field::Empty,
            );
            let result = async {
                // The slot is held for this attempt only, never while
                // sleeping in backoff.
                let _slot = inner.concurrency.acquire(&inner.metrics).await;
                match inner.attempt_timeout {
                    Some(t) => match timeout(t, attempt(ctx)).await {
                        Ok(r) => r,
                        Err(_) => Err(Failure::Attempt(AttemptError::Unknown {
                            status: None,
                            detail: format!("attempt timed out after {t:?}"),
                            source: None,
                        })),
                    },
                    None => attempt(ctx).await,
                }
            }
            .instrument(span)
            .await;
            let error = match result {
                Ok(v) => return Ok(v),
                Err(Failure::Final(e)) => return Err(e),
                Err(Failure::Attempt(e)) => e,
            };
            match classify(operation, idempotency, progress.attempts, error) {
                Decision::Stop(e) => return Err(e),
                Decision::Retry {
                    after,
                    outcome_unknown,
                    error,
                } => {
                    after_unknown |= outcome_unknown;
                    let Some(delay) = backoff.next_delay() else {
                        return Err(Error::GaveUp {
                            operation,
                            attempts: progress.attempts,
                            source: error,
                        });
                    };
                    let delay = after.map_or(delay, |a| a.min(MAX_THROTTLE_PAUSE));
                    debug!(operation, attempt = progress.attempts, delay_ms = delay.as_millis() as u64, error = %error, "retrying");
                    progress.last = Some(error);
                    inner.metrics.retry(operation);
                    sleep(delay).await;
                }
            }
        }
    }

    /// A call of exactly one request, with a typed reply.
    async fn simple<T>(
        &self,
        idempotency: Idempotency,
        request: Request,
        extract: fn(Response) -> Option<T>,
    ) -> Result<T, Error> {
        let operation = request.operation();
        let success = request.success_status();
        self.run(operation, idempotency, self.call_deadline(), |ctx| {
            let request = request.clone();
            async move {
                let r = ctx.send(request).await?;
                Ok(extract(r).ok_or_else(|| wrong_shape(success))?)
            }
        })
        .await
    }

    /// Streams the pages of a list; each page is retried on its own, within
    /// one deadline for the whole list; entries seen on an earlier page are
    /// dropped.
    fn pages<T: Send + 'static>(
        &self,
        make: impl Fn(u32, u32) -> Request + Send + Sync + 'static,
        extract: PageOf<T>,
        id: fn(&T) -> Option<Uuid>,
    ) -> BoxStream<'_, Result<Vec<T>, Error>> {
        struct State<M> {
            page: u32,
            done: bool,
            seen: HashSet<Uuid>,
            deadline: Option<Option<Instant>>,
            make: M,
        }
        let state = State {
            page: 1,
            done: false,
            seen: HashSet::new(),
            deadline: None,
            make,
        };
        let per_page = self.inner.per_page;
        stream::unfold(state, move |mut st| async move {
            if st.done {
                return None;
            }
            let deadline = *st.deadline.get_or_insert_with(|| self.call_deadline());
            let request = (st.make)(st.page, per_page);
            let operation = request.operation();
            let success = request.success_status();
            let page = self
                .run(operation, Idempotency::Idempotent, deadline, |ctx| {
                    let request = request.clone();
                    async move {
                        let r = ctx.send(request).await?;
                        Ok(extract(r).ok_or_else(|| wrong_shape(success))?)
                    }
                })
                .await;
            match page {
                Err(e) => {
                    st.done = true;
                    Some((Err(e), st))
                }
                Ok((items, meta)) => {
                    let got = items.len();
                    let fresh: Vec<T> = items
                        .into_iter()
                        .filter(|t| id(t).is_none_or(|i| st.seen.insert(i)))
                        .collect();
                    st.done = !has_next(st.page, meta.as_ref(), got);
                    st.page += 1;
                    Some((Ok(fresh), st))
                }
            }
        })
        .boxed()
    }

    /// Sends a delete, retried as idempotent: a 404 on an attempt after one
    /// whose outcome was unknown means that attempt deleted it, so it is
    /// success; a 404 on the first attempt is an error.
    async fn delete(&self, request: Request) -> Result<(), Error> {
        self.run(
            request.operation(),
            Idempotency::Idempotent,
            self.call_deadline(),
            |ctx| {
                let request = request.clone();
                async move {
                    match ctx.send(request).await {
                        Ok(_) => Ok(()),
                        Err(AttemptError::Rejected { status: 404, .. }) if ctx.after_unknown => {
                            Ok(())
                        }
                        Err(e) => Err(e.into()),
                    }
                }
            },
        )
        .await
    }

    /// Runs a device action that is safe to repeat once its effect is
    /// checked: after an unknown outcome, reads the device first and
    /// succeeds if it is already in one of `done` states.
    async fn power(
        &self,
        id: Uuid,
        action: types::DeviceActionInputType,
        done: &'static [DeviceState],
    ) -> Result<(), Error> {
        self.run(
            "performAction",
            Idempotency::Idempotent,
            self.call_deadline(),
            |ctx| async move {
                if ctx.after_unknown && device_is_in(&ctx, id, done).await? {
                    return Ok(());
                }
                match ctx.send(Request::DeviceAction { id, action }).await {
                    Ok(_) => Ok(()),
                    // The API refuses to power off a device that is off
                    // (422 "Device must be powered on"): already so is done.
                    Err(AttemptError::Rejected {
                        status: status @ (409 | 422),
                        messages,
                    }) => {
                        if device_is_in(&ctx, id, done).await? {
                            Ok(())
                        } else {
                            Err(AttemptError::Rejected { status, messages }.into())
                        }
                    }
                    Err(e) => Err(e.into()),
                }
            },
        )
        .await
    }
}

/// Whether the device's state is one of `states`.
async fn device_is_in(ctx: &Ctx, id: Uuid, states: &[DeviceState]) -> Result<bool, AttemptError> {
    let r = ctx
        .send(Request::GetDevice {
            id,
            include: None,
            exclude: None,
        })
        .await?;
    let Response::Device(d) = r else {
        return Err(wrong_shape(200));
    };
    Ok(d.state_kind().is_some_and(|s| states.contains(&s)))
}

/// Who holds a hardware reservation, as `create_device` sees it.
enum Holder {
    Nobody,
    Ours(Box<types::Device>),
    Theirs(Option<Uuid>),
}

/// Reads the reservation with its device included (so the device's tags
/// are there, not an href stub) and checks the device for our witness.
async fn reservation_holder(
    ctx: &Ctx,
    reservation: Uuid,
    witness: &str,
) -> Result<Holder, AttemptError> {
    let r = ctx
        .send(Request::GetReservation {
            id: reservation,
            include: Some("device".into()),
        })
        .await?;
    let Response::Reservation(hr) = r else {
        return Err(wrong_shape(200));
    };
    Ok(match hr.device {
        None => Holder::Nobody,
        Some(d) if d.tags.iter().any(|t| t == witness) => Holder::Ours(d),
        Some(d) => Holder::Theirs(d.id),
    })
}

fn wrong_shape(status: u16) -> AttemptError {
    AttemptError::Decode {
        status,
        detail: "the transport returned a reply of the wrong shape".into(),
    }
}

/// Whether a list continues after `page`, by its `meta`: `last_page` when
/// given, else the presence of `next`. An empty page ends the list.
fn has_next(page: u32, meta: Option<&types::Meta>, got: usize) -> bool {
    let Some(meta) = meta else { return false };
    if got == 0 || page >= MAX_PAGES {
        return false;
    }
    match meta.last_page {
        Some(last) => i64::from(page) < last,
        None => meta.next.is_some(),
    }
}

fn reservation_of(request: &types::CreateDeviceRequest) -> &str {
    match request {
        types::CreateDeviceRequest::MetroInput(m) => &m.hardware_reservation_id,
        types::CreateDeviceRequest::FacilityInput(f) => &f.hardware_reservation_id,
    }
}

fn with_tag(request: &types::CreateDeviceRequest, tag: &str) -> types::CreateDeviceRequest {
    let mut body = request.clone();
    match &mut body {
        types::CreateDeviceRequest::MetroInput(m) => m.tags.push(tag.to_string()),
        types::CreateDeviceRequest::FacilityInput(f) => f.tags.push(tag.to_string()),
    }
    body
}

fn same_key(a: Option<&str>, b: Option<&str>) -> bool {
    a.map(str::trim) == b.map(str::trim)
}

#[async_trait]
impl Metal for Client {
    async fn get_project(&self, id: Uuid) -> Result<types::Project, Error> {
        self.simple(
            Idempotency::Idempotent,
            Request::GetProject { id },
            |r| match r {
                Response::Project(p) => Some(*p),
                _ => None,
            },
        )
        .await
    }

    async fn get_device(&self, id: Uuid, fields: &Fields) -> Result<types::Device, Error> {
        let request = Request::GetDevice {
            id,
            include: fields.include_param(),
            exclude: fields.exclude_param(),
        };
        self.simple(Idempotency::Idempotent, request, |r| match r {
            Response::Device(d) => Some(*d),
            _ => None,
        })
        .await
    }

    async fn list_devices(&self, project: Uuid) -> Result<Vec<types::Device>, Error> {
        let pages: Vec<Vec<types::Device>> = self.device_pages(project).try_collect().await?;
        Ok(pages.into_iter().flatten().collect())
    }

    fn device_pages(&self, project: Uuid) -> BoxStream<'_, Result<Vec<types::Device>, Error>> {
        self.pages(
            move |page, per_page| Request::ListDevices {
                project,
                page,
                per_page,
                include: None,
            },
            |r| match r {
                Response::Devices(l) => Some((l.devices, l.meta)),
                _ => None,
            },
            |d| d.id,
        )
    }

    async fn create_device(
        &self,
        project: Uuid,
        request: &types::CreateDeviceRequest,
    ) -> Result<types::Device, Error> {
        let reservation: Uuid = reservation_of(request)
            .trim()
            .parse()
            .map_err(|_| Error::NoReservation)?;
        // One witness per logical call, on every attempt; the caller's
        // request is cloned, never changed.
        let witness = format!("{WITNESS_TAG_PREFIX}{}", Uuid::new_v4());
        let body = with_tag(request, &witness);
        self.run(
            "createDevice",
            Idempotency::Idempotent,
            self.call_deadline(),
            |ctx| {
                let body = body.clone();
                let witness = witness.clone();
                async move {
                    // Did an earlier attempt (ours) or someone else get there?
                    match reservation_holder(&ctx, reservation, &witness).await? {
                        Holder::Ours(d) => return Ok(*d),
                        Holder::Theirs(device) => {
                            return Err(Failure::Final(Error::RaceLost {
                                reservation,
                                device,
                            }))
                        }
                        Holder::Nobody => {}
                    }
                    match ctx.send(Request::CreateDevice { project, body }).await {
                        Ok(Response::Device(d)) => Ok(*d),
                        Ok(_) => Err(wrong_shape(201).into()),
                        // Taken between our read and our create (the API
                        // answers 422): look again to tell a lost race.
                        Err(AttemptError::Rejected {
                            status: status @ (409 | 422),
                            messages,
                        }) => match reservation_holder(&ctx, reservation, &witness).await? {
                            Holder::Ours(d) => Ok(*d),
                            Holder::Theirs(device) => Err(Failure::Final(Error::RaceLost {
                                reservation,
                                device,
                            })),
                            Holder::Nobody => {
                                Err(AttemptError::Rejected { status, messages }.into())
                            }
                        },
                        Err(e) => Err(e.into()),
                    }
                }
            },
        )
        .await
    }

    async fn update_device(
        &self,
        id: Uuid,
        update: &types::DeviceUpdateInput,
    ) -> Result<types::Device, Error> {
        let request = Request::UpdateDevice {
            id,
            body: update.clone(),
        };
        self.simple(Idempotency::Idempotent, request, |r| match r {
            Response::Device(d) => Some(*d),
            _ => None,
        })
        .await
    }

    async fn reboot_device(&self, id: Uuid) -> Result<(), Error> {
        let request = Request::DeviceAction {
            id,
            action: types::DeviceActionInputType::Reboot,
        };
        self.simple(Idempotency::NotIdempotent, request, |_| Some(()))
            .await
    }

    async fn power_on_device(&self, id: Uuid) -> Result<(), Error> {
        const DONE: &[DeviceState] = &[DeviceState::Active, DeviceState::PoweringOn];
        self.power(id, types::DeviceActionInputType::PowerOn, DONE)
            .await
    }

    async fn power_off_device(&self, id: Uuid) -> Result<(), Error> {
        const DONE: &[DeviceState] = &[DeviceState::Inactive, DeviceState::PoweringOff];
        self.power(id, types::DeviceActionInputType::PowerOff, DONE)
            .await
    }

    async fn delete_device(&self, id: Uuid) -> Result<(), Error> {
        self.delete(Request::DeleteDevice { id, force: false })
            .await
    }

    async fn list_reservations(
        &self,
        project: Uuid,
    ) -> Result<Vec<types::HardwareReservation>, Error> {
        let pages: Vec<Vec<types::HardwareReservation>> = self
            .pages(
                move |page, per_page| Request::ListReservations {
                    project,
                    page,
                    per_page,
                    include: Some(metal_api::csv(["facility", "device"])),
                },
                |r| match r {
                    Response::Reservations(l) => Some((l.hardware_reservations, l.meta)),
                    _ => None,
                },
                |r| r.id,
            )
            .try_collect()
            .await?;
        Ok(pages.into_iter().flatten().collect())
    }

    async fn get_reservation(&self, id: Uuid) -> Result<types::HardwareReservation, Error> {
        let request = Request::GetReservation {
            id,
            include: Some("device".into()),
        };
        self.simple(Idempotency::Idempotent, request, |r| match r {
            Response::Reservation(r) => Some(*r),
            _ => None,
        })
        .await
    }

    async fn move_reservation(
        &self,
        id: Uuid,
        project: Uuid,
    ) -> Result<types::HardwareReservation, Error> {
        self.run(
            "moveHardwareReservation",
            Idempotency::Idempotent,
            self.call_deadline(),
            |ctx| async move {
                if ctx.after_unknown {
                    let r = ctx
                        .send(Request::GetReservation { id, include: None })
                        .await?;
                    let Response::Reservation(hr) = r else {
                        return Err(wrong_shape(200).into());
                    };
                    if hr.project.as_ref().and_then(|p| p.id) == Some(project) {
                        return Ok(*hr);
                    }
                }
                match ctx.send(Request::MoveReservation { id, project }).await? {
                    Response::Reservation(hr) => Ok(*hr),
                    _ => Err(wrong_shape(201).into()),
                }
            },
        )
        .await
    }

    async fn list_ssh_keys(&self, owner: KeyOwner) -> Result<Vec<types::SshKey>, Error> {
        self.simple(
            Idempotency::Idempotent,
            Request::ListSshKeys { owner },
            |r| match r {
                Response::SshKeys(l) => Some(l.ssh_keys),
                _ => None,
            },
        )
        .await
    }

    async fn get_ssh_key(&self, id: Uuid) -> Result<types::SshKey, Error> {
        self.simple(
            Idempotency::Idempotent,
            Request::GetSshKey { id },
            |r| match r {
                Response::SshKey(k) => Some(*k),
                _ => None,
            },
        )
        .await
    }

    async fn create_ssh_key(
        &self,
        owner: KeyOwner,
        input: &types::SshKeyCreateInput,
    ) -> Result<types::SshKey, Error> {
        let operation = Request::CreateSshKey {
            owner,
            body: input.clone(),
        }
        .operation();
        let Some(label) = input.label.clone().filter(|l| !l.trim().is_empty()) else {
            return Err(Error::InvalidRequest {
                operation,
                reason: "an SSH key needs a label to be created idempotently".into(),
            });
        };
        self.run(
            operation,
            Idempotency::Idempotent,
            self.call_deadline(),
            |ctx| {
                let input = input.clone();
                let label = label.clone();
                async move {
                    let r = ctx.send(Request::ListSshKeys { owner }).await?;
                    let Response::SshKeys(keys) = r else {
                        return Err(wrong_shape(200).into());
                    };
                    if let Some(k) = keys
                        .ssh_keys
                        .into_iter()
                        .find(|k| k.label.as_deref() == Some(label.as_str()))
                    {
                        if same_key(k.key.as_deref(), input.key.as_deref()) {
                            return Ok(k);
                        }
                        return Err(Failure::Final(Error::SshKeyLabelConflict {
                            label,
                            existing: k.id,
                        }));
                    }
                    match ctx
                        .send(Request::CreateSshKey { owner, body: input })
                        .await?
                    {
                        Response::SshKey(k) => Ok(*k),
                        _ => Err(wrong_shape(201).into()),
                    }
                }
            },
        )
        .await
    }

    async fn update_ssh_key(
        &self,
        id: Uuid,
        input: &types::SshKeyInput,
    ) -> Result<types::SshKey, Error> {
        let request = Request::UpdateSshKey {
            id,
            body: input.clone(),
        };
        self.simple(Idempotency::Idempotent, request, |r| match r {
            Response::SshKey(k) => Some(*k),
            _ => None,
        })
        .await
    }

    async fn delete_ssh_key(&self, id: Uuid) -> Result<(), Error> {
        self.delete(Request::DeleteSshKey { id }).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn has_next_follows_meta() {
        let meta = |last_page: Option<i64>, next: bool| types::Meta {
            last_page,
            next: next.then(|| types::Href {
                href: "/x?page=2".into(),
            }),
            ..Default::default()
        };
        assert!(has_next(1, Some(&meta(Some(3), false)), 5));
        assert!(!has_next(3, Some(&meta(Some(3), true)), 5));
        assert!(has_next(1, Some(&meta(None, true)), 5));
        assert!(!has_next(1, Some(&meta(None, false)), 5));
        assert!(!has_next(1, None, 5));
        assert!(
            !has_next(1, Some(&meta(Some(9), true)), 0),
            "empty page ends"
        );
    }
}
