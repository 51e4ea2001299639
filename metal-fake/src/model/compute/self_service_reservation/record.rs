//! What the fake keeps of a self-service reservation: its description
//! (also its entry in the world document).

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

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
