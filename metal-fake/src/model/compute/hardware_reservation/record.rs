//! What the fake keeps of a hardware reservation: its description (also
//! its entry in the world document), the device it holds, and when it is
//! provisionable again after a delete.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// A hardware reservation. Which device it holds is said by the device.
///
/// `released_in_seconds` is when a document's reservation is
/// provisionable again; a saved document (`Fake::world`, `GET /_fake/world`) shows
/// the time left then.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HardwareReservation {
    /// Its ID.
    pub id: Uuid,
    /// The project that holds it.
    pub project: Uuid,
    /// The plan's slug, one of `plans`.
    pub plan: String,
    /// The facility's code, one of `facilities`.
    pub facility: String,
    /// Seconds until it is provisionable again after a device was deleted
    /// from it (absent: free now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub released_in_seconds: Option<f64>,
    /// Not yet activated: not provisionable until
    /// `activateHardwareReservation` (absent: active).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub inactive: bool,
}

/// What the world keeps of a reservation besides its description.
#[derive(Clone, Debug, Default)]
pub(crate) struct Live {
    /// The device on it.
    pub(crate) device: Option<Uuid>,
    /// When its last release is (or was) due: set when its device is
    /// deleted.
    pub(crate) released_at: Option<Instant>,
    /// Its release is still to come (the world's due-queue ends it at
    /// `released_at`).
    pub(crate) releasing: bool,
}

/// A reservation as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: HardwareReservation,
    pub(crate) meta: Meta,
    pub(crate) live: Live,
}

record!(Kept, Kind::HardwareReservation, |k| Scope {
    project: Some(k.rec.project),
    organization: None,
    device: k.live.device,
});

impl Kept {
    /// Whether a create on it would succeed (active, free and released).
    pub(crate) fn provisionable(&self) -> bool {
        !self.rec.inactive && self.live.device.is_none() && !self.live.releasing
    }
}

/// One reservation's entry in a world document at `now`, with the time
/// left before it is provisionable again.
pub(crate) fn entry(r: &Kept, now: Instant) -> HardwareReservation {
    HardwareReservation {
        released_in_seconds: r
            .live
            .released_at
            .filter(|at| *at > now)
            .map(|at| at.duration_since(now).as_secs_f64()),
        ..r.rec.clone()
    }
}
