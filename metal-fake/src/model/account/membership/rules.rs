//! A membership's rules: the roles it may hold, and how a user becomes
//! a member of a project (an invitation accepted, a project's creator).

use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, Membership};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse};
use crate::model::World;

/// The roles a membership may hold (the API's).
const ROLES: [&str; 4] = ["admin", "billing", "collaborator", "limited_collaborator"];

/// Checks roles: known ones, within bounds; none is `collaborator`.
pub(crate) fn check_roles(roles: &[String]) -> Result<Vec<String>, ApiError> {
    refuse([bad_tags(roles)])?;
    if let Some(r) = roles.iter().find(|r| !ROLES.contains(&r.as_str())) {
        return Err(ApiError::unprocessable(format!(
            "role {r} is not one of {}",
            ROLES.join(", ")
        )));
    }
    Ok(if roles.is_empty() {
        vec!["collaborator".to_string()]
    } else {
        roles.to_vec()
    })
}

/// Makes `user` a member of `project` with `roles` (or updates the roles
/// of its membership there); returns the membership's ID.
pub(crate) fn insert(
    w: &mut World,
    project: Uuid,
    user: Uuid,
    roles: Vec<String>,
    now: Instant,
) -> Uuid {
    let held = w
        .memberships
        .values()
        .find(|m| m.rec.project == project && m.rec.user == user)
        .map(|m| m.rec.id);
    if let Some(id) = held {
        w.memberships
            .rows()
            .update(&mut w.journal, id, "roles", now, |m| m.rec.roles = roles);
        return id;
    }
    let id = Uuid::new_v4();
    w.memberships
        .rows()
        .insert(&mut w.journal, id, now, |meta| Kept {
            rec: Membership {
                id,
                project,
                user,
                roles,
            },
            meta,
        });
    id
}
