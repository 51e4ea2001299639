//! The virtual circuit operations the fake models, and who owns a
//! circuit.

use metal_api::operation as op;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::by_project;
use super::record::Kept;
use super::record::VirtualCircuitStatus;
use super::rules;
use super::rules::{CreateInput, UpdateInput};
use super::view::VcList;
use super::COLLECTION;
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::load::{unique, unknown};
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::World;
use crate::model::{interconnection, project};

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
        // Outside the 2024 spec: packngo's `VirtualCircuits.Create`, the
        // same create with the project in the path.
        Modelled::new(
            &by_project::CREATE_PROJECT_INTERCONNECTION_PORT_VIRTUAL_CIRCUIT,
            by_project::create_in_project,
        )
        .names("project_id", &project::RESOURCE),
    ],
    owner,
    load,
    save,
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

/// Loads the document's virtual circuits: each on a port of a connection
/// the world has, of a project of the connection's organisation, with a
/// VLAN of that project in the connection's metro and an `nni_vlan` free
/// on the port; one still activating or deleting takes its next step
/// after its delay.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    for vc in &doc.virtual_circuits {
        unique(&mut ids, vc.id, "virtual circuit", vc.id)?;
        let what = || format!("virtual circuit {}", vc.id);
        if !w.interconnections.contains_key(&vc.interconnection) {
            return Err(unknown(what(), "interconnection", vc.interconnection));
        }
        if !w.projects.contains_key(&vc.project) {
            return Err(unknown(what(), "project", vc.project));
        }
        if let Some(v) = vc.virtual_network.filter(|v| !w.vlans.contains_key(v)) {
            return Err(unknown(what(), "virtual network", v));
        }
        rules::check_record(w, vc)
            .map_err(|why| WorldError::Inconsistent(format!("{}: {why}", what())))?;
        w.virtual_circuits
            .rows()
            .insert(&mut w.journal, vc.id, now, |meta| Kept {
                rec: vc.clone(),
                meta,
            });
        if vc.status != VirtualCircuitStatus::Active {
            w.queue_circuit_step(vc.id, vc.status, now);
        }
    }
    Ok(())
}

/// Saves the virtual circuits into `doc`, oldest first.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.virtual_circuits = oldest_first(w.virtual_circuits.iter(), |vc| vc.meta.seq)
        .into_iter()
        .map(|vc| vc.rec.clone())
        .collect();
}
