//! Who may see what: the world's API tokens, what the token of a request
//! sees ([`Access`]), who owns each thing a path names ([`Owner`], said
//! by its resource), and the `403` the API answers when a token reaches
//! for another organisation's project, device, reservation or SSH key (an
//! ID that does not exist at all is still the handler's `404`).

use std::collections::{BTreeSet, HashSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::load::unknown;
use super::World;
use crate::call::ApiError;
use crate::document::{WorldDoc, WorldError};

/// The message of the API's `403` for a resource the token may not see
/// (terraform-provider-equinix issue 743).
pub(crate) const ACCESS_DENIED: &str = "Access denied for the current authentication token";

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
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("token", &"<redacted>")
            .field("organizations", &self.organizations)
            .field("projects", &self.projects)
            .finish()
    }
}

/// A token as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct KeptToken {
    pub(crate) rec: Token,
}

impl KeptToken {
    /// The tokens of `doc`, each valid as a header, unique, and naming
    /// only organisations and projects `w` has.
    pub(crate) fn load(w: &World, doc: &WorldDoc) -> Result<Vec<Self>, WorldError> {
        let mut seen = HashSet::new();
        let mut tokens = Vec::with_capacity(doc.tokens.len());
        for (index, t) in doc.tokens.iter().enumerate() {
            let valid =
                !t.token.trim().is_empty() && axum::http::HeaderValue::from_str(&t.token).is_ok();
            if !valid {
                return Err(WorldError::Token { index });
            }
            if !seen.insert(t.token.as_str()) {
                return Err(WorldError::Duplicate {
                    kind: "token",
                    id: format!("number {index} (0-based)"),
                });
            }
            let from = || format!("token {index} (0-based)");
            if let Some(o) = t
                .organizations
                .iter()
                .find(|o| !w.organizations.contains_key(o))
            {
                return Err(unknown(from(), "organization", o));
            }
            if let Some(p) = t.projects.iter().find(|p| !w.projects.contains_key(p)) {
                return Err(unknown(from(), "project", p));
            }
            tokens.push(Self { rec: t.clone() });
        }
        Ok(tokens)
    }
}

/// What one request may see.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Access {
    /// Everything: the server's configured token (a member of every
    /// organisation), and in-process calls.
    #[default]
    All,
    /// These projects only (a token of the world).
    Projects(BTreeSet<Uuid>),
}

impl Access {
    /// Whether `project` is visible.
    pub(crate) fn sees(&self, project: Uuid) -> bool {
        match self {
            Self::All => true,
            Self::Projects(p) => p.contains(&project),
        }
    }
}

/// Who owns one thing, for access: what a resource's `owner` says of the
/// ID a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Owner {
    /// A project: visible to tokens that see it.
    Project(Uuid),
    /// An organisation: visible to tokens that see one of its projects.
    Organization(Uuid),
    /// Everyone who has a token (the user's own SSH keys).
    Everyone,
}

impl World {
    /// What `token` may see, `None` when the world has no such token.
    pub(crate) fn access_of(&self, token: &str) -> Option<Access> {
        let rec = &self.tokens.iter().find(|t| t.rec.token == token)?.rec;
        let mut projects: BTreeSet<Uuid> = rec.projects.iter().copied().collect();
        projects.extend(
            self.projects
                .iter()
                .filter(|(_, p)| rec.organizations.contains(&p.organization()))
                .map(|(id, _)| *id),
        );
        Some(Access::Projects(projects))
    }

    /// Checks that `access` may reach what `owner` says of the thing a
    /// request names: one that does not exist (`None`) passes (its handler
    /// answers `404`); one `access` does not see is `403`.
    pub(crate) fn check_access(
        &self,
        access: &Access,
        owner: Option<Owner>,
    ) -> Result<(), ApiError> {
        let visible = match owner {
            _ if *access == Access::All => true,
            None | Some(Owner::Everyone) => true,
            Some(Owner::Project(p)) => access.sees(p),
            Some(Owner::Organization(o)) => self
                .projects
                .iter()
                .any(|(p, rec)| rec.organization() == o && access.sees(*p)),
        };
        if visible {
            Ok(())
        } else {
            Err(ApiError::new(403, ACCESS_DENIED))
        }
    }
}
