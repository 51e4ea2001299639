//! The organisation operations the fake models, who owns an organisation
//! (for access), and how organisations load and save.

use std::collections::HashSet;

use metal_api::operation as op;
use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, Organization};
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::list::{self, Listing};
use crate::model::load::unique;
use crate::model::render::{reply, Href, Stamp, Stub, API_PREFIX};
use crate::model::resource::{acts, Modelled, Prepared, Resource, Scope};
use crate::model::world::oldest_first;
use crate::model::World;

/// The collection of organisations' paths and hrefs.
pub(crate) const COLLECTION: &str = "organizations";

/// Organisations.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_ORGANIZATIONS, find_organizations),
        Modelled::new(&op::FIND_ORGANIZATION_BY_ID, find_organization_by_id).names("id", &RESOURCE),
        Modelled::new(&op::FIND_ORGANIZATION_PROJECTS, find_organization_projects)
            .names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.organizations.get(&id).map(|_| Owner::Organization(id))
}

/// Adds an organisation.
pub(crate) fn insert(w: &mut World, rec: Organization) {
    let seq = w.next_seq();
    w.organizations.insert(rec.id, Kept { rec, seq });
}

fn load(w: &mut World, doc: &WorldDoc, _now: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    for o in &doc.organizations {
        unique(&mut seen, o.id, "organization", o.id)?;
        insert(w, o.clone());
    }
    Ok(())
}

fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.organizations = oldest_first(&w.organizations, |o| o.seq)
        .into_iter()
        .map(|o| o.rec.clone())
        .collect();
}

/// An organisation in a reply.
#[derive(Serialize)]
struct OrganizationView<'a> {
    id: Uuid,
    href: Href,
    name: &'a str,
    /// metal-cli's `organization get` reads it unchecked.
    created_at: Stamp,
    updated_at: Stamp,
    credit_amount: f32,
    /// Its projects the caller sees, as links.
    projects: Vec<Stub>,
    /// The world's one user, its owner.
    members: [Stub; 1],
    memberships: [Stub; 1],
    customdata: Empty,
}

/// `{}`.
#[derive(Serialize)]
struct Empty {}

impl World {
    fn organization_view<'a>(&'a self, o: &'a Kept, caller: &Scope) -> OrganizationView<'a> {
        let mut projects: Vec<_> = self
            .projects
            .values()
            .filter(|p| p.organization() == o.rec.id && caller.sees(p.rec.id))
            .collect();
        projects.sort_by_key(|p| p.seq);
        // The record keeps no creation time: it was made when the world
        // was seeded.
        let since = Stamp(self.clock.started());
        OrganizationView {
            id: o.rec.id,
            href: Href::new(COLLECTION, o.rec.id),
            name: &o.rec.name,
            created_at: since,
            updated_at: since,
            credit_amount: 0.0,
            members: [Stub::new(crate::model::user::COLLECTION, self.user)],
            // The user's membership of it: an ID derived from both.
            memberships: [Stub::new(
                "memberships",
                Uuid::from_u128(o.rec.id.as_u128() ^ self.user.as_u128()),
            )],
            projects: projects
                .into_iter()
                .map(|p| Stub::new(crate::model::project::COLLECTION, p.rec.id))
                .collect(),
            customdata: Empty {},
        }
    }

    /// Whether the caller sees organisation `id`: one of its projects, or
    /// all of them.
    fn sees_organization(&self, id: Uuid, caller: &Scope) -> bool {
        *caller == Scope::All
            || self
                .projects
                .values()
                .any(|p| p.organization() == id && caller.sees(p.rec.id))
    }
}

/// The organisations the caller sees, oldest first.
fn find_organizations(call: &Call) -> Result<Prepared, ApiError> {
    let listing = Listing::of(call, &[])?;
    acts(move |w, caller, _| {
        let listed = w
            .organizations
            .values()
            .filter(|o| w.sees_organization(o.rec.id, caller));
        let path = format_args!("{API_PREFIX}/{COLLECTION}");
        let page = list::page(
            "organizations",
            &path,
            listed,
            |o| o.seq,
            &listing,
            |o| w.organization_view(o, caller),
        );
        reply(&page)
    })
}

fn find_organization_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, caller, _| {
        let o = w.organizations.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&w.organization_view(o, caller))
    })
}

/// The organisation's projects the caller sees, oldest first.
fn find_organization_projects(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let listing = Listing::of(call, &["name"])?;
    let name = call.text("name");
    acts(move |w, caller, _| {
        w.organizations.get(&id).ok_or_else(ApiError::not_found)?;
        let path = format_args!("{API_PREFIX}/{COLLECTION}/{id}/projects");
        w.projects_page(&path, Some(id), name.as_deref(), caller, &listing)
    })
}
