//! The hardware reservation operations the fake models, and who owns a
//! reservation.

use metal_api::operation as op;
use metal_api::types;
use uuid::Uuid;

use super::by_organization;
use super::filter::ReservationFilter;
use super::record;
use super::view::COLLECTION;
use crate::call::{ApiError, Call};
use crate::model::access::Owner;
use crate::model::list::Listing;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::World;
use crate::model::{organization, project};

/// Hardware reservations.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(
            &op::FIND_PROJECT_HARDWARE_RESERVATIONS,
            find_project_hardware_reservations,
        )
        .names("id", &project::RESOURCE),
        Modelled::new(
            &op::FIND_HARDWARE_RESERVATION_BY_ID,
            find_hardware_reservation_by_id,
        )
        .names("id", &RESOURCE),
        Modelled::new(&op::MOVE_HARDWARE_RESERVATION, move_hardware_reservation)
            .names("id", &RESOURCE),
        Modelled::new(
            &op::ACTIVATE_HARDWARE_RESERVATION,
            activate_hardware_reservation,
        )
        .names("id", &RESOURCE),
        // Outside the 2024 spec: packngo's `Organizations.ListHardwareReservations`.
        Modelled::new(
            &by_organization::FIND_ORGANIZATION_HARDWARE_RESERVATIONS,
            by_organization::find_organization_hardware_reservations,
        )
        .names("id", &organization::RESOURCE),
    ],
    owner,
    load: record::load,
    save: record::save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.reservations
        .get(&id)
        .map(|r| Owner::Project(r.rec.project))
}

fn find_project_hardware_reservations(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let listing = Listing::of(call, ReservationFilter::PARAMS)?;
    let filter = ReservationFilter::of(call)?;
    acts(move |w, _, now| reply(&w.reservation_page(project, &filter, &listing, now)?))
}

fn find_hardware_reservation_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let r = w.reservations.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.reservation_view(r, &expand, now))
    })
}

fn move_hardware_reservation(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let input: types::MoveHardwareReservationRequest = call.json()?;
    let project = input
        .project_id
        .ok_or_else(|| ApiError::unprocessable("project_id is required"))?;
    let expand = expand(call);
    acts(move |w, caller, now| {
        // The body's target is checked as a path's would be: another
        // organisation's project is `403`.
        let target = w.projects.get(&project).map(|_| Owner::Project(project));
        w.check_access(caller, target)?;
        w.move_reservation(id, project, now)?;
        let r = w.reservations.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.reservation_view(r, &expand, now))
    })
}

fn activate_hardware_reservation(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    // The body (`description`) is optional; a malformed one is still `422`.
    if !call.body().iter().all(u8::is_ascii_whitespace) {
        let _: types::ActivateHardwareReservationRequest = call.json()?;
    }
    let expand = expand(call);
    acts(move |w, _, now| {
        w.activate_reservation(id, now)?;
        let r = w.reservations.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.reservation_view(r, &expand, now))
    })
}
