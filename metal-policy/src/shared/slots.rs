//! The shared concurrency slots: leases in Redis, renewed while held, with
//! a FIFO queue of waiters; local permits while degraded.

use std::sync::{Arc, Weak};
use std::time::Duration;

use rand::Rng;
use tokio::sync::OwnedSemaphorePermit;
use tokio::task::JoinHandle;
use tokio::time::sleep;
use uuid::Uuid;

use super::backend::{millis, Shared};
use super::config::WAITER_TTL;

/// How often the next waiter for a shared slot asks again (jittered
/// ±50%); the one behind it every two, and so on up to [`POLL_BACK`]: a
/// slot goes to the next waiter within about one poll, and the waiters
/// further back, who cannot take it yet, cost Redis fewer calls.
const POLL: Duration = Duration::from_millis(10);
/// The place in line from which waiters poll no less often.
const POLL_BACK: u32 = 8;

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

impl Shared {
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
                match self.run::<i64>(inv).await {
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
                    Ok(behind) => {
                        let place = u32::try_from(behind.unsigned_abs())
                            .unwrap_or(POLL_BACK)
                            .clamp(1, POLL_BACK);
                        let jitter = rand::rng().random_range(0.5..1.5);
                        sleep((POLL * place).mul_f64(jitter)).await;
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
async fn renew(shared: Weak<Shared>, id: String) {
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
