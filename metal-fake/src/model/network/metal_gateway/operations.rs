//! The Metal Gateway operations the fake models, and who owns a gateway.

use metal_api::operation as op;
use uuid::Uuid;

use super::record::{self, Kept};
use super::rules::CreateInput;
use super::view::COLLECTION;
use crate::call::{ApiError, Call};
use crate::coverage::Unread;
use crate::model::access::Owner;
use crate::model::list::Listing;
use crate::model::project;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::World;

/// Metal Gateways.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(
            &op::FIND_METAL_GATEWAYS_BY_PROJECT,
            find_metal_gateways_by_project,
        )
        .names("project_id", &project::RESOURCE),
        Modelled::new(&op::CREATE_METAL_GATEWAY, create_metal_gateway)
            .names("project_id", &project::RESOURCE)
            .unread(&[
                Unread::no_effect("page", "a create's reply is one gateway: nothing to page"),
                Unread::no_effect("per_page", "as `page`"),
            ]),
        Modelled::new(&op::FIND_METAL_GATEWAY_BY_ID, find_metal_gateway_by_id)
            .names("id", &RESOURCE),
        Modelled::new(&op::DELETE_METAL_GATEWAY, delete_metal_gateway).names("id", &RESOURCE),
    ],
    owner,
    load: record::load,
    save: record::save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.gateways.get(&id).map(|g| Owner::Project(g.rec.project))
}

fn find_metal_gateways_by_project(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    let listing = Listing::of(call, &[])?;
    acts(move |w, _, now| {
        let page = w.page_of(
            project,
            ("metal_gateways", COLLECTION),
            w.gateways.values().filter(|g| g.rec.project == project),
            |g: &Kept| g.meta.seq,
            &listing,
            |g| w.gateway_view(g, &listing.expand, now),
        )?;
        reply(&page)
    })
}

fn create_metal_gateway(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    let body: CreateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let id = w.create_gateway(project, &body, now)?;
        let g = w.gateways.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.gateway_view(g, &expand, now))
    })
}

fn find_metal_gateway_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let g = w.gateways.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.gateway_view(g, &expand, now))
    })
}

/// `202` with the gateway, `deleting`; it reads so until it is gone, then
/// `404` (as Terraform's delete waits for).
fn delete_metal_gateway(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.delete_gateway(id, now)?;
        let g = w.gateways.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.gateway_view(g, &expand, now))
    })
}
