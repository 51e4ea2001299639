//! A VRF's IP reservations (`type: vrf`): a block the caller names
//! (`network`, `cidr`: IPv4 /22 to /29, or IPv6 /64) inside one of the
//! VRF's ranges, in its metro, apart from the VRF's other blocks.
//! Requested through `requestIPReservation`, read under `/ips/{id}` and
//! `/vrfs/{id}/ips`, released by `deleteIPAddress` (refused while a
//! gateway holds it).

use std::net::IpAddr;

use serde::Deserialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::block::{Block, Block6};
use super::record::{IpReservation, IpReservationState, IpReservationType, Kept};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, room_for, too_long, MAX_TEXT};
use crate::model::vrf::range::Range;
use crate::model::World;

/// The prefix lengths a requested IPv4 VRF block may have: /22 to /29
/// (equinix-sdk-go's `VrfIpReservationCreateInput.cidr`: "IPv4: between 22
/// - 29 inclusive"; metal-cli issue 412's `--cidr <cidr, 22-29>`).
const CIDRS: std::ops::RangeInclusive<u8> = 22..=29;

/// The prefix lengths a VRF block of the world may have: those requested,
/// and the /30 and /31 a VRF circuit's subnet takes (packngo's
/// `IPReservationCreateRequest.CIDR`: "30-31 supported and necessary for
/// virtual-circuits").
const HELD_CIDRS: std::ops::RangeInclusive<u8> = 22..=31;

/// The one prefix length an IPv6 VRF block has (the same input's "IPv6:
/// exactly 64"; terraform-provider-equinix's `TestAccMetalGateway_IPv6Vrf`
/// reserves `2001:d78::/64` of the VRF's `2001:d78::/59` and puts a
/// gateway on it).
const CIDR_V6: u8 = 64;

/// The addresses a VRF block of `network`/`cidr` spans, as a VRF's ranges
/// are read.
fn span(network: IpAddr, cidr: u8) -> Range {
    match network {
        IpAddr::V4(a) => {
            let b = Block::new(a, cidr);
            Range::span(false, u128::from(b.first()), u128::from(b.last()))
        }
        IpAddr::V6(a) => {
            let b = Block6::new(a, cidr);
            Range::span(true, b.first(), b.last())
        }
    }
}

impl Kept {
    /// The addresses its block spans (IPv4 or IPv6).
    pub(crate) fn span(&self) -> Range {
        span(self.rec.network, self.rec.cidr)
    }
}

/// A VRF block's request (the spec's `VrfIpReservationCreateInput`; the
/// fields of the other form a client sends beside it, a `quantity` of 0
/// say, are left alone).
#[derive(Debug, Deserialize)]
pub(crate) struct VrfBlockInput {
    vrf_id: Uuid,
    network: String,
    cidr: i64,
    #[serde(default)]
    metro: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    details: Option<String>,
    #[serde(default)]
    customdata: serde_json::Map<String, serde_json::Value>,
}

/// Checks a `vrf` block of a world document: its VRF is there (loaded
/// before), of its project, in its metro, and holds it.
pub(crate) fn check_vrf_record(w: &World, r: &IpReservation) -> Result<(), String> {
    let vrf = r
        .vrf
        .and_then(|v| w.vrfs.get(&v))
        .ok_or_else(|| "its VRF is not in the world".to_string())?;
    if vrf.rec.project != r.project {
        return Err("its VRF is another project's".to_string());
    }
    if r.metro.as_deref() != Some(vrf.rec.metro.as_str()) || r.facility.is_some() {
        return Err("a vrf block is in its VRF's metro, in no facility".to_string());
    }
    match r.network {
        IpAddr::V4(_) if !HELD_CIDRS.contains(&r.cidr) => {
            return Err(format!(
                "a vrf block is /{} to /{} (IPv4)",
                HELD_CIDRS.start(),
                HELD_CIDRS.end()
            ))
        }
        IpAddr::V6(a) if r.cidr != CIDR_V6 || Block6::new(a, r.cidr).network() != a => {
            return Err(format!("an IPv6 vrf block is the network of a /{CIDR_V6}"))
        }
        _ => {}
    }
    if !w.vrf_holds_range(vrf, span(r.network, r.cidr)) {
        return Err("its block is in none of its VRF's ranges".to_string());
    }
    Ok(())
}

impl World {
    /// The blocks of the VRF `vrf`, oldest first.
    pub(crate) fn vrf_reservations(&self, vrf: Uuid) -> impl Iterator<Item = &Kept> + '_ {
        let mut all: Vec<&Kept> = self
            .ips
            .reservations
            .values()
            .filter(|r| r.rec.vrf == Some(vrf))
            .collect();
        all.sort_by_key(|r| r.meta.seq);
        all.into_iter()
    }

    /// The addresses of the VRF `vrf`'s IPv4 blocks.
    pub(crate) fn vrf_blocks(&self, vrf: Uuid) -> impl Iterator<Item = Block> + '_ {
        self.vrf_reservations(vrf).filter_map(Kept::block)
    }

    /// `requestIPReservation` with `type: vrf`: the block asked for, of
    /// `project`'s VRF `vrf_id`: IPv4 /22 to /29 or IPv6 /64. `422` for a
    /// VRF not of the project, another size, an address that is not the
    /// network of its `cidr`, a block outside the VRF's ranges or
    /// overlapping another of its blocks, or a metro other than the
    /// VRF's.
    pub(crate) fn request_vrf_block(
        &mut self,
        project: Uuid,
        body: &VrfBlockInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        self.projects
            .get(&project)
            .ok_or_else(ApiError::not_found)?;
        room_for("IP reservations", self.ips.reservations.len())?;
        let customdata = serde_json::to_string(&body.customdata).unwrap_or_default();
        refuse([
            bad_tags(&body.tags),
            body.details
                .as_deref()
                .and_then(|d| too_long("Details", d, MAX_TEXT)),
            too_long("Customdata", &customdata, MAX_TEXT),
        ])?;
        let vrf = self
            .vrfs
            .get(&body.vrf_id)
            .filter(|v| v.rec.project == project)
            .ok_or_else(|| ApiError::unprocessable("The VRF was not found in this project"))?;
        if let Some(m) = body.metro.as_deref().filter(|m| !m.is_empty())
            && m != vrf.rec.metro
        {
            return Err(ApiError::unprocessable(
                "A VRF IP reservation is in its VRF's metro",
            ));
        }
        let network: IpAddr = body.network.trim().parse().map_err(|_| {
            ApiError::unprocessable(format!(
                "network {} is not an IPv4 or IPv6 address",
                body.network
            ))
        })?;
        let size = |sizes: &str| {
            ApiError::unprocessable(format!(
                "cidr must be {sizes} for a VRF IP reservation (IPv4: {} to {}; IPv6: {CIDR_V6})",
                CIDRS.start(),
                CIDRS.end()
            ))
        };
        let cidr = match network {
            IpAddr::V4(_) => u8::try_from(body.cidr)
                .ok()
                .filter(|c| CIDRS.contains(c))
                .ok_or_else(|| size(&format!("{} to {}", CIDRS.start(), CIDRS.end())))?,
            IpAddr::V6(_) => u8::try_from(body.cidr)
                .ok()
                .filter(|c| *c == CIDR_V6)
                .ok_or_else(|| size(&CIDR_V6.to_string()))?,
        };
        let aligned = match network {
            IpAddr::V4(a) => Block::new(a, cidr).network() == a,
            IpAddr::V6(a) => Block6::new(a, cidr).network() == a,
        };
        if !aligned {
            return Err(ApiError::unprocessable(format!(
                "network {network} is not the network of a /{cidr}"
            )));
        }
        let wanted = span(network, cidr);
        if !self.vrf_holds_range(vrf, wanted) {
            return Err(ApiError::unprocessable(format!(
                "{network}/{cidr} is not within the VRF's IP ranges"
            )));
        }
        if self
            .vrf_reservations(body.vrf_id)
            .any(|r| r.span().overlaps(wanted))
        {
            return Err(ApiError::unprocessable(format!(
                "{network}/{cidr} overlaps another IP reservation of the VRF"
            )));
        }
        Ok(self.insert_vrf_block(
            project,
            body.vrf_id,
            network,
            cidr,
            (
                body.tags.clone(),
                body.details.clone(),
                body.customdata.clone(),
            ),
            now,
        ))
    }

    /// Inserts a block `network`/`cidr` of VRF `vrf` (of `project`, in
    /// its metro), checked by the caller, with its tags, details and
    /// custom data: a request's, or a VRF circuit's subnet.
    pub(crate) fn insert_vrf_block(
        &mut self,
        project: Uuid,
        vrf: Uuid,
        network: impl Into<IpAddr>,
        cidr: u8,
        (tags, details, customdata): (
            Vec<String>,
            Option<String>,
            serde_json::Map<String, serde_json::Value>,
        ),
        now: Instant,
    ) -> Uuid {
        let metro = self.vrfs.get(&vrf).map(|v| v.rec.metro.clone());
        let id = Uuid::new_v4();
        let rec = IpReservation {
            id,
            project,
            kind: IpReservationType::Vrf,
            network: network.into(),
            cidr,
            metro,
            facility: None,
            state: IpReservationState::Created,
            tags,
            details,
            customdata,
            assignments: Vec::new(),
            vrf: Some(vrf),
        };
        self.ips
            .insert_reservation(&mut self.journal, id, now, |meta| Kept {
                rec,
                meta,
                assignments: Vec::new(),
            });
        id
    }
}
