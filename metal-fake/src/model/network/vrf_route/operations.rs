//! The VRF route operations the fake models (a VRF's routes, and what it
//! learned and peers with: nothing, as no BGP runs here), and who owns a
//! route.

use metal_api::operation as op;
use serde::Serialize;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use super::rules::{CreateInput, UpdateInput};
use super::COLLECTION;
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::list::{self, Listing};
use crate::model::load::{unique, unknown};
use crate::model::render::{reply, Href};
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::{vrf, World};

/// VRF routes.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::GET_VRF_ROUTES, get_vrf_routes).names("id", &vrf::RESOURCE),
        Modelled::new(&op::CREATE_VRF_ROUTE, create_vrf_route).names("id", &vrf::RESOURCE),
        Modelled::new(&op::FIND_VRF_ROUTE_BY_ID, find_vrf_route_by_id).names("id", &RESOURCE),
        Modelled::new(&op::UPDATE_VRF_ROUTE_BY_ID, update_vrf_route_by_id).names("id", &RESOURCE),
        Modelled::new(&op::DELETE_VRF_ROUTE_BY_ID, delete_vrf_route_by_id).names("id", &RESOURCE),
        Modelled::new(&op::GET_VRF_LEARNED_ROUTES, get_vrf_learned_routes)
            .names("id", &vrf::RESOURCE),
        Modelled::new(&op::GET_VRF_BGP_NEIGHBORS, get_vrf_bgp_neighbors)
            .names("id", &vrf::RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.vrf_routes.get(&id).map(|r| Owner::Project(r.project))
}

fn get_vrf_routes(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let listing = Listing::unpaged(call, &[])?;
    acts(move |w, _, _| {
        w.vrfs.get(&id).ok_or_else(ApiError::not_found)?;
        let path = format_args!("{}/{COLLECTION}", Href::new(vrf::COLLECTION, id));
        let page = list::page(
            "routes",
            &path,
            w.vrf_routes.values().filter(|r| r.rec.vrf == id),
            |r: &Kept| r.meta.seq,
            &listing,
            |r| w.route_view(r, &listing.expand),
        );
        reply(&page)
    })
}

fn create_vrf_route(call: &Call) -> Result<Prepared, ApiError> {
    let vrf = call.id("id")?;
    let body: CreateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let id = w.create_route(vrf, body, now)?;
        let r = w.vrf_routes.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.route_view(r, &expand))
    })
}

fn find_vrf_route_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, _| {
        let r = w.vrf_routes.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.route_view(r, &expand))
    })
}

fn update_vrf_route_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: UpdateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.update_route(id, body, now)?;
        let r = w.vrf_routes.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.route_view(r, &expand))
    })
}

/// `202` with the route as it was, `deleting`; then it reads `404`.
fn delete_vrf_route_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let r = w.vrf_routes.get(&id).ok_or_else(ApiError::not_found)?;
        let mut body = serde_json::to_value(w.route_view(r, &expand))
            .map_err(|e| ApiError::new(500, format!("metal-fake: encoding the reply: {e}")))?;
        body["status"] = "deleting".into();
        w.delete_route(id, now)?;
        reply(&body)
    })
}

/// What a VRF learned from its BGP peers: nothing, as no BGP runs here.
#[derive(Serialize)]
struct LearnedRoutes {
    learned_routes: [(); 0],
}

fn get_vrf_learned_routes(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        w.vrfs.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&LearnedRoutes { learned_routes: [] })
    })
}

/// A VRF's BGP neighbours: none, as no BGP runs here.
#[derive(Serialize)]
struct Neighbors {
    bgp_neighbors: [(); 0],
}

fn get_vrf_bgp_neighbors(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        w.vrfs.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&Neighbors { bgp_neighbors: [] })
    })
}

/// Loads the document's routes: each of a VRF the world has, checked as
/// a create is.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    for r in &doc.vrf_routes {
        unique(&mut ids, r.id, "vrf route", r.id)?;
        let project = w
            .vrfs
            .get(&r.vrf)
            .map(|v| v.rec.project)
            .ok_or_else(|| unknown(format!("vrf route {}", r.id), "vrf", r.vrf))?;
        w.check_route(r.vrf, &r.prefix, r.next_hop, &r.tags, None)
            .map_err(|e| {
                WorldError::Inconsistent(format!("vrf route {}: {}", r.id, e.messages.join("; ")))
            })?;
        w.insert_route(r.clone(), project, now);
    }
    Ok(())
}

/// Saves the routes into `doc`, oldest first.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.vrf_routes = oldest_first(w.vrf_routes.iter(), |r| r.meta.seq)
        .into_iter()
        .map(|r| r.rec.clone())
        .collect();
}
