//! [`ClientBuilder`]: the client's settings, and the one place its limits,
//! metrics and layer at the hook point are put together.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use metal_api::{Config, ConfigError};
use prometheus::Registry;

use super::{Client, Inner};
use crate::exchange::{Layer, Raw, Steps};
use crate::limit::local::LocalLimits;
use crate::limit::pace::Pace;
use crate::limit::Limits;
use crate::metrics::Metrics;
use crate::redact::Secrets;
use crate::retry::backoff::{BackoffFactory, ExponentialBackoff};
use crate::retry::budget::{Budget, RetryBudget};

/// The default number of calls in flight.
pub const DEFAULT_PARALLELISM: usize = 1;
/// The default minimum spacing between requests.
pub const DEFAULT_API_RATE: Duration = Duration::from_secs(2);
/// The default page size of list operations (the API's own maximum is
/// larger; 100 keeps each page's reply small and quick).
pub const DEFAULT_PER_PAGE: u32 = 100;
/// The default bound on the distinct entries of one list: ten times the
/// largest project the examples provision (10,000 devices).
pub const DEFAULT_MAX_LIST_ENTRIES: usize = 100_000;

/// Why a [`Client`] could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Neither [`ClientBuilder::config`] nor [`ClientBuilder::api`] was
    /// given.
    #[error("no API client: call ClientBuilder::config or ClientBuilder::api")]
    NoApi,
    /// The HTTP client could not be made from the configuration.
    #[error("HTTP client: {0}")]
    Config(#[source] ConfigError),
    /// The metrics could not be registered (e.g. already registered).
    #[error("registering metrics: {0}")]
    Metrics(#[source] prometheus::Error),
    /// `per_page` must be at least 1.
    #[error("per_page must be at least 1")]
    ZeroPerPage,
    /// The settings of [`ClientBuilder::shared_limits`] cannot be used
    /// (an invalid URL, a plaintext password to another host, an unreadable
    /// certificate, ...).
    #[cfg(feature = "redis")]
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    #[error("shared limits: {0}")]
    SharedLimits(#[source] crate::shared::SharedLimitsError),
}

/// Builds a [`Client`]. Defaults: `parallelism` 1, `api_rate` 2 s, burst 1,
/// [`ExponentialBackoff::default`], the retry budget
/// [`RetryBudget::default`] (smithy-rs's retry quota), no per-attempt
/// timeout (the HTTP client's own timeouts apply), no whole-call deadline,
/// `per_page` 100, lists of at most 100,000 entries, no metrics registry.
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
    api: Option<metal_api::Client>,
    parallelism: Option<usize>,
    api_rate: Option<Duration>,
    burst: Option<u32>,
    learn_rate: bool,
    backoff: Option<Arc<dyn BackoffFactory>>,
    attempt_timeout: Option<Duration>,
    deadline: Option<Duration>,
    per_page: Option<u32>,
    max_list_entries: Option<usize>,
    retry_budget: Option<Option<RetryBudget>>,
    registry: Option<Registry>,
    #[cfg(feature = "redis")]
    shared_limits: Option<crate::shared::SharedLimits>,
}

impl Client {
    /// A builder with the documented defaults.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("config", &self.config) // Config redacts its token.
            .field("api", &self.api.as_ref().map(|_| "<api client>"))
            .field("parallelism", &self.parallelism)
            .field("api_rate", &self.api_rate)
            .field("burst", &self.burst)
            .field("learn_rate", &self.learn_rate)
            .field("backoff", &self.backoff.as_ref().map(|_| "<backoff>"))
            .field("attempt_timeout", &self.attempt_timeout)
            .field("deadline", &self.deadline)
            .field("per_page", &self.per_page)
            .field("max_list_entries", &self.max_list_entries)
            .field("retry_budget", &self.retry_budget)
            .field("registry", &self.registry.is_some())
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// Talks HTTP to the API with this configuration (auth token, base
    /// URL, HTTP timeouts, body bound). Ignored when [`Self::api`] is also
    /// given.
    pub fn config(mut self, config: Config) -> Self {
        self.config = Some(config);
        self
    }

    /// Sends through this generated client's exchange (e.g. `metal-fake`'s
    /// in-process one), with the policy's layer put in front of it. Takes
    /// precedence over [`Self::config`].
    pub fn api(mut self, api: metal_api::Client) -> Self {
        self.api = Some(api);
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
    /// server's throttling replies are still honoured. With
    /// [`Self::learn_rate`], the pace learned from the server's headers is
    /// never faster than this.
    pub fn api_rate(mut self, spacing: Duration) -> Self {
        self.api_rate = Some(spacing);
        self
    }

    /// Paces requests by the budget the server announces on each reply
    /// (default off). A reply with `X-RateLimit-Remaining: r` and
    /// `X-RateLimit-Reset: t` (a Unix time, or seconds from now) spreads the
    /// `r` requests left evenly until `t`, for the whole client: the next
    /// requests go `(t - now) / r` apart (with none left, the next waits for
    /// `t`). The learned spacing is never shorter than an [`Self::api_rate`]
    /// you set, and holds until `t`; without a reading in force (no headers
    /// yet, or none since the last reset) the client keeps `api_rate`, or
    /// its 2 s default. A much faster learned pace takes effect for the
    /// requests already waiting too. A learned spacing is never longer
    /// than 5 minutes (the longest throttling pause), whatever reset a
    /// reply announces. The 429 reaction stays as the safety net. With
    /// shared limits (`shared_limits`, feature `redis`) the learned spacing
    /// is kept in Redis, so every process paces by the one budget.
    ///
    /// ```
    /// let config = metal_api::Config::builder().auth_token("t").build()?;
    /// let client = metal_policy::Client::builder()
    ///     .config(config)
    ///     .parallelism(8)
    ///     .learn_rate(true)
    ///     .build()?;
    /// # drop(client);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn learn_rate(mut self, on: bool) -> Self {
        self.learn_rate = on;
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

    /// A limit on each HTTP exchange (from sending to the end of the reply,
    /// never the waits for a slot or a turn before it); one that runs over
    /// is an unknown outcome. Default `None`.
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

    /// The most distinct entries one list may have (default
    /// [`DEFAULT_MAX_LIST_ENTRIES`]): a longer one ends with
    /// [`crate::Error::ListTooLong`] instead of holding the memory of
    /// every page a server keeps announcing. Streams
    /// ([`crate::Metal::device_pages`]) are bounded too, since they
    /// remember each entry's ID to drop repeats.
    pub fn max_list_entries(mut self, n: usize) -> Self {
        self.max_list_entries = Some(n);
        self
    }

    /// The client-wide retry budget (default [`RetryBudget::default`]:
    /// 500 tokens, a retry costs 5, one after an unknown outcome 10, a
    /// success gives 1 back). `None` turns it off: retries are then bounded
    /// only by the backoff and the deadline. See [`crate::retry::budget`];
    /// with shared limits the budget is still per process.
    ///
    /// ```
    /// let config = metal_api::Config::builder().auth_token("t").build()?;
    /// let client = metal_policy::Client::builder()
    ///     .config(config)
    ///     .retry_budget(Some(metal_policy::RetryBudget::new(100)))
    ///     .build()?;
    /// # drop(client);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn retry_budget(mut self, budget: Option<RetryBudget>) -> Self {
        self.retry_budget = Some(budget);
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
    #[cfg_attr(docsrs, doc(cfg(feature = "redis")))]
    pub fn shared_limits(mut self, s: crate::shared::SharedLimits) -> Self {
        self.shared_limits = Some(s);
        self
    }

    /// Builds the client.
    pub fn build(self) -> Result<Client, BuildError> {
        let api = match (self.api, &self.config) {
            (Some(api), _) => api,
            (None, Some(c)) => c.client().map_err(BuildError::Config)?,
            (None, None) => return Err(BuildError::NoApi),
        };
        let per_page = self.per_page.unwrap_or(DEFAULT_PER_PAGE);
        if per_page == 0 {
            return Err(BuildError::ZeroPerPage);
        }
        let budget = self.retry_budget.unwrap_or(Some(RetryBudget::default()));
        let metrics =
            Metrics::new(self.registry.as_ref(), budget.is_some()).map_err(BuildError::Metrics)?;
        let budget = budget.map(|b| Budget::new(b, metrics.retry_budget_tokens.clone()));
        let parallelism = self.parallelism.unwrap_or(DEFAULT_PARALLELISM);
        let spacing = self.api_rate.unwrap_or(DEFAULT_API_RATE);
        let pace = Pace {
            base: spacing,
            floor: self.api_rate.unwrap_or(Duration::ZERO),
            learn: self.learn_rate,
            share: 1,
        };
        let burst = self.burst.unwrap_or(1);
        let limits: Arc<dyn Limits> = Arc::new(LocalLimits::new(parallelism, pace, burst));
        #[cfg(feature = "redis")]
        let limits: Arc<dyn Limits> = match self.shared_limits {
            Some(s) => Arc::new(
                crate::shared::SharedBackend::new(
                    s,
                    pace,
                    burst,
                    parallelism,
                    metrics.shared_degraded.clone(),
                    metrics.shared_vanished.clone(),
                )
                .map_err(BuildError::SharedLimits)?,
            ),
            None => limits,
        };
        let secrets = Secrets::of(api.headers());
        let steps = Steps {
            next: api.exchange().clone(),
            limits,
            metrics: metrics.clone(),
        };
        let layer = Layer::new(steps, api.clone(), self.attempt_timeout);
        Ok(Client {
            inner: Arc::new(Inner {
                api: api.with_exchange(Arc::new(Raw(layer.clone()))),
                layer,
                backoff: self
                    .backoff
                    .unwrap_or_else(|| Arc::new(ExponentialBackoff::default())),
                attempt_timeout: self.attempt_timeout,
                deadline: self.deadline,
                per_page,
                max_list_entries: self.max_list_entries.unwrap_or(DEFAULT_MAX_LIST_ENTRIES),
                budget,
                metrics,
                secrets,
            }),
        })
    }
}
