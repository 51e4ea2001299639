//! The Redis backend of the shared limits ([`Shared`]): the scripts, the
//! connection, the health that decides between Redis and the local
//! fallback, and the slot leases.

use std::fmt;
use std::pin::pin;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use futures::future::{select, Either};
use futures::StreamExt;
use prometheus::IntGauge;
use rand::Rng;
use redis::aio::MultiplexedConnection;
use redis::{FromRedisValue, Script, ScriptInvocation};
use tokio::sync::{watch, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;
use tokio::time::{sleep, timeout, Instant};
use tracing::{debug, info, warn};
use uuid::Uuid;

use super::config::{SharedLimits, WAITER_TTL};
use crate::limit::pace::{Pace, Reading};
use crate::limit::rate::{RateLimiter, DEFAULT_THROTTLE_PAUSE, MAX_THROTTLE_PAUSE};

/// How often a waiter for a shared slot asks again (jittered ±50%).
const POLL: Duration = Duration::from_millis(10);

/// Why a Redis call failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SharedError {
    #[error("redis: {0}")]
    Redis(#[source] redis::RedisError),
    #[error("redis did not answer within {0:?}")]
    Timeout(Duration),
    #[error("a script's reply has an unexpected shape: {0}")]
    Reply(String),
}

/// GCRA reservation. KEYS: tat, pause, learned, freed, epoch. ARGV: base
/// spacing µs, floor µs, burst - 1, learn (1/0). Returns the turn
/// ([`Turn::from_reply`]).
const RESERVE: &str = include_str!("scripts/reserve.lua");

/// Gives back an unused turn. KEYS: tat, freed, epoch, pause. ARGV: the
/// turn's instant, tat after it, step, epoch, reused (1/0).
const GIVE_BACK: &str = include_str!("scripts/give_back.lua");

/// Keeps a learned spacing until the reset. KEYS: learned, tat, epoch,
/// freed. ARGV: spacing µs, µs until the reset, base spacing µs, none left
/// (1/0), the channel to publish a pulled-back schedule's epoch on.
/// Returns the epoch in force.
const LEARN: &str = include_str!("scripts/learn.lua");

/// The µs left of the shared pause. KEYS: pause.
const PAUSE_LEFT: &str = include_str!("scripts/pause_left.lua");

/// Pauses every process. KEYS: pause, tat. ARGV: pause µs. Returns the µs
/// the pause lasts from now (it never shortens an existing one).
const PAUSE: &str = include_str!("scripts/pause.lua");

/// Takes a slot or queues for one. KEYS: holders, queue, queue expiry,
/// seq. ARGV: id, limit, lease ms, waiter ttl ms. Returns 1 when the slot
/// is taken, else 0 (the caller stays queued and polls again).
const ACQUIRE: &str = include_str!("scripts/acquire.lua");

/// Renews (or re-registers) a held lease. KEYS: holders. ARGV: id, lease ms.
const RENEW: &str = include_str!("scripts/renew.lua");

/// Releases a slot or a queue place. KEYS: holders, queue, queue expiry.
/// ARGV: id.
const RELEASE: &str = include_str!("scripts/release.lua");

/// The Redis keys of one prefix.
struct Keys {
    tat: String,
    pause: String,
    learned: String,
    /// Turns given back, not yet handed out again (a sorted set).
    freed: String,
    /// The schedule's epoch: the Redis time it was last pulled back.
    epoch: String,
    /// The pub/sub channel a pulled-back schedule's epoch is published on.
    rebuilt: String,
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
            learned: k("learned"),
            freed: k("freed"),
            epoch: k("epoch"),
            rebuilt: k("rebuilt"),
            holders: k("holders"),
            queue: k("queue"),
            queue_expiry: k("queue_expiry"),
            seq: k("seq"),
        }
    }
}

struct Scripts {
    reserve: Script,
    give_back: Script,
    learn: Script,
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
    /// The pace every process should configure alike; a learned spacing
    /// is kept in Redis.
    pace: Pace,
    burst: u32,
    parallelism: usize,
    /// The rate limit while degraded: the pace shared by `processes`.
    local_rate: RateLimiter,
    /// The latest epoch of the shared schedule this process has seen (from
    /// its own reservations and learning, and from the other processes'
    /// announcements): a waiting turn of an older epoch reserves again.
    epoch: watch::Sender<u64>,
    /// The task that listens for other processes' announcements of a
    /// pulled-back schedule (started by the first turn, with learning on).
    listener: Mutex<Option<JoinHandle<()>>>,
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
        pace: Pace,
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
                give_back: Script::new(GIVE_BACK),
                learn: Script::new(LEARN),
                pause_left: Script::new(PAUSE_LEFT),
                pause: Script::new(PAUSE),
                acquire: Script::new(ACQUIRE),
                renew: Script::new(RENEW),
                release: Script::new(RELEASE),
            },
            pace,
            burst: burst.max(1),
            parallelism,
            local_rate: RateLimiter::with_pace(pace.shared_by(n), burst),
            epoch: watch::Sender::new(0),
            listener: Mutex::new(None),
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

    /// The reservation of one turn of the shared schedule.
    fn reserve(&self) -> ScriptInvocation<'_> {
        let mut inv = self.scripts.reserve.key(&self.keys.tat);
        inv.key(&self.keys.pause)
            .key(&self.keys.learned)
            .key(&self.keys.freed)
            .key(&self.keys.epoch)
            .arg(micros(self.pace.base))
            .arg(micros(self.pace.floor))
            .arg(self.burst - 1)
            .arg(u8::from(self.pace.learn));
        inv
    }

    /// Reserves one turn of the shared schedule.
    async fn reserve_turn(&self) -> Result<Turn, SharedError> {
        let reply: Vec<i64> = self.run(self.reserve()).await?;
        let turn = Turn::from_reply(&reply)
            .ok_or_else(|| SharedError::Reply(format!("reserve: {reply:?}")))?;
        self.saw_epoch(turn.epoch);
        Ok(turn)
    }

    /// Notes an epoch of the shared schedule seen in a reply or an
    /// announcement; a newer one wakes this process's waiting turns of
    /// older epochs.
    fn saw_epoch(&self, epoch: u64) {
        self.epoch.send_if_modified(|seen| {
            let newer = epoch > *seen;
            if newer {
                *seen = epoch;
            }
            newer
        });
    }

    /// Starts, once, the task that listens for other processes'
    /// announcements of a pulled-back schedule (learning only: without it
    /// the schedule is never pulled back).
    fn listen(self: &Arc<Self>) {
        if !self.pace.learn {
            return;
        }
        let mut listener = self.listener.lock().unwrap_or_else(|p| p.into_inner());
        if listener.is_some() {
            return;
        }
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            *listener = Some(rt.spawn(listen(Arc::downgrade(self))));
        }
    }

    /// Waits for this request's turn of the shared schedule (or, degraded,
    /// of the local one); returns how long it waited. Cancel-safe: a wait
    /// dropped before its turn gives the turn back (in the background), as
    /// the local limiter does; a turn of a schedule another process has
    /// since pulled back for a faster learned pace is reserved again.
    pub(crate) async fn acquire_turn(self: &Arc<Self>) -> Duration {
        let began = Instant::now();
        self.listen();
        loop {
            if !self.try_redis() {
                self.local_rate.acquire().await;
                return began.elapsed();
            }
            // Subscribed before the reservation: an epoch announced after
            // it is seen.
            let mut epochs = self.epoch.subscribe();
            let turn = match self.reserve_turn().await {
                Ok(t) => t,
                Err(_) => continue, // degraded now: the next loop goes local
            };
            if turn.wait == 0 {
                return began.elapsed();
            }
            let mut pending = PendingTurn {
                shared: Arc::clone(self),
                turn,
                armed: true,
            };
            let slept = pin!(sleep(Duration::from_micros(turn.wait)));
            let rebuilt = pin!(async {
                loop {
                    if epochs.changed().await.is_err() {
                        // The sender lives as long as `self`: never.
                        std::future::pending::<()>().await;
                    }
                    if *epochs.borrow_and_update() > turn.epoch {
                        return;
                    }
                }
            });
            if let Either::Right(_) = select(slept, rebuilt).await {
                // A faster pace pulled the schedule back: reserve again
                // (the old turn is given back, and dropped by Redis).
                continue;
            }
            pending.armed = false;
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

    /// Gives `turn` back, in the background (from `Drop`); without a
    /// runtime, or when Redis does not answer, the turn is lost (capacity
    /// lost, never a turn handed to two requests).
    fn give_back_later(self: &Arc<Self>, turn: Turn) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let shared = Arc::clone(self);
        rt.spawn(async move {
            let _ = shared.give_back(turn).await;
        });
    }

    /// Gives `turn` back: 1 when the schedule moved back a step, 2 when the
    /// turn was kept for the next reservation, 0 when it was dropped (its
    /// schedule was pulled back, or its instant has passed).
    async fn give_back(&self, turn: Turn) -> Result<u8, SharedError> {
        let mut inv = self.scripts.give_back.key(&self.keys.tat);
        inv.key(&self.keys.freed)
            .key(&self.keys.epoch)
            .key(&self.keys.pause)
            .arg(turn.at)
            .arg(turn.tat_after)
            .arg(turn.step)
            .arg(turn.epoch)
            .arg(u8::from(turn.reused));
        self.run(inv).await
    }

    /// Learns the pace from a reply's reading: the local fallback's, and,
    /// with learning on, the one kept in Redis for every process until the
    /// reset.
    pub(crate) async fn learn(&self, reading: Reading) {
        self.local_rate.learn(reading);
        let Some(spacing) = self.pace.learned(reading) else {
            return;
        };
        if self.try_redis() {
            let mut inv = self.scripts.learn.key(&self.keys.learned);
            inv.key(&self.keys.tat)
                .key(&self.keys.epoch)
                .key(&self.keys.freed)
                .arg(micros(spacing))
                .arg(micros(reading.until.min(MAX_THROTTLE_PAUSE)))
                .arg(micros(self.pace.base))
                .arg(u8::from(reading.remaining == 0))
                .arg(&self.keys.rebuilt);
            if let Ok(epoch) = self.run::<u64>(inv).await {
                self.saw_epoch(epoch);
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

/// One reserved turn of the shared schedule (the reservation script's
/// reply).
#[derive(Clone, Copy, Debug)]
struct Turn {
    /// µs from the reservation to the turn.
    wait: u64,
    /// The turn's instant, µs of Redis time.
    at: u64,
    /// The schedule's tat right after the reservation.
    tat_after: u64,
    /// The spacing the reservation moved the schedule by, µs.
    step: u64,
    /// The schedule it belongs to.
    epoch: u64,
    /// A turn given back before, handed out again.
    reused: bool,
}

impl Turn {
    /// Reads `{wait, at, tat_after, step, epoch, reused}`.
    fn from_reply(reply: &[i64]) -> Option<Self> {
        let n = |i: usize| reply.get(i).map(|v| u64::try_from(*v).unwrap_or(0));
        Some(Self {
            wait: n(0)?,
            at: n(1)?,
            tat_after: n(2)?,
            step: n(3)?,
            epoch: n(4)?,
            reused: n(5)? == 1,
        })
    }
}

/// A reserved turn not yet reached; dropping it armed gives it back.
struct PendingTurn {
    shared: Arc<Shared>,
    turn: Turn,
    armed: bool,
}

impl Drop for PendingTurn {
    fn drop(&mut self) {
        if self.armed {
            self.shared.give_back_later(self.turn);
        }
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        if let Some(l) = self
            .listener
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take()
        {
            l.abort();
        }
    }
}

/// Listens for the epochs other processes publish when a faster learned
/// pace pulled the shared schedule back, and wakes this process's waiting
/// turns of older epochs; reconnects after a failure every retry interval.
/// Holds the backend weakly; the backend aborts it when dropped.
async fn listen(shared: Weak<Shared>) {
    loop {
        let Some((client, channel, t, retry)) = shared.upgrade().map(|s| {
            (
                s.client.clone(),
                s.keys.rebuilt.clone(),
                s.config.timeout,
                s.config.retry_interval,
            )
        }) else {
            return;
        };
        let subscribed = timeout(t, async {
            let mut ps = client.get_async_pubsub().await?;
            ps.subscribe(&channel).await?;
            Ok::<_, redis::RedisError>(ps)
        })
        .await;
        match subscribed {
            Ok(Ok(ps)) => {
                let mut messages = ps.into_on_message();
                while let Some(m) = messages.next().await {
                    let Some(s) = shared.upgrade() else {
                        return;
                    };
                    if let Ok(epoch) = m.get_payload::<u64>() {
                        s.saw_epoch(epoch);
                    }
                }
                debug!("shared limits: the announcements' subscription ended");
            }
            Ok(Err(e)) => debug!(error = %e, "shared limits: cannot subscribe to announcements"),
            Err(_) => debug!("shared limits: subscribing to announcements timed out"),
        }
        sleep(retry).await;
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
#[path = "tests.rs"]
mod tests;
