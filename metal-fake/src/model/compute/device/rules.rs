//! The API's rules for devices: what each change checks and does (update,
//! actions, delete; create is in `create`), the changes that happen on
//! their own as time passes (`settle`), and the competitor that takes a
//! reservation.

use metal_api::types;

use crate::model::relations::Kind;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Device, DeviceState, Kept, Live, Phase, FAILED_PROVISIONING_PROJECT};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, too_long, MAX_NAME, MAX_TEXT};
use crate::model::World;

/// The API's refusal to delete a device that is not yet provisioned.
pub(crate) const DELETE_WHILE_PROVISIONING: &str =
    "Cannot delete a device while it is provisioning";
/// The API's refusal to delete a locked device.
pub(crate) const DELETE_LOCKED: &str = "Cannot delete a locked item";
/// The refusal to reinstall a locked device (in the style of the delete's).
pub(crate) const REINSTALL_LOCKED: &str = "Cannot reinstall a locked item";
/// What the API answered for a device moved away after its provisioning
/// failed (packngo PR 112's log).
pub(crate) const NOT_AUTHORIZED: &str = "You are not authorized to view this device";

/// The free-form fields of a device, as a request or a document gives
/// them (`None`: not given).
#[derive(Default)]
pub(crate) struct Fields<'a> {
    pub(crate) hostname: Option<&'a str>,
    pub(crate) description: Option<&'a str>,
    pub(crate) tags: Option<&'a [String]>,
    pub(crate) userdata: Option<&'a str>,
    pub(crate) ipxe_script_url: Option<&'a str>,
    pub(crate) customdata: Option<&'a serde_json::Map<String, serde_json::Value>>,
}

impl Fields<'_> {
    /// The first field out of its bounds, if any.
    pub(crate) fn problem(&self) -> Option<String> {
        let customdata = self.customdata.and_then(|c| {
            let size = serde_json::to_vec(c).map_or(usize::MAX, |j| j.len());
            (size > MAX_TEXT)
                .then(|| format!("Customdata is too long (maximum is {MAX_TEXT} bytes)"))
        });
        [
            self.hostname
                .and_then(|h| too_long("Hostname", h, MAX_NAME)),
            self.description
                .and_then(|d| too_long("Description", d, MAX_TEXT)),
            self.tags.and_then(bad_tags),
            self.userdata
                .and_then(|u| too_long("Userdata", u, MAX_TEXT)),
            self.ipxe_script_url
                .and_then(|u| too_long("Ipxe script url", u, MAX_TEXT)),
            customdata,
        ]
        .into_iter()
        .flatten()
        .next()
    }

    /// The fields, checked as the API checks them (`422`).
    pub(crate) fn check(&self) -> Result<(), ApiError> {
        refuse([self.problem()])
    }
}

impl World {
    /// `performAction`. A reinstall installs the action's
    /// `operating_system` (the device's own when none is given, as
    /// metal-cli's `device reinstall` without `-O` asks) and its
    /// `ipxe_script_url`; with `deprovision_fast` it skips the disk wipe
    /// and takes half as long; `preserve_data` changes nothing the fake
    /// shows (it has no disks). The other actions read only `type`.
    pub(crate) fn act(
        &mut self,
        id: Uuid,
        input: &types::DeviceActionInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        use types::DeviceActionInputType as A;
        use DeviceState as S;
        let action = input.type_;
        let timings = self.timings;
        let d = self.devices.get_mut(&id).ok_or_else(ApiError::not_found)?;
        let state = d.state(&timings, now);
        let busy = |s: DeviceState| {
            ApiError::unprocessable(format!(
                "Device is {}; try again when it is settled",
                s.as_str()
            ))
        };
        if action == A::Reinstall && d.rec.locked {
            return Err(ApiError::unprocessable(REINSTALL_LOCKED));
        }
        let mut since = now;
        match (action, state) {
            (_, S::Queued | S::Provisioning | S::Reinstalling | S::Deprovisioning | S::Failed) => {
                return Err(busy(state))
            }
            (A::PowerOn, S::Active | S::PoweringOn) => {
                return Err(ApiError::unprocessable("Device must be powered off"))
            }
            (A::PowerOff, S::Inactive | S::PoweringOff) => {
                return Err(ApiError::unprocessable("Device must be powered on"))
            }
            (_, S::PoweringOn | S::PoweringOff) => return Err(busy(state)),
            (A::PowerOn, _) => d.live.phase = Phase::PoweringOn,
            (A::PowerOff, _) => d.live.phase = Phase::PoweringOff,
            (A::Reboot, S::Active) => d.rec.reboots += 1,
            (A::Reboot, _) => return Err(ApiError::unprocessable("Device must be powered on")),
            (A::Reinstall, _) => {
                if let Some(os) = input.operating_system.as_deref().map(str::trim) {
                    if !os.is_empty() {
                        d.rec.operating_system = os.to_string();
                    }
                }
                if let Some(url) = &input.ipxe_script_url {
                    d.rec.ipxe_script_url = Some(url.clone());
                }
                if input.deprovision_fast == Some(true) {
                    // Begun half-way: the wipe is the half skipped.
                    since = now.checked_sub(timings.reinstall / 2).unwrap_or(now);
                }
                d.live.phase = Phase::Reinstalling;
            }
            (A::Rescue, _) => {
                return Err(ApiError::unprocessable(
                    "Rescue mode is not supported by the fake",
                ))
            }
        }
        if action != A::Reboot {
            d.live.since = since;
        }
        d.live.updated = now;
        Ok(())
    }

    /// `deleteDevice`: refused while locked or not yet provisioned (the
    /// API's 422s); otherwise the device is gone (`404`) at once, or, with
    /// a [`crate::Timings::deprovisioning`] lag, reads as `deprovisioning`
    /// until it has passed; its reservation is provisionable again
    /// [`crate::Timings::reservation_release`] after the delete. Deleting
    /// a device already deprovisioning changes nothing and succeeds.
    pub(crate) fn delete_device(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        let timings = self.timings;
        let d = self.devices.get_mut(&id).ok_or_else(ApiError::not_found)?;
        if d.rec.locked {
            return Err(ApiError::unprocessable(DELETE_LOCKED));
        }
        match d.state(&timings, now) {
            DeviceState::Queued | DeviceState::Provisioning | DeviceState::Reinstalling => {
                return Err(ApiError::unprocessable(DELETE_WHILE_PROVISIONING))
            }
            DeviceState::Deprovisioning => return Ok(()),
            _ => {}
        }
        d.live.phase = Phase::Deprovisioning;
        d.live.since = now;
        d.live.updated = now;
        let reservation = d.rec.reservation;
        if let Some(r) = reservation.and_then(|r| self.reservations.get_mut(&r)) {
            r.live.released_at = Some(now + timings.reservation_release);
        }
        if timings.deprovisioning.is_zero() {
            // Gone at once, as the real API's reads after a delete are
            // (with what goes with it: model::relations).
            self.remove_record(Kind::Device, id);
        } else {
            self.schedule(now + timings.deprovisioning);
        }
        Ok(())
    }

    /// A device the caller may not see any more: one whose provisioning
    /// failed and that left the project (`403`, see
    /// [`crate::Timings::failed_moved_after`]).
    pub(crate) fn check_device_access(&self, id: Uuid) -> Result<(), ApiError> {
        match self.devices.get(&id) {
            Some(d) if d.rec.project == FAILED_PROVISIONING_PROJECT => {
                Err(ApiError::new(403, NOT_AUTHORIZED))
            }
            _ => Ok(()),
        }
    }

    /// Makes the lifecycle changes due by `now` that are not computed from
    /// the clock when read: a deleted device disappears (its reservation
    /// keeps its release time), a failed device leaves the project (its
    /// reservation is released) and, later, disappears. Cheap when nothing
    /// is due.
    pub(crate) fn settle(&mut self, now: Instant) {
        if self.next_settle.is_none_or(|at| now < at) {
            return;
        }
        let t = self.timings;
        let mut gone = Vec::new();
        let mut moved = Vec::new();
        let mut next: Option<Instant> = None;
        let mut later = |at: Instant| next = Some(next.map_or(at, |n| n.min(at)));
        for d in self.devices.values() {
            if d.live.phase == Phase::Deprovisioning {
                let at = d.live.since + t.deprovisioning;
                if at <= now {
                    gone.push(d.rec.id);
                } else {
                    later(at);
                }
                continue;
            }
            let (Some(failed), Some(after)) = (d.failed_at(&t), t.failed_moved_after) else {
                continue;
            };
            let (moves, removed) = (failed + after, failed + after + t.failed_forbidden_for);
            if removed <= now {
                gone.push(d.rec.id);
            } else if d.rec.project == FAILED_PROVISIONING_PROJECT {
                later(removed);
            } else if moves <= now {
                moved.push((d.rec.id, moves));
                later(removed);
            } else {
                later(moves);
            }
        }
        for (id, at) in moved {
            let reservation = self.devices.get_mut(&id).and_then(|d| {
                d.rec.project = FAILED_PROVISIONING_PROJECT;
                d.rec.reservation.take()
            });
            self.free(reservation, id, Some(at + t.reservation_release));
        }
        for id in gone {
            self.remove_record(Kind::Device, id);
        }
        self.next_settle = next;
    }

    /// The device is gone from its table; its reservation (keeping its
    /// release time) no longer holds it. Only `model::relations` calls
    /// this, after what goes with the device.
    pub(crate) fn remove_device(&mut self, id: Uuid) {
        if let Some(d) = self.devices.remove(&id) {
            if d.rec.reservation.is_none() {
                self.give_back_machine(id, d.rec.project, &d.rec.plan, &d.rec.facility);
            }
            self.free(d.rec.reservation, id, None);
        }
    }

    /// `reservation` no longer holds `device`; `release` (when given)
    /// replaces its release time.
    fn free(&mut self, reservation: Option<Uuid>, device: Uuid, release: Option<Instant>) {
        if let Some(r) = reservation.and_then(|r| self.reservations.get_mut(&r)) {
            if r.live.device == Some(device) {
                r.live.device = None;
                if release.is_some() {
                    r.live.released_at = release;
                }
            }
        }
    }

    /// A competitor takes `reservation`, when it is free: a device without
    /// the caller's tags appears on it. Returns the device's ID.
    pub(crate) fn take_reservation(&mut self, reservation: Uuid, now: Instant) -> Option<Uuid> {
        let r = self.reservations.get(&reservation)?;
        if !r.provisionable(now) {
            return None;
        }
        let (project, plan, facility) = (r.rec.project, r.rec.plan.clone(), r.rec.facility.clone());
        let id = Uuid::new_v4();
        let rec = Device {
            tags: vec!["competitor".to_string()],
            competitor: true,
            ..Device::queued(
                id,
                project,
                Some(reservation),
                (plan, facility),
                format!("competitor-{}", &id.simple().to_string()[..8]),
                "ubuntu_24_04".to_string(),
            )
        };
        self.place_device(rec, false, Vec::new(), now);
        self.competitor_devices += 1;
        Some(id)
    }

    /// Puts `rec`, a new device, on its reservation: queued from `now`
    /// (failing at the end of provisioning when `fails`), with the SSH
    /// keys it got.
    pub(crate) fn place_device(
        &mut self,
        rec: Device,
        fails: bool,
        ssh_keys: Vec<Uuid>,
        now: Instant,
    ) {
        let (id, reservation) = (rec.id, rec.reservation);
        let seq = self.next_seq();
        let live = Live {
            seq,
            phase: Phase::Provisioning,
            since: now,
            created: now,
            updated: now,
            fails,
            ssh_keys,
        };
        self.devices.insert(id, Kept { rec, live });
        if let Some(r) = reservation.and_then(|r| self.reservations.get_mut(&r)) {
            r.live.device = Some(id);
            r.live.released_at = None;
        }
    }

    /// A competitor gives up its device: it is deleted as the API deletes
    /// (its reservation is released), without a call. `false` when the
    /// device is unknown or not a competitor's.
    pub(crate) fn release_competitor(&mut self, id: Uuid, now: Instant) -> bool {
        self.devices.get(&id).is_some_and(|d| d.rec.competitor)
            && self.delete_device(id, now).is_ok()
    }

    /// `updateDevice`: changes the fields the input sets.
    pub(crate) fn update_device(
        &mut self,
        id: Uuid,
        body: &types::DeviceUpdateInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        let d = self.devices.get_mut(&id).ok_or_else(ApiError::not_found)?;
        Fields {
            hostname: body.hostname.as_deref(),
            description: body.description.as_deref(),
            tags: body.tags.as_deref(),
            userdata: body.userdata.as_deref(),
            ipxe_script_url: body.ipxe_script_url.as_deref(),
            customdata: body.customdata.as_ref(),
        }
        .check()?;
        let rec = &mut d.rec;
        if let Some(h) = &body.hostname {
            rec.hostname.clone_from(h);
        }
        if let Some(v) = &body.description {
            rec.description = Some(v.clone());
        }
        if let Some(tags) = &body.tags {
            rec.tags.clone_from(tags);
        }
        if let Some(l) = body.locked {
            rec.locked = l;
        }
        if let Some(p) = body.always_pxe {
            rec.always_pxe = p;
        }
        if let Some(u) = &body.ipxe_script_url {
            rec.ipxe_script_url = Some(u.clone());
        }
        if let Some(u) = &body.userdata {
            rec.userdata = Some(u.clone());
        }
        // Lists and maps are `Option`s in update bodies (the spec subset's
        // patch 4): `None` leaves them, an empty one clears them.
        if let Some(c) = &body.customdata {
            rec.customdata.clone_from(c);
        }
        if let Some(b) = &body.billing_cycle {
            rec.billing_cycle = Some(b.clone());
        }
        d.live.updated = now;
        Ok(())
    }
}
