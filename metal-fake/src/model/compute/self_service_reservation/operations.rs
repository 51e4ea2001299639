//! The self-service reservation operations the fake models, and who owns
//! a reservation.

use metal_api::operation as op;
use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use super::rules::{check_period, MAX_ITEMS, MAX_QUANTITY};
use super::view::ReservationList;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError, MAX_NAME};
use crate::model::access::Owner;
use crate::model::list::{categories, plan_in_categories, Cut};
use crate::model::load::unknown;
use crate::model::project;
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
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
    load,
    save,
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

/// Loads the document's self-service reservations: each of a project the
/// world has, with 1 to [`MAX_ITEMS`] items of a catalog plan offered in
/// a catalog metro, 1 to [`MAX_QUANTITY`] each, a period the API takes.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    for r in &doc.self_service_reservations {
        let from = || format!("self-service reservation {}", r.id);
        let bad = |why: String| WorldError::Inconsistent(format!("{}: {why}", from()));
        if w.self_service_reservations.contains_key(&r.id) {
            return Err(WorldError::Duplicate {
                kind: "self-service reservation",
                id: r.id.to_string(),
            });
        }
        if !w.projects.contains_key(&r.project) {
            return Err(unknown(from(), "project", r.project));
        }
        if r.items.is_empty() || r.items.len() > MAX_ITEMS {
            return Err(bad(format!("needs 1 to {MAX_ITEMS} items")));
        }
        for i in &r.items {
            if w.catalog.plan(&i.plan).is_none() {
                return Err(unknown(from(), "plan", &i.plan));
            }
            if w.catalog.metro(&i.metro).is_none() {
                return Err(unknown(from(), "metro", &i.metro));
            }
            if i.quantity == 0 || i.quantity > MAX_QUANTITY {
                return Err(bad(format!("quantity must be 1 to {MAX_QUANTITY}")));
            }
            if i.term.as_ref().is_some_and(|t| t.len() > MAX_NAME) {
                return Err(bad("term is too long".into()));
            }
        }
        check_period(i64::from(r.period.count), &r.period.unit)
            .map_err(|e| bad(e.messages.join("; ")))?;
        if r.notes
            .as_ref()
            .is_some_and(|n| n.len() > crate::model::bounds::MAX_TEXT)
        {
            return Err(bad("notes are too long".into()));
        }
        w.self_service_reservations
            .rows()
            .insert(&mut w.journal, r.id, now, |meta| Kept {
                rec: r.clone(),
                meta,
            });
    }
    Ok(())
}

/// Saves the self-service reservations into `doc`, oldest first.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.self_service_reservations =
        oldest_first(w.self_service_reservations.iter(), |r| r.meta.seq)
            .into_iter()
            .map(|r| r.rec.clone())
            .collect();
}
