//! The BGP dynamic neighbour operations the fake models, and who owns a
//! neighbour.

use metal_api::operation as op;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use super::rules::CreateInput;
use super::COLLECTION;
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::list::{self, Listing};
use crate::model::load::{unique, unknown};
use crate::model::render::{reply, Href};
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::{metal_gateway, World};

/// BGP dynamic neighbours.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::GET_BGP_DYNAMIC_NEIGHBORS, get_bgp_dynamic_neighbors)
            .names("id", &metal_gateway::RESOURCE),
        Modelled::new(
            &op::CREATE_BGP_DYNAMIC_NEIGHBOR,
            create_bgp_dynamic_neighbor,
        )
        .names("id", &metal_gateway::RESOURCE),
        Modelled::new(
            &op::FIND_BGP_DYNAMIC_NEIGHBOR_BY_ID,
            find_bgp_dynamic_neighbor_by_id,
        )
        .names("id", &RESOURCE),
        Modelled::new(
            &op::DELETE_BGP_DYNAMIC_NEIGHBOR_BY_ID,
            delete_bgp_dynamic_neighbor_by_id,
        )
        .names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.bgp_dynamic_neighbors
        .get(&id)
        .map(|n| Owner::Project(n.project))
}

fn get_bgp_dynamic_neighbors(call: &Call) -> Result<Prepared, ApiError> {
    let gateway = call.id("id")?;
    let listing = Listing::unpaged(call, &[])?;
    acts(move |w, _, _| {
        w.gateways.get(&gateway).ok_or_else(ApiError::not_found)?;
        let path = format_args!(
            "{}/{COLLECTION}",
            Href::new(metal_gateway::COLLECTION, gateway)
        );
        let page = list::page(
            "bgp_dynamic_neighbors",
            &path,
            w.bgp_dynamic_neighbors
                .values()
                .filter(|n| n.rec.metal_gateway == gateway),
            |n: &Kept| n.meta.seq,
            &listing,
            |n| w.neighbor_view(n),
        );
        reply(&page)
    })
}

fn create_bgp_dynamic_neighbor(call: &Call) -> Result<Prepared, ApiError> {
    let gateway = call.id("id")?;
    let body: CreateInput = call.json()?;
    acts(move |w, _, now| {
        let id = w.create_neighbor(gateway, body, now)?;
        let n = w
            .bgp_dynamic_neighbors
            .get(&id)
            .ok_or_else(ApiError::not_found)?;
        reply(&w.neighbor_view(n))
    })
}

fn find_bgp_dynamic_neighbor_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        let n = w
            .bgp_dynamic_neighbors
            .get(&id)
            .ok_or_else(ApiError::not_found)?;
        reply(&w.neighbor_view(n))
    })
}

/// `202` with the neighbour as it was, `deleting`; then it reads `404`.
fn delete_bgp_dynamic_neighbor_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        let n = w
            .bgp_dynamic_neighbors
            .get(&id)
            .ok_or_else(ApiError::not_found)?;
        let mut body = serde_json::to_value(w.neighbor_view(n))
            .map_err(|e| ApiError::new(500, format!("metal-fake: encoding the reply: {e}")))?;
        body["state"] = "deleting".into();
        w.delete_neighbor(id, now)?;
        reply(&body)
    })
}

/// Loads the document's neighbours: each of a gateway the world has,
/// checked as a create is; a `pending` one settles as a new one does.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    for n in &doc.bgp_dynamic_neighbors {
        let from = || format!("bgp dynamic neighbor {}", n.id);
        unique(&mut ids, n.id, "bgp dynamic neighbor", n.id)?;
        let project = w
            .gateways
            .get(&n.metal_gateway)
            .map(|g| g.rec.project)
            .ok_or_else(|| unknown(from(), "metal gateway", n.metal_gateway))?;
        w.check_neighbor(n.metal_gateway, &n.bgp_neighbor_range, &n.tags)
            .map_err(|e| {
                WorldError::Inconsistent(format!("{}: {}", from(), e.messages.join("; ")))
            })?;
        w.insert_neighbor(n.clone(), project, now);
    }
    Ok(())
}

/// Saves the neighbours into `doc`, oldest first.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.bgp_dynamic_neighbors = oldest_first(w.bgp_dynamic_neighbors.iter(), |n| n.meta.seq)
        .into_iter()
        .map(|n| n.rec.clone())
        .collect();
}
