//! The VRF operations the fake models (a VRF, and the VRF's IP
//! reservations read under `/vrfs/{id}/ips`), and who owns a VRF.

use metal_api::operation as op;
use serde::Serialize;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use super::rules::{CreateInput, UpdateInput};
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::ip_reservation::VrfReservationView;
use crate::model::list::Listing;
use crate::model::load::{unique, unknown};
use crate::model::project;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::World;

/// VRFs.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_VRFS, find_vrfs).names("id", &project::RESOURCE),
        Modelled::new(&op::CREATE_VRF, create_vrf).names("id", &project::RESOURCE),
        Modelled::new(&op::FIND_VRF_BY_ID, find_vrf_by_id).names("id", &RESOURCE),
        Modelled::new(&op::UPDATE_VRF, update_vrf).names("id", &RESOURCE),
        Modelled::new(&op::DELETE_VRF, delete_vrf).names("id", &RESOURCE),
        Modelled::new(&op::FIND_VRF_IP_RESERVATIONS, find_vrf_ip_reservations)
            .names("id", &RESOURCE),
        Modelled::new(&op::FIND_VRF_IP_RESERVATION, find_vrf_ip_reservation)
            .names("vrf_id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.vrfs.get(&id).map(|v| Owner::Project(v.rec.project))
}

fn find_vrfs(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let listing = Listing::unpaged(call, &["metro"])?;
    let metro = call.text("metro");
    acts(move |w, _, _| {
        let listed = |v: &&Kept| {
            v.rec.project == project && metro.as_ref().is_none_or(|m| *m == v.rec.metro)
        };
        let page = w.page_of(
            project,
            ("vrfs", COLLECTION),
            w.vrfs.values().filter(listed),
            |v: &Kept| v.meta.seq,
            &listing,
            |v| w.vrf_view(v, &listing.expand),
        )?;
        reply(&page)
    })
}

fn create_vrf(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let body: CreateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let id = w.create_vrf(project, body, now)?;
        let v = w.vrfs.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.vrf_view(v, &expand))
    })
}

fn find_vrf_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, _| {
        let v = w.vrfs.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.vrf_view(v, &expand))
    })
}

fn update_vrf(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: UpdateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.update_vrf(id, body, now)?;
        let v = w.vrfs.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.vrf_view(v, &expand))
    })
}

fn delete_vrf(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.delete_vrf(id, now)?;
        Ok(Reply::Empty)
    })
}

/// The VRF's IP reservations (the spec's `VrfIpReservationList`: no
/// pages).
#[derive(Serialize)]
struct VrfReservationList<'a> {
    ip_addresses: Vec<VrfReservationView<'a>>,
}

fn find_vrf_ip_reservations(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, _| {
        w.vrfs.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&VrfReservationList {
            ip_addresses: w
                .vrf_reservations(id)
                .map(|r| w.vrf_reservation_view(r, &expand))
                .collect(),
        })
    })
}

fn find_vrf_ip_reservation(call: &Call) -> Result<Prepared, ApiError> {
    let vrf = call.id("vrf_id")?;
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, _| {
        w.vrfs.get(&vrf).ok_or_else(ApiError::not_found)?;
        let r = w
            .vrf_reservations(vrf)
            .find(|r| r.rec.id == id)
            .ok_or_else(ApiError::not_found)?;
        reply(&w.vrf_reservation_view(r, &expand))
    })
}

/// Loads the document's VRFs: each of a project the world has, checked as
/// a create is (metro, name, ranges).
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    for v in &doc.vrfs {
        unique(&mut ids, v.id, "vrf", v.id)?;
        if !w.projects.contains_key(&v.project) {
            return Err(unknown(format!("vrf {}", v.id), "project", v.project));
        }
        w.check_vrf(v, None).map_err(|e| {
            WorldError::Inconsistent(format!("vrf {}: {}", v.id, e.messages.join("; ")))
        })?;
        w.vrfs
            .rows()
            .insert(&mut w.journal, v.id, now, |meta| Kept {
                rec: v.clone(),
                meta,
            });
    }
    Ok(())
}

/// Saves the VRFs into `doc`, oldest first.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.vrfs = oldest_first(w.vrfs.iter(), |v| v.meta.seq)
        .into_iter()
        .map(|v| v.rec.clone())
        .collect();
}
