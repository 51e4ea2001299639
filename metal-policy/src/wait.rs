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
//! A waiter given a [`DeviceWatch`] ([`Waiter::watch`]) reads no device
//! itself: it reads the watch's snapshots as they come, so any number of
//! waits cost the watch's one list per interval, and reads a device by ID
//! only once, when a complete list no longer holds it (see
//! [`crate::watch`]).
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
use crate::watch::{DeviceWatch, Seen, WatchError};

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
    /// A complete list of the [`DeviceWatch`] no longer held the device,
    /// and a read by ID found it in a state not waited for: it moved to
    /// another project, or no longer carries the watched tag.
    #[error("device {id} is no longer among the watched devices (it reads {})", device.state.as_deref().unwrap_or("without a state"))]
    Gone {
        /// The device.
        id: Uuid,
        /// The device as read by ID.
        device: Box<types::Device>,
    },
    /// The [`DeviceWatch`] cannot tell: the server refused its list (a
    /// 4xx). Lists that fail otherwise are waited through, as the watch
    /// tries again.
    #[error("watching device {id}: {source}")]
    Watch {
        /// The device.
        id: Uuid,
        /// The watch's error.
        #[source]
        source: WatchError,
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
            Self::Watch { source, .. } => source.status(),
            Self::Failed { .. } | Self::TimedOut { .. } | Self::Gone { .. } => None,
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
    watch: Option<DeviceWatch>,
}

impl std::fmt::Debug for Waiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Waiter")
            .field("watch", &self.watch)
            .finish_non_exhaustive()
    }
}

/// Where a read of a device leaves a wait.
enum Judged {
    /// The wait ends so.
    Done(Box<Result<types::Device, WaitError>>),
    /// Still waiting; the device as read.
    Waiting(Box<types::Device>),
}

/// Whether `device` ends a wait for `states`.
fn judge(id: Uuid, device: types::Device, states: &[DeviceState]) -> Judged {
    match device.state_kind() {
        Some(state) if states.contains(&state) => Judged::Done(Box::new(Ok(device))),
        Some(DeviceState::Failed) => Judged::Done(Box::new(Err(WaitError::Failed {
            id,
            device: Box::new(device),
        }))),
        _ => Judged::Waiting(Box::new(device)),
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
            watch: None,
        }
    }

    /// Polls on this schedule instead (when it has no watch).
    pub fn poll(self, schedule: impl BackoffFactory + 'static) -> Self {
        Self {
            poll: Arc::new(schedule),
            ..self
        }
    }

    /// Reads devices from `watch` instead of polling each: waits then cost
    /// no request of their own, but the one read by ID that confirms a
    /// device gone from a complete list.
    ///
    /// ```
    /// # async fn demo(metal: std::sync::Arc<dyn metal_policy::Metal>, project: uuid::Uuid, id: uuid::Uuid) -> Result<(), Box<dyn std::error::Error>> {
    /// use std::{sync::Arc, time::Duration};
    /// use metal_api::DeviceState;
    /// use metal_policy::{DeviceWatch, WatchConfig, Waiter};
    /// let watch = DeviceWatch::start(Arc::clone(&metal), project, WatchConfig::new())?;
    /// let waiter = Waiter::new().watch(watch);
    /// let device = waiter
    ///     .wait_for_device(metal.as_ref(), id, &[DeviceState::Active], Duration::from_secs(1800))
    ///     .await?;
    /// # drop(device); Ok(()) }
    /// ```
    pub fn watch(self, watch: DeviceWatch) -> Self {
        Self {
            watch: Some(watch),
            ..self
        }
    }

    /// [`Waiter::wait_for_device`] for each of `ids` at once, all within
    /// `timeout`; the results in the order of `ids`. With a watch every
    /// wait reads its snapshots; without one each device is polled on its
    /// own, under the client's limits.
    ///
    /// ```
    /// # async fn demo(metal: &dyn metal_policy::Metal, ids: &[uuid::Uuid]) {
    /// use std::time::Duration;
    /// use metal_api::DeviceState;
    /// let waiter = metal_policy::Waiter::new();
    /// let ended = waiter.wait_for_devices(metal, ids, &[DeviceState::Active], Duration::from_secs(600)).await;
    /// let active = ended.iter().filter(|r| r.is_ok()).count();
    /// # drop(active); }
    /// ```
    pub async fn wait_for_devices(
        &self,
        metal: &dyn Metal,
        ids: &[Uuid],
        states: &[DeviceState],
        timeout: Duration,
    ) -> Vec<Result<types::Device, WaitError>> {
        let deadline = after(Instant::now(), timeout);
        let waits = ids.iter().map(|&id| async move {
            let left = deadline.saturating_duration_since(Instant::now());
            self.wait_for_device(metal, id, states, left).await
        });
        futures::future::join_all(waits).await
    }

    /// Reads the device until its state is one of `states`, and returns it
    /// as last read. Ends with [`WaitError::Failed`] when it reads `failed`
    /// (unless `states` holds [`DeviceState::Failed`]),
    /// [`WaitError::TimedOut`] when `timeout` has passed (the wait never
    /// lasts longer), and [`WaitError::Api`] when a read fails. Any other
    /// state, known or not, is waited through.
    ///
    /// With a watch ([`Waiter::watch`]) it reads the watch's snapshots
    /// instead of the device; a device missing from a complete list begun
    /// after the wait began is read once by ID, and the wait ends with that
    /// read: the device if it is in `states`, [`WaitError::Failed`],
    /// [`WaitError::Api`] for a failed read (a `404` once deleted, a `403`
    /// once moved away), or [`WaitError::Gone`].
    pub async fn wait_for_device(
        &self,
        metal: &dyn Metal,
        id: Uuid,
        states: &[DeviceState],
        timeout: Duration,
    ) -> Result<types::Device, WaitError> {
        match &self.watch {
            Some(watch) => watched(watch, metal, id, states, timeout).await,
            None => self.polled(metal, id, states, timeout).await,
        }
    }

    /// Reads the device on the poll schedule.
    async fn polled(
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
            match judge(id, device, states) {
                Judged::Done(ended) => return *ended,
                Judged::Waiting(device) => last_state = device.state,
            }
            let Some(delay) = schedule.next_delay() else {
                return Err(timed_out(last_state));
            };
            // A wake-up at the deadline ends the wait at the top of the loop.
            tokio::time::sleep_until(after(Instant::now(), delay).min(deadline)).await;
        }
    }
}

/// Waits for the device in `watch`'s snapshots.
async fn watched(
    watch: &DeviceWatch,
    metal: &dyn Metal,
    id: Uuid,
    states: &[DeviceState],
    timeout: Duration,
) -> Result<types::Device, WaitError> {
    let deadline = after(Instant::now(), timeout);
    let interest = watch.interest(id);
    let mut views = watch.subscribe();
    let mut last_state = None;
    let timed_out = |last_state: Option<String>| WaitError::TimedOut {
        id,
        timeout,
        last_state,
    };
    loop {
        let seen = interest.seen(&views.borrow_and_update());
        match seen {
            Seen::Listed(device) => match judge(id, *device, states) {
                Judged::Done(ended) => return *ended,
                Judged::Waiting(device) => last_state = device.state,
            },
            Seen::Missing => {
                // Deleted, moved, or untagged: one read by ID tells.
                let read = tokio::time::timeout_at(deadline, metal.get_device(id, watch.fields()));
                return match read.await {
                    Err(_elapsed) => Err(timed_out(last_state)),
                    Ok(Err(source)) => Err(WaitError::Api { id, source }),
                    Ok(Ok(device)) => match judge(id, device, states) {
                        Judged::Done(ended) => *ended,
                        Judged::Waiting(device) => Err(WaitError::Gone { id, device }),
                    },
                };
            }
            Seen::Refused(source) => {
                return Err(WaitError::Watch {
                    id,
                    source: WatchError::Refresh {
                        project: watch.project(),
                        source,
                    },
                })
            }
            Seen::Unknown => {}
        }
        match tokio::time::timeout_at(deadline, views.changed()).await {
            Err(_elapsed) => return Err(timed_out(last_state)),
            Ok(Ok(())) => {}
            // The sender lives as long as the watch this wait holds; were
            // it gone, nothing more would come before the deadline.
            Ok(Err(_closed)) => {
                tokio::time::sleep_until(deadline).await;
                return Err(timed_out(last_state));
            }
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
