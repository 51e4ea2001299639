//! What the fake keeps of a membership: its entry in the world document,
//! and when it was made and changed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

/// A user's membership of a project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Membership {
    /// Its ID.
    pub id: Uuid,
    /// The project.
    pub project: Uuid,
    /// The member (one of `users`, or the world's `user`).
    pub user: Uuid,
    /// Its roles (`collaborator` if absent).
    #[serde(default)]
    pub roles: Vec<String>,
}

/// A membership as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Membership,
    /// Creation order across all records.
    pub(crate) seq: u64,
    pub(crate) created: Instant,
    pub(crate) updated: Instant,
}
