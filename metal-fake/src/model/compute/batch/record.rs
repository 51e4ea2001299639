//! What the fake keeps of a device batch: its description (also its entry
//! in the world document) and the devices it made.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

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
