//! What the fake keeps of an API key: its entry in the world document,
//! and when it was made.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// An API key.
#[derive(Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApiKey {
    /// Its ID.
    pub id: Uuid,
    /// The `X-Auth-Token` value (unique among keys and the world's
    /// tokens).
    pub token: String,
    /// Its description.
    #[serde(default)]
    pub description: String,
    /// A read-only key is refused every write (`403`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// The project it is scoped to; absent: a user's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<Uuid>,
    /// The user of a user's key (absent: the world's own user); a
    /// project's key names none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<Uuid>,
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiKey")
            .field("id", &self.id)
            .field("token", &"<redacted>")
            .field("description", &self.description)
            .field("read_only", &self.read_only)
            .field("project", &self.project)
            .field("user", &self.user)
            .finish()
    }
}

/// An API key as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: ApiKey,
    /// The user of a user's key (`Uuid::nil` for a project's).
    pub(crate) user: Uuid,
    pub(crate) meta: Meta,
}

// Named by its description alone: never its token.
record!(
    Kept,
    Kind::ApiKey,
    |k| Scope {
        project: k.rec.project,
        ..Scope::default()
    },
    label | k | Some(format!("\"{}\"", k.rec.description))
);
