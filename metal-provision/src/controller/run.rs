//! [`run`]: settle, create and wait, one worker per hostname at a time.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::stream::{self, StreamExt};
use metal_api::{types, DeviceState};
use metal_policy::{DeviceFilter, DeviceWatch, Error, KeyOwner, Metal, WaitError, Waiter};
use tokio::sync::{Semaphore, SemaphorePermit};
use uuid::Uuid;

use super::delete::{delete_when_possible, remove_failed};
use super::survivor::{prefer, split};
use super::{FailedDevice, Outcome, Progress, RunConfig, RunError};

/// How many times one hostname settles which device to keep before the
/// run gives up on it: each round follows a change made by another run of
/// the same name (a device deleted, a duplicate found), or a pause after a
/// call that ended without an answer, so a few suffice.
const MAX_ROUNDS: usize = 32;

/// The longest pause before a hostname is settled again after a call that
/// ended without an answer.
const MAX_PAUSE: Duration = Duration::from_secs(30);

/// How many refused creates a hostname tries again on a reservation that
/// reads free afterwards, with no device of the hostname listed: the
/// refusal's cause (a holder deleted between the refusal and the reads) is
/// gone, so the refusal is not the hostname's outcome. A refusal past these
/// is taken as the request's own fault, and ends the hostname: a holder
/// vanishing from under one hostname's create is a narrow window, and four
/// in a row is not a race.
const MAX_REFUSED_FREE: u32 = 3;

/// Whether a call's error may pass if the call is made again later: it got
/// no answer (the retries ran out, the retry budget is spent in an outage,
/// the deadline passed), as opposed to a refusal.
fn transient(e: &Error) -> bool {
    matches!(
        e,
        Error::RetryBudgetExhausted { .. }
            | Error::GaveUp { .. }
            | Error::DeadlineExceeded { .. }
            | Error::OutcomeUnknown { .. }
    )
}

/// Whether a reservation can take a new device now.
pub fn is_free(reservation: &types::HardwareReservation) -> bool {
    reservation.provisionable == Some(true) && reservation.device.is_none()
}

/// Runs the controller: ensures the SSH key, lists free reservations and
/// the devices already carrying the run's tag, then for each hostname
/// keeps the device found for it or creates one (moving on to another
/// reservation on a lost race or a failed device), and waits for each to
/// become active.
///
/// With [`RunConfig::watch`] (the default) one
/// [`DeviceWatch`](metal_policy::DeviceWatch) of the run's tagged devices
/// serves the run: its first list is what earlier runs left, every wait
/// reads it, and so does the check, once a device is active, that it is
/// still the one kept for its hostname (a targeted list of the hostname
/// runs only when the watch's view cannot tell, or after a call that got
/// no answer). A device waiting holds none of the
/// [`RunConfig::workers`]: they create, remove and recover.
pub async fn run(
    metal: Arc<dyn Metal>,
    config: &RunConfig,
    progress: Arc<dyn Progress>,
) -> Result<Outcome, RunError> {
    let project = config.project;
    metal
        .get_project(project)
        .await
        .map_err(|source| RunError::Project { project, source })?;

    if let Some(key) = &config.ssh_key {
        let input = types::SshKeyCreateInput {
            label: Some(key.label.clone()),
            key: Some(key.key.clone()),
            instances_ids: Vec::new(),
            tags: Vec::new(),
        };
        metal
            .create_ssh_key(KeyOwner::Project(project), &input)
            .await
            .map_err(|source| RunError::SshKey {
                label: key.label.clone(),
                source,
            })?;
    }

    let reservations = metal
        .list_reservations(project)
        .await
        .map_err(|source| RunError::Reservations { project, source })?;
    let pool: VecDeque<types::HardwareReservation> =
        reservations.into_iter().filter(is_free).collect();
    let pool = Mutex::new(pool);

    let watch = match &config.watch {
        Some(settings) => {
            let settings = settings.clone().tag(config.run_tag.clone());
            Some(
                DeviceWatch::start(Arc::clone(&metal), project, settings)
                    .map_err(|source| RunError::Watch { project, source })?,
            )
        }
        None => None,
    };
    // The watch's first list is the run's tagged devices; when it cannot
    // be had whole, one list of them.
    let listed = match &watch {
        Some(w) => match w.refreshed().await {
            Ok(snapshot) if snapshot.is_complete() => Some(snapshot.devices().cloned().collect()),
            _ => None,
        },
        None => None,
    };
    let existing = match listed {
        Some(listed) => listed,
        None => metal
            .list_devices_matching(project, &DeviceFilter::tag(config.run_tag.clone()))
            .await
            .map_err(|source| RunError::Existing {
                project,
                tag: config.run_tag.clone(),
                source,
            })?,
    };
    let mut by_hostname: HashMap<String, Vec<types::Device>> = HashMap::new();
    for d in existing {
        if let Some(h) = d.hostname.clone() {
            by_hostname.entry(h).or_default().push(d);
        }
    }
    let found = Mutex::new(by_hostname);

    let waiter = match &watch {
        Some(w) => config.waiter.clone().watch(w.clone()),
        None => config.waiter.clone(),
    };
    let slots = Semaphore::new(config.workers.clamp(1, Semaphore::MAX_PERMITS));
    let worker = Worker {
        metal: metal.as_ref(),
        config,
        pool: &pool,
        progress: progress.as_ref(),
        waiter: &waiter,
        watch: watch.as_ref(),
        slots: &slots,
    };
    // With a watch every hostname is under way at once, waiting without a
    // worker; without one a worker polls its device, so only `workers` are.
    let under_way = match &watch {
        Some(_) => config.devices,
        None => config.workers,
    };
    let results: Vec<(String, Hostname)> = stream::iter(0..config.devices)
        .map(|n| {
            let hostname = config.hostname(n);
            let found = lock(&found).remove(&hostname).unwrap_or_default();
            async move {
                let done = worker.provision(hostname.clone(), found).await;
                (hostname, done)
            }
        })
        .buffer_unordered(under_way.max(1))
        .collect()
        .await;

    let mut outcome = Outcome {
        requested: config.devices,
        ..Outcome::default()
    };
    for (hostname, r) in results {
        let active = match (&r.error, &r.kept) {
            (None, Some(kept)) => kept.device.id,
            _ => None,
        };
        let (kept, error) = (r.kept.map(|k| *k), r.error.map(|e| *e));
        outcome.hostnames.insert(hostname, active);
        outcome.race_lost += r.race_lost;
        outcome.failed.extend(r.failed);
        outcome.removed.extend(r.removed);
        outcome.created_ids.extend(r.created);
        match kept {
            Some(Kept { device, ours: true }) => outcome.created.push(*device),
            Some(Kept {
                device,
                ours: false,
            }) => outcome.adopted.push(*device),
            None => {}
        }
        match error {
            None => outcome.active += 1,
            Some(e) => outcome.failures.push(e),
        }
    }
    Ok(outcome)
}

/// What a hostname holds of its candidate device through the wait: its
/// ID, href, hostname, tags, state and times, what a device kept as it is
/// needs. A decoded device is kilobytes even when empty (5 KB of inline
/// fields), and every hostname waiting holds its candidate.
struct Candidate {
    id: Option<Uuid>,
    href: Option<String>,
    hostname: Option<String>,
    tags: Vec<String>,
    state: Option<String>,
    created_at: Option<chrono::DateTime<chrono::Utc>>,
    updated_at: Option<chrono::DateTime<chrono::Utc>>,
}

impl Candidate {
    fn of(device: types::Device) -> Self {
        Self {
            id: device.id,
            href: device.href,
            hostname: device.hostname,
            tags: device.tags,
            state: device.state,
            created_at: device.created_at,
            updated_at: device.updated_at,
        }
    }

    /// The device with only these fields.
    fn device(self) -> types::Device {
        types::Device {
            id: self.id,
            href: self.href,
            hostname: self.hostname,
            tags: self.tags,
            state: self.state,
            created_at: self.created_at,
            updated_at: self.updated_at,
            ..types::Device::default()
        }
    }
}

/// A poisoned lock only means another worker panicked mid-update; the
/// queue and the map are still consistent, so keep using them.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The device kept for a hostname (boxed, as every hostname's future holds
/// one through its waits).
struct Kept {
    device: Box<types::Device>,
    /// Whether this run created it.
    ours: bool,
}

/// What one hostname's worker did.
///
/// Every hostname's future holds one through its waits, so what is large
/// in it is boxed.
#[derive(Default)]
struct Hostname {
    kept: Option<Box<Kept>>,
    created: HashSet<Uuid>,
    race_lost: usize,
    /// Creates refused on a reservation that then read free, with no
    /// device of the hostname listed: each is tried again, up to
    /// [`MAX_REFUSED_FREE`].
    refused_free: u32,
    failed: Vec<FailedDevice>,
    removed: Vec<Uuid>,
    error: Option<Box<RunError>>,
}

/// The body that creates `hostname` on `reservation`, in the reservation's
/// facility and plan, tagged with the run's tag, built with the generated
/// builder (which checks that every required field is set).
pub fn create_request(
    config: &RunConfig,
    hostname: &str,
    reservation: &types::HardwareReservation,
) -> Result<types::CreateDeviceRequest, types::error::ConversionError> {
    let facility = reservation
        .facility
        .as_ref()
        .and_then(|f| f.code.clone())
        .unwrap_or_default();
    let plan = reservation
        .plan
        .as_ref()
        .and_then(|p| p.slug.clone())
        .unwrap_or_default();
    let id = reservation.id.map(|id| id.to_string()).unwrap_or_default();
    let input: types::DeviceCreateInFacilityInput = types::DeviceCreateInFacilityInput::builder()
        .facility(vec![facility])
        .plan(plan)
        .operating_system(config.operating_system.clone())
        .hostname(hostname.to_string())
        .hardware_reservation_id(id)
        .tags(vec![config.run_tag.clone()])
        .try_into()?;
    Ok(input.into())
}

/// What every hostname's worker shares.
#[derive(Clone, Copy)]
struct Worker<'a> {
    metal: &'a dyn Metal,
    config: &'a RunConfig,
    pool: &'a Mutex<VecDeque<types::HardwareReservation>>,
    progress: &'a dyn Progress,
    /// How devices are waited for: through the watch, if there is one.
    waiter: &'a Waiter,
    watch: Option<&'a DeviceWatch>,
    /// The workers: a hostname holds one while it settles, creates,
    /// removes or recovers (and, without a watch, while it waits).
    slots: &'a Semaphore,
}

/// A hostname's worker, while it holds one.
type Slot<'a> = Option<SemaphorePermit<'a>>;

/// How one round of a hostname ended, when not with a device to keep.
enum Next {
    /// Settle again from this listing of the hostname's devices.
    Settle(Vec<types::Device>),
    /// A call got no answer: pause, list the hostname's devices again (a
    /// create whose outcome was unknown is found there, not made twice),
    /// and settle from that.
    Again(RunError),
    /// Stop, with this error.
    Stop(RunError),
}

impl<'a> Worker<'a> {
    /// Settles, creates if need be, and waits, until one device of
    /// `hostname` is active and still the one to keep.
    async fn provision(self, hostname: String, found: Vec<types::Device>) -> Hostname {
        let mut slot = self.slot().await;
        let mut done = Hostname::default();
        self.progress.requested();
        let mut found = Some(found);
        let mut pauses = 0u32;
        let mut last = None;
        for _ in 0..MAX_ROUNDS {
            let listed = match found.take() {
                Some(listed) => Ok(listed),
                None => self.listing(&hostname).await,
            };
            let round = match listed {
                Ok(listed) => self.round(&hostname, listed, &mut done, &mut slot).await,
                Err(next) => Err(next),
            };
            match round {
                Ok(kept) => {
                    if !kept.ours {
                        self.progress.adopted();
                    }
                    self.progress.active();
                    done.kept = Some(Box::new(kept));
                    return done;
                }
                Err(Next::Settle(listed)) => found = Some(listed),
                Err(Next::Again(e)) => {
                    last = Some(Box::new(e));
                    let pause = self
                        .config
                        .poll_interval
                        .saturating_mul(1 << pauses.min(16))
                        .min(MAX_PAUSE);
                    pauses += 1;
                    self.idle(&mut slot, tokio::time::sleep(pause)).await;
                }
                Err(Next::Stop(e)) => {
                    done.error = Some(Box::new(e));
                    return done;
                }
            }
        }
        done.error = Some(last.unwrap_or_else(|| {
            Box::new(RunError::Unsettled {
                hostname,
                rounds: MAX_ROUNDS,
            })
        }));
        done
    }

    /// A worker, when the run has them to give (the semaphore is never
    /// closed, so this waits for one; were it closed, the hostname would go
    /// on without).
    async fn slot(self) -> Slot<'a> {
        self.slots.acquire().await.ok()
    }

    /// Runs `wait` without the hostname's worker when there is a watch, so
    /// that another hostname may create meanwhile; takes one back after.
    async fn idle<T>(self, slot: &mut Slot<'a>, wait: impl std::future::Future<Output = T>) -> T {
        if self.watch.is_none() {
            return wait.await;
        }
        *slot = None;
        // Boxed while a worker is taken back: held inline, a decoded
        // device (5 KB) would take room in every hostname's future, all
        // of which wait at once.
        let out = Box::new(wait.await);
        *slot = self.slot().await;
        *out
    }

    /// One round: remove failed devices among `found`, take the preferred
    /// live one as the candidate or create one, wait until it is active,
    /// and check, from a view listed after that, that it is still the one
    /// to keep. Other devices of the hostname are deleted only then, behind
    /// a survivor seen active: never from a view whose preferred device may
    /// still fail.
    async fn round(
        self,
        hostname: &str,
        found: Vec<types::Device>,
        done: &mut Hostname,
        slot: &mut Slot<'a>,
    ) -> Result<Kept, Next> {
        let (failed, mut live) = split(found);
        for id in failed {
            let ours = done.created.contains(&id);
            // Boxed, as the create: every hostname's future is as large
            // as its largest step, and all of them wait at once.
            Box::pin(self.failed(hostname, id, None, ours, false, done)).await?;
        }
        live.sort_by(prefer);
        // Held through the wait, with every other hostname's: only what a
        // device kept as it is needs, not the whole reply. (Made before the
        // create's await: a decoded device matched on across it would be
        // held by every hostname's future, 5 KB each.)
        let first = live.into_iter().next().map(Candidate::of);
        let (candidate, reservation) = match first {
            Some(first) => (first, None),
            None => {
                // Boxed: its reservation and request are held only while
                // it runs.
                let (made, reservation) = Box::pin(self.create(hostname, done)).await?;
                (Candidate::of(made), reservation)
            }
        };
        let id = candidate.id.ok_or_else(|| {
            Next::Stop(RunError::NoId {
                hostname: hostname.into(),
            })
        })?;
        let states = [
            DeviceState::Active,
            DeviceState::Deprovisioning,
            DeviceState::Deleted,
        ];
        let waited = self
            .idle(
                slot,
                self.waiter
                    .wait_for_device(self.metal, id, &states, self.config.active_timeout),
            )
            .await;
        // Boxed: what follows the wait (a decoded device, listings,
        // deletes) is held only once it is over, not through every
        // hostname's wait.
        Box::pin(self.waited(hostname, id, candidate, reservation, waited, done)).await
    }

    /// What a round does once its candidate's wait is over: keeps it (an
    /// active device still first in a listing made after it, the others
    /// deleted) or says how to go on.
    async fn waited(
        self,
        hostname: &str,
        id: Uuid,
        candidate: Candidate,
        reservation: Option<Uuid>,
        waited: Result<types::Device, WaitError>,
        done: &mut Hostname,
    ) -> Result<Kept, Next> {
        let ours = done.created.contains(&id);
        match waited {
            Ok(device) if device.state_kind() == Some(DeviceState::Active) => {
                // Still the one to keep? Another run of the same name may
                // have made one earlier that this run's listing missed.
                let now = self.latest(hostname, id).await?;
                let (failed, mut live) = split(now.iter().cloned());
                live.sort_by(prefer);
                if live.first().and_then(|d| d.id) != Some(id) {
                    return Err(Next::Settle(now));
                }
                // The survivor is active and first in a view listed after
                // it was: every run that sees it keeps it, so the others
                // can go (failed ones too, once each).
                for f in failed {
                    let ours = done.created.contains(&f);
                    // Our own device is active: a failure count reached
                    // on the way does not stop the hostname now.
                    let _ = self.failed(hostname, f, None, ours, false, done).await;
                }
                self.remove(live.into_iter().skip(1), done).await;
                Ok(Kept {
                    device: Box::new(device),
                    ours,
                })
            }
            // Deleted under us, as a duplicate by another run: settle again.
            Ok(_) => Err(Next::Settle(self.listing(hostname).await?)),
            Err(e) if e.status() == Some(404) => Err(Next::Settle(self.listing(hostname).await?)),
            // No longer among the run's devices (its tag removed, or moved
            // away) though it exists: settle again from a listing.
            Err(WaitError::Gone { .. }) => Err(Next::Settle(self.listing(hostname).await?)),
            Err(WaitError::Failed { .. }) => {
                self.failed(hostname, id, reservation, ours, false, done)
                    .await?;
                Err(Next::Settle(self.listing(hostname).await?))
            }
            Err(e) if e.status() == Some(403) => {
                // The API took the failed device away: gone already.
                self.failed(hostname, id, reservation, ours, true, done)
                    .await?;
                Err(Next::Settle(self.listing(hostname).await?))
            }
            Err(WaitError::Api { source, id }) if transient(&source) => {
                Err(Next::Again(RunError::NotActive {
                    hostname: hostname.into(),
                    source: WaitError::Api { source, id },
                }))
            }
            Err(source) => {
                // Kept as it is, so that a cleanup still finds it.
                done.kept = Some(Box::new(Kept {
                    device: Box::new(candidate.device()),
                    ours,
                }));
                Err(Next::Stop(RunError::NotActive {
                    hostname: hostname.into(),
                    source,
                }))
            }
        }
    }

    /// Deletes duplicates of the device kept for a hostname, whoever made
    /// them (a device already gone is fine), once the kept one is seen
    /// active. Every run of the name that sees them deletes them the same
    /// way, since all prefer the same one.
    async fn remove(self, losers: impl Iterator<Item = types::Device>, done: &mut Hostname) {
        for loser in losers.filter_map(|d| d.id) {
            if delete_when_possible(self.metal, loser, self.config)
                .await
                .is_ok()
            {
                done.removed.push(loser);
            }
        }
    }

    /// Takes free reservations until a create succeeds. A reservation
    /// found taken (a lost race, or a create refused on a reservation no
    /// longer free) may have gone to another run of the same name, for this
    /// very hostname: a listing of the hostname tells, and a live device
    /// there is settled on instead of creating another. When no reservation
    /// is left, a last listing may still find one made by such a run.
    async fn create(
        self,
        hostname: &str,
        done: &mut Hostname,
    ) -> Result<(types::Device, Option<Uuid>), Next> {
        loop {
            let Some(reservation) = lock(self.pool).pop_front() else {
                return match self.someone_made(hostname).await? {
                    Some(listed) => Err(Next::Settle(listed)),
                    None => Err(Next::Stop(RunError::NoReservationLeft {
                        hostname: hostname.into(),
                    })),
                };
            };
            let request = create_request(self.config, hostname, &reservation).map_err(|e| {
                Next::Stop(RunError::Create {
                    hostname: hostname.into(),
                    source: Error::InvalidRequest {
                        operation: metal_api::operation::CREATE_DEVICE.id,
                        reason: e.to_string(),
                    },
                })
            })?;
            let source = match self
                .metal
                .create_device(self.config.project, &request)
                .await
            {
                Ok(device) => {
                    self.progress.created();
                    done.created.extend(device.id);
                    return Ok((device, reservation.id));
                }
                Err(Error::RaceLost { .. }) => None,
                // Refused, and nobody held the reservation when the policy
                // looked: taken and released again since the run listed it
                // (a failed or duplicate device of another run deleted: not
                // provisionable yet), a holder that went between the
                // refusal and the look, or a bad request.
                Err(
                    e @ Error::Rejected {
                        status: 409 | 422, ..
                    },
                ) => {
                    if !self.still_free(reservation.id).await {
                        None
                    } else if let Some(listed) = self.someone_made(hostname).await? {
                        // The name's state decides: another run of the name
                        // made this hostname's device meanwhile.
                        done.race_lost += 1;
                        self.progress.race_lost();
                        return Err(Next::Settle(listed));
                    } else if done.refused_free < MAX_REFUSED_FREE {
                        // Free again, and nothing of the name holds the
                        // hostname: the refusal's cause is gone, so the
                        // same reservation is tried again, not given up.
                        done.refused_free += 1;
                        lock(self.pool).push_front(reservation);
                        continue;
                    } else {
                        // Refused on a free reservation every time: the
                        // request's own fault.
                        Some(e)
                    }
                }
                Err(e) => Some(e),
            };
            match source {
                None => {
                    done.race_lost += 1;
                    self.progress.race_lost();
                    if let Some(listed) = self.someone_made(hostname).await? {
                        return Err(Next::Settle(listed));
                    }
                }
                Some(source) if transient(&source) => {
                    // Back in the pool: if the create did not happen, the
                    // reservation is still free; if it did, a later create
                    // on it is a lost race, and the listing finds the device.
                    lock(self.pool).push_back(reservation);
                    return Err(Next::Again(RunError::Create {
                        hostname: hostname.into(),
                        source,
                    }));
                }
                Some(source) => {
                    return Err(Next::Stop(RunError::Create {
                        hostname: hostname.into(),
                        source,
                    }))
                }
            }
        }
    }

    /// The hostname's listing, when it holds a device that may become the
    /// one to keep (live and not failed): another run of the name made it.
    async fn someone_made(self, hostname: &str) -> Result<Option<Vec<types::Device>>, Next> {
        let listed = self.listing(hostname).await?;
        let (_, live) = split(listed.iter().cloned());
        Ok((!live.is_empty()).then_some(listed))
    }

    /// Whether a reservation a create was refused on still reads free (the
    /// refusal was the request's, then); a read that fails counts as free,
    /// so the refusal is reported rather than the reservation skipped.
    async fn still_free(self, reservation: Option<Uuid>) -> bool {
        let Some(id) = reservation else { return true };
        match self.metal.get_reservation(id).await {
            Ok(r) => is_free(&r),
            Err(_) => true,
        }
    }

    /// Deletes a failed device (unless the API already took it away:
    /// `gone`), records it, and stops the hostname once more of this run's
    /// own devices failed than the retries allow.
    async fn failed(
        self,
        hostname: &str,
        id: Uuid,
        reservation: Option<Uuid>,
        ours: bool,
        gone: bool,
        done: &mut Hostname,
    ) -> Result<(), Next> {
        // Once per device, however many views show it.
        if done.failed.iter().any(|f| f.id == id) {
            return Ok(());
        }
        self.progress.failed();
        let left_behind = if gone {
            None
        } else {
            remove_failed(self.metal, id, self.config).await.err()
        };
        done.failed.push(FailedDevice {
            hostname: hostname.into(),
            id,
            reservation,
            left_behind,
        });
        let tries = done
            .failed
            .iter()
            .filter(|f| done.created.contains(&f.id))
            .count();
        if ours && tries > self.config.failed_retries {
            return Err(Next::Stop(RunError::ProvisioningFailed {
                hostname: hostname.into(),
                tries,
                last: id,
            }));
        }
        Ok(())
    }

    /// The devices carrying the run's tag and exactly this hostname, as the
    /// watch's latest view has them when it holds the whole list and
    /// `active` in it (a view from the list that showed `active` active, or
    /// a later one); else listed.
    async fn latest(self, hostname: &str, active: Uuid) -> Result<Vec<types::Device>, Next> {
        if let Some(snapshot) = self.watch.map(DeviceWatch::snapshot) {
            let listed = snapshot
                .device(active)
                .is_some_and(|d| d.state_kind() == Some(DeviceState::Active));
            if snapshot.is_complete() && listed {
                let tag = &self.config.run_tag;
                return Ok(snapshot
                    .with_hostname(hostname)
                    .filter(|d| d.tags.iter().any(|t| t == tag))
                    .cloned()
                    .collect());
            }
        }
        self.listing(hostname).await
    }

    /// The devices carrying the run's tag and exactly this hostname (the
    /// API's hostname filter is a partial match).
    async fn listing(self, hostname: &str) -> Result<Vec<types::Device>, Next> {
        let filter = DeviceFilter::tag(self.config.run_tag.clone()).and_hostname(hostname);
        let devices = self
            .metal
            .list_devices_matching(self.config.project, &filter)
            .await
            .map_err(|source| {
                let transient = transient(&source);
                let e = RunError::Settle {
                    hostname: hostname.into(),
                    source,
                };
                if transient {
                    Next::Again(e)
                } else {
                    Next::Stop(e)
                }
            })?;
        Ok(devices
            .into_iter()
            .filter(|d| d.hostname.as_deref() == Some(hostname))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body as the controller built it before, with `json!`.
    fn by_json(
        config: &RunConfig,
        hostname: &str,
        facility: &str,
        plan: &str,
        id: &str,
    ) -> types::CreateDeviceRequest {
        serde_json::from_value(serde_json::json!({
            "facility": [facility],
            "plan": plan,
            "operating_system": config.operating_system,
            "hostname": hostname,
            "hardware_reservation_id": id,
            "tags": [config.run_tag],
        }))
        .unwrap()
    }

    #[test]
    fn the_builder_makes_the_body_json_made() {
        let config = RunConfig::new(Uuid::new_v4(), 1);
        let id = Uuid::new_v4();
        let reservation: types::HardwareReservation = serde_json::from_value(serde_json::json!({
            "id": id,
            "facility": {"code": "da11"},
            "plan": {"slug": "c3.small.x86"},
            "provisionable": true,
        }))
        .unwrap();
        let built = create_request(&config, "provision-3", &reservation).unwrap();
        assert_eq!(
            built,
            by_json(
                &config,
                "provision-3",
                "da11",
                "c3.small.x86",
                &id.to_string()
            )
        );
        assert!(matches!(
            built,
            types::CreateDeviceRequest::FacilityInput(_)
        ));
        // The same bytes on the wire.
        assert_eq!(
            serde_json::to_value(&built).unwrap(),
            serde_json::to_value(by_json(
                &config,
                "provision-3",
                "da11",
                "c3.small.x86",
                &id.to_string()
            ))
            .unwrap()
        );

        // A reservation without facility, plan or ID: empty strings, as before
        // (the API refuses them, with its own message).
        let bare = types::HardwareReservation::default();
        assert_eq!(
            create_request(&config, "provision-0", &bare).unwrap(),
            by_json(&config, "provision-0", "", "", "")
        );
    }
}
