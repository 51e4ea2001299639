//! The license operations the fake models, and who owns a license.

use metal_api::operation as op;
use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use super::rules::check;
use super::view::LicenseList;
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::list::Listing;
use crate::model::load::unknown;
use crate::model::project;
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::World;

/// Licenses of projects.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_PROJECT_LICENSES, find_project_licenses)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::CREATE_LICENSE, create_license).names("id", &project::RESOURCE),
        Modelled::new(&op::FIND_LICENSE_BY_ID, find_license_by_id).names("id", &RESOURCE),
        Modelled::new(&op::UPDATE_LICENSE, update_license)
            .also_patch()
            .names("id", &RESOURCE),
        Modelled::new(&op::DELETE_LICENSE, delete_license).names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.licenses.get(&id).map(|l| Owner::Project(l.rec.project))
}

impl World {
    fn license_reply(&self, id: Uuid) -> Result<Reply, ApiError> {
        let l = self.licenses.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&self.license_view(l))
    }
}

fn find_project_licenses(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    // `page` and `per_page` are read (a bad one is `422`), but the spec's
    // `LicenseList` has no `meta`: every license of the project is sent.
    Listing::of(call, &[])?;
    acts(move |w, _, _| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        let mut licenses: Vec<_> = w
            .licenses
            .values()
            .filter(|l| l.rec.project == project)
            .collect();
        licenses.sort_by_key(|l| l.meta.seq);
        reply(&LicenseList {
            licenses: licenses.into_iter().map(|l| w.license_view(l)).collect(),
        })
    })
}

fn create_license(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let body: types::LicenseCreateInput = call.json()?;
    acts(move |w, _, now| {
        let id = w.create_license(project, &body, now)?;
        w.license_reply(id)
    })
}

fn find_license_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| w.license_reply(id))
}

fn update_license(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: types::LicenseUpdateInput = call.json()?;
    acts(move |w, _, now| {
        w.update_license(id, &body, now)?;
        w.license_reply(id)
    })
}

fn delete_license(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.delete_license(id, now)?;
        Ok(Reply::Empty)
    })
}

/// Loads the document's licenses: each of a project the world has, with
/// a product, a positive size and a description within bounds.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    for l in &doc.licenses {
        if w.licenses.contains_key(&l.id) {
            return Err(WorldError::Duplicate {
                kind: "license",
                id: l.id.to_string(),
            });
        }
        if !w.projects.contains_key(&l.project) {
            return Err(unknown(format!("license {}", l.id), "project", l.project));
        }
        check(
            Some(&l.licensee_product_id),
            Some(l.size),
            l.description.as_deref(),
        )
        .map_err(|e| {
            WorldError::Inconsistent(format!("license {}: {}", l.id, e.messages.join("; ")))
        })?;
        w.licenses
            .rows()
            .insert(&mut w.journal, l.id, now, |meta| Kept {
                rec: l.clone(),
                meta,
            });
    }
    Ok(())
}

/// Saves the licenses into `doc`, oldest first.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.licenses = oldest_first(w.licenses.iter(), |l| l.meta.seq)
        .into_iter()
        .map(|l| l.rec.clone())
        .collect();
}
