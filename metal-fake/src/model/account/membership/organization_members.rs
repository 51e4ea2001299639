//! An organisation's members (`GET /organizations/{id}/members`, `DELETE
//! /organizations/{id}/members/{member_id}`), as packngo's `Members`
//! service (`members.go`) read and removed them and the Terraform
//! provider's `equinix_metal_organization_member` resource does through
//! it: the 2024 spec has neither path, so their [`Operation`]s are
//! declared here, and the router serves every modelled operation the spec
//! lacks beside the spec's.
//!
//! A member is a user of the organisation: the world's own user (its
//! owner, a member of every organisation), the users it made members
//! (an invitation to the organisation accepted), and the users holding a
//! membership of one of its projects. The fake keeps no record of an
//! organisation's membership apart from these, so a member's `id` is its
//! user's.

use metal_api::operation::{Method, Operation};
use serde::Serialize;
use uuid::Uuid;

use crate::call::{ApiError, Call, Reply};
use crate::model::list::{page, Listing};
use crate::model::relations::Kind;
use crate::model::render::{reply, Href, Stub};
use crate::model::resource::{acts, Prepared, Scope};
use crate::model::{organization, project, user, World};

/// `GET /organizations/{id}/members`, outside the 2024 spec (its ID is
/// the fake's).
pub(crate) static FIND_ORGANIZATION_MEMBERS: Operation = Operation {
    id: "findOrganizationMembers",
    method: Method::Get,
    path: "/organizations/{id}/members",
    success: 200,
    lists: &[],
};

/// `DELETE /organizations/{id}/members/{member_id}`, outside the 2024
/// spec (its ID is the fake's).
pub(crate) static DELETE_ORGANIZATION_MEMBER: Operation = Operation {
    id: "deleteOrganizationMember",
    method: Method::Delete,
    path: "/organizations/{id}/members/{member_id}",
    success: 204,
    lists: &[],
};

/// One member in a reply: packngo's `Member`.
#[derive(Serialize)]
struct MemberView {
    id: Uuid,
    href: String,
    roles: Vec<String>,
    projects_count: usize,
    user: Stub,
    organization: Stub,
    projects: Vec<Stub>,
}

impl World {
    /// The members of `organization`, in order: its owner (the world's
    /// user), those it made members, then those holding a membership of
    /// one of its projects (oldest membership first).
    fn organization_members(&self, organization: Uuid) -> Vec<Uuid> {
        let mut members = vec![self.user];
        if let Some(o) = self.organizations.get(&organization) {
            members.extend(o.rec.members.iter().copied());
        }
        let mut held: Vec<&super::Kept> = self
            .memberships
            .values()
            .filter(|m| self.project_of(m.rec.project) == Some(organization))
            .collect();
        held.sort_by_key(|m| m.meta.seq);
        members.extend(held.iter().map(|m| m.rec.user));
        let mut seen = std::collections::HashSet::new();
        members.retain(|m| seen.insert(*m));
        members
    }

    /// The organisation project `p` is of.
    fn project_of(&self, p: Uuid) -> Option<Uuid> {
        self.projects.get(&p).map(|p| p.organization())
    }

    /// Member `user` of `organization` as the API shows it: the owner's
    /// roles are `owner`; another's the roles of its memberships of the
    /// organisation's projects (`collaborator` when it holds none), with
    /// those projects (every project of the organisation for the owner
    /// and the organisation's own members, who see them all).
    fn member_view(&self, organization: Uuid, user: Uuid) -> MemberView {
        let of_org: Vec<Uuid> = self
            .projects
            .values()
            .filter(|p| p.organization() == organization)
            .map(|p| p.rec.id)
            .collect();
        let held: Vec<&super::Kept> = self
            .memberships
            .values()
            .filter(|m| m.rec.user == user && of_org.contains(&m.rec.project))
            .collect();
        let whole = user == self.user
            || self
                .organizations
                .get(&organization)
                .is_some_and(|o| o.rec.members.contains(&user));
        let mut projects: Vec<Uuid> = if whole {
            of_org
        } else {
            held.iter().map(|m| m.rec.project).collect()
        };
        projects.sort_unstable();
        projects.dedup();
        let mut roles: Vec<String> = if user == self.user {
            vec!["owner".to_string()]
        } else {
            held.iter()
                .flat_map(|m| m.rec.roles.iter().cloned())
                .collect()
        };
        roles.sort_unstable();
        roles.dedup();
        if roles.is_empty() {
            roles.push("collaborator".to_string());
        }
        MemberView {
            id: user,
            href: format!(
                "{}/members/{user}",
                Href::new(organization::COLLECTION, organization)
            ),
            roles,
            projects_count: projects.len(),
            user: Stub::new(user::COLLECTION, user),
            organization: Stub::new(organization::COLLECTION, organization),
            projects: projects
                .into_iter()
                .map(|p| Stub::new(project::COLLECTION, p))
                .collect(),
        }
    }
}

/// The organisation's members, paginated (packngo follows `meta.next`).
pub(super) fn find_organization_members(call: &Call) -> Result<Prepared, ApiError> {
    let org: Uuid = call.id("id")?;
    let listing = Listing::of(call, &[])?;
    acts(move |w, _: &Scope, _| {
        w.organizations.get(&org).ok_or_else(ApiError::not_found)?;
        let members: Vec<(u64, Uuid)> = w
            .organization_members(org)
            .into_iter()
            .zip(0..)
            .map(|(m, i)| (i, m))
            .collect();
        let path = format_args!("{}/members", Href::new(organization::COLLECTION, org));
        reply(&page(
            "members",
            &path,
            members.iter(),
            |m| m.0,
            &listing,
            |m| w.member_view(org, m.1),
        ))
    })
}

/// A member goes: it is no longer one of the organisation's, and its
/// memberships of the organisation's projects go with it (`204`); `404`
/// for one that is not a member; `422` for the owner.
pub(super) fn delete_organization_member(call: &Call) -> Result<Prepared, ApiError> {
    let org: Uuid = call.id("id")?;
    let member: Uuid = call.id("member_id")?;
    acts(move |w, _, now| {
        w.organizations.get(&org).ok_or_else(ApiError::not_found)?;
        if !w.organization_members(org).contains(&member) {
            return Err(ApiError::not_found());
        }
        if member == w.user {
            return Err(ApiError::unprocessable(
                "The organization's owner cannot be removed",
            ));
        }
        w.remove_organization_member(org, member, now)?;
        let held: Vec<Uuid> = w
            .memberships
            .values()
            .filter(|m| m.rec.user == member && w.project_of(m.rec.project) == Some(org))
            .map(|m| m.rec.id)
            .collect();
        for m in held {
            w.delete_record(Kind::Membership, m, now)?;
        }
        Ok(Reply::Empty)
    })
}
