//! The global BGP range operation the fake models, and who owns a range.

use metal_api::operation as op;
use uuid::Uuid;

use super::record;
use super::view::COLLECTION;
use crate::call::{ApiError, Call};
use crate::model::access::Owner;
use crate::model::project;
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::World;

/// Global BGP ranges.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_GLOBAL_BGP_RANGES, find_global_bgp_ranges)
            .names("id", &project::RESOURCE),
    ],
    owner,
    load: record::load,
    save: record::save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.global_bgp_ranges
        .get(&id)
        .map(|r| Owner::Project(r.rec.project))
}

fn find_global_bgp_ranges(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    acts(move |w, _, _| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        reply(&w.global_bgp_ranges_of(project))
    })
}
