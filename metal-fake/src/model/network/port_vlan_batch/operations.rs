//! The port VLAN assignment batch operations the fake models, and a
//! port's VLAN assignments.

use metal_api::operation as op;
use uuid::Uuid;

use super::record;
use super::rules::CreateInput;
use super::view::{AssignmentList, BatchList};
use crate::call::{ApiError, Call};
use crate::model::access::Owner;
use crate::model::port;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::World;

/// Port VLAN assignment batches (under `/ports/{id}`).
pub(crate) static RESOURCE: Resource = Resource {
    collection: port::COLLECTION,
    operations: &[
        Modelled::new(&op::CREATE_PORT_VLAN_ASSIGNMENT_BATCH, create).names("id", &port::RESOURCE),
        Modelled::new(&op::FIND_PORT_VLAN_ASSIGNMENT_BATCHES, list).names("id", &port::RESOURCE),
        Modelled::new(
            &op::FIND_PORT_VLAN_ASSIGNMENT_BATCH_BY_PORT_ID_AND_BATCH_ID,
            get,
        )
        .names("id", &port::RESOURCE),
        Modelled::new(&op::FIND_PORT_VLAN_ASSIGNMENTS, assignments).names("id", &port::RESOURCE),
        Modelled::new(
            &op::FIND_PORT_VLAN_ASSIGNMENT_BY_PORT_ID_AND_ASSIGNMENT_ID,
            assignment,
        )
        .names("id", &port::RESOURCE),
    ],
    owner,
    load: record::load,
    save: record::save,
};

/// A batch's ID names nothing in a path of its own (`{batch_id}` follows
/// its port's `{id}`, which access reads).
fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.port_vlan_batches
        .get(&id)
        .map(|b| Owner::Project(b.rec.project))
}

fn create(call: &Call) -> Result<Prepared, ApiError> {
    let port = call.id("id")?;
    let body: CreateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let id = w.create_port_vlan_batch(port, &body, now)?;
        reply(&w.batch_view(w.port_vlan_batch(port, id)?, &expand, now))
    })
}

fn list(call: &Call) -> Result<Prepared, ApiError> {
    let port = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.find_port(port)?;
        reply(&BatchList {
            batches: w
                .port_vlan_batches_of(port)
                .into_iter()
                .map(|b| w.batch_view(b, &expand, now))
                .collect(),
        })
    })
}

fn get(call: &Call) -> Result<Prepared, ApiError> {
    let port = call.id("id")?;
    let id = call.id("batch_id")?;
    let expand = expand(call);
    acts(move |w, _, now| reply(&w.batch_view(w.port_vlan_batch(port, id)?, &expand, now)))
}

fn assignments(call: &Call) -> Result<Prepared, ApiError> {
    let port = call.id("id")?;
    acts(move |w, _, _| {
        reply(&AssignmentList {
            vlan_assignments: w.port_assignments(port)?,
        })
    })
}

fn assignment(call: &Call) -> Result<Prepared, ApiError> {
    let port = call.id("id")?;
    let id = call.id("assignment_id")?;
    acts(move |w, _, _| {
        let one = w
            .port_assignments(port)?
            .into_iter()
            .find(|a| a.id() == id)
            .ok_or_else(ApiError::not_found)?;
        reply(&one)
    })
}
