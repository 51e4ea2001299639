//! The invitation operations the fake models, how an invitation shows,
//! who sees one (the organisation's members, and the invitee), and how
//! invitations load and save.

use std::collections::HashSet;

use metal_api::operation as op;
use metal_api::types;
use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Invitation, Kept};
use super::resend;
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError, MAX_NAME};
use crate::model::access::{Owner, ACCESS_DENIED};
use crate::model::bounds::{refuse, room_for, too_long};
use crate::model::list::{self, Listing};
use crate::model::load::{unique, unknown};
use crate::model::membership::check_roles;
use crate::model::relations::Kind;
use crate::model::render::{reply, Href, Stamp, Stub, API_PREFIX};
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::{membership, organization, project, user, World};

/// The most invitations one organisation holds open.
const MAX_PER_ORGANIZATION: usize = 1000;

/// Invitations.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_INVITATIONS, find_invitations),
        Modelled::new(&op::FIND_INVITATION_BY_ID, find_invitation_by_id).names("id", &RESOURCE),
        Modelled::new(&op::ACCEPT_INVITATION, accept_invitation).names("id", &RESOURCE),
        Modelled::new(&op::DECLINE_INVITATION, decline_invitation).names("id", &RESOURCE),
        Modelled::new(
            &op::CREATE_ORGANIZATION_INVITATION,
            create_organization_invitation,
        )
        .names("id", &organization::RESOURCE),
        Modelled::new(
            &op::FIND_ORGANIZATION_INVITATIONS,
            find_organization_invitations,
        )
        .names("id", &organization::RESOURCE),
        Modelled::new(&op::CREATE_PROJECT_INVITATION, create_project_invitation)
            .names("project_id", &project::RESOURCE),
        Modelled::new(&op::FIND_PROJECT_INVITATIONS, find_project_invitations)
            .names("project_id", &project::RESOURCE),
        // Outside the 2024 spec: packngo's `Invitations.Resend`.
        Modelled::new(&resend::RESEND_INVITATION, resend::resend_invitation).names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.invitations.get(&id).map(|i| Owner::Invitation {
        organization: i.rec.organization,
        invitee: w.user_by_email(&i.rec.invitee).map(|u| u.rec.id),
    })
}

fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    for i in &doc.invitations {
        unique(&mut seen, i.id, "invitation", i.id)?;
        let from = || format!("invitation {}", i.id);
        if !w.organizations.contains_key(&i.organization) {
            return Err(unknown(from(), "organization", i.organization));
        }
        if let Some(p) = i.projects.iter().find(|p| {
            w.projects
                .get(p)
                .is_none_or(|p| p.organization() != i.organization)
        }) {
            return Err(unknown(from(), "project of its organization", p));
        }
        if let Some(u) = i.invited_by.filter(|u| !w.users.contains_key(u)) {
            return Err(unknown(from(), "user", u));
        }
        let problem = check(&i.invitee, &i.projects)
            .and_then(|()| check_roles(&i.roles).map(|_| ()))
            .err();
        if let Some(e) = problem {
            return Err(WorldError::Inconsistent(format!(
                "{}: {}",
                from(),
                e.messages.join("; ")
            )));
        }
        w.invitations
            .rows()
            .insert(&mut w.journal, i.id, now, |meta| Kept {
                rec: Invitation {
                    roles: check_roles(&i.roles).unwrap_or_default(),
                    ..i.clone()
                },
                meta,
            });
    }
    Ok(())
}

fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.invitations = oldest_first(w.invitations.iter(), |i| i.meta.seq)
        .into_iter()
        .map(|i| i.rec.clone())
        .collect();
}

/// An invitee's address and the projects named, within bounds.
fn check(invitee: &str, projects: &[Uuid]) -> Result<(), ApiError> {
    if !invitee.contains('@') || invitee.trim() != invitee {
        return Err(ApiError::unprocessable(
            "Invitee is not a valid email address",
        ));
    }
    refuse([
        too_long("Invitee", invitee, MAX_NAME),
        (projects.len() > crate::model::bounds::MAX_TAGS)
            .then(|| "Projects are too many".to_string()),
    ])
}

/// An invitation in a reply.
#[derive(Serialize)]
struct InvitationView<'a> {
    id: Uuid,
    href: Href,
    invitee: &'a str,
    organization: Stub,
    projects: Vec<Stub>,
    roles: &'a [String],
    invited_by: Stub,
    invitation: Stub,
    created_at: Stamp,
    updated_at: Stamp,
    /// `null`: the token of the invitation's link is a secret, sent to
    /// the invitee only.
    nonce: (),
}

/// A page of invitations, without `meta` (the spec's `InvitationList`).
#[derive(Serialize)]
struct InvitationList<'a> {
    invitations: Vec<InvitationView<'a>>,
}

impl World {
    /// The invitations that name `project` but are of an organisation other
    /// than `organization`: when a transfer moves the project there, they
    /// go, as they go with the project (an invitation names projects of its
    /// own organisation, and a world with one that does not would not load).
    pub(crate) fn invitations_left_behind(&self, project: Uuid, organization: Uuid) -> Vec<Uuid> {
        self.invitations
            .values()
            .filter(|i| i.rec.organization != organization && i.rec.projects.contains(&project))
            .map(|i| i.rec.id)
            .collect()
    }

    fn invitation_view<'a>(&'a self, i: &'a Kept) -> InvitationView<'a> {
        let at = Stamp(self.clock.wall(i.meta.created));
        InvitationView {
            id: i.rec.id,
            href: Href::new(COLLECTION, i.rec.id),
            invitee: &i.rec.invitee,
            organization: Stub::new(organization::COLLECTION, i.rec.organization),
            projects: i
                .rec
                .projects
                .iter()
                .map(|p| Stub::new(project::COLLECTION, *p))
                .collect(),
            roles: &i.rec.roles,
            invited_by: Stub::new(user::COLLECTION, i.rec.invited_by.unwrap_or(self.user)),
            invitation: Stub::new(COLLECTION, i.rec.id),
            created_at: at,
            updated_at: at,
            nonce: (),
        }
    }

    /// Invitation `id`, touched (sent again); `404` when there is none.
    pub(super) fn touch_invitation(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        self.invitations
            .rows()
            .update(&mut self.journal, id, "resent", now, |_| {})
            .ok_or_else(ApiError::not_found)
    }

    /// Invitation `id` as a reply.
    pub(super) fn invitation_reply(&self, id: Uuid) -> Result<Reply, ApiError> {
        reply(&self.invitation_view(self.invitation(id)?))
    }

    fn invitation(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.invitations.get(&id).ok_or_else(ApiError::not_found)
    }

    /// A new invitation of `organization` to `projects` (checked to be
    /// its own).
    fn invite(
        &mut self,
        organization: Uuid,
        body: &types::InvitationInput,
        projects: Vec<Uuid>,
        by: Option<Uuid>,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        self.organization(organization)?;
        let roles: Vec<String> = body.roles.iter().map(|r| r.to_string()).collect();
        let roles = check_roles(&roles)?;
        check(&body.invitee, &projects)?;
        if let Some(p) = projects.iter().find(|p| {
            self.projects
                .get(p)
                .is_none_or(|p| p.organization() != organization)
        }) {
            return Err(ApiError::unprocessable(format!(
                "project {p} is not one of the organization's"
            )));
        }
        let open = self
            .invitations
            .values()
            .filter(|i| i.rec.organization == organization)
            .count();
        if open >= MAX_PER_ORGANIZATION {
            return Err(ApiError::unprocessable(format!(
                "Invitations are too many (maximum is {MAX_PER_ORGANIZATION} an organization)"
            )));
        }
        room_for("Invitations", self.invitations.len())?;
        let id = Uuid::new_v4();
        self.invitations
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept {
                rec: Invitation {
                    id,
                    organization,
                    invitee: body.invitee.clone(),
                    projects,
                    roles,
                    invited_by: by.filter(|u| *u != self.user),
                },
                meta,
            });
        Ok(id)
    }

    /// A page of invitations that `keep` keeps, at `path`.
    fn invitations_page(
        &self,
        path: &dyn std::fmt::Display,
        listing: &Listing,
        keep: impl Fn(&Kept) -> bool,
    ) -> Result<Reply, ApiError> {
        let listed = self.invitations.values().filter(|i| keep(i));
        // The spec's `InvitationList` has no `meta`: the page alone.
        let page = list::page(
            "invitations",
            path,
            listed,
            |i| i.meta.seq,
            listing,
            |i| self.invitation_view(i),
        );
        reply(&InvitationList {
            invitations: page.items,
        })
    }
}

/// The invitations to the caller's email address.
fn find_invitations(call: &Call) -> Result<Prepared, ApiError> {
    let listing = Listing::of(call, &[])?;
    acts(move |w, caller, _| {
        let me = w.user_rec(caller.user_or_denied(w)?)?;
        let email = me.rec.email.clone();
        let path = format_args!("{API_PREFIX}/{COLLECTION}");
        w.invitations_page(&path, &listing, |i| {
            i.rec.invitee.eq_ignore_ascii_case(&email)
        })
    })
}

fn find_invitation_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| reply(&w.invitation_view(w.invitation(id)?)))
}

/// `acceptInvitation`: by the invitee only; a membership of each project
/// invited to (or of the organisation), and the invitation goes.
fn accept_invitation(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, caller, now| {
        let me = caller.user_or_denied(w)?;
        let i = w.invitation(id)?.rec.clone();
        let email = &w.user_rec(me)?.rec.email;
        if !i.invitee.eq_ignore_ascii_case(email) {
            return Err(ApiError::new(403, ACCESS_DENIED));
        }
        let projects: Vec<Uuid> = if i.projects.is_empty() {
            w.add_organization_member(i.organization, me, now)?;
            // The organisation's membership shows as one of its projects'.
            w.projects
                .values()
                .filter(|p| p.organization() == i.organization)
                .map(|p| p.rec.id)
                .collect()
        } else {
            i.projects.clone()
        };
        let made: Vec<Uuid> = projects
            .iter()
            .map(|p| membership::insert(w, *p, me, i.roles.clone(), now))
            .collect();
        w.delete_record(Kind::Invitation, id, now)?;
        match made.first() {
            Some(m) => w.membership_reply(*m),
            None => Ok(Reply::Empty),
        }
    })
}

/// `declineInvitation`: the invitation goes.
fn decline_invitation(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.delete_record(Kind::Invitation, id, now)?;
        Ok(Reply::Empty)
    })
}

fn create_organization_invitation(call: &Call) -> Result<Prepared, ApiError> {
    let organization = call.id("id")?;
    let body: types::InvitationInput = call.json()?;
    acts(move |w, caller, now| {
        let projects = body.projects_ids.clone();
        let id = w.invite(organization, &body, projects, caller.user(w), now)?;
        reply(&w.invitation_view(w.invitation(id)?))
    })
}

fn find_organization_invitations(call: &Call) -> Result<Prepared, ApiError> {
    let organization = call.id("id")?;
    let listing = Listing::of(call, &[])?;
    acts(move |w, _, _| {
        w.organization(organization)?;
        let path = format_args!(
            "{API_PREFIX}/{}/{organization}/invitations",
            organization::COLLECTION
        );
        w.invitations_page(&path, &listing, |i| i.rec.organization == organization)
    })
}

/// `createProjectInvitation`: an invitation of the project's organisation
/// to the project (and any others of it the body names).
fn create_project_invitation(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    let body: types::InvitationInput = call.json()?;
    acts(move |w, caller, now| {
        let organization = w
            .projects
            .get(&project)
            .ok_or_else(ApiError::not_found)?
            .organization();
        let mut projects = vec![project];
        projects.extend(body.projects_ids.iter().filter(|p| **p != project));
        let id = w.invite(organization, &body, projects, caller.user(w), now)?;
        reply(&w.invitation_view(w.invitation(id)?))
    })
}

fn find_project_invitations(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    let listing = Listing::of(call, &[])?;
    acts(move |w, _, _| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        let path = format_args!("{API_PREFIX}/{}/{project}/invitations", project::COLLECTION);
        w.invitations_page(&path, &listing, |i| i.rec.projects.contains(&project))
    })
}
