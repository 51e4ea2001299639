//! What the fake keeps of a spot market request: its description (also
//! its entry in the world document) and the devices it made.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use super::rules::MAX_SPOT_DEVICES;
use crate::document::{WorldDoc, WorldError};
use crate::model::journal::{record, Meta, Scope};
use crate::model::load::unknown;
use crate::model::relations::Kind;
use crate::model::world::oldest_first;
use crate::model::World;

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

/// Loads the document's requests: each of a project the world has, on a
/// plan and in a metro or facilities of its catalog, `1 <= devices_min
/// <= devices_max <=` [`MAX_SPOT_DEVICES`], a finite bid, and naming
/// devices of its own project, each once in all requests.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut claimed = std::collections::HashSet::new();
    for r in &doc.spot_market_requests {
        let from = || format!("spot market request {}", r.id);
        let bad = |why: &str| WorldError::Inconsistent(format!("{}: {why}", from()));
        if w.spot_requests.contains_key(&r.id) {
            return Err(WorldError::Duplicate {
                kind: "spot market request",
                id: r.id.to_string(),
            });
        }
        if !w.projects.contains_key(&r.project) {
            return Err(unknown(from(), "project", r.project));
        }
        if w.catalog.plan(&r.plan).is_none() {
            return Err(unknown(from(), "plan", &r.plan));
        }
        if let Some(m) = r.metro.as_ref().filter(|m| w.catalog.metro(m).is_none()) {
            return Err(unknown(from(), "metro", m));
        }
        if let Some(f) = r
            .facilities
            .iter()
            .find(|f| w.catalog.facility(f).is_none())
        {
            return Err(unknown(from(), "facility", f));
        }
        if r.metro.is_none() == r.facilities.is_empty() {
            return Err(bad("names exactly one of metro and facilities"));
        }
        if r.devices_min == 0 || r.devices_min > r.devices_max || r.devices_max > MAX_SPOT_DEVICES {
            return Err(bad(&format!(
                "needs 1 <= devices_min <= devices_max <= {MAX_SPOT_DEVICES}"
            )));
        }
        if !(r.max_bid_price.is_finite() && r.max_bid_price > 0.0) {
            return Err(bad("max_bid_price must be a finite number above 0"));
        }
        for d in &r.devices {
            if w.devices.get(d).is_none_or(|k| k.rec.project != r.project) {
                return Err(unknown(from(), "device of its project", d));
            }
            if !claimed.insert(*d) {
                return Err(bad(&format!("device {d} is another request's")));
            }
        }
        w.spot_requests
            .rows()
            .insert(&mut w.journal, r.id, now, |meta| Kept {
                rec: r.clone(),
                meta,
            });
        w.queue_spot_end(r.id, r.end_at, now);
    }
    Ok(())
}

/// Saves the requests into `doc`, oldest first, each naming the devices
/// it made that are still there.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.spot_market_requests = oldest_first(w.spot_requests.iter(), |r| r.meta.seq)
        .into_iter()
        .map(|r| entry(w, r))
        .collect();
}

/// One request's entry in a world document, naming the devices it made
/// that are still there.
pub(crate) fn entry(w: &World, r: &Kept) -> SpotMarketRequest {
    SpotMarketRequest {
        devices: w.request_devices(r).collect(),
        ..r.rec.clone()
    }
}
