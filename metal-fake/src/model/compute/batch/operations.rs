//! The device batch operations the fake models, and who owns a batch.

use metal_api::operation as op;
use uuid::Uuid;

use super::record;
use super::rules::read;
use super::view::{BatchList, COLLECTION};
use crate::call::{ApiError, Call, Reply};
use crate::model::access::Owner;
use crate::model::project;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
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
    load: record::load,
    save: record::save,
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
