//! The virtual circuit operations the fake models, and who owns a
//! circuit.

use metal_api::operation as op;
use uuid::Uuid;

use super::record;
use super::rules::{CreateInput, UpdateInput};
use super::view::{VcList, COLLECTION};
use crate::call::{ApiError, Call};
use crate::model::access::Owner;
use crate::model::interconnection;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::World;

/// Virtual circuits (`/virtual-circuits`, and those of a connection's
/// ports).
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::CREATE_INTERCONNECTION_PORT_VIRTUAL_CIRCUIT, create)
            .names("connection_id", &interconnection::RESOURCE),
        Modelled::new(
            &op::LIST_INTERCONNECTION_PORT_VIRTUAL_CIRCUITS,
            list_of_port,
        )
        .names("connection_id", &interconnection::RESOURCE),
        Modelled::new(
            &op::LIST_INTERCONNECTION_VIRTUAL_CIRCUITS,
            list_of_connection,
        )
        .names("connection_id", &interconnection::RESOURCE),
        Modelled::new(&op::GET_VIRTUAL_CIRCUIT, get).names("id", &RESOURCE),
        Modelled::new(&op::UPDATE_VIRTUAL_CIRCUIT, update)
            .also_patch()
            .names("id", &RESOURCE),
        Modelled::new(&op::DELETE_VIRTUAL_CIRCUIT, delete).names("id", &RESOURCE),
    ],
    owner,
    load: record::load,
    save: record::save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.virtual_circuits
        .get(&id)
        .map(|vc| Owner::Project(vc.rec.project))
}

fn create(call: &Call) -> Result<Prepared, ApiError> {
    let connection = call.id("connection_id")?;
    let port = call.id("port_id")?;
    let body: CreateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let id = w.create_virtual_circuit(connection, port, &body, now)?;
        reply(&w.vc_view(w.virtual_circuit(id)?, &expand, now))
    })
}

fn list_of_port(call: &Call) -> Result<Prepared, ApiError> {
    let connection = call.id("connection_id")?;
    let port = call.id("port_id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        if !w.interconnection(connection)?.rec.ports.contains(&port) {
            return Err(ApiError::not_found());
        }
        reply(&VcList {
            virtual_circuits: w
                .circuits_on_port(port)
                .into_iter()
                .map(|vc| w.vc_view(vc, &expand, now))
                .collect(),
        })
    })
}

fn list_of_connection(call: &Call) -> Result<Prepared, ApiError> {
    let connection = call.id("connection_id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.interconnection(connection)?;
        reply(&VcList {
            virtual_circuits: w
                .circuits_of_connection(connection)
                .into_iter()
                .map(|vc| w.vc_view(vc, &expand, now))
                .collect(),
        })
    })
}

fn get(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| reply(&w.vc_view(w.virtual_circuit(id)?, &expand, now)))
}

fn update(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: UpdateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.update_virtual_circuit(id, &body, now)?;
        reply(&w.vc_view(w.virtual_circuit(id)?, &expand, now))
    })
}

fn delete(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.delete_virtual_circuit(id, now)?;
        reply(&w.vc_view(w.virtual_circuit(id)?, &expand, now))
    })
}
