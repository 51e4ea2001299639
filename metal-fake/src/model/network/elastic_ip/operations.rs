//! The elastic IP operations the fake models, and who owns an elastic IP.

use metal_api::operation as op;
use metal_api::types;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::ip_reservation::COLLECTION;
use crate::model::load::{unique, unknown};
use crate::model::metal_gateway;
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::World;

/// Elastic IPs (read at `/ips/{id}` like every address; listed and made
/// under their gateway).
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(
            &op::GET_METAL_GATEWAY_ELASTIC_IPS,
            get_metal_gateway_elastic_ips,
        )
        .names("id", &metal_gateway::RESOURCE),
        Modelled::new(
            &op::CREATE_METAL_GATEWAY_ELASTIC_IP,
            create_metal_gateway_elastic_ip,
        )
        .names("id", &metal_gateway::RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.elastic_ips.get(&id).map(|e| Owner::Project(e.project))
}

fn get_metal_gateway_elastic_ips(call: &Call) -> Result<Prepared, ApiError> {
    let gateway = call.id("id")?;
    acts(move |w, _, _| {
        w.gateways.get(&gateway).ok_or_else(ApiError::not_found)?;
        reply(&w.elastic_ip_list(gateway))
    })
}

fn create_metal_gateway_elastic_ip(call: &Call) -> Result<Prepared, ApiError> {
    let gateway = call.id("id")?;
    let body: types::MetalGatewayElasticIpCreateInput = call.json()?;
    acts(move |w, _, now| {
        let id = w.create_elastic_ip(gateway, &body, now)?;
        let e = w.elastic_ips.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.elastic_ip_view(e))
    })
}

/// Loads the document's elastic IPs: each of a VRF gateway the world has,
/// by the same rules as a create.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    for e in &doc.elastic_ips {
        let from = || format!("elastic ip {}", e.id);
        unique(&mut ids, e.id, "elastic ip", e.id)?;
        let project = w
            .gateways
            .get(&e.metal_gateway)
            .map(|g| g.rec.project)
            .ok_or_else(|| unknown(from(), "metal gateway", e.metal_gateway))?;
        w.check_elastic_ip(e)
            .map_err(|why| WorldError::Inconsistent(format!("{}: {why}", from())))?;
        w.elastic_ips
            .rows()
            .insert(&mut w.journal, e.id, now, |meta| Kept {
                rec: e.clone(),
                project,
                meta,
            });
    }
    Ok(())
}

/// Saves the elastic IPs into `doc`, oldest first.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.elastic_ips = oldest_first(w.elastic_ips.iter(), |e| e.meta.seq)
        .into_iter()
        .map(|e| e.rec.clone())
        .collect();
}
