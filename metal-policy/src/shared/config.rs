//! [`SharedLimits`]: where and how the limits are shared.

use std::fmt;
use std::time::Duration;

/// How long a process's place in the shared wait queue lasts without a
/// poll (a crashed waiter blocks the queue at most this long).
pub const WAITER_TTL: Duration = Duration::from_secs(1);
/// The default lease of a shared concurrency slot.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);
/// The default timeout of each Redis call (connecting included).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(250);
/// The default interval between attempts to return to Redis when degraded.
pub const DEFAULT_RETRY_INTERVAL: Duration = Duration::from_secs(1);

/// Where and how the limits are shared: give it to
/// [`crate::ClientBuilder::shared_limits`]. Processes share limits when
/// they name the same Redis and prefix, and should configure the same
/// `api_rate`, `burst` and `parallelism` (each script uses its caller's).
#[derive(Clone)]
pub struct SharedLimits {
    pub(crate) url: String,
    pub(crate) prefix: String,
    pub(crate) processes: u32,
    pub(crate) lease: Duration,
    pub(crate) timeout: Duration,
    pub(crate) retry_interval: Duration,
}

impl fmt::Debug for SharedLimits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The URL may carry a password: never printed.
        f.debug_struct("SharedLimits")
            .field("url", &"<redacted>")
            .field("prefix", &self.prefix)
            .field("processes", &self.processes)
            .field("lease", &self.lease)
            .field("timeout", &self.timeout)
            .field("retry_interval", &self.retry_interval)
            .finish()
    }
}

impl SharedLimits {
    /// Limits kept in the Redis at `url` (`redis://host:port/db`) under keys
    /// starting with `prefix:`.
    pub fn redis(url: impl Into<String>, prefix: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            prefix: prefix.into(),
            processes: 1,
            lease: DEFAULT_LEASE,
            timeout: DEFAULT_TIMEOUT,
            retry_interval: DEFAULT_RETRY_INTERVAL,
        }
    }

    /// How many processes share the limits (default 1; 0 counts as 1):
    /// while Redis is unreachable each process keeps to `1/n` of the rate
    /// and of the parallelism.
    pub fn processes(mut self, n: u32) -> Self {
        self.processes = n.max(1);
        self
    }

    /// How long a concurrency slot stays taken after its process stops
    /// renewing it (default 10 s; at least 30 ms).
    pub fn lease(mut self, lease: Duration) -> Self {
        self.lease = lease.max(Duration::from_millis(30));
        self
    }

    /// The timeout of each Redis call (default 250 ms).
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t;
        self
    }

    /// How often a degraded client tries Redis again (default 1 s).
    pub fn retry_interval(mut self, t: Duration) -> Self {
        self.retry_interval = t;
        self
    }
}
