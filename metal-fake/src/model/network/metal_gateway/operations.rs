//! The Metal Gateway operations the fake models, and who owns a gateway.

use metal_api::operation as op;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use super::rules::CreateInput;
use super::COLLECTION;
use crate::call::{ApiError, Call};
use crate::coverage::Unread;
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::list::Listing;
use crate::model::load::{unique, unknown};
use crate::model::project;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::World;

/// Metal Gateways.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(
            &op::FIND_METAL_GATEWAYS_BY_PROJECT,
            find_metal_gateways_by_project,
        )
        .names("project_id", &project::RESOURCE),
        Modelled::new(&op::CREATE_METAL_GATEWAY, create_metal_gateway)
            .names("project_id", &project::RESOURCE)
            .unread(&[
                Unread::no_effect("page", "a create's reply is one gateway: nothing to page"),
                Unread::no_effect("per_page", "as `page`"),
            ]),
        Modelled::new(&op::FIND_METAL_GATEWAY_BY_ID, find_metal_gateway_by_id)
            .names("id", &RESOURCE),
        Modelled::new(&op::DELETE_METAL_GATEWAY, delete_metal_gateway).names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.gateways.get(&id).map(|g| Owner::Project(g.rec.project))
}

fn find_metal_gateways_by_project(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    let listing = Listing::of(call, &[])?;
    acts(move |w, _, now| {
        let page = w.page_of(
            project,
            ("metal_gateways", COLLECTION),
            w.gateways.values().filter(|g| g.rec.project == project),
            |g: &Kept| g.meta.seq,
            &listing,
            |g| w.gateway_view(g, &listing.expand, now),
        )?;
        reply(&page)
    })
}

fn create_metal_gateway(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    let body: CreateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let id = w.create_gateway(project, &body, now)?;
        let g = w.gateways.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.gateway_view(g, &expand, now))
    })
}

fn find_metal_gateway_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let g = w.gateways.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.gateway_view(g, &expand, now))
    })
}

/// `202` with the gateway as it was, `deleting`; then it reads `404` (at
/// once, unless a test sets a `deleting` lag: then it reads `deleting`
/// until it is gone, as Terraform's delete waits for).
fn delete_metal_gateway(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let g = w.gateways.get(&id).ok_or_else(ApiError::not_found)?;
        let mut body = serde_json::to_value(w.gateway_view(g, &expand, now))
            .map_err(|e| ApiError::new(500, format!("metal-fake: encoding the reply: {e}")))?;
        body["state"] = "deleting".into();
        w.delete_gateway(id, now)?;
        reply(&body)
    })
}

/// Loads the document's gateways: each of a project the world has, on one
/// of its VLANs that has no other gateway, with a block of the project in
/// the VLAN's metro that no other gateway holds; one deleting is gone
/// after its delay.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    for g in &doc.metal_gateways {
        let from = || format!("metal gateway {}", g.id);
        unique(&mut ids, g.id, "metal gateway", g.id)?;
        if !w.projects.contains_key(&g.project) {
            return Err(unknown(from(), "project", g.project));
        }
        if !w.vlans.contains_key(&g.virtual_network) {
            return Err(unknown(from(), "virtual network", g.virtual_network));
        }
        if !w.ips.reservations().contains_key(&g.ip_reservation) {
            return Err(unknown(from(), "ip reservation", g.ip_reservation));
        }
        w.check_gateway(g.project, g.virtual_network, g.ip_reservation)
            .map_err(|e| {
                WorldError::Inconsistent(format!("{}: {}", from(), e.messages.join("; ")))
            })?;
        w.gateways
            .rows()
            .insert(&mut w.journal, g.id, now, |meta| Kept {
                rec: g.clone(),
                meta,
            });
        if g.deleting {
            w.queue_gateway_gone(g.id, now);
        }
    }
    Ok(())
}

/// Saves the gateways into `doc`, oldest first.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.metal_gateways = oldest_first(w.gateways.iter(), |g| g.meta.seq)
        .into_iter()
        .map(|g| g.rec.clone())
        .collect();
}
