//! The device batch operations the fake models, and who owns a batch.

use metal_api::operation as op;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Batch, Kept};
use super::rules::read;
use super::rules::MAX_BATCH_DEVICES;
use super::view::BatchList;
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::load::unknown;
use crate::model::project;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::World;

/// Device batches.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::CREATE_DEVICE_BATCH, create_device_batch)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::FIND_BATCHES_BY_PROJECT, find_batches_by_project)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::FIND_BATCH_BY_ID, find_batch_by_id).names("id", &RESOURCE),
        Modelled::new(&op::DELETE_BATCH, delete_batch).names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.batches.get(&id).map(|b| Owner::Project(b.rec.project))
}

fn create_device_batch(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let entries = read(call.json_value()?)?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let ids = w.create_batches(project, &entries, now)?;
        let batches = ids
            .iter()
            .filter_map(|id| w.batches.get(id))
            .map(|b| w.device_batch_view(b, &expand, now))
            .collect();
        reply(&BatchList { batches })
    })
}

fn find_batches_by_project(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        let mut batches: Vec<_> = w
            .batches
            .values()
            .filter(|b| b.rec.project == project)
            .collect();
        batches.sort_by_key(|b| b.meta.seq);
        reply(&BatchList {
            batches: batches
                .into_iter()
                .map(|b| w.device_batch_view(b, &expand, now))
                .collect(),
        })
    })
}

fn find_batch_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let b = w.batches.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.device_batch_view(b, &expand, now))
    })
}

fn delete_batch(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let remove = match call.text("remove_associated_instances").as_deref() {
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(ApiError::unprocessable(format!(
                "remove_associated_instances must be true or false: {other:?}"
            )))
        }
    };
    acts(move |w, _, now| {
        w.delete_batch(id, remove, now)?;
        Ok(Reply::Empty)
    })
}

/// Loads the document's batches: each of a project the world has, asking
/// for 1 to [`MAX_BATCH_DEVICES`] devices, naming at most that many
/// devices of its own project, each device in one batch.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut claimed = std::collections::HashSet::new();
    for b in &doc.batches {
        let from = || format!("batch {}", b.id);
        if w.batches.contains_key(&b.id) {
            return Err(WorldError::Duplicate {
                kind: "batch",
                id: b.id.to_string(),
            });
        }
        if !w.projects.contains_key(&b.project) {
            return Err(unknown(from(), "project", b.project));
        }
        if b.quantity == 0
            || b.quantity > MAX_BATCH_DEVICES
            || b.devices.len() > b.quantity as usize
        {
            return Err(WorldError::Inconsistent(format!(
                "{}: needs 1 <= quantity <= {MAX_BATCH_DEVICES} and no more devices than its quantity",
                from()
            )));
        }
        for d in &b.devices {
            if w.devices.get(d).is_none_or(|k| k.rec.project != b.project) {
                return Err(unknown(from(), "device of its project", d));
            }
            if !claimed.insert(*d) {
                return Err(WorldError::Inconsistent(format!(
                    "{}: device {d} is another batch's",
                    from()
                )));
            }
        }
        w.batches
            .rows()
            .insert(&mut w.journal, b.id, now, |meta| Kept {
                rec: b.clone(),
                meta,
            });
    }
    Ok(())
}

/// Saves the batches into `doc`, oldest first, each naming the devices it
/// made that are still there.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.batches = oldest_first(w.batches.iter(), |b| b.meta.seq)
        .into_iter()
        .map(|b| entry(w, b))
        .collect();
}

/// One batch's entry in a world document, naming the devices it made
/// that are still there.
pub(crate) fn entry(w: &World, b: &Kept) -> Batch {
    Batch {
        devices: w.batch_devices(b).collect(),
        ..b.rec.clone()
    }
}
