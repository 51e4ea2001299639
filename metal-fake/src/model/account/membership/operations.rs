//! The membership operations the fake models, how a membership shows,
//! who owns one (its project), and how memberships load and save.

use std::collections::HashSet;

use metal_api::operation as op;
use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::organization_members as members;
use super::record::{Kept, Membership};
use super::rules::check_roles;
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError, MAX_NAME};
use crate::model::access::Owner;
use crate::model::list::Cut;
use crate::model::load::{unique, unknown};
use crate::model::relations::Kind;
use crate::model::render::{contains_ignoring_case, reply, Href, Stamp, Stub};
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::{organization, project, user, World};

/// Memberships.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_PROJECT_MEMBERSHIPS, find_project_memberships)
            .names("project_id", &project::RESOURCE),
        Modelled::new(&op::FIND_MEMBERSHIP_BY_ID, find_membership_by_id).names("id", &RESOURCE),
        Modelled::new(&op::UPDATE_MEMBERSHIP, update_membership)
            .also_patch()
            .names("id", &RESOURCE),
        Modelled::new(&op::DELETE_MEMBERSHIP, delete_membership).names("id", &RESOURCE),
        // Outside the 2024 spec: packngo's `Members.List` and
        // `Members.Delete`.
        Modelled::new(
            &members::FIND_ORGANIZATION_MEMBERS,
            members::find_organization_members,
        )
        .names("id", &organization::RESOURCE),
        Modelled::new(
            &members::DELETE_ORGANIZATION_MEMBER,
            members::delete_organization_member,
        )
        .names("id", &organization::RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.memberships
        .get(&id)
        .map(|m| Owner::Project(m.rec.project))
}

fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    let mut pairs = HashSet::new();
    for m in &doc.memberships {
        unique(&mut seen, m.id, "membership", m.id)?;
        unique(
            &mut pairs,
            (m.project, m.user),
            "membership of project and user",
            format!("{}/{}", m.project, m.user),
        )?;
        let from = || format!("membership {}", m.id);
        if !w.projects.contains_key(&m.project) {
            return Err(unknown(from(), "project", m.project));
        }
        if !w.users.contains_key(&m.user) {
            return Err(unknown(from(), "user", m.user));
        }
        let roles = check_roles(&m.roles).map_err(|e| {
            WorldError::Inconsistent(format!("{}: {}", from(), e.messages.join("; ")))
        })?;
        w.memberships
            .rows()
            .insert(&mut w.journal, m.id, now, |meta| Kept {
                rec: Membership { roles, ..m.clone() },
                meta,
            });
    }
    Ok(())
}

fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.memberships = oldest_first(w.memberships.iter(), |m| m.meta.seq)
        .into_iter()
        .map(|m| m.rec.clone())
        .collect();
}

/// A membership in a reply.
#[derive(Serialize)]
struct MembershipView<'a> {
    id: Uuid,
    href: Href,
    project: Stub,
    user: Stub,
    roles: &'a [String],
    created_at: Stamp,
    updated_at: Stamp,
}

/// A list of memberships.
#[derive(Serialize)]
struct MembershipList<'a> {
    memberships: Vec<MembershipView<'a>>,
}

impl World {
    fn membership_view<'a>(&'a self, m: &'a Kept) -> MembershipView<'a> {
        MembershipView {
            id: m.rec.id,
            href: Href::new(COLLECTION, m.rec.id),
            project: Stub::new(project::COLLECTION, m.rec.project),
            user: Stub::new(user::COLLECTION, m.rec.user),
            roles: &m.rec.roles,
            created_at: Stamp(self.clock.wall(m.meta.created)),
            updated_at: Stamp(self.clock.wall(m.meta.updated)),
        }
    }

    /// Membership `id` as a reply.
    pub(crate) fn membership_reply(&self, id: Uuid) -> Result<Reply, ApiError> {
        reply(&self.membership_view(self.membership(id)?))
    }

    fn membership(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.memberships.get(&id).ok_or_else(ApiError::not_found)
    }

    /// The projects `user` is a member of.
    pub(crate) fn projects_of_member(&self, user: Uuid) -> impl Iterator<Item = Uuid> + '_ {
        self.children_of(Kind::Membership, Kind::User, user)
            .into_iter()
            .filter_map(|m| self.memberships.get(&m))
            .map(|m| m.rec.project)
    }
}

fn find_project_memberships(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    let search = call.text("search");
    let cut = Cut::of(call)?;
    acts(move |w, _, _| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        // The spec's "Search by member full name, id and email", partial,
        // ASCII case ignored.
        let found = |m: &Kept| {
            let Some(text) = search.as_deref() else {
                return true;
            };
            w.user_rec(m.rec.user).is_ok_and(|u| {
                let name = format!("{} {}", u.rec.first_name, u.rec.last_name);
                [name.as_str(), &u.rec.email, &u.rec.id.to_string()]
                    .iter()
                    .any(|field| contains_ignoring_case(field, text))
            })
        };
        let mut listed: Vec<&Kept> = w
            .memberships
            .values()
            .filter(|m| m.rec.project == project && found(m))
            .collect();
        listed.sort_by_key(|m| m.meta.seq);
        reply(&MembershipList {
            memberships: cut
                .cut(listed)
                .into_iter()
                .map(|m| w.membership_view(m))
                .collect(),
        })
    })
}

fn find_membership_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| reply(&w.membership_view(w.membership(id)?)))
}

/// `updateMembership`: new roles (the body's `role`, as the spec names it;
/// `roles` too, as the SDKs' membership shows them).
fn update_membership(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body = call.json_value()?;
    let roles: Option<Vec<String>> = match body.get("role").or_else(|| body.get("roles")) {
        None | Some(serde_json::Value::Null) => None,
        Some(v) => Some(
            serde_json::from_value(v.clone())
                .map_err(|_| ApiError::unprocessable("role must be a list of strings"))?,
        ),
    };
    let roles = roles.map(|r| check_roles(&r)).transpose()?;
    if roles
        .as_ref()
        .is_some_and(|r| r.iter().any(|x| x.len() > MAX_NAME))
    {
        return Err(ApiError::unprocessable("a role is too long"));
    }
    acts(move |w, _, now| {
        w.memberships
            .rows()
            .update(&mut w.journal, id, "roles", now, |m| {
                if let Some(roles) = &roles {
                    m.rec.roles.clone_from(roles);
                }
            })
            .ok_or_else(ApiError::not_found)?;
        reply(&w.membership_view(w.membership(id)?))
    })
}

fn delete_membership(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.delete_record(Kind::Membership, id, now)?;
        Ok(Reply::Empty)
    })
}
