//! The API's rules for hardware reservations: moving one to another
//! project, and the stale list a release may leave for a while.

use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use crate::call::ApiError;
use crate::model::journal::Due;
use crate::model::World;

/// The refusal to move a reservation whose device is locked.
const MOVE_LOCKED: &str = "Cannot move a locked item";

impl World {
    /// `reservation` no longer holds `device`; `release` (when given)
    /// replaces its release time.
    pub(crate) fn free(
        &mut self,
        reservation: Option<Uuid>,
        device: Uuid,
        release: Option<Instant>,
        at: Instant,
    ) {
        let Some(r) = reservation else { return };
        let holds = self
            .reservations
            .get(&r)
            .is_some_and(|kept| kept.live.device == Some(device));
        if !holds {
            return;
        }
        self.reservations
            .rows()
            .update(&mut self.journal, r, "device", at, |kept| {
                kept.live.device = None
            });
        if let Some(release) = release {
            self.release_at(r, release, at);
        }
    }

    /// `reservation` holds `device` from `at` on.
    pub(crate) fn hold(&mut self, reservation: Uuid, device: Uuid, at: Instant) {
        self.reservations
            .rows()
            .update(&mut self.journal, reservation, "device", at, |r| {
                r.live.device = Some(device);
                r.live.released_at = None;
                r.live.releasing = false;
            });
    }

    /// A new active, provisionable reservation of `project` for `plan` in
    /// `facility` (both of the catalog, as the caller checked), made at
    /// `now`: what a self-service reservation orders.
    pub(crate) fn add_reservation(
        &mut self,
        project: Uuid,
        plan: &str,
        facility: &str,
        now: Instant,
    ) -> Uuid {
        let id = Uuid::new_v4();
        let rec = super::HardwareReservation {
            id,
            project,
            plan: plan.to_string(),
            facility: facility.to_string(),
            released_in_seconds: None,
            inactive: false,
        };
        self.reservations
            .rows()
            .insert(&mut self.journal, id, now, |meta| super::record::Kept {
                rec,
                meta,
                live: super::record::Live::default(),
            });
        id
    }

    /// `moveHardwareReservation`: moves it to `project` (refused while it
    /// holds a locked device, or any device unless it stays where it is).
    pub(crate) fn move_reservation(
        &mut self,
        id: Uuid,
        project: Uuid,
        now: Instant,
    ) -> Result<(), ApiError> {
        if !self.projects.contains_key(&project) {
            return Err(ApiError::unprocessable("Project not found"));
        }
        let holder = self.reservations.get(&id).and_then(|r| r.live.device);
        if holder
            .and_then(|d| self.devices.get(&d))
            .is_some_and(|d| d.rec.locked)
        {
            return Err(ApiError::unprocessable(MOVE_LOCKED));
        }
        self.reservations
            .rows()
            .try_update(&mut self.journal, id, "moved", now, |r| {
                if r.live.device.is_some() && r.rec.project != project {
                    return Err(ApiError::unprocessable(
                        "Cannot move a hardware reservation that has a device",
                    ));
                }
                r.rec.project = project;
                Ok(())
            })
            .ok_or_else(ApiError::not_found)?
    }

    /// `activateHardwareReservation`: an inactive reservation becomes
    /// active (provisionable once free); one already active is `422`.
    pub(crate) fn activate_reservation(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        self.reservations
            .rows()
            .try_update(&mut self.journal, id, "activated", now, |r| {
                if !r.rec.inactive {
                    return Err(ApiError::unprocessable(
                        "Hardware reservation is already active",
                    ));
                }
                r.rec.inactive = false;
                Ok(())
            })
            .ok_or_else(ApiError::not_found)?
    }

    /// The reservation is provisionable again at `release` (not before),
    /// queued on the world's due-queue; changed at `now`.
    pub(crate) fn release_at(&mut self, id: Uuid, release: Instant, now: Instant) {
        let changed =
            self.reservations
                .rows()
                .update(&mut self.journal, id, "releasing", now, |r| {
                    r.live.released_at = Some(release);
                    r.live.releasing = true;
                });
        if changed.is_some() {
            self.due.push(release, Due::Release { id });
        }
    }

    /// The release due at `at` happens: the reservation is provisionable
    /// again (nothing when a later release or a new device replaced it).
    pub(crate) fn release_reservation(&mut self, id: Uuid, at: Instant) {
        let due = self
            .reservations
            .get(&id)
            .is_some_and(|r| r.live.releasing && r.live.released_at == Some(at));
        if due {
            self.reservations
                .rows()
                .update(&mut self.journal, id, "released", at, |r| {
                    r.live.releasing = false
                });
        }
    }

    /// Whether the project's reservation list still shows `r` as it was
    /// before its release (see [`crate::Timings::stale_reservation_list`]).
    pub(crate) fn listed_stale(&self, r: &Kept, now: Instant) -> bool {
        let window = self.timings.stale_reservation_list;
        r.live.device.is_none()
            && r.live
                .released_at
                .is_some_and(|at| at <= now && now < at + window)
    }
}
