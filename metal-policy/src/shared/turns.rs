//! The shared rate schedule's turns: reserving one, giving an unused one
//! back, learning the pace, pausing.

use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use futures::future::{select, Either};
use redis::ScriptInvocation;
use tokio::time::{sleep, Instant};

use super::backend::{micros, Shared};
use super::error::SharedError;
use super::subscribe::{subscribed, ANNOUNCEMENTS, MASTER_SWITCHES};
use crate::limit::pace::Reading;
use crate::limit::pace::{DEFAULT_THROTTLE_PAUSE, MAX_THROTTLE_PAUSE};

impl Shared {
    /// The reservation of one turn of the shared schedule.
    fn reserve(&self) -> ScriptInvocation<'_> {
        let mut inv = self.scripts.reserve.key(&self.keys.tat);
        inv.key(&self.keys.pause)
            .key(&self.keys.learned)
            .key(&self.keys.freed)
            .key(&self.keys.epoch)
            .key(&self.keys.born)
            .arg(micros(self.pace.base))
            .arg(micros(self.pace.floor))
            .arg(self.burst - 1)
            .arg(u8::from(self.pace.learn))
            .arg(self.watch.hint());
        inv
    }

    /// Reserves one turn of the shared schedule; a reply that shows the
    /// schedule vanished is counted and makes the next call connect again
    /// (reading the eviction policy afresh).
    pub(super) async fn reserve_turn(&self) -> Result<Turn, SharedError> {
        let reply: Vec<i64> = self.run(self.reserve()).await?;
        let turn = Turn::from_reply(&reply)
            .ok_or_else(|| SharedError::Reply(format!("reserve: {reply:?}")))?;
        self.saw_epoch(turn.epoch);
        if self.watch.saw(
            turn.born,
            turn.half_gone,
            turn.tat_after,
            &self.config.prefix,
        ) {
            self.drop_connection();
        }
        Ok(turn)
    }

    /// Notes an epoch of the shared schedule seen in a reply or an
    /// announcement; a newer one wakes this process's waiting turns of
    /// older epochs.
    pub(super) fn saw_epoch(&self, epoch: u64) {
        let newer = self.epoch.send_if_modified(|seen| {
            let newer = epoch > *seen;
            if newer {
                *seen = epoch;
            }
            newer
        });
        if newer {
            self.watch.new_epoch();
        }
    }

    /// Starts, once, the background tasks: the listener for other
    /// processes' announcements of a pulled-back schedule (learning only:
    /// without it the schedule is never pulled back), and, with Sentinel,
    /// the watcher of master switches.
    fn start_tasks(self: &Arc<Self>) {
        let mut tasks = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        if tasks.is_some() {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let mut started = Vec::new();
        if self.pace.learn {
            started.push(rt.spawn(subscribed(Arc::downgrade(self), &ANNOUNCEMENTS)));
        }
        if self.connector.sentinel_master().is_some() {
            started.push(rt.spawn(subscribed(Arc::downgrade(self), &MASTER_SWITCHES)));
        }
        *tasks = Some(started);
    }

    /// Waits for this request's turn of the shared schedule (or, degraded,
    /// of the local one); returns how long it waited. Cancel-safe: a wait
    /// dropped before its turn gives the turn back (in the background), as
    /// the local limiter does; a turn of a schedule another process has
    /// since pulled back for a faster learned pace is reserved again.
    pub(crate) async fn acquire_turn(self: &Arc<Self>) -> Duration {
        let began = Instant::now();
        self.start_tasks();
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
    pub(super) async fn give_back(&self, turn: Turn) -> Result<u8, SharedError> {
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
}

/// One reserved turn of the shared schedule (the reservation script's
/// reply).
#[derive(Clone, Copy, Debug)]
pub(super) struct Turn {
    /// µs from the reservation to the turn.
    pub(super) wait: u64,
    /// The turn's instant, µs of Redis time.
    pub(super) at: u64,
    /// The schedule's tat right after the reservation.
    pub(super) tat_after: u64,
    /// The spacing the reservation moved the schedule by, µs.
    pub(super) step: u64,
    /// The schedule it belongs to.
    pub(super) epoch: u64,
    /// A turn given back before, handed out again.
    pub(super) reused: bool,
    /// When the schedule was made (Redis time, µs).
    pub(super) born: u64,
    /// The reservation found half of the schedule's keys gone.
    pub(super) half_gone: bool,
}

impl Turn {
    /// Reads `{wait, at, tat_after, step, epoch, reused, born, half_gone}`.
    fn from_reply(reply: &[i64]) -> Option<Self> {
        let n = |i: usize| reply.get(i).map(|v| u64::try_from(*v).unwrap_or(0));
        Some(Self {
            wait: n(0)?,
            at: n(1)?,
            tat_after: n(2)?,
            step: n(3)?,
            epoch: n(4)?,
            reused: n(5)? == 1,
            born: n(6)?,
            half_gone: n(7)? == 1,
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
