//! The reads the API answers: one record, or one page of a list after the
//! list's filters, rendered with the request's `include`/`exclude`.
//!
//! The filters each list honours, and where their meaning comes from, are
//! in [`crate::fidelity`].

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::records::{state_of, DeviceRec, KeyOwner, ReservationRec, SshKeyRec};
use super::world::World;
use crate::call::{ApiError, Call};
use crate::render::{self, contains_ignoring_case, Expand, DEFAULT_PER_PAGE};

/// Which page of a list a request asks for, how its entries are rendered,
/// and the filters it gave (echoed in the hrefs of `meta`).
pub(crate) struct Listing {
    page: u32,
    per_page: u32,
    expand: Expand,
    echo: Vec<(&'static str, String)>,
}

impl Listing {
    /// Reads `page`, `per_page`, `include`, `exclude` and, to echo, the
    /// filters named in `filters` (and `include`, `exclude`).
    pub(crate) fn of(call: &Call, filters: &[&'static str]) -> Result<Self, ApiError> {
        Ok(Self {
            page: call.number("page", 1)?,
            per_page: call.number("per_page", DEFAULT_PER_PAGE)?,
            expand: Expand::parse(
                call.text("include").as_deref(),
                call.text("exclude").as_deref(),
            ),
            echo: filters
                .iter()
                .chain(&["include", "exclude"])
                .filter_map(|name| Some((*name, call.text(name)?)))
                .collect(),
        })
    }
}

/// A boolean query parameter: `true` or `false`, else `422`.
fn flag(call: &Call, name: &str) -> Result<Option<bool>, ApiError> {
    match call.text(name).as_deref() {
        None => Ok(None),
        Some("true") => Ok(Some(true)),
        Some("false") => Ok(Some(false)),
        Some(_) => Err(ApiError::unprocessable(format!(
            "{name} must be true or false"
        ))),
    }
}

/// An enumerated query parameter: one of `allowed`, else `422`.
fn one_of(call: &Call, name: &str, allowed: &[&str]) -> Result<Option<String>, ApiError> {
    match call.text(name) {
        Some(v) if !allowed.contains(&v.as_str()) => Err(ApiError::unprocessable(format!(
            "{name} must be one of {}",
            allowed.join(", ")
        ))),
        other => Ok(other),
    }
}

/// The filters of `findProjectDevices`.
#[derive(Clone, Debug, Default)]
pub(crate) struct DeviceFilter {
    hostname: Option<String>,
    tag: Option<String>,
    search: Option<String>,
    state: Option<String>,
    reserved: Option<bool>,
    type_: Option<String>,
    metro: Option<String>,
    facility: Option<String>,
    has_termination_time: Option<bool>,
    mac_address: Option<String>,
}

impl DeviceFilter {
    /// The query parameters read here, in the order hrefs echo them.
    pub(crate) const PARAMS: &'static [&'static str] = &[
        "hostname",
        "tag",
        "search",
        "state",
        "reserved",
        "type",
        "metro",
        "facility",
        "has_termination_time",
        "mac_address",
    ];

    /// Reads the filters of a call; a malformed boolean is `422`.
    pub(crate) fn of(call: &Call) -> Result<Self, ApiError> {
        Ok(Self {
            hostname: call.text("hostname"),
            tag: call.text("tag"),
            search: call.text("search"),
            state: call.text("state"),
            reserved: flag(call, "reserved")?,
            type_: call.text("type"),
            metro: call.text("metro"),
            facility: call.text("facility"),
            has_termination_time: flag(call, "has_termination_time")?,
            mac_address: call.text("mac_address"),
        })
    }
}

/// The filters of `findProjectHardwareReservations`.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReservationFilter {
    provisionable_only: bool,
    state: Option<String>,
    facility: Option<String>,
    query: Option<String>,
}

impl ReservationFilter {
    /// The query parameters read here, in the order hrefs echo them.
    pub(crate) const PARAMS: &'static [&'static str] =
        &["provisionable", "state", "facility", "query"];

    /// Reads the filters of a call; a value outside the spec's enumeration
    /// (`provisionable`, `state`) is `422`.
    pub(crate) fn of(call: &Call) -> Result<Self, ApiError> {
        Ok(Self {
            provisionable_only: one_of(call, "provisionable", &["only"])?.is_some(),
            state: one_of(call, "state", &["active", "spare", "need_of_service"])?,
            facility: call.text("facility"),
            query: call.text("query"),
        })
    }
}

/// The search of an SSH key list: `search` (`findSSHKeys`) or `query`
/// (`findProjectSSHKeys`), matched against the key, its label and its
/// fingerprint.
#[derive(Clone, Debug, Default)]
pub(crate) struct KeySearch(Option<String>);

impl KeySearch {
    /// Reads the search parameter `name` of a call.
    pub(crate) fn of(call: &Call, name: &str) -> Self {
        Self(call.text(name))
    }

    fn matches(&self, k: &types::SshKey) -> bool {
        let Some(text) = &self.0 else { return true };
        [&k.key, &k.label, &k.fingerprint]
            .into_iter()
            .flatten()
            .any(|field| contains_ignoring_case(field, text))
    }
}

impl World {
    /// One device.
    pub(super) fn device_by_id(
        &self,
        id: Uuid,
        expand: &Expand,
        now: Instant,
    ) -> Result<types::Device, ApiError> {
        let rec = self.devices.get(&id).ok_or_else(ApiError::not_found)?;
        Ok(self.device(rec, expand, now))
    }

    /// One page of a project's devices that pass `filter`, oldest first.
    pub(super) fn device_page(
        &self,
        project: Uuid,
        filter: &DeviceFilter,
        listing: &Listing,
        now: Instant,
    ) -> Result<types::DeviceList, ApiError> {
        let recs = self
            .devices
            .values()
            .filter(|d| d.project == project && self.device_passes(d, filter, now));
        let (devices, meta) = self.page_of(
            project,
            "devices",
            recs,
            |d| d.seq,
            listing,
            |d| self.device(d, &listing.expand, now),
        )?;
        Ok(types::DeviceList {
            devices,
            meta: Some(meta),
        })
    }

    fn device_passes(&self, d: &DeviceRec, f: &DeviceFilter, now: Instant) -> bool {
        let plan = &self.plans[d.plan];
        let facility = &self.facilities[d.facility];
        let short_id = |id: Uuid| id.simple().to_string()[..8].to_string();
        let reserved = d.reservation.is_some();
        let search = || {
            let Some(text) = &f.search else { return true };
            let mut fields = vec![
                d.hostname.clone(),
                short_id(d.id),
                plan.slug.clone(),
                facility.code.clone(),
                format!("Facility {}", facility.code),
                d.os.clone(),
            ];
            fields.extend(d.description.clone());
            fields.extend(d.reservation.map(short_id));
            fields.extend(d.tags.iter().cloned());
            // Its IP addresses, once it has them.
            if super::view::has_addresses(state_of(d, &self.timings, now)) {
                fields.extend(self.addresses(d).into_iter().filter_map(|a| a.address));
            }
            fields
                .iter()
                .any(|field| contains_ignoring_case(field, text))
        };
        let named = |value: &Option<String>, code: &str, id: Uuid| {
            value
                .as_ref()
                .is_none_or(|v| v.eq_ignore_ascii_case(code) || *v == id.to_string())
        };
        f.hostname
            .as_ref()
            .is_none_or(|h| contains_ignoring_case(&d.hostname, h))
            && f.tag.as_ref().is_none_or(|t| d.tags.contains(t))
            && f.state
                .as_ref()
                .is_none_or(|s| s == state_of(d, &self.timings, now))
            && f.reserved.is_none_or(|r| r == reserved)
            && f.type_.as_deref().is_none_or(|t| match t {
                "reserved" => reserved,
                "ondemand" => !reserved,
                // The fake has no spot instances; an unknown type matches
                // nothing.
                _ => false,
            })
            && named(&f.metro, &facility.metro, facility.metro_id)
            && named(&f.facility, &facility.code, facility.id)
            // No device of the fake has a termination time.
            && f.has_termination_time.is_none_or(|t| !t)
            // Any of its ports' MAC addresses, ASCII case ignored.
            && f.mac_address
                .as_ref()
                .is_none_or(|m| super::view::macs(d).iter().any(|x| x.eq_ignore_ascii_case(m)))
            && search()
    }

    /// One hardware reservation.
    pub(super) fn reservation_by_id(
        &self,
        id: Uuid,
        expand: &Expand,
        now: Instant,
    ) -> Result<types::HardwareReservation, ApiError> {
        let rec = self.reservations.get(&id).ok_or_else(ApiError::not_found)?;
        Ok(self.reservation(rec, expand, now))
    }

    /// One page of a project's hardware reservations that pass `filter`,
    /// oldest first.
    pub(super) fn reservation_page(
        &self,
        project: Uuid,
        filter: &ReservationFilter,
        listing: &Listing,
        now: Instant,
    ) -> Result<types::HardwareReservationList, ApiError> {
        let recs = self
            .reservations
            .values()
            .filter(|r| r.project == project && self.reservation_passes(r, filter, now));
        let (hardware_reservations, meta) = self.page_of(
            project,
            "hardware-reservations",
            recs,
            |r| r.seq,
            listing,
            |r| {
                let mut listed = self.reservation(r, &listing.expand, now);
                // The list may still show a released reservation as it was
                // (see `Timings::stale_reservation_list`); a get does not.
                if self.listed_stale(r.id, now) {
                    listed.provisionable = Some(false);
                }
                listed
            },
        )?;
        Ok(types::HardwareReservationList {
            hardware_reservations,
            meta: Some(meta),
        })
    }

    fn reservation_passes(&self, r: &ReservationRec, f: &ReservationFilter, now: Instant) -> bool {
        let facility = &self.facilities[r.facility];
        let query = || {
            let Some(text) = &f.query else { return true };
            let mut fields = vec![
                facility.code.clone(),
                self.plans[r.plan].slug.clone(),
                r.id.simple().to_string()[..8].to_string(),
            ];
            fields.extend(self.projects.get(&r.project).map(|p| p.name.clone()));
            fields.extend(
                r.device
                    .and_then(|d| self.devices.get(&d))
                    .map(|d| d.hostname.clone()),
            );
            fields
                .iter()
                .any(|field| contains_ignoring_case(field, text))
        };
        (!f.provisionable_only || (self.provisionable(r, now) && !self.listed_stale(r.id, now)))
            // Every reservation of the fake is `active`: none is a spare or
            // in need of service.
            && f.state.as_deref().is_none_or(|s| s == "active")
            && f.facility.as_ref().is_none_or(|c| {
                c.eq_ignore_ascii_case(&facility.code) || *c == facility.id.to_string()
            })
            && query()
    }

    /// One page of `recs` (a project's records that passed a list's
    /// filters), ordered by `seq`, each rendered by `render`; `404` when
    /// the project does not exist.
    fn page_of<'w, R: 'w, T>(
        &self,
        project: Uuid,
        collection: &str,
        recs: impl Iterator<Item = &'w R>,
        seq: impl Fn(&R) -> u64,
        listing: &Listing,
        render: impl Fn(&R) -> T,
    ) -> Result<(Vec<T>, types::Meta), ApiError> {
        self.projects
            .get(&project)
            .ok_or_else(ApiError::not_found)?;
        let mut recs: Vec<&R> = recs.collect();
        recs.sort_by_key(|r| seq(r));
        let path = format!("{}/{collection}", render::project_href(project));
        let (recs, meta) =
            render::paginate(recs, listing.page, listing.per_page, &path, &listing.echo);
        Ok((recs.into_iter().map(render).collect(), meta))
    }

    /// The SSH keys of `owner` that `search` matches, oldest first. The
    /// user's list (`GET /ssh-keys`) also has the keys of every project the
    /// caller sees, as the real API answers (Monogon's live test expects it).
    pub(super) fn ssh_keys_of(
        &self,
        owner: KeyOwner,
        search: &KeySearch,
    ) -> Result<types::SshKeyList, ApiError> {
        if let KeyOwner::Project(p) = owner {
            self.projects.get(&p).ok_or_else(ApiError::not_found)?;
        }
        let listed = |k: &SshKeyRec| match (owner, k.owner) {
            (KeyOwner::User, KeyOwner::Project(p)) => {
                self.projects.contains_key(&p) && self.caller.sees(p)
            }
            _ => k.owner == owner,
        };
        let mut recs: Vec<&SshKeyRec> = self.ssh_keys.values().filter(|k| listed(k)).collect();
        recs.sort_by_key(|k| k.seq);
        Ok(types::SshKeyList {
            ssh_keys: recs
                .into_iter()
                .map(|k| self.ssh_key(k))
                .filter(|k| search.matches(k))
                .collect(),
        })
    }

    /// One SSH key.
    pub(super) fn ssh_key_by_id(&self, id: Uuid) -> Result<types::SshKey, ApiError> {
        let rec = self.ssh_keys.get(&id).ok_or_else(ApiError::not_found)?;
        Ok(self.ssh_key(rec))
    }
}
