//! The IP reservation and assignment operations the fake models, and who
//! owns an address.

use metal_api::operation as op;
use metal_api::types;
use serde::Serialize;
use std::collections::HashSet;
use std::net::IpAddr;
use tokio::time::Instant;
use uuid::Uuid;

use super::availability;
use super::block::{Block, Block6};
use super::device_blocks::{block_type, listed_blocks, DeviceBlockView};
use super::record::Kept;
use super::record::{IpReservation, IpReservationType};
use super::rules;
use super::update::IpUpdate;
use super::vrf_block::VrfBlockInput;
use super::vrf_view::AnyReservationView;
use super::COLLECTION;
use crate::call::{decode, ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::list::Listing;
use crate::model::load::unknown;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::vrf::range::Range;
use crate::model::world::oldest_first;
use crate::model::World;
use crate::model::{device, project};

/// IP reservations and their assignments to devices (`/ips/{id}` is
/// either).
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_IP_RESERVATIONS, find_ip_reservations)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::REQUEST_IP_RESERVATION, request_ip_reservation)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::FIND_IP_ADDRESS_BY_ID, find_ip_address_by_id).names("id", &RESOURCE),
        Modelled::new(&op::DELETE_IP_ADDRESS, delete_ip_address).names("id", &RESOURCE),
        Modelled::new(&op::UPDATE_IP_ADDRESS, update_ip_address).names("id", &RESOURCE),
        Modelled::new(&op::FIND_IP_ASSIGNMENTS, find_ip_assignments).names("id", &device::RESOURCE),
        Modelled::new(&op::CREATE_IP_ASSIGNMENT, create_ip_assignment)
            .names("id", &device::RESOURCE),
        Modelled::new(
            &op::FIND_IP_AVAILABILITIES,
            availability::find_ip_availabilities,
        )
        .names("id", &RESOURCE),
        Modelled::new(
            &op::FIND_IP_ADDRESS_CUSTOMDATA,
            availability::find_ip_address_customdata,
        )
        .names("id", &RESOURCE),
        Modelled::new(
            &op::FIND_IP_RESERVATION_CUSTOMDATA,
            availability::find_ip_reservation_customdata,
        )
        .names("project_id", &project::RESOURCE),
        Modelled::new(
            &op::FIND_IP_ASSIGNMENT_CUSTOMDATA,
            availability::find_ip_assignment_customdata,
        )
        .names("instance_id", &device::RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    if let Some(r) = w.ips.reservations.get(&id) {
        return Some(Owner::Project(r.rec.project));
    }
    if let Some((d, _)) = w.device_block(id) {
        return Some(Owner::Project(d.rec.project));
    }
    let a = w.live_assignment(id)?;
    let r = w.ips.reservations.get(&a.reservation)?;
    Some(Owner::Project(r.rec.project))
}

/// The spec's default page size of a project's IP reservations (packngo
/// reads only the first page).
const DEFAULT_PER_PAGE: u32 = 250;

/// The values of the list's `types` filter.
const TYPES: &[&str] = &[
    "global_ipv4",
    "private_ipv4",
    "public_ipv4",
    "public_ipv6",
    "vrf",
];

/// The `types` filter (a list: repeated keys or comma-joined), each one of
/// [`TYPES`]; `None`: every type.
fn types_filter(call: &Call) -> Result<Option<Vec<String>>, ApiError> {
    let types: Vec<String> = call.list("types").into_iter().map(str::to_string).collect();
    if types.is_empty() {
        return Ok(None);
    }
    if let Some(bad) = types.iter().find(|t| !TYPES.contains(&t.as_str())) {
        return Err(ApiError::unprocessable(format!(
            "types must be among {}, not {bad}",
            TYPES.join(", ")
        )));
    }
    Ok(Some(types))
}

fn find_ip_reservations(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let listing = Listing::of_per_page(call, &["types"], DEFAULT_PER_PAGE)?;
    let types = types_filter(call)?;
    acts(move |w, _, _| {
        let wanted = |kind: &str| types.as_ref().is_none_or(|t| t.iter().any(|t| t == kind));
        let mut listed: Vec<Listed> = w
            .ips
            .reservations
            .values()
            .filter(|r| r.rec.project == project && wanted(r.rec.kind.as_str()))
            .map(Listed::Reserved)
            .collect();
        // The project's devices' own blocks, as the real API listed them:
        // only when `types` asks for their kind.
        if types.is_some() {
            listed.extend(
                w.devices
                    .values()
                    .filter(|d| d.rec.project == project)
                    .flat_map(|d| listed_blocks(d).map(move |b| Listed::Own(d, b)))
                    .filter(|e| match e {
                        Listed::Own(_, b) => wanted(block_type(b.kind)),
                        Listed::Reserved(_) => true,
                    }),
            );
        }
        let page = w.page_of(
            project,
            ("ip_addresses", COLLECTION),
            listed.iter(),
            |e| match e {
                Listed::Reserved(r) => r.meta.seq,
                Listed::Own(d, _) => d.meta.seq,
            },
            &listing,
            |e| match e {
                Listed::Reserved(r) => {
                    ListedView::Reserved(w.any_reservation_view(r, &listing.expand))
                }
                Listed::Own(d, b) => {
                    ListedView::Own(Box::new(w.device_block_view(d, b.clone(), &listing.expand)))
                }
            },
        )?;
        reply(&page)
    })
}

/// What a request asks for: a block of the fake's pools, or a VRF's.
enum Request {
    Pool(types::IpReservationRequestInput),
    Vrf(VrfBlockInput),
}

/// One entry of a project's IP reservations: a reserved block, or one of
/// a device's own blocks.
enum Listed<'a> {
    Reserved(&'a Kept),
    Own(&'a device::Kept, device::OwnBlock),
}

/// An entry as the list shows it.
#[derive(serde::Serialize)]
#[serde(untagged)]
enum ListedView<'a> {
    Reserved(AnyReservationView<'a>),
    Own(Box<DeviceBlockView<'a>>),
}

fn request_ip_reservation(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let value = call.json_value()?;
    let body = if value.get("type").and_then(|t| t.as_str()) == Some("vrf") {
        Request::Vrf(decode(value)?)
    } else {
        Request::Pool(decode(value)?)
    };
    let expand = expand(call);
    acts(move |w, _, now| {
        let id = match &body {
            Request::Pool(b) => w.request_ip_reservation(project, b, now)?,
            Request::Vrf(b) => w.request_vrf_block(project, b, now)?,
        };
        let r = w
            .ips
            .reservations
            .get(&id)
            .ok_or_else(ApiError::not_found)?;
        reply(&w.any_reservation_view(r, &expand))
    })
}

fn find_ip_address_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, _| {
        if let Some(r) = w.ips.reservations.get(&id) {
            return reply(&w.any_reservation_view(r, &expand));
        }
        if let Some((d, b)) = w.device_block(id) {
            return reply(&w.device_block_view(d, b, &expand));
        }
        assignment_reply(w, id)
    })
}

fn delete_ip_address(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.delete_ip_address(id, now)?;
        Ok(Reply::Empty)
    })
}

fn update_ip_address(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let update = IpUpdate::read(call.json_value()?)?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.update_ip_address(id, update, now)?;
        let r = w
            .ips
            .reservations
            .get(&id)
            .ok_or_else(ApiError::not_found)?;
        reply(&w.any_reservation_view(r, &expand))
    })
}

fn find_ip_assignments(call: &Call) -> Result<Prepared, ApiError> {
    let device = call.id("id")?;
    acts(move |w, _, _| {
        let d = w.devices.get(&device).ok_or_else(ApiError::not_found)?;
        reply(&AssignmentList {
            ip_addresses: w.device_addresses(d),
        })
    })
}

fn create_ip_assignment(call: &Call) -> Result<Prepared, ApiError> {
    let device = call.id("id")?;
    let body: types::IpAssignmentInput = call.json()?;
    acts(move |w, _, now| {
        let id = w.assign_ip(device, &body.address, now)?;
        assignment_reply(w, id)
    })
}

/// The assignment `id` (whose device is there) as the reply.
fn assignment_reply(w: &World, id: Uuid) -> Result<Reply, ApiError> {
    let a = w.live_assignment(id).ok_or_else(ApiError::not_found)?;
    let r = w
        .ips
        .reservations
        .get(&a.reservation)
        .ok_or_else(ApiError::not_found)?;
    reply(&w.ip_assignment_view(a, r))
}

/// Loads the document's reservations and their assignments: each block
/// valid and apart from every other, of a project the world has, in a
/// metro and facility it has; each assignment an address of its block, to
/// a device of the project.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    let mut blocks: Vec<(Block, Uuid)> = Vec::with_capacity(doc.ip_reservations.len());
    let mut blocks6: Vec<(Block6, Uuid)> = Vec::new();
    let mut vrf_blocks: Vec<(Range, Uuid, Option<Uuid>)> = Vec::new();
    let inconsistent =
        |id: Uuid, why: String| WorldError::Inconsistent(format!("ip reservation {id}: {why}"));
    for r in &doc.ip_reservations {
        let from = || format!("ip reservation {}", r.id);
        crate::model::load::unique(&mut ids, r.id, "ip reservation", r.id)?;
        if !w.projects.contains_key(&r.project) {
            return Err(unknown(from(), "project", r.project));
        }
        rules::check_record(w, r).map_err(|why| inconsistent(r.id, why))?;
        let mut rec = r.clone();
        rec.assignments = Vec::new();
        w.ips
            .insert_reservation(&mut w.journal, r.id, now, |meta| Kept {
                rec,
                meta,
                assignments: Vec::new(),
            });
        let Some(kept) = w.ips.reservations.get(&r.id) else {
            continue;
        };
        let (block, block6, span) = (kept.block(), kept.block6(), kept.span());
        match (r.kind, block, block6) {
            // A VRF's blocks are apart within the VRF (checked there).
            (IpReservationType::Vrf, _, _) => vrf_blocks.push((span, r.id, r.vrf)),
            (_, Some(block), _) => blocks.push((block, r.id)),
            (_, None, Some(block)) => blocks6.push((block, r.id)),
            (_, None, None) => {}
        }
        if let Some(kept) = w.ips.reservations.get(&r.id).cloned() {
            rules::note_allocated(&mut w.ips, &kept);
        }
        for a in &r.assignments {
            crate::model::load::unique(&mut ids, a.id, "ip assignment", a.id)?;
            let device = w
                .devices
                .get(&a.device)
                .ok_or_else(|| unknown(format!("ip assignment {}", a.id), "device", a.device))?;
            if device.rec.project != r.project {
                return Err(inconsistent(
                    r.id,
                    format!("assignment {} is to a device of another project", a.id),
                ));
            }
            let inside = match a.address {
                IpAddr::V4(address) => {
                    let taken = Block::new(address, a.cidr);
                    a.cidr <= 32
                        && block.is_some_and(|b| b.holds(taken))
                        && taken.network() == address
                }
                IpAddr::V6(address) => {
                    let taken = Block6::new(address, a.cidr);
                    a.cidr <= 128
                        && r.kind == IpReservationType::PublicIpv6
                        && block6.is_some_and(|b| b.holds(taken))
                        && taken.network() == address
                }
            };
            if !inside {
                return Err(inconsistent(
                    r.id,
                    format!("assignment {} is not a block of its addresses", a.id),
                ));
            }
            w.ips
                .insert_assignment(&mut w.journal, a.clone(), r.id, now);
        }
        if r.assignments.len() > rules::MAX_ASSIGNMENTS {
            return Err(inconsistent(
                r.id,
                format!("more than {} assignments", rules::MAX_ASSIGNMENTS),
            ));
        }
    }
    for (i, (a, id, vrf)) in vrf_blocks.iter().enumerate() {
        if let Some((_, other, _)) = vrf_blocks[..i]
            .iter()
            .find(|(b, _, v)| v == vrf && b.overlaps(*a))
        {
            return Err(inconsistent(
                *id,
                format!("its block overlaps ip reservation {other} of the same VRF"),
            ));
        }
    }
    blocks.sort_by_key(|(b, _)| b.first());
    if let Some(pair) = blocks.windows(2).find(|p| p[1].0.first() <= p[0].0.last()) {
        return Err(inconsistent(
            pair[1].1,
            format!("its block overlaps ip reservation {}", pair[0].1),
        ));
    }
    blocks6.sort_by_key(|(b, _)| b.first());
    if let Some(pair) = blocks6.windows(2).find(|p| p[1].0.first() <= p[0].0.last()) {
        return Err(inconsistent(
            pair[1].1,
            format!("its block overlaps ip reservation {}", pair[0].1),
        ));
    }
    Ok(())
}

/// Saves the reservations into `doc`, oldest first, each with the
/// assignments whose device is still there.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.ip_reservations = oldest_first(&w.ips.reservations, |r| r.meta.seq)
        .into_iter()
        .map(|r| entry(w, r))
        .collect();
}

/// One reservation's entry in a world document, with the assignments
/// whose device is still there.
pub(crate) fn entry(w: &World, r: &Kept) -> IpReservation {
    IpReservation {
        assignments: w.live_assignments(r).map(|a| a.rec.clone()).collect(),
        ..r.rec.clone()
    }
}

/// A device's IP assignments: its own addresses and those of reservations.
#[derive(Serialize)]
struct AssignmentList<'a> {
    ip_addresses: device::Addresses<'a>,
}
