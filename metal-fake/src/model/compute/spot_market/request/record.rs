//! What the fake keeps of a spot market request: its description (also
//! its entry in the world document) and the devices it made.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// A spot market request of a project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpotMarketRequest {
    /// Its ID.
    pub id: Uuid,
    /// The project that made it.
    pub project: Uuid,
    /// The plan's slug, one of `plans`.
    pub plan: String,
    /// The metro's code, one of `metros` (absent: it named facilities).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metro: Option<String>,
    /// The facilities' codes it named, each one of `facilities`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facilities: Vec<String>,
    /// The fewest devices it makes.
    pub devices_min: u32,
    /// The most devices it makes.
    pub devices_max: u32,
    /// The most it pays a device an hour, in US dollars.
    pub max_bid_price: f64,
    /// When it ends, as its create said: its devices still there are
    /// deleted then, on the fake's clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_at: Option<DateTime<Utc>>,
    /// The devices it made, each one of `devices` of its project (a saved
    /// world names only those still there).
    #[serde(default)]
    pub devices: Vec<Uuid>,
}

/// A spot market request as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: SpotMarketRequest,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::SpotMarketRequest, |k| Scope::project(
    k.rec.project
));
