//! What the fake keeps of a membership: its entry in the world document,
//! and when it was made and changed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

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
    pub(crate) meta: Meta,
}

record!(Kept, Kind::Membership, |k| Scope::project(k.rec.project));
