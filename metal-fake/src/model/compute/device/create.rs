//! Creating a device: the request as clients send it (a metro, one
//! facility or a list of them, or neither when the named reservation says
//! where), the reservation it lands on (named, or `next-available`) or,
//! without one, the machine it takes on demand (`on_demand`), and the SSH
//! keys it gets.

use metal_api::types;
use serde_json::Value;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Device, DeviceState};
use super::rules::Fields;
use crate::call::{decode, ApiError, Call};
use crate::model::bounds::MAX_KEYS_PER_OWNER;
use crate::model::ssh_key::{check_bounds, check_public_key};
use crate::model::World;

/// The API's refusal to provision on a reservation whose device failed.
pub(crate) const NOT_PROVISIONABLE: &str = "Server is not provisionable";

/// The `hardware_reservation_id` that asks the API to choose a reservation.
const NEXT_AVAILABLE: &str = "next-available";

/// The real API's message when `next-available` finds no reservation
/// (kubernetes-retired/cluster-api-provider-packet issue 191), with `503`.
pub(crate) const NO_RESERVATION_AVAILABLE: &str =
    "There are no available hardware reservations for selected plan and facility";

/// Reads a `createDevice` body. The spec's body is one of two shapes, one
/// naming a `metro`, one a `facility` list; the real API also takes
/// `facility` as one string (upstream's `FacilityInput` is "anyOf array,
/// string"), and a body naming neither, whose device goes where its
/// hardware reservation is (Monogon's shepherd sends only
/// `hardware_reservation_id`). A body with `metro` is read as the metro
/// shape, whatever else it names.
pub(crate) fn read_create(call: &Call) -> Result<types::CreateDeviceRequest, ApiError> {
    read_create_body(call.json_value()?)
}

/// Reads one `createDevice` body already parsed as JSON (a device batch's
/// entries are such bodies), as [`read_create`] reads a call's.
pub(crate) fn read_create_body(mut body: Value) -> Result<types::CreateDeviceRequest, ApiError> {
    let Value::Object(fields) = &mut body else {
        return decode(body);
    };
    // `features` as an object of names to `required` or `preferred`
    // (packngo's `map[string]string`): the list of the required ones, as
    // the list form means them all required; the fake places by no feature.
    if let Some(Value::Object(named)) = fields.get("features") {
        let required = named
            .iter()
            .filter(|(_, v)| v.as_str() == Some("required"))
            .map(|(k, _)| Value::String(k.clone()))
            .collect();
        fields.insert("features".into(), Value::Array(required));
    }
    // `tags` as an empty object (packet-python's `create_device` default,
    // `tags={}`): no tags; an object with members stays refused.
    if matches!(fields.get("tags"), Some(Value::Object(m)) if m.is_empty()) {
        fields.insert("tags".into(), Value::Array(Vec::new()));
    }
    if fields.contains_key("metro") {
        return decode::<types::DeviceCreateInMetroInput>(body).map(Into::into);
    }
    match fields.get_mut("facility") {
        Some(one @ Value::String(_)) => *one = Value::Array(vec![one.take()]),
        Some(_) => {}
        None => {
            fields.insert("facility".into(), Value::Array(Vec::new()));
        }
    }
    decode::<types::DeviceCreateInFacilityInput>(body).map(Into::into)
}

/// The fields of a create request, whichever shape it came in.
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
    ip_addresses: &'a [types::IpAddress],
    keys: KeyRequest<'a>,
    spot_instance: bool,
    spot_price_max: Option<f64>,
    termination_time: Option<chrono::DateTime<chrono::Utc>>,
}

/// The SSH keys a create request names.
struct KeyRequest<'a> {
    project: &'a [Uuid],
    user: &'a [Uuid],
    given: &'a [types::SshKeyInput],
    none: bool,
}

/// Fills a [`CreateFields`] from either shape (the two have the same
/// fields but `metro` and `facility`).
macro_rules! create_fields {
    ($b:expr, $metro:expr, $facilities:expr) => {
        CreateFields {
            reservation: &$b.hardware_reservation_id,
            plan: &$b.plan,
            os: &$b.operating_system,
            hostname: $b.hostname.as_ref(),
            description: $b.description.as_ref(),
            tags: &$b.tags,
            locked: $b.locked,
            always_pxe: $b.always_pxe,
            ipxe_script_url: $b.ipxe_script_url.as_ref(),
            userdata: $b.userdata.as_ref(),
            customdata: &$b.customdata,
            billing_cycle: $b.billing_cycle.map(|c| c.to_string()),
            metro: $metro,
            facilities: $facilities,
            ip_addresses: &$b.ip_addresses,
            spot_instance: $b.spot_instance.unwrap_or(false),
            spot_price_max: $b
                .spot_price_max
                .map(crate::model::compute::spot_market::price::decimal),
            termination_time: $b.termination_time,
            keys: KeyRequest {
                project: &$b.project_ssh_keys,
                user: &$b.user_ssh_keys,
                given: &$b.ssh_keys,
                none: $b.no_ssh_keys,
            },
        }
    };
}

impl<'a> CreateFields<'a> {
    fn of(body: &'a types::CreateDeviceRequest) -> Self {
        match body {
            types::CreateDeviceRequest::MetroInput(b) => create_fields!(b, Some(&b.metro), &[]),
            types::CreateDeviceRequest::FacilityInput(b) => create_fields!(b, None, &b.facility),
        }
    }

    /// Whether the request says where (a metro, or facilities); a request
    /// that does not goes where its reservation is.
    fn has_place(&self) -> bool {
        self.metro.is_some() || !self.facilities.is_empty()
    }
}

/// The hardware reservation a create request names, for a competitor
/// fault to take first (`None` for `next-available` or a malformed ID).
pub(crate) fn contested(body: &types::CreateDeviceRequest) -> Option<Uuid> {
    Uuid::parse_str(CreateFields::of(body).reservation).ok()
}

/// One SSH key a new device gets: one the world has, or one its request
/// gives that the world does not have yet (made a key of the project).
enum KeyChoice<'a> {
    Kept(Uuid),
    New(&'a types::SshKeyInput),
}

impl World {
    /// Whether `plan` (a slug or ID) names the plan with this slug, and
    /// the request's place (a metro, or facilities; none: anywhere) the
    /// facility with this code.
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
            None if f.facilities.is_empty() => true,
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
        // Only `next-available` and on-demand creates need a place to
        // choose in; a named reservation is where it is.
        let on_demand = f.reservation.trim().is_empty();
        let choosing = on_demand || f.reservation.trim() == NEXT_AVAILABLE;
        if f.metro.is_some_and(|m| m.trim().is_empty()) || (choosing && !f.has_place()) {
            missing.push("metro or facility is required".to_string());
        }
        if f.termination_time
            .is_some_and(|t| self.clock.instant(t) <= now)
        {
            missing.push("termination_time must be in the future".to_string());
        }
        if !missing.is_empty() {
            return Err(ApiError {
                status: 422,
                messages: missing,
            });
        }
        if on_demand {
            return self.create_on_demand(project, &f, now);
        }
        let reservation = self.pick_reservation(project, &f)?;
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
                .is_some_and(|d| d.state() == DeviceState::Failed);
            return Err(ApiError::unprocessable(if failed {
                NOT_PROVISIONABLE
            } else {
                "Hardware reservation already has a device provisioned on it"
            }));
        }
        if !r.provisionable() {
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
        self.make_device(project, &f, Some(reservation), (plan, facility), now)
    }

    /// The device of a create whose every other check has passed: its SSH
    /// keys chosen (refused as [`World::choose_keys`] says, before anything
    /// changes), then made, queued from `now` on `reservation` (or none,
    /// on demand) with `(plan, facility)`.
    fn make_device(
        &mut self,
        project: Uuid,
        f: &CreateFields<'_>,
        reservation: Option<Uuid>,
        (plan, facility): (String, String),
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        let chosen = self.choose_keys(project, &f.keys)?;
        let addresses = self.asked_addresses(project, &facility, f.ip_addresses, f.os)?;
        // Every check has passed: from here on the create happens.
        let mut ssh_keys = Vec::with_capacity(chosen.len());
        for choice in chosen {
            ssh_keys.push(match choice {
                KeyChoice::Kept(id) => id,
                KeyChoice::New(k) => self.insert_ssh_key(
                    Some(project),
                    k.label.as_deref().unwrap_or_default(),
                    k.key.as_deref().unwrap_or_default(),
                    k.tags.as_deref().unwrap_or_default(),
                    now,
                )?,
            });
        }
        let id = Uuid::new_v4();
        let hostname = f
            .hostname
            .cloned()
            .unwrap_or_else(|| format!("fake-{}", &id.simple().to_string()[..8]));
        let fails = self.devices.failures.next(&hostname);
        let public_ipv4_assignment = addresses
            .from_block
            .map(|block| self.assign_at_create(id, block, now));
        let rec = Device {
            own_addresses: addresses.own,
            own_cidrs: addresses.cidrs,
            public_ipv4_assignment,
            description: f.description.cloned(),
            tags: f.tags.to_vec(),
            locked: f.locked,
            always_pxe: f.always_pxe,
            ipxe_script_url: f.ipxe_script_url.cloned(),
            billing_cycle: f.billing_cycle.clone(),
            userdata: f.userdata.cloned(),
            customdata: f.customdata.clone(),
            spot_instance: f.spot_instance,
            spot_price_max: f.spot_instance.then_some(f.spot_price_max).flatten(),
            termination_time: f.termination_time,
            ..Device::queued(
                id,
                project,
                reservation,
                (plan, facility),
                hostname,
                f.os.to_string(),
            )
        };
        // The project's pre-created blocks of the device's facility and
        // metro come first (older than the device, so lists show them
        // before its own blocks).
        self.ensure_precreated(rec.project, &rec.facility, now);
        self.place_device(rec, fails, ssh_keys, now);
        self.devices.created += 1;
        Ok(id)
    }

    /// An on-demand create (no `hardware_reservation_id`): the plan,
    /// operating system and place checked against the catalog, a machine
    /// taken from the place's capacity once the device is made.
    fn create_on_demand(
        &mut self,
        project: Uuid,
        f: &CreateFields<'_>,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        let m = self.on_demand_machine(f.plan, f.os, f.metro, f.facilities, f.spot_instance)?;
        if f.spot_instance {
            // A spot instance's bid is checked against the market price
            // where its machine is (`model/compute/spot_market`).
            self.check_spot_bid(&m.plan, &m.facility, f.spot_price_max)?;
        }
        let id = self.make_device(project, f, None, (m.plan, m.facility), now)?;
        self.take_machine(m.pool, id);
        Ok(id)
    }

    /// The keys of `project` and the user's (those a new device of the
    /// project may get), through the keys' index by project.
    fn mine_keys(&self, project: Uuid) -> impl Iterator<Item = &crate::model::ssh_key::Kept> + '_ {
        self.ssh_keys
            .of_project(Some(project))
            .chain(self.ssh_keys.of_project(None))
    }

    fn pick_reservation(&self, project: Uuid, f: &CreateFields<'_>) -> Result<Uuid, ApiError> {
        let text = f.reservation.trim();
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
                        && r.provisionable()
                        && self.matches_place(f.plan, &r.rec.plan, f, &r.rec.facility)
                })
                .min_by_key(|r| r.meta.seq)
                .map(|r| r.rec.id)
                .ok_or_else(|| ApiError::new(503, NO_RESERVATION_AVAILABLE));
        }
        Uuid::parse_str(text).map_err(|_| {
            ApiError::unprocessable(format!("Invalid hardware_reservation_id {text:?}"))
        })
    }

    /// The SSH keys a new device of `project` gets, as the spec describes
    /// `project_ssh_keys`, `user_ssh_keys` and `ssh_keys`: exactly those
    /// named, when any is; otherwise every key of the project and of the
    /// user (oldest first), unless `no_ssh_keys`. A key the request names
    /// that the world does not have is `422`, and nothing is made.
    ///
    /// - `project_ssh_keys`: IDs of the project's keys.
    /// - `user_ssh_keys`: user IDs, whose keys all go (the fake has one
    ///   user); an ID of one of the user's keys is taken too, as the
    ///   Terraform provider documents its `user_ssh_key_ids`.
    /// - `ssh_keys`: keys by their text: one the project or the user has
    ///   is that key, another becomes a new key of the project.
    fn choose_keys<'a>(
        &self,
        project: Uuid,
        req: &KeyRequest<'a>,
    ) -> Result<Vec<KeyChoice<'a>>, ApiError> {
        if req.project.is_empty() && req.user.is_empty() && req.given.is_empty() {
            if req.none {
                return Ok(Vec::new());
            }
            // The project's keys and the user's, through the table's
            // index (a key's scope is its project), not every key.
            let mut all: Vec<_> = self.mine_keys(project).collect();
            all.sort_by_key(|k| k.meta.seq);
            return Ok(all.into_iter().map(|k| KeyChoice::Kept(k.rec.id)).collect());
        }
        let mut chosen: Vec<KeyChoice<'a>> = Vec::new();
        let take = |chosen: &mut Vec<KeyChoice<'a>>, id: Uuid| {
            if !chosen
                .iter()
                .any(|c| matches!(c, KeyChoice::Kept(k) if *k == id))
            {
                chosen.push(KeyChoice::Kept(id));
            }
        };
        for id in req.project {
            match self.ssh_keys.get(id) {
                Some(k) if k.rec.project == Some(project) => take(&mut chosen, *id),
                _ => {
                    return Err(ApiError::unprocessable(format!(
                        "SSH key {id} is not a key of this project"
                    )))
                }
            }
        }
        for id in req.user {
            if *id == self.user {
                let mut theirs: Vec<_> = self.ssh_keys.of_project(None).collect();
                theirs.sort_by_key(|k| k.meta.seq);
                theirs.into_iter().for_each(|k| take(&mut chosen, k.rec.id));
            } else if self
                .ssh_keys
                .get(id)
                .is_some_and(|k| k.rec.project.is_none())
            {
                take(&mut chosen, *id);
            } else {
                return Err(ApiError::unprocessable(format!(
                    "User {id} is not a member of this project"
                )));
            }
        }
        let mut new = 0;
        for given in req.given {
            let text = given.key.as_deref().unwrap_or_default();
            let existing = self
                .mine_keys(project)
                .filter(|k| k.rec.key == text)
                .min_by_key(|k| k.meta.seq);
            match existing {
                Some(k) => take(&mut chosen, k.rec.id),
                None => {
                    let repeated = chosen
                        .iter()
                        .any(|c| matches!(c, KeyChoice::New(k) if k.key.as_deref() == Some(text)));
                    if repeated {
                        continue;
                    }
                    check_bounds(given.label.as_deref(), Some(text), given.tags.as_deref())?;
                    check_public_key(text)?;
                    new += 1;
                    chosen.push(KeyChoice::New(given));
                }
            }
        }
        let held = self.ssh_keys.count_of_project(Some(project));
        if new > 0 && held + new > MAX_KEYS_PER_OWNER {
            return Err(ApiError::unprocessable(format!(
                "SSH keys are too many (maximum is {MAX_KEYS_PER_OWNER} a project, and for the user)"
            )));
        }
        Ok(chosen)
    }
}
