//! Who may see what: the token a request carries, the projects it sees,
//! and the `403` the API answers when a token reaches for another
//! organisation's project, device, reservation or SSH key (an ID that does
//! not exist at all is still the handler's `404`).

use std::collections::BTreeSet;

use uuid::Uuid;

use super::records::KeyOwner;
use super::world::World;
use crate::call::ApiError;

/// The message of the API's `403` for a resource the token may not see
/// (terraform-provider-equinix issue 743).
pub(crate) const ACCESS_DENIED: &str = "Access denied for the current authentication token";

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

impl World {
    /// What `token` may see, `None` when the world has no such token.
    pub(crate) fn access_of(&self, token: &str) -> Option<Access> {
        let rec = self.tokens.iter().find(|t| t.token == token)?;
        let mut projects: BTreeSet<Uuid> = rec.projects.iter().copied().collect();
        projects.extend(
            self.projects
                .iter()
                .filter(|(_, p)| rec.organizations.contains(&p.organization))
                .map(|(id, _)| *id),
        );
        Some(Access::Projects(projects))
    }

    /// Checks that `access` may reach the resource a request names: `path`
    /// is the operation's path in the spec (`/devices/{id}`), `id` the
    /// value of its `{id}`. A resource that does not exist passes (its
    /// handler answers `404`); one of a project `access` does not see is
    /// `403`.
    pub(crate) fn check_access(
        &self,
        access: &Access,
        path: &str,
        id: Option<&str>,
    ) -> Result<(), ApiError> {
        if *access == Access::All {
            return Ok(());
        }
        let Some(id) = id.and_then(|t| Uuid::try_parse(t).ok()) else {
            return Ok(());
        };
        let kind = path.trim_start_matches('/').split('/').next();
        let visible = match kind {
            Some("projects") => self.projects.get(&id).map(|_| access.sees(id)),
            Some("devices") => self.devices.get(&id).map(|d| access.sees(d.project)),
            Some("hardware-reservations") => {
                self.reservations.get(&id).map(|r| access.sees(r.project))
            }
            Some("ssh-keys") => self.ssh_keys.get(&id).map(|k| match k.owner {
                KeyOwner::User => true,
                KeyOwner::Project(p) => access.sees(p),
            }),
            Some("organizations") => self.organizations.get(&id).map(|_| {
                self.projects
                    .iter()
                    .any(|(p, rec)| rec.organization == id && access.sees(*p))
            }),
            _ => None,
        };
        match visible {
            Some(false) => Err(ApiError::new(403, ACCESS_DENIED)),
            _ => Ok(()),
        }
    }
}

/// The value of `{id}` in `uri_path` (the request's path under the API
/// prefix) for the operation path `pattern`, segment by segment.
pub(crate) fn id_in_path<'a>(pattern: &str, uri_path: &'a str) -> Option<&'a str> {
    let at = pattern.split('/').position(|s| s == "{id}")?;
    uri_path.split('/').nth(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_is_found_by_its_place_in_the_pattern() {
        assert_eq!(
            id_in_path("/devices/{id}/actions", "/devices/abc/actions"),
            Some("abc")
        );
        assert_eq!(id_in_path("/ssh-keys", "/ssh-keys"), None);
    }
}
