//! The port VLAN assignment batch operations the fake models, and a
//! port's VLAN assignments.

use metal_api::operation as op;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::BatchState;
use super::record::Kept;
use super::rules::CreateInput;
use super::rules::MAX_ASSIGNMENTS;
use super::view::{AssignmentList, BatchList};
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::load::{unique, unknown};
use crate::model::port;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
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
    load,
    save,
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

/// Loads the document's batches: each on a port of a device the world
/// has, of that device's project, within the bound of assignments; a
/// queued or in-progress one goes on after its delay.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    for b in &doc.port_vlan_batches {
        unique(&mut ids, b.id, "port vlan batch", b.id)?;
        let what = || format!("port vlan batch {}", b.id);
        let (device, project) = w
            .find_port(b.port)
            .map(|(d, _)| (d.rec.id, d.rec.project))
            .map_err(|_| unknown(what(), "port", b.port))?;
        if project != b.project {
            return Err(WorldError::Inconsistent(format!(
                "{}: its project is not its port's device's",
                what()
            )));
        }
        if b.vlan_assignments.is_empty() || b.vlan_assignments.len() > MAX_ASSIGNMENTS {
            return Err(WorldError::Inconsistent(format!(
                "{}: 1 to {} assignments",
                what(),
                MAX_ASSIGNMENTS
            )));
        }
        if b.error_messages.len() > MAX_ASSIGNMENTS {
            return Err(WorldError::Inconsistent(format!(
                "{}: too many error messages",
                what()
            )));
        }
        w.port_vlan_batches
            .rows()
            .insert(&mut w.journal, b.id, now, |meta| Kept {
                rec: b.clone(),
                meta,
                device,
            });
        if matches!(b.state, BatchState::Queued | BatchState::InProgress) {
            w.queue_batch_step(b.id, b.state, now);
        }
    }
    Ok(())
}

/// Saves the batches into `doc`, oldest first.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.port_vlan_batches = oldest_first(w.port_vlan_batches.iter(), |b| b.meta.seq)
        .into_iter()
        .map(|b| b.rec.clone())
        .collect();
}
