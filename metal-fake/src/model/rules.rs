//! The API's rules for devices and hardware reservations: what each change
//! checks and does (create, update, actions, delete, move), the changes
//! that happen on their own as time passes (`settle`), and the competitor
//! that takes a reservation.

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::records::{
    failed_at, state_of, DeviceRec, KeyOwner, Phase, FAILED_PROVISIONING_PROJECT,
};
use super::world::World;
use crate::call::ApiError;
use crate::faults::FailProvisioning;

/// The API's refusal to delete a device that is not yet provisioned.
pub(super) const DELETE_WHILE_PROVISIONING: &str =
    "Cannot delete a device while it is provisioning";
/// The API's refusal to delete a locked device.
pub(super) const DELETE_LOCKED: &str = "Cannot delete a locked item";
/// The refusal to reinstall a locked device (in the style of the delete's).
pub(super) const REINSTALL_LOCKED: &str = "Cannot reinstall a locked item";
/// The refusal to move a reservation whose device is locked.
pub(super) const MOVE_LOCKED: &str = "Cannot move a locked item";
/// The API's refusal to provision on a reservation whose device failed.
pub(super) const NOT_PROVISIONABLE: &str = "Server is not provisionable";
/// What the API answered for a device moved away after its provisioning
/// failed (packngo PR 112's log).
pub(super) const NOT_AUTHORIZED: &str = "You are not authorized to view this device";

/// The `hardware_reservation_id` that asks the API to choose a reservation.
const NEXT_AVAILABLE: &str = "next-available";

/// The real API's message when `next-available` finds no reservation
/// (kubernetes-retired/cluster-api-provider-packet issue 191), with `503`.
pub(crate) const NO_RESERVATION_AVAILABLE: &str =
    "There are no available hardware reservations for selected plan and facility";

/// The fields of a create request, whichever `oneOf` variant it came in.
struct CreateFields<'a> {
    reservation: &'a str,
    plan: &'a str,
    os: &'a str,
    hostname: Option<&'a String>,
    description: Option<&'a String>,
    tags: &'a [String],
    locked: bool,
    always_pxe: bool,
    ipxe_script_url: Option<&'a String>,
    userdata: Option<&'a String>,
    customdata: &'a serde_json::Map<String, serde_json::Value>,
    billing_cycle: Option<String>,
    metro: Option<&'a str>,
    facilities: &'a [String],
}

impl<'a> CreateFields<'a> {
    fn of(body: &'a types::CreateDeviceRequest) -> Self {
        match body {
            types::CreateDeviceRequest::MetroInput(b) => Self {
                reservation: &b.hardware_reservation_id,
                plan: &b.plan,
                os: &b.operating_system,
                hostname: b.hostname.as_ref(),
                description: b.description.as_ref(),
                tags: &b.tags,
                locked: b.locked,
                always_pxe: b.always_pxe,
                ipxe_script_url: b.ipxe_script_url.as_ref(),
                userdata: b.userdata.as_ref(),
                customdata: &b.customdata,
                billing_cycle: b.billing_cycle.map(|c| c.to_string()),
                metro: Some(&b.metro),
                facilities: &[],
            },
            types::CreateDeviceRequest::FacilityInput(b) => Self {
                reservation: &b.hardware_reservation_id,
                plan: &b.plan,
                os: &b.operating_system,
                hostname: b.hostname.as_ref(),
                description: b.description.as_ref(),
                tags: &b.tags,
                locked: b.locked,
                always_pxe: b.always_pxe,
                ipxe_script_url: b.ipxe_script_url.as_ref(),
                userdata: b.userdata.as_ref(),
                customdata: &b.customdata,
                billing_cycle: b.billing_cycle.map(|c| c.to_string()),
                metro: None,
                facilities: &b.facility,
            },
        }
    }
}

impl World {
    pub(super) fn create_device(
        &mut self,
        project: Uuid,
        body: &types::CreateDeviceRequest,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        if !self.projects.contains_key(&project) {
            return Err(ApiError::not_found());
        }
        let f = CreateFields::of(body);
        let mut missing = Vec::new();
        if f.plan.trim().is_empty() {
            missing.push("plan is required".to_string());
        }
        if f.os.trim().is_empty() {
            missing.push("operating_system is required".to_string());
        }
        if f.metro.is_some_and(|m| m.trim().is_empty())
            || (f.metro.is_none() && f.facilities.is_empty())
        {
            missing.push("metro or facility is required".to_string());
        }
        if !missing.is_empty() {
            return Err(ApiError {
                status: 422,
                messages: missing,
            });
        }
        let reservation = self.pick_reservation(project, &f, now)?;
        let rec = self
            .reservations
            .get(&reservation)
            .ok_or_else(ApiError::not_found)?;
        if rec.project != project {
            return Err(ApiError::unprocessable(
                "Hardware reservation does not belong to this project",
            ));
        }
        if let Some(holder) = rec.device {
            let failed = self
                .devices
                .get(&holder)
                .is_some_and(|d| state_of(d, &self.timings, now) == "failed");
            return Err(ApiError::unprocessable(if failed {
                NOT_PROVISIONABLE
            } else {
                "Hardware reservation already has a device provisioned on it"
            }));
        }
        if !self.provisionable(rec, now) {
            return Err(ApiError::unprocessable(
                "Hardware reservation is not provisionable yet",
            ));
        }
        let plan = &self.plans[rec.plan];
        if plan.slug != f.plan && plan.id.to_string() != f.plan {
            return Err(ApiError::unprocessable(format!(
                "Plan {} does not match the hardware reservation's plan {}",
                f.plan, plan.slug
            )));
        }
        let facility = &self.facilities[rec.facility];
        if let Some(metro) = f.metro {
            if metro != facility.metro && metro != facility.metro_id.to_string() {
                return Err(ApiError::unprocessable(format!(
                    "Metro {metro} does not match the hardware reservation's metro {}",
                    facility.metro
                )));
            }
        } else if !f
            .facilities
            .iter()
            .any(|c| c == "any" || *c == facility.code || *c == facility.id.to_string())
        {
            return Err(ApiError::unprocessable(format!(
                "Facility does not match the hardware reservation's facility {}",
                facility.code
            )));
        }
        let (plan, facility) = (rec.plan, rec.facility);
        let id = Uuid::new_v4();
        let seq = self.next_seq();
        let hostname = f
            .hostname
            .cloned()
            .unwrap_or_else(|| format!("fake-{}", &id.simple().to_string()[..8]));
        let fails = self.failures.next(&hostname);
        let ssh_keys = self.attached_keys(project);
        self.devices.insert(
            id,
            DeviceRec {
                id,
                seq,
                project,
                reservation: Some(reservation),
                plan,
                facility,
                os: f.os.to_string(),
                hostname,
                description: f.description.cloned(),
                tags: f.tags.to_vec(),
                locked: f.locked,
                always_pxe: f.always_pxe,
                ipxe_script_url: f.ipxe_script_url.cloned(),
                userdata: f.userdata.cloned(),
                customdata: f.customdata.clone(),
                billing_cycle: f.billing_cycle,
                phase: Phase::Provisioning,
                since: now,
                created: now,
                updated: now,
                reboots: 0,
                competitor: false,
                fails,
                ssh_keys,
            },
        );
        if let (true, Some(after)) = (fails, self.timings.failed_moved_after) {
            let t = self.timings;
            self.schedule(now + t.queued + t.provisioning + after);
        }
        if let Some(r) = self.reservations.get_mut(&reservation) {
            r.device = Some(id);
            r.released_at = None;
        }
        self.devices_created += 1;
        Ok(id)
    }

    fn pick_reservation(
        &self,
        project: Uuid,
        f: &CreateFields<'_>,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        let text = f.reservation.trim();
        if text.is_empty() {
            return Err(ApiError::unprocessable(
                "hardware_reservation_id is required: the fake provisions only on hardware reservations",
            ));
        }
        if text == NEXT_AVAILABLE {
            // The oldest of the project's provisionable reservations whose
            // plan and place match the request; none is the real API's 503
            // (kubernetes-retired/cluster-api-provider-packet issue 191),
            // without `Retry-After`.
            return self
                .reservations
                .values()
                .filter(|r| {
                    let plan = &self.plans[r.plan];
                    let facility = &self.facilities[r.facility];
                    let place_ok = match f.metro {
                        Some(m) => m == facility.metro || m == facility.metro_id.to_string(),
                        None => f.facilities.iter().any(|c| {
                            c == "any" || *c == facility.code || *c == facility.id.to_string()
                        }),
                    };
                    r.project == project
                        && self.provisionable(r, now)
                        && (plan.slug == f.plan || plan.id.to_string() == f.plan)
                        && place_ok
                })
                .min_by_key(|r| r.seq)
                .map(|r| r.id)
                .ok_or_else(|| ApiError::new(503, NO_RESERVATION_AVAILABLE));
        }
        Uuid::parse_str(text).map_err(|_| {
            ApiError::unprocessable(format!("Invalid hardware_reservation_id {text:?}"))
        })
    }

    pub(super) fn act(
        &mut self,
        id: Uuid,
        action: types::DeviceActionInputType,
        now: Instant,
    ) -> Result<(), ApiError> {
        use types::DeviceActionInputType as A;
        let timings = self.timings;
        let rec = self.devices.get_mut(&id).ok_or_else(ApiError::not_found)?;
        let state = state_of(rec, &timings, now);
        let busy = |s: &str| {
            ApiError::unprocessable(format!("Device is {s}; try again when it is settled"))
        };
        if action == A::Reinstall && rec.locked {
            return Err(ApiError::unprocessable(REINSTALL_LOCKED));
        }
        match (action, state) {
            (_, "queued" | "provisioning" | "reinstalling" | "deprovisioning" | "failed") => {
                return Err(busy(state))
            }
            (A::PowerOn, "active" | "powering_on") => {
                return Err(ApiError::unprocessable("Device must be powered off"))
            }
            (A::PowerOff, "inactive" | "powering_off") => {
                return Err(ApiError::unprocessable("Device must be powered on"))
            }
            (_, "powering_on" | "powering_off") => return Err(busy(state)),
            (A::PowerOn, _) => rec.phase = Phase::PoweringOn,
            (A::PowerOff, _) => rec.phase = Phase::PoweringOff,
            (A::Reboot, "active") => rec.reboots += 1,
            (A::Reboot, _) => return Err(ApiError::unprocessable("Device must be powered on")),
            (A::Reinstall, _) => rec.phase = Phase::Reinstalling,
            (A::Rescue, _) => {
                return Err(ApiError::unprocessable(
                    "Rescue mode is not supported by the fake",
                ))
            }
        }
        if action != A::Reboot {
            rec.since = now;
        }
        rec.updated = now;
        Ok(())
    }

    /// `deleteDevice`: refused while locked or not yet provisioned (the
    /// API's 422s); otherwise the device reads as `deprovisioning` until
    /// [`super::Timings::deprovisioning`] has passed, then is gone, and its
    /// reservation is provisionable again [`super::Timings::reservation_release`]
    /// after the delete. Deleting a device already deprovisioning changes
    /// nothing and succeeds.
    pub(super) fn delete_device(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        let timings = self.timings;
        let rec = self.devices.get_mut(&id).ok_or_else(ApiError::not_found)?;
        if rec.locked {
            return Err(ApiError::unprocessable(DELETE_LOCKED));
        }
        match state_of(rec, &timings, now) {
            "queued" | "provisioning" | "reinstalling" => {
                return Err(ApiError::unprocessable(DELETE_WHILE_PROVISIONING))
            }
            "deprovisioning" => return Ok(()),
            _ => {}
        }
        rec.phase = Phase::Deprovisioning;
        rec.since = now;
        rec.updated = now;
        let reservation = rec.reservation;
        if let Some(r) = reservation.and_then(|r| self.reservations.get_mut(&r)) {
            r.released_at = Some(now + timings.reservation_release);
        }
        self.schedule(now + timings.deprovisioning);
        Ok(())
    }

    /// A device the caller may not see any more: one whose provisioning
    /// failed and that left the project (`403`, see
    /// [`super::Timings::failed_moved_after`]).
    pub(super) fn check_device_access(&self, id: Uuid) -> Result<(), ApiError> {
        match self.devices.get(&id) {
            Some(d) if d.project == FAILED_PROVISIONING_PROJECT => {
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
            if d.phase == Phase::Deprovisioning {
                let at = d.since + t.deprovisioning;
                if at <= now {
                    gone.push(d.id);
                } else {
                    later(at);
                }
                continue;
            }
            let (Some(failed), Some(after)) = (failed_at(d, &t), t.failed_moved_after) else {
                continue;
            };
            let (moves, removed) = (failed + after, failed + after + t.failed_forbidden_for);
            if removed <= now {
                gone.push(d.id);
            } else if d.project == FAILED_PROVISIONING_PROJECT {
                later(removed);
            } else if moves <= now {
                moved.push((d.id, moves));
                later(removed);
            } else {
                later(moves);
            }
        }
        for (id, at) in moved {
            let reservation = self.devices.get_mut(&id).and_then(|d| {
                d.project = FAILED_PROVISIONING_PROJECT;
                d.reservation.take()
            });
            self.free(reservation, id, Some(at + t.reservation_release));
        }
        for id in gone {
            if let Some(d) = self.devices.remove(&id) {
                self.free(d.reservation, id, None);
            }
        }
        self.next_settle = next;
    }

    /// `reservation` no longer holds `device`; `release` (when given)
    /// replaces its release time.
    fn free(&mut self, reservation: Option<Uuid>, device: Uuid, release: Option<Instant>) {
        if let Some(r) = reservation.and_then(|r| self.reservations.get_mut(&r)) {
            if r.device == Some(device) {
                r.device = None;
                if release.is_some() {
                    r.released_at = release;
                }
            }
        }
    }

    /// Whether the project's reservation list still shows `reservation` as
    /// it was before its release (see
    /// [`super::Timings::stale_reservation_list`]).
    pub(super) fn listed_stale(&self, reservation: Uuid, now: Instant) -> bool {
        let window = self.timings.stale_reservation_list;
        self.reservations.get(&reservation).is_some_and(|r| {
            r.device.is_none()
                && r.released_at
                    .is_some_and(|at| at <= now && now < at + window)
        })
    }

    /// `settle` has work to do at `at`.
    fn schedule(&mut self, at: Instant) {
        self.next_settle = Some(self.next_settle.map_or(at, |n| n.min(at)));
    }

    /// The SSH keys the API attaches to a new device of `project`: the
    /// project's and the user's, oldest first.
    fn attached_keys(&self, project: Uuid) -> Vec<Uuid> {
        let mut keys: Vec<(u64, Uuid)> = self
            .ssh_keys
            .values()
            .filter(|k| k.owner == KeyOwner::User || k.owner == KeyOwner::Project(project))
            .map(|k| (k.seq, k.id))
            .collect();
        keys.sort_unstable();
        keys.into_iter().map(|(_, id)| id).collect()
    }

    /// Scripts a provisioning failure (see [`crate::Fake::fail_provisioning`]).
    pub(crate) fn fail_provisioning(&mut self, fail: FailProvisioning) {
        self.failures.push(fail);
    }

    /// Replaces which devices fail to provision.
    pub(crate) fn set_failures(&mut self, plan: crate::faults::FailurePlan) {
        self.failures = plan;
    }

    /// Which devices fail to provision, taken out (for a world replaced by
    /// a document: faults stay).
    pub(crate) fn take_failures(&mut self) -> crate::faults::FailurePlan {
        std::mem::take(&mut self.failures)
    }

    /// A competitor takes `reservation`, when it is free: a device without
    /// the caller's tags appears on it. Returns the device's ID.
    pub(crate) fn take_reservation(&mut self, reservation: Uuid, now: Instant) -> Option<Uuid> {
        let rec = self.reservations.get(&reservation)?;
        if !self.provisionable(rec, now) {
            return None;
        }
        let (project, plan, facility) = (rec.project, rec.plan, rec.facility);
        let id = Uuid::new_v4();
        let seq = self.next_seq();
        self.devices.insert(
            id,
            DeviceRec {
                id,
                seq,
                project,
                reservation: Some(reservation),
                plan,
                facility,
                os: "ubuntu_24_04".to_string(),
                hostname: format!("competitor-{}", &id.simple().to_string()[..8]),
                description: None,
                tags: vec!["competitor".to_string()],
                locked: false,
                always_pxe: false,
                ipxe_script_url: None,
                userdata: None,
                customdata: serde_json::Map::new(),
                billing_cycle: None,
                phase: Phase::Provisioning,
                since: now,
                created: now,
                updated: now,
                reboots: 0,
                competitor: true,
                fails: false,
                ssh_keys: Vec::new(),
            },
        );
        if let Some(r) = self.reservations.get_mut(&reservation) {
            r.device = Some(id);
        }
        self.competitor_devices += 1;
        Some(id)
    }
    /// `updateDevice`: changes the fields the input sets.
    pub(super) fn update_device(
        &mut self,
        id: Uuid,
        body: &types::DeviceUpdateInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        let rec = self.devices.get_mut(&id).ok_or_else(ApiError::not_found)?;
        apply_update(rec, body, now);
        Ok(())
    }

    /// `moveHardwareReservation`: moves it to `project` (refused while it
    /// holds a locked device, or any device unless it stays where it is).
    pub(super) fn move_reservation(&mut self, id: Uuid, project: Uuid) -> Result<(), ApiError> {
        if !self.projects.contains_key(&project) {
            return Err(ApiError::unprocessable("Project not found"));
        }
        let holder = self.reservations.get(&id).and_then(|r| r.device);
        if holder
            .and_then(|d| self.devices.get(&d))
            .is_some_and(|d| d.locked)
        {
            return Err(ApiError::unprocessable(MOVE_LOCKED));
        }
        let rec = self
            .reservations
            .get_mut(&id)
            .ok_or_else(ApiError::not_found)?;
        if rec.device.is_some() && rec.project != project {
            return Err(ApiError::unprocessable(
                "Cannot move a hardware reservation that has a device",
            ));
        }
        rec.project = project;
        Ok(())
    }
}

fn apply_update(rec: &mut DeviceRec, body: &types::DeviceUpdateInput, now: Instant) {
    if let Some(h) = &body.hostname {
        rec.hostname.clone_from(h);
    }
    if let Some(d) = &body.description {
        rec.description = Some(d.clone());
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
    rec.updated = now;
}
