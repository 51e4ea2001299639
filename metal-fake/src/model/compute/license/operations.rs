//! The license operations the fake models, and who owns a license.

use metal_api::operation as op;
use metal_api::types;
use uuid::Uuid;

use super::record;
use super::view::{LicenseList, COLLECTION};
use crate::call::{ApiError, Call, Reply};
use crate::model::access::Owner;
use crate::model::list::Listing;
use crate::model::project;
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
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
    load: record::load,
    save: record::save,
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
