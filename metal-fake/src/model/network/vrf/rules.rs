//! The API's rules for VRFs: a create names a metro of the catalog and a
//! name unique in the project, an ASN of four bytes, ranges of the API's
//! sizes apart from each other and from the ranges of the project's other
//! VRFs in the metro; an update keeps every block of the VRF inside its
//! ranges; a delete is refused while the VRF is in use (its IP
//! reservations, and through them its gateways and routes:
//! `model/relations.rs`).

use serde::Deserialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::range::{self, Range};
use super::record::{Kept, Vrf, DEFAULT_ASN};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, room_for, too_long, MAX_NAME, MAX_TEXT};
use crate::model::relations::Kind;
use crate::model::World;

/// The most ranges one VRF holds.
pub(crate) const MAX_RANGES: usize = 64;

/// A create request (the spec's `VrfCreateInput`).
#[derive(Debug, Deserialize)]
pub(crate) struct CreateInput {
    name: String,
    metro: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    local_asn: Option<i64>,
    #[serde(default)]
    ip_ranges: Vec<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    bgp_dynamic_neighbors_enabled: Option<bool>,
    #[serde(default)]
    bgp_dynamic_neighbors_bfd_enabled: Option<bool>,
    #[serde(default)]
    bgp_dynamic_neighbors_export_route_map: Option<bool>,
}

/// An update request (the spec's `VrfUpdateInput`): what it names
/// changes.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct UpdateInput {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    local_asn: Option<i64>,
    #[serde(default)]
    ip_ranges: Option<Vec<String>>,
    #[serde(default)]
    tags: Option<Vec<String>>,
    #[serde(default)]
    bgp_dynamic_neighbors_enabled: Option<bool>,
    #[serde(default)]
    bgp_dynamic_neighbors_bfd_enabled: Option<bool>,
    #[serde(default)]
    bgp_dynamic_neighbors_export_route_map: Option<bool>,
}

/// A 4-byte ASN, else `422`.
fn asn(value: i64) -> Result<u32, ApiError> {
    u32::try_from(value)
        .map_err(|_| ApiError::unprocessable("local_asn must be a 4-byte ASN (0 to 4294967295)"))
}

impl World {
    /// Whether `v` may be (or become) a VRF of the world: its metro in
    /// the catalog, its name unique in its project, its bounds, its
    /// ranges (see [`range::parse_all`]) apart from those of the
    /// project's other VRFs in the metro. `except`: the VRF it replaces
    /// (an update).
    pub(crate) fn check_vrf(&self, v: &Vrf, except: Option<Uuid>) -> Result<(), ApiError> {
        refuse([
            v.name
                .trim()
                .is_empty()
                .then(|| "Name can't be blank".to_string()),
            too_long("Name", &v.name, MAX_NAME),
            v.description
                .as_deref()
                .and_then(|d| too_long("Description", d, MAX_TEXT)),
            bad_tags(&v.tags),
            (v.ip_ranges.len() > MAX_RANGES)
                .then(|| format!("IP ranges are too many (maximum is {MAX_RANGES})")),
        ])?;
        self.catalog
            .metro(&v.metro)
            .ok_or_else(|| ApiError::unprocessable(format!("Metro {} was not found", v.metro)))?;
        let others = || {
            self.vrfs
                .values()
                .filter(move |o| o.rec.project == v.project && Some(o.rec.id) != except)
        };
        if others().any(|o| o.rec.name == v.name) {
            return Err(ApiError::unprocessable(
                "Name has already been taken in this project",
            ));
        }
        let ranges = range::parse_all(&v.ip_ranges)?;
        for o in others().filter(|o| o.rec.metro == v.metro) {
            for text in &o.rec.ip_ranges {
                let Ok(theirs) = Range::parse(text) else {
                    continue;
                };
                if let Some(i) = ranges.iter().position(|r| r.overlaps(theirs)) {
                    return Err(ApiError::unprocessable(format!(
                        "IP range {} overlaps {text} of VRF {} in the same metro",
                        v.ip_ranges[i], o.rec.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// `createVrf`: a VRF of `project`'s.
    pub(crate) fn create_vrf(
        &mut self,
        project: Uuid,
        body: CreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        self.projects
            .get(&project)
            .ok_or_else(ApiError::not_found)?;
        room_for("VRFs", self.vrfs.len())?;
        let id = Uuid::new_v4();
        let rec = Vrf {
            id,
            project,
            metro: body.metro,
            name: body.name,
            description: body.description,
            local_asn: body.local_asn.map(asn).transpose()?.unwrap_or(DEFAULT_ASN),
            ip_ranges: body.ip_ranges,
            tags: body.tags,
            bgp_dynamic_neighbors_enabled: body.bgp_dynamic_neighbors_enabled.unwrap_or(false),
            bgp_dynamic_neighbors_bfd_enabled: body
                .bgp_dynamic_neighbors_bfd_enabled
                .unwrap_or(false),
            bgp_dynamic_neighbors_export_route_map: body
                .bgp_dynamic_neighbors_export_route_map
                .unwrap_or(false),
        };
        self.check_vrf(&rec, None)?;
        self.vrfs
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept { rec, meta });
        Ok(id)
    }

    /// `updateVrf`: what `body` names changes; `422` when the VRF would
    /// break a create's rules, or its new ranges leave out one of its IP
    /// reservations (in use).
    pub(crate) fn update_vrf(
        &mut self,
        id: Uuid,
        body: UpdateInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        let mut rec = self
            .vrfs
            .get(&id)
            .ok_or_else(ApiError::not_found)?
            .rec
            .clone();
        if let Some(name) = body.name {
            rec.name = name;
        }
        if let Some(d) = body.description {
            rec.description = Some(d);
        }
        if let Some(a) = body.local_asn {
            rec.local_asn = asn(a)?;
        }
        if let Some(tags) = body.tags {
            rec.tags = tags;
        }
        if let Some(b) = body.bgp_dynamic_neighbors_enabled {
            rec.bgp_dynamic_neighbors_enabled = b;
        }
        if let Some(b) = body.bgp_dynamic_neighbors_bfd_enabled {
            rec.bgp_dynamic_neighbors_bfd_enabled = b;
        }
        if let Some(b) = body.bgp_dynamic_neighbors_export_route_map {
            rec.bgp_dynamic_neighbors_export_route_map = b;
        }
        if let Some(ranges) = body.ip_ranges {
            rec.ip_ranges = ranges;
        }
        self.check_vrf(&rec, Some(id))?;
        let ranges = range::parse_all(&rec.ip_ranges)?;
        if let Some(block) = self
            .vrf_reservations(id)
            .find(|b| !ranges.iter().any(|r| r.holds(b.span())))
        {
            return Err(ApiError::unprocessable(format!(
                "The VRF's IP reservation {}/{} is in use: its ranges must hold it",
                block.rec.network, block.rec.cidr
            )));
        }
        self.vrfs
            .rows()
            .update(&mut self.journal, id, "fields", now, |k| k.rec = rec);
        Ok(())
    }

    /// `deleteVrf`: refused while it has IP reservations (and so
    /// gateways and routes on them).
    pub(crate) fn delete_vrf(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        self.delete_record(Kind::Vrf, id, now)
    }

    /// The VRF `text` names for something of `project` in `metro`
    /// (a connection's circuit): one of the project's, in the metro;
    /// `422` otherwise.
    pub(crate) fn vrf_in(&self, project: Uuid, metro: &str, text: &str) -> Result<Uuid, ApiError> {
        let vrf = text
            .trim()
            .parse::<Uuid>()
            .ok()
            .and_then(|id| self.vrfs.get(&id))
            .filter(|v| v.rec.project == project)
            .ok_or_else(|| ApiError::unprocessable(format!("VRF {text} was not found")))?;
        if !vrf.rec.metro.eq_ignore_ascii_case(metro) {
            return Err(ApiError::unprocessable(format!(
                "VRF {} is in metro {}, not in the connection's metro {metro}",
                vrf.rec.name, vrf.rec.metro
            )));
        }
        Ok(vrf.rec.id)
    }

    /// Whether one of the VRF `vrf`'s ranges holds `block`.
    pub(crate) fn vrf_holds_range(&self, vrf: &Kept, block: Range) -> bool {
        vrf.rec
            .ip_ranges
            .iter()
            .filter_map(|t| Range::parse(t).ok())
            .any(|r| r.holds(block))
    }
}
