//! The elastic IP operations the fake models, and who owns an elastic IP.

use metal_api::operation as op;
use metal_api::types;
use uuid::Uuid;

use super::record;
use crate::call::{ApiError, Call};
use crate::model::access::Owner;
use crate::model::ip_reservation::COLLECTION;
use crate::model::metal_gateway;
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
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
    load: record::load,
    save: record::save,
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
