//! Limits shared by every process that names the same Redis URL and key
//! prefix (feature `redis`): one rate schedule, one concurrency limit, one
//! throttling pause.
//!
//! Choose it with [`crate::ClientBuilder::shared_limits`]:
//!
//! ```no_run
//! # fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::time::Duration;
//! use metal_policy::{Client, SharedLimits};
//! let config = metal_api::Config::from_env().build()?;
//! let client = Client::builder()
//!     .config(config)
//!     .parallelism(4)                       // shared: 4 in flight in total
//!     .api_rate(Duration::from_millis(50))  // shared: 20 requests/s in total
//!     .shared_limits(SharedLimits::redis("redis://127.0.0.1:6379/", "metal").processes(3))
//!     .build()?;
//! # drop(client); Ok(()) }
//! ```
//!
//! Every limit is kept in Redis and changed only by Lua scripts
//! ([`redis::Script`]), so each decision is atomic; times are the Redis
//! server's clock (`TIME`), so the processes' clocks need not agree.
//!
//! - **Rate.** GCRA: each request reserves the next instant of one shared
//!   schedule (`{prefix}:tat`), in the order the reservations reach Redis,
//!   and sleeps until then.
//! - **Concurrency.** A semaphore of leases: holders in a sorted set
//!   (`{prefix}:holders`) scored by lease expiry, renewed every third of
//!   the lease while held and removed on release; waiters queue in arrival
//!   order (`{prefix}:queue`, tickets from `{prefix}:seq`) and poll. A
//!   crashed process's slots come back when their leases expire, and its
//!   queue places after [`WAITER_TTL`].
//! - **Throttling.** A 429 (or 503 with `Retry-After`) seen by any process
//!   sets `{prefix}:pause` to the pause's end; every process's next turn
//!   waits for it.
//!
//! **Failure mode.** Every Redis call has a short timeout
//! ([`SharedLimits::timeout`], default 250 ms). When one fails the client
//! becomes *degraded*: it logs one `warn`, sets
//! `equinix_api_shared_limits_degraded` to 1, and takes turns and slots from
//! local limits instead (the rate divided by [`SharedLimits::processes`],
//! the parallelism divided likewise, at least 1). Every
//! [`SharedLimits::retry_interval`] one turn tries Redis again; when it
//! answers the client logs one `info`, sets the gauge to 0 and uses the
//! shared limits again. A turn or slot is taken from Redis or locally,
//! never both; a Redis call that timed out may still have reserved a turn
//! in Redis that no one uses (capacity lost, never a request counted
//! twice). A Redis that restarts empty forgets the schedule and the
//! leases; held leases are re-registered at their next renewal.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use prometheus::IntGauge;
use rand::Rng;
use redis::aio::MultiplexedConnection;
use redis::{FromRedisValue, Script, ScriptInvocation};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;
use tokio::time::{sleep, timeout, Instant};
use tracing::{info, warn};
use uuid::Uuid;

use crate::limit::rate::{RateLimiter, DEFAULT_THROTTLE_PAUSE, MAX_THROTTLE_PAUSE};

/// How long a process's place in the shared wait queue lasts without a
/// poll (a crashed waiter blocks the queue at most this long).
pub const WAITER_TTL: Duration = Duration::from_secs(1);
/// The default lease of a shared concurrency slot.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);
/// The default timeout of each Redis call (connecting included).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(250);
/// The default interval between attempts to return to Redis when degraded.
pub const DEFAULT_RETRY_INTERVAL: Duration = Duration::from_secs(1);
/// How often a waiter for a shared slot asks again (jittered ±50%).
const POLL: Duration = Duration::from_millis(10);

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

/// Why a Redis call failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SharedError {
    #[error("redis: {0}")]
    Redis(#[source] redis::RedisError),
    #[error("redis did not answer within {0:?}")]
    Timeout(Duration),
}

/// GCRA reservation. KEYS: tat, pause. ARGV: spacing µs, tolerance µs.
/// Returns the µs to wait before the reserved instant.
const RESERVE: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local spacing = tonumber(ARGV[1])
local tolerance = tonumber(ARGV[2])
local start = math.max(now, tonumber(redis.call('GET', KEYS[2]) or '0'))
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or '0'), start)
local at = math.max(start, tat - tolerance)
local next_tat = tat + spacing
redis.call('SET', KEYS[1], string.format('%.0f', next_tat), 'PX',
  math.floor((next_tat - now) / 1000) + 1000)
return math.floor(at - now)
"#;

/// The µs left of the shared pause. KEYS: pause.
const PAUSE_LEFT: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local left = tonumber(redis.call('GET', KEYS[1]) or '0') - now
if left < 0 then return 0 end
return math.floor(left)
"#;

/// Pauses every process. KEYS: pause, tat. ARGV: pause µs. Returns the µs
/// the pause lasts from now (it never shortens an existing one).
const PAUSE: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local untl = math.max(now + tonumber(ARGV[1]), tonumber(redis.call('GET', KEYS[1]) or '0'))
local ttl = math.floor((untl - now) / 1000) + 1000
redis.call('SET', KEYS[1], string.format('%.0f', untl), 'PX', ttl)
local tat = tonumber(redis.call('GET', KEYS[2]) or '0')
if tat < untl then
  redis.call('SET', KEYS[2], string.format('%.0f', untl), 'PX', ttl)
end
return math.floor(untl - now)
"#;

/// Takes a slot or queues for one. KEYS: holders, queue, queue expiry,
/// seq. ARGV: id, limit, lease ms, waiter ttl ms. Returns 1 when the slot
/// is taken, else 0 (the caller stays queued and polls again).
const ACQUIRE: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id, limit = ARGV[1], tonumber(ARGV[2])
local lease, wttl = tonumber(ARGV[3]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now)
for _, w in ipairs(gone) do
  redis.call('ZREM', KEYS[2], w)
  redis.call('ZREM', KEYS[3], w)
end
local function take()
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZADD', KEYS[1], now + lease, id)
  redis.call('PEXPIRE', KEYS[1], lease * 2)
  return 1
end
if redis.call('ZSCORE', KEYS[1], id) then return take() end
if not redis.call('ZSCORE', KEYS[2], id) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[4]), id)
end
redis.call('ZADD', KEYS[3], now + wttl, id)
redis.call('PEXPIRE', KEYS[2], wttl * 2)
redis.call('PEXPIRE', KEYS[3], wttl * 2)
local free = limit - redis.call('ZCARD', KEYS[1])
if redis.call('ZRANK', KEYS[2], id) < free then return take() end
return 0
"#;

/// Renews (or re-registers) a held lease. KEYS: holders. ARGV: id, lease ms.
const RENEW: &str = r#"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) * 2)
return 1
"#;

/// Releases a slot or a queue place. KEYS: holders, queue, queue expiry.
/// ARGV: id.
const RELEASE: &str = r#"
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1
"#;

/// The Redis keys of one prefix.
struct Keys {
    tat: String,
    pause: String,
    holders: String,
    queue: String,
    queue_expiry: String,
    seq: String,
}

impl Keys {
    fn new(prefix: &str) -> Self {
        let k = |name: &str| format!("{prefix}:{name}");
        Self {
            tat: k("tat"),
            pause: k("pause"),
            holders: k("holders"),
            queue: k("queue"),
            queue_expiry: k("queue_expiry"),
            seq: k("seq"),
        }
    }
}

struct Scripts {
    reserve: Script,
    pause_left: Script,
    pause: Script,
    acquire: Script,
    renew: Script,
    release: Script,
}

#[derive(Debug)]
struct Health {
    degraded: bool,
    /// While degraded: when the next turn may try Redis again.
    next_probe: Instant,
}

/// The Redis backend of the client's limits, with its local fallback.
pub(crate) struct Shared {
    client: redis::Client,
    conn: Mutex<Option<MultiplexedConnection>>,
    keys: Keys,
    scripts: Scripts,
    config: SharedLimits,
    spacing: Duration,
    tolerance: Duration,
    parallelism: usize,
    /// The rate limit while degraded: `spacing * processes`.
    local_rate: RateLimiter,
    /// The concurrency limit while degraded: `parallelism / processes`.
    local_slots: Arc<Semaphore>,
    health: Mutex<Health>,
    degraded_gauge: IntGauge,
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shared")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// A held shared concurrency slot: a Redis lease renewed in the
/// background, or a local permit while degraded. Dropping it releases it.
#[derive(Debug)]
// The fields are held for their `Drop` only.
#[allow(dead_code)]
pub(crate) enum SharedSlot {
    Lease(Lease),
    Local(OwnedSemaphorePermit),
}

/// A lease held in Redis; dropping it stops the renewal and releases it.
#[derive(Debug)]
pub(crate) struct Lease {
    shared: Arc<Shared>,
    id: String,
    renew: JoinHandle<()>,
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.renew.abort();
        self.shared.release_later(self.id.clone());
    }
}

/// A place in the shared wait queue; dropping it (a dropped call) leaves
/// the queue.
struct Waiter {
    shared: Arc<Shared>,
    id: String,
    armed: bool,
}

impl Drop for Waiter {
    fn drop(&mut self) {
        if self.armed {
            self.shared.release_later(std::mem::take(&mut self.id));
        }
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Shared {
    /// The backend for a client with these limits; connects lazily.
    pub(crate) fn new(
        config: SharedLimits,
        spacing: Duration,
        burst: u32,
        parallelism: usize,
        degraded_gauge: IntGauge,
    ) -> Result<Self, redis::RedisError> {
        let client = redis::Client::open(config.url.as_str())?;
        let n = config.processes.max(1);
        let parallelism = parallelism.max(1);
        Ok(Self {
            client,
            conn: Mutex::new(None),
            keys: Keys::new(&config.prefix),
            scripts: Scripts {
                reserve: Script::new(RESERVE),
                pause_left: Script::new(PAUSE_LEFT),
                pause: Script::new(PAUSE),
                acquire: Script::new(ACQUIRE),
                renew: Script::new(RENEW),
                release: Script::new(RELEASE),
            },
            spacing,
            tolerance: spacing.saturating_mul(burst.max(1) - 1),
            parallelism,
            local_rate: RateLimiter::new(spacing.saturating_mul(n), burst),
            local_slots: Arc::new(Semaphore::new((parallelism / n as usize).max(1))),
            health: Mutex::new(Health {
                degraded: false,
                next_probe: Instant::now(),
            }),
            degraded_gauge,
            config,
        })
    }

    fn health(&self) -> std::sync::MutexGuard<'_, Health> {
        // Two plain fields, valid after any panic mid-update.
        self.health.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether this turn should ask Redis: always when healthy; once per
    /// retry interval when degraded.
    fn try_redis(&self) -> bool {
        let mut h = self.health();
        if !h.degraded {
            return true;
        }
        let now = Instant::now();
        if now >= h.next_probe {
            h.next_probe = now + self.config.retry_interval;
            return true;
        }
        false
    }

    fn failed(&self, e: &SharedError) {
        let mut h = self.health();
        h.next_probe = Instant::now() + self.config.retry_interval;
        if !h.degraded {
            h.degraded = true;
            self.degraded_gauge.set(1);
            warn!(error = %e, prefix = %self.config.prefix, "shared limits unavailable: using local limits until Redis answers");
        }
    }

    fn succeeded(&self) {
        let mut h = self.health();
        if h.degraded {
            h.degraded = false;
            self.degraded_gauge.set(0);
            info!(prefix = %self.config.prefix, "shared limits available again");
        }
    }

    /// Whether the backend is using local limits now.
    #[cfg(test)]
    pub(crate) fn degraded(&self) -> bool {
        self.health().degraded
    }

    async fn connection(&self) -> Result<MultiplexedConnection, SharedError> {
        let cached = self.conn.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(c) = cached {
            return Ok(c);
        }
        let t = self.config.timeout;
        let c = timeout(t, self.client.get_multiplexed_async_connection())
            .await
            .map_err(|_| SharedError::Timeout(t))?
            .map_err(SharedError::Redis)?;
        *self.conn.lock().unwrap_or_else(|p| p.into_inner()) = Some(c.clone());
        Ok(c)
    }

    /// Runs one script under the timeout; a failure marks the backend
    /// degraded and drops the connection (the next try reconnects).
    async fn run<T: FromRedisValue>(&self, inv: ScriptInvocation<'_>) -> Result<T, SharedError> {
        let result = async {
            let mut c = self.connection().await?;
            let t = self.config.timeout;
            timeout(t, inv.invoke_async::<T>(&mut c))
                .await
                .map_err(|_| SharedError::Timeout(t))?
                .map_err(SharedError::Redis)
        }
        .await;
        match &result {
            Ok(_) => self.succeeded(),
            Err(e) => {
                *self.conn.lock().unwrap_or_else(|p| p.into_inner()) = None;
                self.failed(e);
            }
        }
        result
    }

    /// Waits for this request's turn of the shared schedule (or, degraded,
    /// of the local one); returns how long it waited. Cancel-safe.
    pub(crate) async fn acquire_turn(&self) -> Duration {
        let began = Instant::now();
        loop {
            if !self.try_redis() {
                self.local_rate.acquire().await;
                return began.elapsed();
            }
            let mut inv = self.scripts.reserve.key(&self.keys.tat);
            inv.key(&self.keys.pause)
                .arg(micros(self.spacing))
                .arg(micros(self.tolerance));
            let wait: u64 = match self.run(inv).await {
                Ok(w) => w,
                Err(_) => continue, // degraded now: the next loop goes local
            };
            if wait == 0 {
                return began.elapsed();
            }
            sleep(Duration::from_micros(wait)).await;
            // Another process may have been throttled while we slept.
            // If Redis went away meanwhile, our turn still came from
            // Redis: take it (0 = no pause left).
            let left: u64 = self
                .run(self.scripts.pause_left.key(&self.keys.pause))
                .await
                .unwrap_or_default();
            if left == 0 {
                return began.elapsed();
            }
        }
    }

    /// Pauses every process sharing the limits (and the local fallback)
    /// for `pause`, bounded like the local limiter's pauses.
    pub(crate) async fn pause(&self, pause: Option<Duration>) {
        self.local_rate.pause(pause);
        let pause = pause
            .unwrap_or(DEFAULT_THROTTLE_PAUSE)
            .min(MAX_THROTTLE_PAUSE);
        if self.try_redis() {
            let mut inv = self.scripts.pause.key(&self.keys.pause);
            inv.key(&self.keys.tat).arg(micros(pause));
            let _: Result<u64, _> = self.run(inv).await;
        }
    }

    /// Waits for a shared concurrency slot (or, degraded, a local one).
    /// The caller already holds its process's own FIFO slot. Cancel-safe:
    /// a dropped wait leaves the shared queue.
    pub(crate) async fn acquire_slot(self: &Arc<Self>) -> SharedSlot {
        if self.try_redis() {
            let mut waiter = Waiter {
                shared: Arc::clone(self),
                id: Uuid::new_v4().to_string(),
                armed: true,
            };
            loop {
                let mut inv = self.scripts.acquire.key(&self.keys.holders);
                inv.key(&self.keys.queue)
                    .key(&self.keys.queue_expiry)
                    .key(&self.keys.seq)
                    .arg(&waiter.id)
                    .arg(self.parallelism)
                    .arg(millis(self.config.lease))
                    .arg(millis(WAITER_TTL));
                match self.run::<u8>(inv).await {
                    Ok(1) => {
                        waiter.armed = false;
                        let id = std::mem::take(&mut waiter.id);
                        let renew = tokio::spawn(renew(Arc::downgrade(self), id.clone()));
                        return SharedSlot::Lease(Lease {
                            shared: Arc::clone(self),
                            id,
                            renew,
                        });
                    }
                    Ok(_) => {
                        let jitter = rand::rng().random_range(0.5..1.5);
                        sleep(POLL.mul_f64(jitter)).await;
                    }
                    Err(_) => break,
                }
            }
        }
        // Degraded. The semaphore is never closed, so this cannot fail;
        // the impossible case waits forever rather than panicking.
        match Arc::clone(&self.local_slots).acquire_owned().await {
            Ok(p) => SharedSlot::Local(p),
            Err(_) => std::future::pending().await,
        }
    }

    /// Removes `id` from the holders and the queue, in the background (from
    /// `Drop`); if there is no runtime, or Redis does not answer, the lease
    /// expires instead.
    fn release_later(self: &Arc<Self>, id: String) {
        if id.is_empty() {
            return;
        }
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            let shared = Arc::clone(self);
            rt.spawn(async move {
                let mut inv = shared.scripts.release.key(&shared.keys.holders);
                inv.key(&shared.keys.queue)
                    .key(&shared.keys.queue_expiry)
                    .arg(&id);
                let _: Result<u8, _> = shared.run(inv).await;
            });
        }
    }
}

/// Renews the lease `id` every third of the lease until aborted (or the
/// client is gone).
async fn renew(shared: std::sync::Weak<Shared>, id: String) {
    loop {
        let Some(lease) = shared.upgrade().map(|s| s.config.lease) else {
            return;
        };
        sleep(lease / 3).await;
        let Some(s) = shared.upgrade() else {
            return;
        };
        let mut inv = s.scripts.renew.key(&s.keys.holders);
        inv.arg(&id).arg(millis(lease));
        let _: Result<u8, _> = s.run(inv).await;
    }
}

#[cfg(test)]
#[path = "shared_tests.rs"]
mod tests;
