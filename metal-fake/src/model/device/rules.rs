//! The API's rules for devices: what each change checks and does (create,
//! update, actions, delete), the changes that happen on their own as time
//! passes (`settle`), and the competitor that takes a reservation.

use metal_api::types;
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
/// The API's refusal to provision on a reservation whose device failed.
pub(crate) const NOT_PROVISIONABLE: &str = "Server is not provisionable";
/// What the API answered for a device moved away after its provisioning
/// failed (packngo PR 112's log).
pub(crate) const NOT_AUTHORIZED: &str = "You are not authorized to view this device";

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
    fn check(&self) -> Result<(), ApiError> {
        refuse([self.problem()])
    }
}

/// The hardware reservation a create request names, for a competitor
/// fault to take first (`None` for `next-available` or a malformed ID).
pub(crate) fn contested(body: &types::CreateDeviceRequest) -> Option<Uuid> {
    Uuid::parse_str(CreateFields::of(body).reservation).ok()
}

impl World {
    /// Whether `plan` (a slug or ID) names the plan with this slug, and
    /// `place` (a metro, or facilities) its facility.
    fn matches_place(&self, plan: &str, slug: &str, f: &CreateFields<'_>, facility: &str) -> bool {
        let Some(facility) = self.catalog.facility(facility) else {
            return false;
        };
        let plan_ok = plan == slug
            || self
                .catalog
                .plan(slug)
                .and_then(|p| p.id)
                .is_some_and(|id| id.to_string() == plan);
        let place_ok = match f.metro {
            Some(m) => m == facility.metro || m == self.catalog.metro_id_of(facility).to_string(),
            None => f.facilities.iter().any(|c| {
                c == "any"
                    || *c == facility.code
                    || facility.id.is_some_and(|id| *c == id.to_string())
            }),
        };
        plan_ok && place_ok
    }

    /// `createDevice`.
    pub(crate) fn create_device(
        &mut self,
        project: Uuid,
        body: &types::CreateDeviceRequest,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        if !self.projects.contains_key(&project) {
            return Err(ApiError::not_found());
        }
        let f = CreateFields::of(body);
        Fields {
            hostname: f.hostname.map(String::as_str),
            description: f.description.map(String::as_str),
            tags: Some(f.tags),
            userdata: f.userdata.map(String::as_str),
            ipxe_script_url: f.ipxe_script_url.map(String::as_str),
            customdata: Some(f.customdata),
        }
        .check()?;
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
        let r = self
            .reservations
            .get(&reservation)
            .ok_or_else(ApiError::not_found)?;
        if r.rec.project != project {
            return Err(ApiError::unprocessable(
                "Hardware reservation does not belong to this project",
            ));
        }
        if let Some(holder) = r.live.device {
            let failed = self
                .devices
                .get(&holder)
                .is_some_and(|d| d.state(&self.timings, now) == DeviceState::Failed);
            return Err(ApiError::unprocessable(if failed {
                NOT_PROVISIONABLE
            } else {
                "Hardware reservation already has a device provisioned on it"
            }));
        }
        if !r.provisionable(now) {
            return Err(ApiError::unprocessable(
                "Hardware reservation is not provisionable yet",
            ));
        }
        let (plan, facility) = (r.rec.plan.clone(), r.rec.facility.clone());
        let plan_ok = f.plan == plan
            || self
                .catalog
                .plan(&plan)
                .and_then(|p| p.id)
                .is_some_and(|id| id.to_string() == f.plan);
        if !plan_ok {
            return Err(ApiError::unprocessable(format!(
                "Plan {} does not match the hardware reservation's plan {plan}",
                f.plan
            )));
        }
        if !self.matches_place(&plan, &plan, &f, &facility) {
            let refusal = match (f.metro, self.catalog.facility(&facility)) {
                (Some(metro), Some(fac)) => format!(
                    "Metro {metro} does not match the hardware reservation's metro {}",
                    fac.metro
                ),
                _ => format!(
                    "Facility does not match the hardware reservation's facility {facility}"
                ),
            };
            return Err(ApiError::unprocessable(refusal));
        }
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
            Kept {
                rec: Device {
                    id,
                    project,
                    reservation: Some(reservation),
                    plan,
                    facility,
                    hostname,
                    operating_system: f.os.to_string(),
                    state: DeviceState::Queued,
                    state_elapsed_seconds: None,
                    description: f.description.cloned(),
                    tags: f.tags.to_vec(),
                    locked: f.locked,
                    always_pxe: f.always_pxe,
                    ipxe_script_url: f.ipxe_script_url.cloned(),
                    billing_cycle: f.billing_cycle,
                    userdata: f.userdata.cloned(),
                    customdata: f.customdata.clone(),
                    reboots: 0,
                    competitor: false,
                },
                live: Live {
                    seq,
                    phase: Phase::Provisioning,
                    since: now,
                    created: now,
                    updated: now,
                    fails,
                    ssh_keys,
                },
            },
        );
        if let (true, Some(after)) = (fails, self.timings.failed_moved_after) {
            let t = self.timings;
            self.schedule(now + t.queued + t.provisioning + after);
        }
        if let Some(r) = self.reservations.get_mut(&reservation) {
            r.live.device = Some(id);
            r.live.released_at = None;
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
                    r.rec.project == project
                        && r.provisionable(now)
                        && self.matches_place(f.plan, &r.rec.plan, f, &r.rec.facility)
                })
                .min_by_key(|r| r.live.seq)
                .map(|r| r.rec.id)
                .ok_or_else(|| ApiError::new(503, NO_RESERVATION_AVAILABLE));
        }
        Uuid::parse_str(text).map_err(|_| {
            ApiError::unprocessable(format!("Invalid hardware_reservation_id {text:?}"))
        })
    }

    /// `performAction`.
    pub(crate) fn act(
        &mut self,
        id: Uuid,
        action: types::DeviceActionInputType,
        now: Instant,
    ) -> Result<(), ApiError> {
        use types::DeviceActionInputType as A;
        use DeviceState as S;
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
            (A::Reinstall, _) => d.live.phase = Phase::Reinstalling,
            (A::Rescue, _) => {
                return Err(ApiError::unprocessable(
                    "Rescue mode is not supported by the fake",
                ))
            }
        }
        if action != A::Reboot {
            d.live.since = now;
        }
        d.live.updated = now;
        Ok(())
    }

    /// `deleteDevice`: refused while locked or not yet provisioned (the
    /// API's 422s); otherwise the device reads as `deprovisioning` until
    /// [`crate::Timings::deprovisioning`] has passed, then is gone, and
    /// its reservation is provisionable again
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
        self.schedule(now + timings.deprovisioning);
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
            if let Some(d) = self.devices.remove(&id) {
                self.free(d.rec.reservation, id, None);
            }
        }
        self.next_settle = next;
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

    /// The SSH keys the API attaches to a new device of `project`: the
    /// project's and the user's, oldest first.
    fn attached_keys(&self, project: Uuid) -> Vec<Uuid> {
        let mut keys: Vec<(u64, Uuid)> = self
            .ssh_keys
            .values()
            .filter(|k| k.rec.project.is_none_or(|p| p == project))
            .map(|k| (k.seq, k.rec.id))
            .collect();
        keys.sort_unstable();
        keys.into_iter().map(|(_, id)| id).collect()
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
        let seq = self.next_seq();
        self.devices.insert(
            id,
            Kept {
                rec: Device {
                    id,
                    project,
                    reservation: Some(reservation),
                    plan,
                    facility,
                    hostname: format!("competitor-{}", &id.simple().to_string()[..8]),
                    operating_system: "ubuntu_24_04".to_string(),
                    state: DeviceState::Queued,
                    state_elapsed_seconds: None,
                    description: None,
                    tags: vec!["competitor".to_string()],
                    locked: false,
                    always_pxe: false,
                    ipxe_script_url: None,
                    billing_cycle: None,
                    userdata: None,
                    customdata: serde_json::Map::new(),
                    reboots: 0,
                    competitor: true,
                },
                live: Live {
                    seq,
                    phase: Phase::Provisioning,
                    since: now,
                    created: now,
                    updated: now,
                    fails: false,
                    ssh_keys: Vec::new(),
                },
            },
        );
        if let Some(r) = self.reservations.get_mut(&reservation) {
            r.live.device = Some(id);
        }
        self.competitor_devices += 1;
        Some(id)
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
