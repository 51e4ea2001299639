//! What the fake keeps of an invitation: its entry in the world document,
//! and when it was made.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// An invitation to an organisation (and some of its projects).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Invitation {
    /// Its ID.
    pub id: Uuid,
    /// The organisation inviting.
    pub organization: Uuid,
    /// The email address invited.
    pub invitee: String,
    /// The projects it invites to (none: the whole organisation).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub projects: Vec<Uuid>,
    /// The roles it gives (`collaborator` if absent).
    #[serde(default)]
    pub roles: Vec<String>,
    /// The user who sent it (absent: the world's own user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invited_by: Option<Uuid>,
}

/// An invitation as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Invitation,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::Invitation, |k| Scope {
    organization: Some(k.rec.organization),
    ..Scope::default()
});
