//! The self-service reservation operations the fake models, and who owns
//! a reservation.

use metal_api::operation as op;
use metal_api::types;
use uuid::Uuid;

use super::record;
use super::view::ReservationList;
use crate::call::{ApiError, Call, Reply};
use crate::model::access::Owner;
use crate::model::list::{categories, plan_in_categories, Cut};
use crate::model::project;
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::World;

/// Self-service reservations, under their project's path.
pub(crate) static RESOURCE: Resource = Resource {
    collection: "self-service",
    operations: &[
        Modelled::new(
            &op::CREATE_SELF_SERVICE_RESERVATION,
            create_self_service_reservation,
        )
        .names("project_id", &project::RESOURCE),
        Modelled::new(
            &op::FIND_SELF_SERVICE_RESERVATIONS,
            find_self_service_reservations,
        )
        .names("project_id", &project::RESOURCE),
        Modelled::new(
            &op::FIND_SELF_SERVICE_RESERVATION,
            find_self_service_reservation,
        )
        .names("project_id", &project::RESOURCE),
    ],
    owner,
    load: record::load,
    save: record::save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.self_service_reservations
        .get(&id)
        .map(|r| Owner::Project(r.rec.project))
}

impl World {
    /// The reservation `id` of `project` (`404` for another project's).
    fn self_service_reply(&self, project: Uuid, id: Uuid) -> Result<Reply, ApiError> {
        let r = self
            .self_service_reservations
            .get(&id)
            .filter(|r| r.rec.project == project)
            .ok_or_else(ApiError::not_found)?;
        reply(&self.self_service_view(r))
    }
}

fn create_self_service_reservation(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    let body: types::CreateSelfServiceReservationRequest = call.json()?;
    acts(move |w, _, now| {
        let id = w.create_self_service_reservation(project, &body, now)?;
        w.self_service_reply(project, id)
    })
}

fn find_self_service_reservations(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    let matches = plan_in_categories(&categories(call, "categories")?);
    let cut = Cut::of(call)?;
    acts(move |w, _, _| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        let mut list: Vec<_> = w
            .self_service_reservations
            .values()
            .filter(|r| matches && r.rec.project == project)
            .collect();
        list.sort_by_key(|r| r.meta.seq);
        reply(&ReservationList {
            reservations: cut
                .cut(list)
                .into_iter()
                .map(|r| w.self_service_view(r))
                .collect(),
        })
    })
}

fn find_self_service_reservation(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    let id = call.id("id")?;
    acts(move |w, _, _| w.self_service_reply(project, id))
}
