//! An API token of the world document, and what the world keeps of one.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// An API token and what it sees: every project of its organisations, and
/// the projects named.
#[derive(Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Token {
    /// The `X-Auth-Token` value.
    pub token: String,
    /// Organisations whose projects it sees.
    #[serde(default)]
    pub organizations: Vec<Uuid>,
    /// Projects it sees besides.
    #[serde(default)]
    pub projects: Vec<Uuid>,
    /// The user it is (one of `users`, or the world's `user`); absent: a
    /// user of its own, made when the world loads (and saved here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<Uuid>,
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("token", &"<redacted>")
            .field("organizations", &self.organizations)
            .field("projects", &self.projects)
            .field("user", &self.user)
            .finish()
    }
}

/// A token as the world keeps it: `rec.user` always names its user.
#[derive(Clone, Debug)]
pub(crate) struct KeptToken {
    pub(crate) rec: Token,
}

impl KeptToken {
    /// The user it is.
    pub(crate) fn user(&self) -> Uuid {
        self.rec.user.unwrap_or_default()
    }
}
