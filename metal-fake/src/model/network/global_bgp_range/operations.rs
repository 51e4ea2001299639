//! The global BGP range operation the fake models, and who owns a range.

use metal_api::operation as op;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::family;
use super::record::Kept;
use super::COLLECTION;
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::load::{unique, unknown};
use crate::model::project;
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::World;

/// Global BGP ranges.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_GLOBAL_BGP_RANGES, find_global_bgp_ranges)
            .names("id", &project::RESOURCE),
    ],
    owner,
    load,
    save,
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

/// Loads the document's ranges: each a CIDR network of a project the
/// world has.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    for r in &doc.global_bgp_ranges {
        let from = || format!("global bgp range {}", r.id);
        unique(&mut ids, r.id, "global bgp range", r.id)?;
        if !w.projects.contains_key(&r.project) {
            return Err(unknown(from(), "project", r.project));
        }
        let address_family = family(&r.range)
            .map_err(|why| WorldError::Inconsistent(format!("{}: {why}", from())))?;
        w.global_bgp_ranges
            .rows()
            .insert(&mut w.journal, r.id, now, |meta| Kept {
                rec: r.clone(),
                address_family,
                meta,
            });
    }
    Ok(())
}

/// Saves the ranges into `doc`, oldest first.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.global_bgp_ranges = oldest_first(w.global_bgp_ranges.iter(), |r| r.meta.seq)
        .into_iter()
        .map(|r| r.rec.clone())
        .collect();
}
