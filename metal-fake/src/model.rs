//! The in-memory Metal world: projects, plans, facilities, hardware
//! reservations, devices and SSH keys, with device lifecycles on the fake's
//! clock ([`tokio::time::Instant`], so paused-clock tests are deterministic).
//!
//! [`World::handle`] is the one place a [`Request`] acts on the model; the
//! in-process transport and the HTTP server both go through it.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use chrono::{DateTime, Utc};
use metal_api::types;
use metal_policy::{KeyOwner, Request, Response};
use tokio::time::Instant;
use uuid::Uuid;

use crate::render::{self, Expand};

/// How long the device lifecycle takes on the fake's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timings {
    /// `queued` lasts this long after a create.
    pub queued: Duration,
    /// Then `provisioning` lasts this long before `active`.
    pub provisioning: Duration,
    /// `powering_off` / `powering_on` last this long.
    pub power: Duration,
    /// `reinstalling` lasts this long.
    pub reinstall: Duration,
    /// After a device is deleted, its reservation becomes provisionable again
    /// after this long.
    pub reservation_release: Duration,
}

impl Default for Timings {
    fn default() -> Self {
        Self {
            queued: Duration::from_secs(5),
            provisioning: Duration::from_secs(60),
            power: Duration::from_secs(5),
            reinstall: Duration::from_secs(60),
            reservation_release: Duration::from_secs(30),
        }
    }
}

impl Timings {
    /// Every phase lasts `d` (handy for tests: `Timings::uniform(ms(10))`).
    pub fn uniform(d: Duration) -> Self {
        Self {
            queued: d,
            provisioning: d,
            power: d,
            reinstall: d,
            reservation_release: d,
        }
    }
}

/// An API refusal: the status and the `errors` of the `Error` body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// The messages.
    pub messages: Vec<String>,
}

impl ApiError {
    fn new(status: u16, message: impl Into<String>) -> Self {
        Self {
            status,
            messages: vec![message.into()],
        }
    }

    pub(crate) fn not_found() -> Self {
        Self::new(404, "Not found")
    }

    pub(crate) fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(422, message)
    }
}

/// What the world is built from (see [`crate::FakeBuilder`]).
#[derive(Clone, Debug)]
pub(crate) struct WorldSpec {
    pub projects: Vec<(Uuid, usize)>,
    pub plans: Vec<String>,
    pub facilities: Vec<(String, String)>,
    pub timings: Timings,
}

#[derive(Clone, Debug)]
struct PlanRec {
    id: Uuid,
    slug: String,
}

#[derive(Clone, Debug)]
struct FacilityRec {
    id: Uuid,
    code: String,
    metro_id: Uuid,
    metro: String,
}

#[derive(Clone, Debug)]
struct ProjectRec {
    name: String,
    created: Instant,
}

#[derive(Clone, Debug)]
struct ReservationRec {
    id: Uuid,
    seq: u64,
    project: Uuid,
    plan: usize,
    facility: usize,
    device: Option<Uuid>,
    /// Not provisionable before this instant (set when a device is deleted).
    released_at: Option<Instant>,
    created: Instant,
}

/// The power/provisioning phase of a device and when it began.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Provisioning,
    PoweringOn,
    PoweringOff,
    Reinstalling,
}

#[derive(Clone, Debug)]
struct DeviceRec {
    id: Uuid,
    seq: u64,
    project: Uuid,
    reservation: Option<Uuid>,
    plan: usize,
    facility: usize,
    os: String,
    hostname: String,
    description: Option<String>,
    tags: Vec<String>,
    locked: bool,
    always_pxe: bool,
    ipxe_script_url: Option<String>,
    userdata: Option<String>,
    customdata: serde_json::Map<String, serde_json::Value>,
    billing_cycle: Option<String>,
    phase: Phase,
    since: Instant,
    created: Instant,
    updated: Instant,
    reboots: u32,
    competitor: bool,
}

#[derive(Clone, Debug)]
struct SshKeyRec {
    id: Uuid,
    seq: u64,
    owner: KeyOwner,
    label: String,
    key: String,
    tags: Vec<String>,
    created: Instant,
    updated: Instant,
}

/// The state of the fake Metal API.
#[derive(Debug)]
pub(crate) struct World {
    timings: Timings,
    epoch: Instant,
    epoch_wall: DateTime<Utc>,
    user: Uuid,
    plans: Vec<PlanRec>,
    facilities: Vec<FacilityRec>,
    projects: BTreeMap<Uuid, ProjectRec>,
    reservations: HashMap<Uuid, ReservationRec>,
    devices: HashMap<Uuid, DeviceRec>,
    ssh_keys: HashMap<Uuid, SshKeyRec>,
    seq: u64,
    /// Devices ever created through the API (not by a competitor).
    pub(crate) devices_created: u64,
    /// Devices a competitor placed.
    pub(crate) competitor_devices: u64,
}

/// Counts of the world's contents, for `/_fake/state` and tests.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct WorldCounts {
    /// Devices by the state they report now.
    pub devices_by_state: BTreeMap<String, u64>,
    /// Reservations holding a device.
    pub reservations_with_device: u64,
    /// Reservations without a device.
    pub reservations_without_device: u64,
    /// Reservations a create would succeed on now.
    pub reservations_provisionable: u64,
    /// SSH keys (user and project).
    pub ssh_keys: u64,
    /// Devices created through the API since the start.
    pub devices_created: u64,
    /// Devices placed by an injected competitor.
    pub competitor_devices: u64,
    /// Reboots performed.
    pub reboots: u64,
}

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
    pub(crate) fn new(spec: &WorldSpec, now: Instant) -> Self {
        let plans: Vec<PlanRec> = if spec.plans.is_empty() {
            vec!["c3.small.x86".to_string()]
        } else {
            spec.plans.clone()
        }
        .into_iter()
        .map(|slug| PlanRec {
            id: Uuid::new_v4(),
            slug,
        })
        .collect();
        let mut metro_ids: HashMap<String, Uuid> = HashMap::new();
        let facilities: Vec<FacilityRec> = if spec.facilities.is_empty() {
            vec![("da11".to_string(), "da".to_string())]
        } else {
            spec.facilities.clone()
        }
        .into_iter()
        .map(|(code, metro)| FacilityRec {
            id: Uuid::new_v4(),
            metro_id: *metro_ids.entry(metro.clone()).or_insert_with(Uuid::new_v4),
            code,
            metro,
        })
        .collect();
        let epoch_wall = DateTime::from_timestamp(Utc::now().timestamp(), 0).unwrap_or_default();
        let mut world = Self {
            timings: spec.timings,
            epoch: now,
            epoch_wall,
            user: Uuid::new_v4(),
            plans,
            facilities,
            projects: BTreeMap::new(),
            reservations: HashMap::new(),
            devices: HashMap::new(),
            ssh_keys: HashMap::new(),
            seq: 0,
            devices_created: 0,
            competitor_devices: 0,
        };
        for (n, (project, count)) in spec.projects.iter().enumerate() {
            world.projects.insert(
                *project,
                ProjectRec {
                    name: format!("fake project {}", n + 1),
                    created: now,
                },
            );
            for i in 0..*count {
                let seq = world.next_seq();
                let id = Uuid::new_v4();
                world.reservations.insert(
                    id,
                    ReservationRec {
                        id,
                        seq,
                        project: *project,
                        plan: i % world.plans.len(),
                        facility: i % world.facilities.len(),
                        device: None,
                        released_at: None,
                        created: now,
                    },
                );
            }
        }
        world
    }

    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    fn wall(&self, at: Instant) -> DateTime<Utc> {
        let since = at.saturating_duration_since(self.epoch);
        self.epoch_wall + chrono::Duration::from_std(since).unwrap_or_default()
    }

    /// Acts on one request at `now`.
    pub(crate) fn handle(&mut self, request: &Request, now: Instant) -> Result<Response, ApiError> {
        match request {
            Request::GetProject { id } => {
                let project = self.project(*id, now)?;
                Ok(Response::Project(Box::new(project)))
            }
            Request::GetDevice {
                id,
                include,
                exclude,
            } => {
                let expand = Expand::parse(include.as_deref(), exclude.as_deref());
                let rec = self.devices.get(id).ok_or_else(ApiError::not_found)?;
                Ok(Response::Device(Box::new(self.device(rec, &expand, now))))
            }
            Request::ListDevices {
                project,
                page,
                per_page,
                include,
            } => {
                self.projects.get(project).ok_or_else(ApiError::not_found)?;
                let expand = Expand::parse(include.as_deref(), None);
                let mut recs: Vec<&DeviceRec> = self
                    .devices
                    .values()
                    .filter(|d| d.project == *project)
                    .collect();
                recs.sort_by_key(|d| d.seq);
                let path = format!("{}/devices", render::project_href(*project));
                let (recs, meta) = render::paginate(recs, *page, *per_page, &path);
                Ok(Response::Devices(types::DeviceList {
                    devices: recs
                        .into_iter()
                        .map(|d| self.device(d, &expand, now))
                        .collect(),
                    meta: Some(meta),
                }))
            }
            Request::CreateDevice { project, body } => {
                let id = self.create_device(*project, body, now)?;
                let rec = self.devices.get(&id).ok_or_else(ApiError::not_found)?;
                Ok(Response::Device(Box::new(self.device(
                    rec,
                    &Expand::default(),
                    now,
                ))))
            }
            Request::UpdateDevice { id, body } => {
                let rec = self.devices.get_mut(id).ok_or_else(ApiError::not_found)?;
                apply_update(rec, body, now);
                let rec = self.devices.get(id).ok_or_else(ApiError::not_found)?;
                Ok(Response::Device(Box::new(self.device(
                    rec,
                    &Expand::default(),
                    now,
                ))))
            }
            Request::DeviceAction { id, action } => {
                self.act(*id, *action, now)?;
                Ok(Response::Empty)
            }
            Request::DeleteDevice { id, force: _ } => {
                self.delete_device(*id, now)?;
                Ok(Response::Empty)
            }
            Request::ListReservations {
                project,
                page,
                per_page,
                include,
            } => {
                self.projects.get(project).ok_or_else(ApiError::not_found)?;
                let expand = Expand::parse(include.as_deref(), None);
                let mut recs: Vec<&ReservationRec> = self
                    .reservations
                    .values()
                    .filter(|r| r.project == *project)
                    .collect();
                recs.sort_by_key(|r| r.seq);
                let path = format!("{}/hardware-reservations", render::project_href(*project));
                let (recs, meta) = render::paginate(recs, *page, *per_page, &path);
                Ok(Response::Reservations(types::HardwareReservationList {
                    hardware_reservations: recs
                        .into_iter()
                        .map(|r| self.reservation(r, &expand, now))
                        .collect(),
                    meta: Some(meta),
                }))
            }
            Request::GetReservation { id, include } => {
                let expand = Expand::parse(include.as_deref(), None);
                let rec = self.reservations.get(id).ok_or_else(ApiError::not_found)?;
                Ok(Response::Reservation(Box::new(
                    self.reservation(rec, &expand, now),
                )))
            }
            Request::MoveReservation { id, project } => {
                if !self.projects.contains_key(project) {
                    return Err(ApiError::unprocessable("Project not found"));
                }
                let rec = self
                    .reservations
                    .get_mut(id)
                    .ok_or_else(ApiError::not_found)?;
                if rec.device.is_some() && rec.project != *project {
                    return Err(ApiError::unprocessable(
                        "Cannot move a hardware reservation that has a device",
                    ));
                }
                rec.project = *project;
                let rec = self.reservations.get(id).ok_or_else(ApiError::not_found)?;
                Ok(Response::Reservation(Box::new(self.reservation(
                    rec,
                    &Expand::default(),
                    now,
                ))))
            }
            Request::ListSshKeys { owner } => {
                if let KeyOwner::Project(p) = owner {
                    self.projects.get(p).ok_or_else(ApiError::not_found)?;
                }
                let mut recs: Vec<&SshKeyRec> = self
                    .ssh_keys
                    .values()
                    .filter(|k| k.owner == *owner)
                    .collect();
                recs.sort_by_key(|k| k.seq);
                Ok(Response::SshKeys(types::SshKeyList {
                    ssh_keys: recs.into_iter().map(|k| self.ssh_key(k)).collect(),
                }))
            }
            Request::GetSshKey { id } => {
                let rec = self.ssh_keys.get(id).ok_or_else(ApiError::not_found)?;
                Ok(Response::SshKey(Box::new(self.ssh_key(rec))))
            }
            Request::CreateSshKey { owner, body } => {
                let id = self.create_ssh_key(*owner, body, now)?;
                let rec = self.ssh_keys.get(&id).ok_or_else(ApiError::not_found)?;
                Ok(Response::SshKey(Box::new(self.ssh_key(rec))))
            }
            Request::UpdateSshKey { id, body } => {
                let owner = self.ssh_keys.get(id).ok_or_else(ApiError::not_found)?.owner;
                if let Some(key) = &body.key {
                    check_public_key(key)?;
                    self.check_key_unique(owner, key, Some(*id))?;
                }
                let rec = self.ssh_keys.get_mut(id).ok_or_else(ApiError::not_found)?;
                if let Some(label) = &body.label {
                    rec.label.clone_from(label);
                }
                if let Some(key) = &body.key {
                    rec.key.clone_from(key);
                }
                if !body.tags.is_empty() {
                    rec.tags.clone_from(&body.tags);
                }
                rec.updated = now;
                let rec = self.ssh_keys.get(id).ok_or_else(ApiError::not_found)?;
                Ok(Response::SshKey(Box::new(self.ssh_key(rec))))
            }
            Request::DeleteSshKey { id } => {
                self.ssh_keys.remove(id).ok_or_else(ApiError::not_found)?;
                Ok(Response::Empty)
            }
            _ => Err(ApiError::new(
                501,
                format!("{} is not served by the fake", request.operation()),
            )),
        }
    }

    fn create_device(
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
        if rec.device.is_some() {
            return Err(ApiError::unprocessable(
                "Hardware reservation already has a device provisioned on it",
            ));
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
            },
        );
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
        if text == "next-available" {
            let mut free: Vec<&ReservationRec> = self
                .reservations
                .values()
                .filter(|r| {
                    r.project == project
                        && self.provisionable(r, now)
                        && self.plans[r.plan].slug == f.plan
                })
                .collect();
            free.sort_by_key(|r| r.seq);
            return free.first().map(|r| r.id).ok_or_else(|| {
                ApiError::unprocessable("No provisionable hardware reservation is available")
            });
        }
        Uuid::parse_str(text).map_err(|_| {
            ApiError::unprocessable(format!("Invalid hardware_reservation_id {text:?}"))
        })
    }

    fn provisionable(&self, r: &ReservationRec, now: Instant) -> bool {
        r.device.is_none() && r.released_at.is_none_or(|t| now >= t)
    }

    fn act(
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
        match (action, state) {
            (_, "queued" | "provisioning" | "reinstalling") => return Err(busy(state)),
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

    fn delete_device(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        let rec = self.devices.get(&id).ok_or_else(ApiError::not_found)?;
        if rec.locked {
            return Err(ApiError::unprocessable(
                "Device is locked; unlock it before deleting",
            ));
        }
        let reservation = rec.reservation;
        self.devices.remove(&id);
        if let Some(r) = reservation.and_then(|r| self.reservations.get_mut(&r)) {
            r.device = None;
            r.released_at = Some(now + self.timings.reservation_release);
        }
        Ok(())
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
            },
        );
        if let Some(r) = self.reservations.get_mut(&reservation) {
            r.device = Some(id);
        }
        self.competitor_devices += 1;
        Some(id)
    }

    fn create_ssh_key(
        &mut self,
        owner: KeyOwner,
        body: &types::SshKeyCreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        if let KeyOwner::Project(p) = owner {
            self.projects.get(&p).ok_or_else(ApiError::not_found)?;
        }
        let key = body.key.as_deref().unwrap_or_default();
        check_public_key(key)?;
        self.check_key_unique(owner, key, None)?;
        let id = Uuid::new_v4();
        let seq = self.next_seq();
        self.ssh_keys.insert(
            id,
            SshKeyRec {
                id,
                seq,
                owner,
                label: body.label.clone().unwrap_or_default(),
                key: key.to_string(),
                tags: body.tags.clone(),
                created: now,
                updated: now,
            },
        );
        Ok(id)
    }

    fn check_key_unique(
        &self,
        owner: KeyOwner,
        key: &str,
        except: Option<Uuid>,
    ) -> Result<(), ApiError> {
        let taken = self
            .ssh_keys
            .values()
            .any(|k| k.owner == owner && k.key == key && Some(k.id) != except);
        if taken {
            return Err(ApiError::unprocessable(
                "Fingerprint has already been taken",
            ));
        }
        Ok(())
    }

    // ----- rendering -----

    fn plan(&self, i: usize) -> types::Plan {
        let p = &self.plans[i];
        types::Plan {
            id: Some(p.id),
            slug: Some(p.slug.clone()),
            name: Some(p.slug.clone()),
            class: Some(p.slug.clone()),
            line: Some("baremetal".to_string()),
            type_: Some("standard".to_string()),
            ..Default::default()
        }
    }

    fn metro(&self, i: usize) -> types::DeviceMetro {
        let f = &self.facilities[i];
        types::DeviceMetro(types::Metro {
            id: Some(f.metro_id),
            code: Some(f.metro.clone()),
            name: Some(f.metro.to_uppercase()),
            country: Some("US".to_string()),
        })
    }

    fn facility(&self, i: usize) -> types::Facility {
        let f = &self.facilities[i];
        types::Facility {
            id: Some(f.id),
            code: Some(f.code.clone()),
            name: Some(format!("Facility {}", f.code)),
            features: vec!["baremetal".to_string()],
            metro: Some(self.metro(i)),
            ..Default::default()
        }
    }

    fn project(&self, id: Uuid, _now: Instant) -> Result<types::Project, ApiError> {
        let p = self.projects.get(&id).ok_or_else(ApiError::not_found)?;
        Ok(types::Project {
            id: Some(id),
            href: Some(render::project_href(id)),
            // The spec subset may or may not keep `name`'s length limits (a
            // checked newtype or a plain String): this converts to either.
            #[allow(clippy::useless_conversion)]
            name: p.name.clone().try_into().ok(),
            created_at: Some(self.wall(p.created)),
            updated_at: Some(self.wall(p.created)),
            type_: Some("default".to_string()),
            ..Default::default()
        })
    }

    fn project_field(&self, id: Uuid, include: bool, now: Instant) -> types::Project {
        if include {
            if let Ok(p) = self.project(id, now) {
                return p;
            }
        }
        types::Project {
            href: Some(render::project_href(id)),
            ..Default::default()
        }
    }

    fn device(&self, d: &DeviceRec, expand: &Expand, now: Instant) -> types::Device {
        let reservation = d.reservation.map(|r| {
            let nested = expand.nested("hardware_reservation");
            match self.reservations.get(&r) {
                Some(rec) if expand.includes("hardware_reservation") => {
                    // The reservation's own device is this one: keep it a stub.
                    let mut res = self.reservation(rec, &nested, now);
                    res.device = Some(Box::new(types::Device {
                        href: Some(render::device_href(d.id)),
                        ..Default::default()
                    }));
                    res
                }
                _ => types::HardwareReservation {
                    href: Some(render::reservation_href(r)),
                    ..Default::default()
                },
            }
        });
        types::Device {
            id: Some(d.id),
            href: Some(render::device_href(d.id)),
            short_id: Some(d.id.simple().to_string()[..8].to_string()),
            hostname: Some(d.hostname.clone()),
            description: d.description.clone(),
            state: Some(state_of(d, &self.timings, now).to_string()),
            tags: d.tags.clone(),
            locked: Some(d.locked),
            always_pxe: Some(d.always_pxe),
            ipxe_script_url: d.ipxe_script_url.clone(),
            userdata: d.userdata.clone(),
            customdata: d.customdata.clone(),
            billing_cycle: d.billing_cycle.clone(),
            spot_instance: Some(false),
            created_at: Some(self.wall(d.created)),
            updated_at: Some(self.wall(d.updated)),
            plan: (!expand.excludes("plan")).then(|| self.plan(d.plan)),
            facility: (!expand.excludes("facility")).then(|| self.facility(d.facility)),
            metro: (!expand.excludes("metro")).then(|| self.metro(d.facility)),
            operating_system: Some(types::OperatingSystem {
                slug: Some(d.os.clone()),
                name: Some(d.os.clone()),
                ..Default::default()
            }),
            project: Some(self.project_field(d.project, expand.includes("project"), now)),
            project_lite: Some(types::DeviceProjectLite(types::Href {
                href: render::project_href(d.project),
            })),
            hardware_reservation: reservation,
            ..Default::default()
        }
    }

    fn reservation(
        &self,
        r: &ReservationRec,
        expand: &Expand,
        now: Instant,
    ) -> types::HardwareReservation {
        let device = r.device.map(|id| {
            Box::new(match self.devices.get(&id) {
                Some(d) if expand.includes("device") => {
                    let mut device = self.device(d, &expand.nested("device"), now);
                    device.hardware_reservation = Some(types::HardwareReservation {
                        href: Some(render::reservation_href(r.id)),
                        ..Default::default()
                    });
                    device
                }
                _ => types::Device {
                    href: Some(render::device_href(id)),
                    ..Default::default()
                },
            })
        });
        types::HardwareReservation {
            id: Some(r.id),
            href: Some(render::reservation_href(r.id)),
            short_id: Some(r.id.simple().to_string()[..8].to_string()),
            created_at: Some(self.wall(r.created)),
            provisionable: Some(self.provisionable(r, now)),
            spare: Some(false),
            need_of_service: Some(false),
            plan: (!expand.excludes("plan")).then(|| self.plan(r.plan)),
            facility: (!expand.excludes("facility")).then(|| self.facility(r.facility)),
            project: Some(self.project_field(r.project, expand.includes("project"), now)),
            device,
            ..Default::default()
        }
    }

    fn ssh_key(&self, k: &SshKeyRec) -> types::SshKey {
        let entity = match k.owner {
            KeyOwner::User => render::user_href(self.user),
            KeyOwner::Project(p) => render::project_href(p),
        };
        types::SshKey {
            id: Some(k.id),
            href: Some(render::ssh_key_href(k.id)),
            label: Some(k.label.clone()),
            key: Some(k.key.clone()),
            fingerprint: Some(fingerprint(&k.key)),
            tags: k.tags.clone(),
            created_at: Some(self.wall(k.created)),
            updated_at: Some(self.wall(k.updated)),
            entity: Some(types::Href { href: entity }),
        }
    }

    // ----- inspection -----

    /// Every device, rendered with its project included, in creation order.
    pub(crate) fn all_devices(&self, now: Instant) -> Vec<types::Device> {
        let mut recs: Vec<&DeviceRec> = self.devices.values().collect();
        recs.sort_by_key(|d| d.seq);
        let expand = Expand::parse(Some("project,hardware_reservation"), None);
        recs.into_iter()
            .map(|d| self.device(d, &expand, now))
            .collect()
    }

    /// Every reservation with its device included, in creation order.
    pub(crate) fn all_reservations(&self, now: Instant) -> Vec<types::HardwareReservation> {
        let mut recs: Vec<&ReservationRec> = self.reservations.values().collect();
        recs.sort_by_key(|r| r.seq);
        let expand = Expand::parse(Some("device,project"), None);
        recs.into_iter()
            .map(|r| self.reservation(r, &expand, now))
            .collect()
    }

    /// Reboots performed on a device, `None` for an unknown device.
    pub(crate) fn reboots(&self, id: Uuid) -> Option<u32> {
        self.devices.get(&id).map(|d| d.reboots)
    }

    pub(crate) fn counts(&self, now: Instant) -> WorldCounts {
        let mut c = WorldCounts {
            ssh_keys: self.ssh_keys.len() as u64,
            devices_created: self.devices_created,
            competitor_devices: self.competitor_devices,
            ..Default::default()
        };
        for d in self.devices.values() {
            *c.devices_by_state
                .entry(state_of(d, &self.timings, now).to_string())
                .or_default() += 1;
            c.reboots += u64::from(d.reboots);
        }
        for r in self.reservations.values() {
            if r.device.is_some() {
                c.reservations_with_device += 1;
            } else {
                c.reservations_without_device += 1;
            }
            if self.provisionable(r, now) {
                c.reservations_provisionable += 1;
            }
        }
        c
    }

    /// Whether a device was placed by a competitor.
    pub(crate) fn is_competitor(&self, id: Uuid) -> bool {
        self.devices.get(&id).is_some_and(|d| d.competitor)
    }
}

fn apply_update(rec: &mut DeviceRec, body: &types::DeviceUpdateInput, now: Instant) {
    if let Some(h) = &body.hostname {
        rec.hostname.clone_from(h);
    }
    if let Some(d) = &body.description {
        rec.description = Some(d.clone());
    }
    if !body.tags.is_empty() {
        rec.tags.clone_from(&body.tags);
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
    if !body.customdata.is_empty() {
        rec.customdata.clone_from(&body.customdata);
    }
    if let Some(b) = &body.billing_cycle {
        rec.billing_cycle = Some(b.clone());
    }
    rec.updated = now;
}

/// The state a device reports at `now`.
fn state_of(d: &DeviceRec, t: &Timings, now: Instant) -> &'static str {
    let elapsed = now.saturating_duration_since(d.since);
    let settled = |d: Duration| elapsed >= d;
    match d.phase {
        Phase::Provisioning if !settled(t.queued) => "queued",
        Phase::Provisioning if !settled(t.queued + t.provisioning) => "provisioning",
        Phase::PoweringOn if !settled(t.power) => "powering_on",
        Phase::PoweringOff if !settled(t.power) => "powering_off",
        Phase::PoweringOff => "inactive",
        Phase::Reinstalling if !settled(t.reinstall) => "reinstalling",
        Phase::Provisioning | Phase::PoweringOn | Phase::Reinstalling => "active",
    }
}

fn check_public_key(key: &str) -> Result<(), ApiError> {
    let mut parts = key.split_whitespace();
    let kind = parts.next().unwrap_or_default();
    let body = parts.next().unwrap_or_default();
    let known = kind.starts_with("ssh-") || kind.starts_with("ecdsa-");
    if key.trim().is_empty() {
        return Err(ApiError::unprocessable("Key can't be blank"));
    }
    if !known || body.is_empty() {
        return Err(ApiError::unprocessable("Key is not a valid public key"));
    }
    Ok(())
}

/// An MD5-style colon-separated fingerprint (FNV-based; stable, not MD5).
fn fingerprint(key: &str) -> String {
    let mut out = Vec::with_capacity(16);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for round in 0..2u8 {
        for b in key.bytes().chain([round]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        out.extend_from_slice(&h.to_be_bytes());
    }
    out.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}
