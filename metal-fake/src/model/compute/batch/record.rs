//! What the fake keeps of a device batch: its description (also its entry
//! in the world document) and the devices it made.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use super::rules::MAX_BATCH_DEVICES;
use crate::document::{WorldDoc, WorldError};
use crate::model::journal::{record, Meta, Scope};
use crate::model::load::unknown;
use crate::model::relations::Kind;
use crate::model::world::oldest_first;
use crate::model::World;

/// A device batch of a project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Batch {
    /// Its ID.
    pub id: Uuid,
    /// The project that made it.
    pub project: Uuid,
    /// How many devices it asked for.
    pub quantity: u32,
    /// `completed` (every device made) or `failed` (some could not be).
    pub state: DeviceBatchState,
    /// Why devices could not be made, each reason once.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub error_messages: Vec<String>,
    /// The devices it made, each one of `devices` of its project (a saved
    /// world names only those still there).
    #[serde(default)]
    pub devices: Vec<Uuid>,
}

/// How a batch ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeviceBatchState {
    /// Every device it asked for was made.
    Completed,
    /// Some could not be made (its `error_messages` say why).
    Failed,
}

impl DeviceBatchState {
    /// Its name in the API.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::Failed => "failed",
        }
    }
}

/// A batch as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Batch,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::Batch, |k| Scope::project(k.rec.project));

/// Loads the document's batches: each of a project the world has, asking
/// for 1 to [`MAX_BATCH_DEVICES`] devices, naming at most that many
/// devices of its own project, each device in one batch.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut claimed = std::collections::HashSet::new();
    for b in &doc.batches {
        let from = || format!("batch {}", b.id);
        if w.batches.contains_key(&b.id) {
            return Err(WorldError::Duplicate {
                kind: "batch",
                id: b.id.to_string(),
            });
        }
        if !w.projects.contains_key(&b.project) {
            return Err(unknown(from(), "project", b.project));
        }
        if b.quantity == 0
            || b.quantity > MAX_BATCH_DEVICES
            || b.devices.len() > b.quantity as usize
        {
            return Err(WorldError::Inconsistent(format!(
                "{}: needs 1 <= quantity <= {MAX_BATCH_DEVICES} and no more devices than its quantity",
                from()
            )));
        }
        for d in &b.devices {
            if w.devices.get(d).is_none_or(|k| k.rec.project != b.project) {
                return Err(unknown(from(), "device of its project", d));
            }
            if !claimed.insert(*d) {
                return Err(WorldError::Inconsistent(format!(
                    "{}: device {d} is another batch's",
                    from()
                )));
            }
        }
        w.batches
            .rows()
            .insert(&mut w.journal, b.id, now, |meta| Kept {
                rec: b.clone(),
                meta,
            });
    }
    Ok(())
}

/// Saves the batches into `doc`, oldest first, each naming the devices it
/// made that are still there.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.batches = oldest_first(w.batches.iter(), |b| b.meta.seq)
        .into_iter()
        .map(|b| entry(w, b))
        .collect();
}

/// One batch's entry in a world document, naming the devices it made
/// that are still there.
pub(crate) fn entry(w: &World, b: &Kept) -> Batch {
    Batch {
        devices: w.batch_devices(b).collect(),
        ..b.rec.clone()
    }
}
