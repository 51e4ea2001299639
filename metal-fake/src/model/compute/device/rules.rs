//! The API's rules for devices: what each change checks and does (update,
//! actions, delete; create is in `create`), the steps that happen on
//! their own as time passes (each from the world's due-queue:
//! `device_step`), and the competitor that takes a reservation. Every
//! write goes through the world's tables ([`crate::model::journal`]).

use metal_api::types;

use crate::model::relations::Kind;
use tokio::time::Instant;
use uuid::Uuid;

use super::provisioning;
use super::record::{Device, DeviceState, Kept, Live, Phase, Step, FAILED_PROVISIONING_PROJECT};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, too_long, MAX_NAME, MAX_TEXT};
use crate::model::journal::{Cause, Due};
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
        let what = match action {
            A::PowerOn => "power_on",
            A::PowerOff => "power_off",
            A::Reboot => "reboot",
            A::Reinstall => "reinstall",
            A::Rescue => "rescue",
        };
        let begun = self
            .devices
            .rows
            .try_update(&mut self.journal, id, what, now, |d| {
                let state = d.state();
                let busy = |s: DeviceState| {
                    ApiError::unprocessable(format!(
                        "Device is {}; try again when it is settled",
                        s.as_str()
                    ))
                };
                if action == A::Reinstall && d.rec.locked {
                    return Err(ApiError::unprocessable(REINSTALL_LOCKED));
                }
                let phase = match (action, state) {
                    (
                        _,
                        S::Queued
                        | S::Provisioning
                        | S::Reinstalling
                        | S::Deprovisioning
                        | S::Failed,
                    ) => return Err(busy(state)),
                    (A::PowerOn, S::Active | S::PoweringOn) => {
                        return Err(ApiError::unprocessable("Device must be powered off"))
                    }
                    (A::PowerOff, S::Inactive | S::PoweringOff) => {
                        return Err(ApiError::unprocessable("Device must be powered on"))
                    }
                    (_, S::PoweringOn | S::PoweringOff) => return Err(busy(state)),
                    (A::PowerOn, _) => Phase::PoweringOn,
                    (A::PowerOff, _) => {
                        d.rec.rescue = false;
                        Phase::PoweringOff
                    }
                    (A::Reboot, S::Active) => {
                        // A reboot boots its own operating system again.
                        d.rec.reboots += 1;
                        d.rec.rescue = false;
                        return Ok(false);
                    }
                    (A::Reboot, _) => {
                        return Err(ApiError::unprocessable("Device must be powered on"))
                    }
                    (A::Reinstall, _) => {
                        d.rec.rescue = false;
                        Phase::Reinstalling
                    }
                    // Rescue reboots the device into the rescue operating
                    // system: it stays `active` (the spec's device states
                    // have no rescue state) until a reboot.
                    (A::Rescue, S::Active) if d.rec.rescue => {
                        return Err(ApiError::unprocessable("Device is already in rescue mode"))
                    }
                    (A::Rescue, S::Active) => {
                        d.rec.reboots += 1;
                        d.rec.rescue = true;
                        return Ok(false);
                    }
                    (A::Rescue, _) => {
                        return Err(ApiError::unprocessable("Device must be powered on"))
                    }
                };
                let mut since = now;
                if action == A::Reinstall {
                    if let Some(os) = input.operating_system.as_deref().map(str::trim)
                        && !os.is_empty()
                    {
                        d.rec.operating_system = os.to_string();
                    }
                    if let Some(url) = &input.ipxe_script_url {
                        d.rec.ipxe_script_url = Some(url.clone());
                    }
                    if input.deprovision_fast == Some(true) {
                        // Begun half-way: the wipe is the half skipped.
                        since = now.checked_sub(timings.reinstall / 2).unwrap_or(now);
                    }
                }
                d.begin(phase, since);
                Ok(true)
            })
            .ok_or_else(ApiError::not_found)??;
        if begun {
            self.queue_phase(id);
            // A step due at once (a zero timing) is made now.
            self.drain(now);
        }
        Ok(())
    }

    /// Queues the steps of the device's current phase on the due-queue.
    pub(crate) fn queue_phase(&mut self, id: Uuid) {
        let Some(d) = self.devices.get(&id) else {
            return;
        };
        let (since, phase) = (d.live.since, d.live.phase_no);
        for (after, step) in d.steps(&self.timings) {
            self.due
                .push(since + after, Due::Device { id, phase, step });
        }
    }

    /// Makes one due step of device `id`'s phase numbered `phase`, at
    /// `at` (nothing when the device is gone or in another phase).
    pub(crate) fn device_step(&mut self, id: Uuid, phase: u64, step: Step, at: Instant) {
        if self
            .devices
            .get(&id)
            .is_none_or(|d| d.live.phase_no != phase)
        {
            return;
        }
        match step {
            Step::Enter(state) => {
                let phase = self.devices.get(&id).map(|d| d.live.phase);
                let (what, report) = match (phase, state) {
                    (_, DeviceState::Provisioning) => ("provisioning", Some(provisioning::STARTED)),
                    (Some(Phase::Provisioning), DeviceState::Active) => {
                        ("provisioned", Some(provisioning::DONE))
                    }
                    (_, DeviceState::Failed) => ("provisioning_failed", None),
                    (Some(Phase::Reinstalling), _) => ("reinstalled", None),
                    (_, DeviceState::Inactive) => ("powered_off", None),
                    _ => ("powered_on", None),
                };
                self.device_changes(id, what, report, at, |d| d.live.state = state);
            }
            Step::Report(report) => self.device_changes(id, report.kind, Some(report), at, |_| ()),
            Step::LeaveProject => {
                let reservation = self
                    .devices
                    .rows
                    .update(&mut self.journal, id, "moved", at, |d| {
                        d.rec.project = FAILED_PROVISIONING_PROJECT;
                        d.rec.reservation.take()
                    })
                    .flatten();
                let release = at + self.timings.reservation_release;
                self.free(reservation, id, Some(release), at);
            }
            Step::Remove => self.remove_record(Kind::Device, id, at),
        }
    }

    /// Changes device `id` by `f` at `at`, journaled as `what`; a
    /// provisioning step it reports is kept on it with its event's ID
    /// (when the change is journaled: a loading world's are not).
    fn device_changes(
        &mut self,
        id: Uuid,
        what: &'static str,
        report: Option<provisioning::Report>,
        at: Instant,
        f: impl FnOnce(&mut Kept),
    ) {
        let reported =
            report
                .filter(|_| self.journal.recording())
                .map(|report| provisioning::Reported {
                    report,
                    event: Uuid::new_v4(),
                    at,
                });
        if let Some(r) = reported {
            self.journal.name_next(r.event);
        }
        let changed = self
            .devices
            .rows
            .update(&mut self.journal, id, what, at, |d| {
                f(d);
                if let Some(r) = reported {
                    d.live.reports.push(r);
                }
            });
        if changed.is_none() {
            // No such device: the name is no one's.
            self.journal.unname();
        }
    }

    /// `deleteDevice`: refused while locked or not yet provisioned (the
    /// API's 422s); otherwise the device is gone (`404`) at once, or, with
    /// a [`crate::Timings::deprovisioning`] lag, reads as `deprovisioning`
    /// until it has passed; its reservation is provisionable again
    /// [`crate::Timings::reservation_release`] after the delete. Deleting
    /// a device already deprovisioning changes nothing and succeeds.
    pub(crate) fn delete_device(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        let d = self.devices.get(&id).ok_or_else(ApiError::not_found)?;
        if d.rec.locked {
            return Err(ApiError::unprocessable(DELETE_LOCKED));
        }
        match d.state() {
            DeviceState::Queued | DeviceState::Provisioning | DeviceState::Reinstalling => {
                return Err(ApiError::unprocessable(DELETE_WHILE_PROVISIONING))
            }
            DeviceState::Deprovisioning => return Ok(()),
            _ => {}
        }
        self.finish_delete(id, now);
        Ok(())
    }

    /// Deletes device `id`, its checks passed: its reservation released
    /// after the delay, the device gone (or deprovisioning first).
    fn finish_delete(&mut self, id: Uuid, now: Instant) {
        let timings = self.timings;
        let reservation = self.devices.get(&id).and_then(|d| d.rec.reservation);
        if let Some(r) = reservation {
            self.release_at(r, now + timings.reservation_release, now);
        }
        if timings.deprovisioning.is_zero() {
            // Gone at once, as the real API's reads after a delete are
            // (with what goes with it: model::relations).
            self.remove_record(Kind::Device, id, now);
        } else {
            self.devices
                .rows
                .update(&mut self.journal, id, "deprovisioning", now, |d| {
                    d.begin(Phase::Deprovisioning, now);
                });
            self.queue_phase(id);
        }
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

    /// The device is gone from its table at `at`; its reservation (keeping
    /// its release time) no longer holds it. Only `model::relations`
    /// calls this, after what goes with the device.
    pub(crate) fn remove_device(&mut self, id: Uuid, at: Instant) {
        if let Some(d) = self.devices.rows.remove(&mut self.journal, id, at) {
            if d.rec.reservation.is_none() {
                self.give_back_machine(id, d.rec.project, &d.rec.plan, &d.rec.facility);
            }
            self.free(d.rec.reservation, id, None, at);
        }
    }

    /// A competitor takes `reservation`, when it is free: a device without
    /// the caller's tags appears on it. Returns the device's ID.
    pub(crate) fn take_reservation(&mut self, reservation: Uuid, now: Instant) -> Option<Uuid> {
        let r = self.reservations.get(&reservation)?;
        if !r.provisionable() {
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
        let cause = self.journal.cause();
        self.journal.set_cause(Cause::Fake);
        self.place_device(rec, false, Vec::new(), now);
        self.journal.set_cause(cause);
        self.devices.competitors += 1;
        Some(id)
    }

    /// Puts `rec`, a new device, on its reservation: queued from `now`
    /// (failing at the end of provisioning when `fails`), with the SSH
    /// keys it got, its provisioning's steps on the due-queue.
    pub(crate) fn place_device(
        &mut self,
        rec: Device,
        fails: bool,
        ssh_keys: Vec<Uuid>,
        now: Instant,
    ) {
        let (id, reservation) = (rec.id, rec.reservation);
        let live = Live::provisioning(now, fails, ssh_keys);
        self.devices
            .rows
            .insert(&mut self.journal, id, now, |meta| Kept { rec, meta, live });
        if let Some(r) = reservation {
            self.hold(r, id, now);
        }
        self.queue_phase(id);
        self.queue_termination(id);
        self.drain(now);
    }

    /// Queues the termination of device `id` at its `termination_time`.
    pub(crate) fn queue_termination(&mut self, id: Uuid) {
        if let Some(t) = self.devices.get(&id).and_then(|d| d.rec.termination_time) {
            self.due.push(self.clock.instant(t), Due::Terminate { id });
        }
    }

    /// Device `id`'s termination time has come: it is deleted as a
    /// `DELETE` deletes it (its reservation released), whatever its state
    /// (the spec's `termination_time`: "to automatically delete the
    /// resource"), unless it is locked: terraform-provider-equinix's doc
    /// of `locked` says locking "prevents an instance with a termination
    /// time set from being reclaimed, even if the termination time was
    /// reached" (its unlock queues this again, see `update_device`).
    /// Stale when it is gone or already deprovisioning.
    pub(crate) fn terminate_device(&mut self, id: Uuid, at: Instant) {
        let due = self.devices.get(&id).is_some_and(|d| {
            d.state() != DeviceState::Deprovisioning
                && !d.rec.locked
                && d.rec
                    .termination_time
                    .is_some_and(|t| self.clock.instant(t) <= at)
        });
        if due {
            self.finish_delete(id, at);
        }
    }

    /// A competitor gives up its device: it is deleted as the API deletes
    /// (its reservation is released), without a call. `false` when the
    /// device is unknown or not a competitor's.
    pub(crate) fn release_competitor(&mut self, id: Uuid, now: Instant) -> bool {
        self.devices.get(&id).is_some_and(|d| d.rec.competitor)
            && self.delete_device(id, now).is_ok()
    }

    /// `updateDevice`: changes the fields the input sets. A device
    /// unlocked past its termination time goes at the next turn of the
    /// due-queue (the fake's choice: the lock only held it).
    pub(crate) fn update_device(
        &mut self,
        id: Uuid,
        body: &types::DeviceUpdateInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        if !self.devices.contains_key(&id) {
            return Err(ApiError::not_found());
        }
        Fields {
            hostname: body.hostname.as_deref(),
            description: body.description.as_deref(),
            tags: body.tags.as_deref(),
            userdata: body.userdata.as_deref(),
            ipxe_script_url: body.ipxe_script_url.as_deref(),
            customdata: body.customdata.as_ref(),
        }
        .check()?;
        self.devices
            .rows
            .update(&mut self.journal, id, "fields", now, |d| {
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
                // Lists and maps are `Option`s in update bodies (the spec
                // subset's patch 4): `None` leaves them, an empty one clears
                // them.
                if let Some(c) = &body.customdata {
                    rec.customdata.clone_from(c);
                }
                if let Some(b) = &body.billing_cycle {
                    rec.billing_cycle = Some(b.clone());
                }
            });
        let unlocked_past_its_time = body.locked == Some(false)
            && self
                .devices
                .get(&id)
                .and_then(|d| d.rec.termination_time)
                .is_some_and(|t| self.clock.instant(t) <= now);
        if unlocked_past_its_time {
            self.due.push(now, Due::Terminate { id });
        }
        Ok(())
    }
}
