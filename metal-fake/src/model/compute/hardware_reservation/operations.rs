//! The hardware reservation operations the fake models, and who owns a
//! reservation.

use metal_api::operation as op;
use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::by_organization;
use super::filter::ReservationFilter;
use super::record::{entry, Kept, Live};
use super::COLLECTION;
use crate::call::{ApiError, Call};
use crate::document::{seconds, WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::list::Listing;
use crate::model::load::unknown;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
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
    load,
    save,
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

/// Loads the document's reservations: each in a project the world has, on
/// a plan and in a facility of its catalog.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    for r in &doc.reservations {
        let from = || format!("reservation {}", r.id);
        if w.reservations.contains_key(&r.id) {
            return Err(WorldError::Duplicate {
                kind: "reservation",
                id: r.id.to_string(),
            });
        }
        if !w.projects.contains_key(&r.project) {
            return Err(unknown(from(), "project", r.project));
        }
        w.catalog.check_placement(&from, &r.plan, &r.facility)?;
        let released_at = match r.released_in_seconds {
            Some(s) => Some(now + seconds("released_in_seconds", r.id, s)?),
            None => None,
        };
        w.reservations
            .rows()
            .insert(&mut w.journal, r.id, now, |meta| Kept {
                rec: r.clone(),
                meta,
                live: Live::default(),
            });
        if let Some(at) = released_at {
            w.release_at(r.id, at, now);
        }
    }
    Ok(())
}

/// Saves the reservations into `doc`, oldest first, each with the time
/// left at `now` before it is provisionable again.
fn save(w: &World, doc: &mut WorldDoc, now: Instant) {
    doc.reservations = oldest_first(w.reservations.iter(), |r| r.meta.seq)
        .into_iter()
        .map(|r| entry(r, now))
        .collect();
}
