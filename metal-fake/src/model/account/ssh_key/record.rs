//! What the fake keeps of an SSH key: its description (also its entry in
//! the world document), and when it was made and changed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// An SSH key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SshKey {
    /// Its ID.
    pub id: Uuid,
    /// The project that owns it; absent: the user's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<Uuid>,
    /// Its label.
    #[serde(default)]
    pub label: String,
    /// The public key (`ssh-ed25519 AAAA... comment`).
    pub key: String,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// An SSH key as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: SshKey,
    pub(crate) meta: Meta,
}

record!(
    Kept,
    Kind::SshKey,
    |k| Scope {
        project: k.rec.project,
        ..Scope::default()
    },
    label | k | Some(format!("\"{}\"", k.rec.label))
);
