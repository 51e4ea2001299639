//! Who may see what: the world's API tokens, what the token of a request
//! sees ([`Access`]), who owns each thing a path names ([`Owner`], said
//! by its resource), and the `403` the API answers when a token reaches
//! for another organisation's project, device, reservation or SSH key (an
//! ID that does not exist at all is still the handler's `404`).

use std::collections::{BTreeSet, HashSet};

use uuid::Uuid;

use super::load::unknown;
use super::relations::Kind;
use super::World;

mod index;
mod token;

use crate::call::ApiError;
use crate::document::{WorldDoc, WorldError};
pub(crate) use index::AccessIndex;
pub(crate) use token::KeptToken;
pub use token::Token;

/// The message of the API's `403` for a resource the token may not see
/// (terraform-provider-equinix issue 743).
pub(crate) const ACCESS_DENIED: &str = "Access denied for the current authentication token";

/// The tokens of `doc`, each valid as a header, unique (among the
/// tokens and the API keys' tokens), and naming only organisations,
/// projects and users `w` has; a token naming no user is given one of
/// its own.
pub(crate) fn load_tokens(w: &mut World, doc: &WorldDoc) -> Result<Vec<KeptToken>, WorldError> {
    let mut seen = HashSet::new();
    let mut tokens = Vec::with_capacity(doc.tokens.len());
    for (index, t) in doc.tokens.iter().enumerate() {
        let valid =
            !t.token.trim().is_empty() && axum::http::HeaderValue::from_str(&t.token).is_ok();
        if !valid {
            return Err(WorldError::Token { index });
        }
        if !seen.insert(t.token.as_str()) || w.api_key_of_token(&t.token).is_some() {
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
        let user = match t.user {
            Some(u) if w.users.contains_key(&u) => u,
            Some(u) => return Err(unknown(from(), "user", u)),
            None => w.user_of_token(index),
        };
        tokens.push(KeptToken {
            rec: Token {
                user: Some(user),
                ..t.clone()
            },
        });
    }
    Ok(tokens)
}

/// What one request may see.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum Access {
    /// Everything: the server's configured token (a member of every
    /// organisation, the world's `user`), and in-process calls.
    #[default]
    All,
    /// A token of the world, or an API key: what it was given.
    Token(Grant),
}

/// What a token of the world or an API key sees, and as whom.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Grant {
    /// The projects it sees.
    pub(crate) projects: BTreeSet<Uuid>,
    /// The organisations it is a member of (it sees them even before
    /// they hold a project it sees).
    pub(crate) organizations: BTreeSet<Uuid>,
    /// The user it acts as; `None` for a project's API key.
    pub(crate) user: Option<Uuid>,
    /// A read-only API key: every write is refused.
    pub(crate) read_only: bool,
}

impl Access {
    /// Whether `project` is visible.
    pub(crate) fn sees(&self, project: Uuid) -> bool {
        match self {
            Self::All => true,
            Self::Token(g) => g.projects.contains(&project),
        }
    }

    /// Whether writes are refused (a read-only API key).
    pub(crate) fn read_only(&self) -> bool {
        matches!(self, Self::Token(g) if g.read_only)
    }

    /// The user the caller acts as (`None`: a project's API key).
    pub(crate) fn user(&self, w: &World) -> Option<Uuid> {
        match self {
            Self::All => Some(w.user),
            Self::Token(g) => g.user,
        }
    }

    /// The user the caller acts as, or `403` for a project's API key
    /// (which is no user).
    pub(crate) fn user_or_denied(&self, w: &World) -> Result<Uuid, ApiError> {
        self.user(w)
            .ok_or_else(|| ApiError::new(403, ACCESS_DENIED))
    }

    /// Whether the caller sees organisation `id`: a member, or it sees
    /// one of the organisation's projects.
    pub(crate) fn sees_organization(&self, w: &World, id: Uuid) -> bool {
        match self {
            Self::All => true,
            Self::Token(g) => {
                g.organizations.contains(&id)
                    || w.children_of(Kind::Project, Kind::Organization, id)
                        .iter()
                        .any(|p| g.projects.contains(p))
            }
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
    /// A user's own (their API keys, emails): visible to that user, and
    /// the user itself to those who share a project with it.
    User(Uuid),
    /// An invitation: visible to who sees its organisation, and to the
    /// user it invites.
    Invitation {
        organization: Uuid,
        invitee: Option<Uuid>,
    },
    /// A transfer request: visible to who sees its project, and to who
    /// sees the organisation it goes to.
    ProjectOrOrganization { project: Uuid, organization: Uuid },
}

impl World {
    /// What `token` may see, `None` when the world has no such token: a
    /// token of the world is its user; an API key is its user's, or its
    /// project's, read-only or not.
    pub(crate) fn access_of(&self, token: &str) -> Option<Access> {
        if let Some(t) = self.access.token(token).and_then(|i| self.tokens.get(i)) {
            return Some(Access::Token(self.grant_of_user(t.user())));
        }
        let key = self.api_key_of_token(token)?;
        let mut grant = match key.rec.project {
            Some(p) => Grant {
                projects: [p].into_iter().collect(),
                ..Grant::default()
            },
            None => self.grant_of_user(key.user),
        };
        grant.read_only = key.rec.read_only;
        Some(Access::Token(grant))
    }

    /// What user `user` sees: every project and organisation for the
    /// world's own user (the server's token's); else the organisations
    /// and projects its tokens name, the projects of those organisations,
    /// and the projects it is a member of.
    pub(crate) fn grant_of_user(&self, user: Uuid) -> Grant {
        let mut grant = Grant {
            user: Some(user),
            ..Grant::default()
        };
        if user == self.user {
            grant.projects.extend(self.projects.keys().copied());
            grant
                .organizations
                .extend(self.organizations.keys().copied());
            return grant;
        }
        for t in self
            .access
            .tokens_of(user)
            .iter()
            .filter_map(|i| self.tokens.get(*i))
        {
            grant.projects.extend(t.rec.projects.iter().copied());
            grant
                .organizations
                .extend(t.rec.organizations.iter().copied());
        }
        grant.organizations.extend(self.access.member_of(user));
        for o in &grant.organizations {
            grant
                .projects
                .extend(self.children_of(Kind::Project, Kind::Organization, *o));
        }
        grant.projects.extend(self.projects_of_member(user));
        grant
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
            Some(Owner::Organization(o)) => access.sees_organization(self, o),
            Some(Owner::Invitation {
                organization,
                invitee,
            }) => {
                access.sees_organization(self, organization)
                    || (invitee.is_some() && access.user(self) == invitee)
            }
            Some(Owner::ProjectOrOrganization {
                project,
                organization,
            }) => access.sees(project) || access.sees_organization(self, organization),
            Some(Owner::User(u)) => {
                access.user(self) == Some(u)
                    || self
                        .grant_of_user(u)
                        .projects
                        .iter()
                        .any(|p| access.sees(*p))
            }
        };
        if visible {
            Ok(())
        } else {
            Err(ApiError::new(403, ACCESS_DENIED))
        }
    }
}

impl World {
    /// The access index made anew from the world's tables and tokens.
    pub(crate) fn index_access(&mut self) {
        let mut index = AccessIndex::default();
        for (i, t) in self.tokens.iter().enumerate() {
            index.tokens.insert(t.rec.token.clone(), i);
            index.user_tokens.entry(t.user()).or_default().push(i);
        }
        for k in self.api_keys.values() {
            index.key(k.rec.id, Some(k.rec.token.clone()));
        }
        for o in self.organizations.values() {
            index.organization(o.rec.id, o.rec.members.clone());
        }
        self.access = index;
    }

    /// The access index told of `id` of `kind` now.
    pub(crate) fn reindex_access(&mut self, kind: Kind, id: Uuid) {
        match kind {
            Kind::ApiKey => {
                let token = self.api_keys.get(&id).map(|k| k.rec.token.clone());
                self.access.key(id, token);
            }
            Kind::Organization => {
                let members = self
                    .organizations
                    .get(&id)
                    .map(|o| o.rec.members.clone())
                    .unwrap_or_default();
                self.access.organization(id, members);
            }
            _ => {}
        }
    }
}
