//! Waiting until a device reaches a state: [`wait_for_device`], and
//! [`Waiter`] for another polling schedule.
//!
//! Every read is [`Metal::get_device`], so against the policy client each
//! one takes a concurrency slot and a rate-limit turn, and is retried by the
//! client's own rules; between reads the waiter sleeps for the delays of a
//! [`Backoff`](crate::Backoff) schedule. The deadline bounds the whole wait,
//! the reads included: a read still in progress when it passes is dropped
//! (which releases its slot), and the wait ends with
//! [`WaitError::TimedOut`].
//!
//! ```
//! use std::time::Duration;
//! use metal_api::DeviceState;
//! use metal_policy::{Metal, WaitError};
//!
//! async fn until_active(metal: &dyn Metal, id: uuid::Uuid) -> Result<(), WaitError> {
//!     let states = [DeviceState::Active];
//!     let device = metal_policy::wait_for_device(metal, id, &states, Duration::from_secs(1800)).await?;
//!     assert_eq!(device.state_kind(), Some(DeviceState::Active));
//!     Ok(())
//! }
//! ```

use std::sync::Arc;
use std::time::Duration;

use metal_api::{types, DeviceState};
use tokio::time::Instant;
use uuid::Uuid;

use crate::error::Error;
use crate::metal::{Fields, Metal};
use crate::retry::backoff::{BackoffFactory, ExponentialBackoff};

/// Why a device did not reach the states waited for.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WaitError {
    /// The device reads `failed` (and `failed` was not among the states
    /// waited for): its provisioning failed, and no wait will change that.
    #[error("device {id} failed")]
    Failed {
        /// The device.
        id: Uuid,
        /// The device as last read.
        device: Box<types::Device>,
    },
    /// The deadline passed before the device reached the states.
    #[error("device {id} is still {} after {timeout:?}", last_state.as_deref().unwrap_or("unread"))]
    TimedOut {
        /// The device.
        id: Uuid,
        /// How long the wait was allowed.
        timeout: Duration,
        /// The state of the last read, `None` when no read completed.
        last_state: Option<String>,
    },
    /// A read failed (after the client's own retries): the device is gone
    /// (`404`), not visible to this token (`403`, which is also how the API
    /// answers for a failed device it moved away), or the API is
    /// unreachable.
    #[error("reading device {id}: {source}")]
    Api {
        /// The device.
        id: Uuid,
        /// The read's error.
        #[source]
        source: Error,
    },
}

impl WaitError {
    /// The HTTP status of a failed read, when there is one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Api { source, .. } => source.status(),
            Self::Failed { .. } | Self::TimedOut { .. } => None,
        }
    }
}

/// How a wait polls: the schedule of delays between reads.
///
/// The default reads at once, then after about 1 s, each delay 1.5 times
/// the last (±20% jitter), at most 30 s apart. A schedule that gives up
/// (its `next_delay` returns `None`) ends the wait as the deadline does.
///
/// ```
/// use std::time::Duration;
/// use metal_policy::{ExponentialBackoff, Waiter};
/// // A read every 5 s, no jitter.
/// let waiter = Waiter::new().poll(ExponentialBackoff {
///     initial_interval: Duration::from_secs(5),
///     multiplier: 1.0,
///     randomization_factor: 0.0,
///     max_interval: Duration::from_secs(5),
///     max_elapsed_time: None,
/// });
/// # drop(waiter);
/// ```
#[derive(Clone)]
pub struct Waiter {
    poll: Arc<dyn BackoffFactory>,
}

impl std::fmt::Debug for Waiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Waiter").finish_non_exhaustive()
    }
}

impl Default for Waiter {
    fn default() -> Self {
        Self::new()
    }
}

impl Waiter {
    /// A waiter with the default schedule.
    pub fn new() -> Self {
        Self {
            poll: Arc::new(ExponentialBackoff {
                initial_interval: Duration::from_secs(1),
                multiplier: 1.5,
                randomization_factor: 0.2,
                max_interval: Duration::from_secs(30),
                max_elapsed_time: None,
            }),
        }
    }

    /// Polls on this schedule instead.
    pub fn poll(self, schedule: impl BackoffFactory + 'static) -> Self {
        Self {
            poll: Arc::new(schedule),
        }
    }

    /// Reads the device until its state is one of `states`, and returns it
    /// as last read. Ends with [`WaitError::Failed`] when it reads `failed`
    /// (unless `states` holds [`DeviceState::Failed`]),
    /// [`WaitError::TimedOut`] when `timeout` has passed (the wait never
    /// lasts longer), and [`WaitError::Api`] when a read fails. Any other
    /// state, known or not, is waited through.
    pub async fn wait_for_device(
        &self,
        metal: &dyn Metal,
        id: Uuid,
        states: &[DeviceState],
        timeout: Duration,
    ) -> Result<types::Device, WaitError> {
        let deadline = after(Instant::now(), timeout);
        let mut schedule = self.poll.start();
        let mut last_state = None;
        let fields = Fields::default();
        let timed_out = |last_state: Option<String>| WaitError::TimedOut {
            id,
            timeout,
            last_state,
        };
        loop {
            if Instant::now() >= deadline {
                return Err(timed_out(last_state));
            }
            let read = tokio::time::timeout_at(deadline, metal.get_device(id, &fields));
            let device = match read.await {
                Err(_elapsed) => return Err(timed_out(last_state)),
                Ok(Err(source)) => return Err(WaitError::Api { id, source }),
                Ok(Ok(device)) => device,
            };
            match device.state_kind() {
                Some(state) if states.contains(&state) => return Ok(device),
                Some(DeviceState::Failed) => {
                    return Err(WaitError::Failed {
                        id,
                        device: Box::new(device),
                    })
                }
                _ => last_state = device.state.clone(),
            }
            let Some(delay) = schedule.next_delay() else {
                return Err(timed_out(last_state));
            };
            // A wake-up at the deadline ends the wait at the top of the loop.
            tokio::time::sleep_until(after(Instant::now(), delay).min(deadline)).await;
        }
    }
}

/// `now + d`, or a point about 30 years away when that overflows (a
/// timeout or delay near `Duration::MAX` means "no bound").
fn after(now: Instant, d: Duration) -> Instant {
    const FAR: Duration = Duration::from_secs(30 * 365 * 24 * 3600);
    now.checked_add(d)
        .or_else(|| now.checked_add(FAR))
        .unwrap_or(now)
}

/// [`Waiter::wait_for_device`] with the default schedule: reads the device
/// until its state is one of `states`, for at most `timeout`.
pub async fn wait_for_device(
    metal: &dyn Metal,
    id: Uuid,
    states: &[DeviceState],
    timeout: Duration,
) -> Result<types::Device, WaitError> {
    Waiter::new()
        .wait_for_device(metal, id, states, timeout)
        .await
}
