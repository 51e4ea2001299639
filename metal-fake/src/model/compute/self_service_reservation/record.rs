//! What the fake keeps of a self-service reservation: its description
//! (also its entry in the world document).

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use super::rules::{check_period, MAX_ITEMS, MAX_QUANTITY};
use crate::document::{WorldDoc, WorldError, MAX_NAME};
use crate::model::journal::{record, Meta, Scope};
use crate::model::load::unknown;
use crate::model::relations::Kind;
use crate::model::world::oldest_first;
use crate::model::World;

/// A self-service reservation of a project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SelfServiceReservation {
    /// Its ID.
    pub id: Uuid,
    /// The project that made it.
    pub project: Uuid,
    /// What it orders (1 to 100 items).
    pub items: Vec<ReservationItem>,
    /// For how long.
    pub period: Period,
    /// When it starts, as its create said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_date: Option<DateTime<Utc>>,
    /// Its notes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
}

/// One item of a self-service reservation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReservationItem {
    /// Its ID.
    pub id: Uuid,
    /// The plan's slug, one of `plans`.
    pub plan: String,
    /// The metro's code, one of `metros`, where the plan is offered.
    pub metro: String,
    /// How many servers (1 to 100).
    pub quantity: u32,
    /// Its term, as the create said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub term: Option<String>,
}

/// The period of a self-service reservation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Period {
    /// How many units: 12 or 36.
    pub count: u32,
    /// The unit: `monthly`.
    pub unit: String,
}

/// A self-service reservation as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: SelfServiceReservation,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::SelfServiceReservation, |k| Scope::project(
    k.rec.project
));

/// Loads the document's self-service reservations: each of a project the
/// world has, with 1 to [`MAX_ITEMS`] items of a catalog plan offered in
/// a catalog metro, 1 to [`MAX_QUANTITY`] each, a period the API takes.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
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
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.self_service_reservations =
        oldest_first(w.self_service_reservations.iter(), |r| r.meta.seq)
            .into_iter()
            .map(|r| r.rec.clone())
            .collect();
}
