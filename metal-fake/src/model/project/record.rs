//! What the fake keeps of a project: its description (also its entry in
//! the world document) and when it was made.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

/// A project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Project {
    /// Its ID.
    pub id: Uuid,
    /// Its name (`fake project N` if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The organisation that owns it (a default one if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub organization: Option<Uuid>,
}

/// A project as the world keeps it: its name and organisation always
/// filled in.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Project,
    pub(crate) created: Instant,
}

impl Kept {
    /// The organisation that owns it.
    pub(crate) fn organization(&self) -> Uuid {
        self.rec.organization.unwrap_or_default()
    }

    /// Its name.
    pub(crate) fn name(&self) -> &str {
        self.rec.name.as_deref().unwrap_or_default()
    }
}
