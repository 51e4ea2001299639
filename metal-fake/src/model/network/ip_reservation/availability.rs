//! What is free in a reservation: `GET /ips/{id}/available?cidr=N`, the
//! aligned blocks of `/N` none of its assignments (whose device is there)
//! overlaps; and the custom data reads of reservations and assignments.

use std::net::{Ipv4Addr, Ipv6Addr};

use serde::Serialize;
use uuid::Uuid;

use super::block::{Block, Block6};
use super::record::{IpReservationState, IpReservationType, Kept, KeptAssignment};
use crate::call::{ApiError, Call};
use crate::model::render::reply;
use crate::model::resource::{acts, Prepared};
use crate::model::World;

/// The most addresses one availability reply lists: a /24 of single
/// addresses, the largest block the fake reserves.
const MAX_LISTED: u64 = 256;

/// `{"available": ["a.b.c.d/n", ...]}`.
#[derive(Serialize)]
struct Available {
    available: Vec<String>,
}

/// An empty object: what a thing with no custom data answers.
#[derive(Serialize)]
struct NoData {}

impl World {
    /// The free aligned `/cidr` blocks of `r`, lowest first. `422` for a
    /// `cidr` outside the reservation's prefix to 32, or a reservation
    /// still pending.
    fn available_in(&self, r: &Kept, cidr: u32) -> Result<Vec<String>, ApiError> {
        if r.rec.kind == IpReservationType::Vrf && r.block().is_none() {
            return Err(ApiError::unprocessable(
                "The IP reservation is a VRF's IPv6 block: its addresses are not assigned to devices",
            ));
        }
        let Some(block) = r.block() else {
            return self.available_in6(r, cidr);
        };
        let cidr = u8::try_from(cidr)
            .ok()
            .filter(|c| (block.cidr()..=32).contains(c))
            .ok_or_else(|| {
                ApiError::unprocessable(format!(
                    "cidr must be between {} and 32 for this reservation",
                    block.cidr()
                ))
            })?;
        if r.rec.state != IpReservationState::Created {
            return Err(ApiError::unprocessable(
                "The IP reservation is not approved yet",
            ));
        }
        let taken: Vec<Block> = self
            .live_assignments(r)
            .filter_map(KeptAssignment::block)
            .collect();
        let size = Block::new(block.network(), cidr).size();
        Ok((0..(block.size() / size).min(MAX_LISTED))
            .map(|i| {
                // Within the block, so below 2^32.
                let first = (u64::from(block.first()) + i * size) as u32;
                Block::new(Ipv4Addr::from(first), cidr)
            })
            .filter(|b| !taken.iter().any(|t| t.overlaps(*b)))
            .map(|b| format!("{}/{}", b.network(), b.cidr()))
            .collect())
    }

    /// The free aligned `/cidr` blocks of `r`, an IPv6 block (a
    /// pre-created /56), lowest first, at most [`MAX_LISTED`]. `422` for a
    /// `cidr` outside the reservation's prefix to 128.
    fn available_in6(&self, r: &Kept, cidr: u32) -> Result<Vec<String>, ApiError> {
        let Some(block) = r.block6() else {
            return Ok(Vec::new());
        };
        let cidr = u8::try_from(cidr)
            .ok()
            .filter(|c| (block.cidr()..=128).contains(c))
            .ok_or_else(|| {
                ApiError::unprocessable(format!(
                    "cidr must be between {} and 128 for this reservation",
                    block.cidr()
                ))
            })?;
        let taken: Vec<Block6> = self
            .live_assignments(r)
            .filter_map(KeptAssignment::block6)
            .collect();
        let step = 1u128.checked_shl(128 - u32::from(cidr)).unwrap_or(0);
        let count = 1u128
            .checked_shl(u32::from(cidr - block.cidr()))
            .unwrap_or(u128::MAX);
        Ok((0..count.min(u128::from(MAX_LISTED)))
            .map(|i| Block6::new(Ipv6Addr::from(block.first() + i * step), cidr))
            .filter(|b| !taken.iter().any(|t| t.overlaps(*b)))
            .map(|b| format!("{}/{}", b.network(), b.cidr()))
            .collect())
    }

    /// The addresses of the project's blocks assigned to `device`, each
    /// `a.b.c.d/n`, oldest first (what its metadata lists beside its own).
    pub(crate) fn elastic_cidrs_of(&self, device: Uuid) -> Vec<String> {
        self.ips
            .of_device(device)
            .filter_map(|id| self.ips.assignments.get(&id))
            .map(|a| format!("{}/{}", a.rec.address, a.rec.cidr))
            .collect()
    }
}

/// `findIPAvailabilities`: `cidr` is required.
pub(super) fn find_ip_availabilities(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let cidr = call
        .query("cidr")
        .ok_or_else(|| ApiError::unprocessable("cidr is required"))?
        .trim()
        .parse::<u32>()
        .map_err(|_| ApiError::unprocessable("cidr must be a number"))?;
    acts(move |w, _, _| {
        let r = w
            .ips
            .reservations
            .get(&id)
            .ok_or_else(ApiError::not_found)?;
        reply(&Available {
            available: w.available_in(r, cidr)?,
        })
    })
}

/// `findIPAddressCustomdata`: a reservation's custom data; an
/// assignment's is `{}` (the fake keeps none for assignments).
pub(super) fn find_ip_address_customdata(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        if let Some(r) = w.ips.reservations.get(&id) {
            return reply(&r.rec.customdata);
        }
        w.live_assignment(id).ok_or_else(ApiError::not_found)?;
        reply(&NoData {})
    })
}

/// `findIPReservationCustomdata`: the reservation `id` of `project_id`.
pub(super) fn find_ip_reservation_customdata(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    let id = call.id("id")?;
    acts(move |w, _, _| {
        let r = w
            .ips
            .reservations
            .get(&id)
            .filter(|r| r.rec.project == project)
            .ok_or_else(ApiError::not_found)?;
        reply(&r.rec.customdata)
    })
}

/// `findIPAssignmentCustomdata`: the assignment `id` of device
/// `instance_id` (one of the project's blocks, or one of the device's own
/// addresses): `{}`, as the fake keeps no custom data for assignments.
pub(super) fn find_ip_assignment_customdata(call: &Call) -> Result<Prepared, ApiError> {
    let device = call.id("instance_id")?;
    let id = call.id("id")?;
    acts(move |w, _, _| {
        let d = w.devices.get(&device).ok_or_else(ApiError::not_found)?;
        let elastic = w
            .live_assignment(id)
            .is_some_and(|a| a.rec.device == device);
        let own = crate::model::device::own_blocks(d)
            .iter()
            .any(|b| b.assignment == id);
        if !(elastic || own) {
            return Err(ApiError::not_found());
        }
        reply(&NoData {})
    })
}
