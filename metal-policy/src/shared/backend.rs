//! [`Shared`]: the Redis backend of the shared limits: the connection, and
//! the health that decides between Redis and the local fallback. Its
//! turns are in `turns`, its slots in `slots`.

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use prometheus::{IntCounter, IntGauge};
use redis::{FromRedisValue, ScriptInvocation};
use tokio::sync::{watch, Semaphore};
use tokio::task::JoinHandle;
use tokio::time::{timeout, Instant};
use tracing::{info, warn};

use super::config::SharedLimits;
use super::connect::{Conn, Connector};
use super::error::{SharedError, SharedLimitsError};
use super::eviction::{self, Watch};
use super::keys::{Keys, Scripts};
use crate::limit::pace::Pace;
use crate::limit::rate::RateLimiter;

#[derive(Debug)]
struct Health {
    degraded: bool,
    /// While degraded: when the next turn may try Redis again.
    next_probe: Instant,
}

/// The Redis backend of the client's limits, with its local fallback.
pub(crate) struct Shared {
    pub(super) connector: Connector,
    conn: Mutex<Option<Conn>>,
    /// Held while connecting: concurrent calls wait for one connection
    /// rather than each making (and handshaking) their own.
    connecting: tokio::sync::Mutex<()>,
    pub(super) keys: Keys,
    pub(super) scripts: Scripts,
    pub(super) config: SharedLimits,
    /// The pace every process should configure alike; a learned spacing
    /// is kept in Redis.
    pub(super) pace: Pace,
    pub(super) burst: u32,
    pub(super) parallelism: usize,
    /// The rate limit while degraded: the pace shared by `processes`.
    pub(super) local_rate: RateLimiter,
    /// The latest epoch of the shared schedule this process has seen (from
    /// its own reservations and learning, and from the other processes'
    /// announcements): a waiting turn of an older epoch reserves again.
    pub(super) epoch: watch::Sender<u64>,
    /// The background tasks, started by the first turn (`None` before):
    /// the listener for other processes' announcements of a pulled-back
    /// schedule (with learning on), and the watcher of a Sentinel's master
    /// switches. Aborted when the backend drops.
    pub(super) tasks: Mutex<Option<Vec<JoinHandle<()>>>>,
    /// The concurrency limit while degraded: `parallelism / processes`.
    pub(super) local_slots: Arc<Semaphore>,
    /// What this process knows of the schedule, to see it vanish.
    pub(super) watch: Watch,
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

pub(super) fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

pub(super) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

impl Shared {
    /// The backend for a client with these limits; checks the settings and
    /// reads the TLS files, connects lazily.
    pub(crate) fn new(
        config: SharedLimits,
        pace: Pace,
        burst: u32,
        parallelism: usize,
        degraded_gauge: IntGauge,
        vanished: IntCounter,
    ) -> Result<Self, SharedLimitsError> {
        let connector = Connector::new(&config)?;
        let n = config.processes.max(1);
        let parallelism = parallelism.max(1);
        Ok(Self {
            connector,
            conn: Mutex::new(None),
            connecting: tokio::sync::Mutex::new(()),
            keys: Keys::new(&config.prefix),
            scripts: Scripts::new(),
            pace,
            burst: burst.max(1),
            parallelism,
            local_rate: RateLimiter::with_pace(pace.shared_by(n), burst),
            epoch: watch::Sender::new(0),
            tasks: Mutex::new(None),
            local_slots: Arc::new(Semaphore::new((parallelism / n as usize).max(1))),
            watch: Watch::new(vanished),
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
    pub(super) fn try_redis(&self) -> bool {
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

    /// Forgets the connection: the next call connects (and reads the
    /// eviction policy) again.
    pub(super) fn drop_connection(&self) {
        *self.conn.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// The cached connection, or a new one whose server's eviction policy
    /// cannot drop the limits' keys.
    async fn connection(&self) -> Result<Conn, SharedError> {
        let cached = || self.conn.lock().unwrap_or_else(|p| p.into_inner()).clone();
        if let Some(c) = cached() {
            return Ok(c);
        }
        let t = self.config.timeout;
        let _connecting = timeout(t, self.connecting.lock())
            .await
            .map_err(|_| SharedError::Timeout(t))?;
        // Another call may have connected while this one waited.
        if let Some(c) = cached() {
            return Ok(c);
        }
        let mut c = timeout(t, self.connector.connect(t))
            .await
            .map_err(|_| SharedError::Timeout(t))?
            .map_err(SharedError::Redis)?;
        match timeout(t, c.info_memory(&self.keys.tat)).await {
            Ok(Ok(info)) => match eviction::policy(&info)? {
                Some(_) => {}
                None => self
                    .watch
                    .policy_unknown(&"no maxmemory_policy in the reply", &self.config.prefix),
            },
            // Refused (an ACL without INFO) or slow: not a reason to stop
            // sharing; the reservations still see a vanished schedule.
            Ok(Err(e)) => self.watch.policy_unknown(&e, &self.config.prefix),
            Err(_) => return Err(SharedError::Timeout(t)),
        }
        *self.conn.lock().unwrap_or_else(|p| p.into_inner()) = Some(c.clone());
        Ok(c)
    }

    /// Runs one script under the timeout; a failure marks the backend
    /// degraded and drops the connection (the next try reconnects).
    pub(super) async fn run<T: FromRedisValue>(
        &self,
        inv: ScriptInvocation<'_>,
    ) -> Result<T, SharedError> {
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
                self.drop_connection();
                self.failed(e);
            }
        }
        result
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        let tasks = self.tasks.get_mut().unwrap_or_else(|p| p.into_inner());
        for t in tasks.take().into_iter().flatten() {
            t.abort();
        }
    }
}
