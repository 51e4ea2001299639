//! The organisation operations the fake models, who owns an organisation
//! (for access), and how organisations load and save.

use std::collections::HashSet;

use metal_api::operation as op;
use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use super::rules::{check, insert};
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::device::DeviceFilter;
use crate::model::list::{self, one_of, Listing};
use crate::model::load::{unique, unknown};
use crate::model::relations::Kind;
use crate::model::render::{reply, API_PREFIX};
use crate::model::resource::{acts, expand, Modelled, Prepare, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::{catalog, World};

/// Organisations.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_ORGANIZATIONS, find_organizations),
        Modelled::new(&op::CREATE_ORGANIZATION, create_organization),
        Modelled::new(&op::FIND_ORGANIZATION_BY_ID, find_organization_by_id).names("id", &RESOURCE),
        // packngo's `Organizations.Update` sends PATCH.
        Modelled::new(&op::UPDATE_ORGANIZATION, update_organization)
            .also_patch()
            .names("id", &RESOURCE),
        Modelled::new(&op::DELETE_ORGANIZATION, delete_organization).names("id", &RESOURCE),
        Modelled::new(&op::FIND_ORGANIZATION_PROJECTS, find_organization_projects)
            .names("id", &RESOURCE),
        Modelled::new(
            &op::CREATE_ORGANIZATION_PROJECT,
            create_organization_project,
        )
        .names("id", &RESOURCE),
        Modelled::new(
            &op::FIND_ORGANIZATION_CUSTOMDATA,
            find_organization_customdata,
        )
        .names("id", &RESOURCE),
        Modelled::new(&op::FIND_ORGANIZATION_DEVICES, find_organization_devices)
            .names("id", &RESOURCE),
        Modelled::new(&op::FIND_PLANS_BY_ORGANIZATION, |c| {
            of_organization(c, catalog::find_plans)
        })
        .names("id", &RESOURCE),
        Modelled::new(&op::FIND_OPERATING_SYSTEMS_BY_ORGANIZATION, |c| {
            of_organization(c, catalog::find_operating_systems)
        })
        .names("id", &RESOURCE),
        Modelled::new(&op::FIND_FACILITIES_BY_ORGANIZATION, |c| {
            of_organization(c, catalog::find_facilities)
        })
        .names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.organizations.get(&id).map(|_| Owner::Organization(id))
}

fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    for o in &doc.organizations {
        unique(&mut seen, o.id, "organization", o.id)?;
        if let Some(u) = o.members.iter().find(|u| !w.users.contains_key(u)) {
            return Err(unknown(format!("organization {}", o.id), "user", u));
        }
        if let Some(problem) = check(o) {
            return Err(WorldError::Inconsistent(format!(
                "organization {}: {problem}",
                o.id
            )));
        }
        insert(w, o.clone(), now);
    }
    Ok(())
}

fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.organizations = oldest_first(w.organizations.iter(), |o| o.meta.seq)
        .into_iter()
        .map(|o| o.rec.clone())
        .collect();
}

impl World {
    /// Organisation `id`, or `404`.
    pub(crate) fn organization(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.organizations.get(&id).ok_or_else(ApiError::not_found)
    }
}

/// An operation of the catalog, for an organisation: `404` when it has no
/// such organisation, else the catalog's answer (every organisation sees
/// the whole catalog).
fn of_organization(call: &Call, inner: Prepare) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let inner = inner(call)?;
    acts(move |w, caller, now| {
        w.organization(id)?;
        (inner.act)(w, caller, now)
    })
}

/// The organisations the caller sees, oldest first.
fn find_organizations(call: &Call) -> Result<Prepared, ApiError> {
    const WHICH: &[&str] = &["include", "exclude", "only"];
    let listing = Listing::of(call, &["personal", "without_projects"])?;
    // No organisation of the fake is a user's personal one.
    let personal = one_of(call, "personal", WHICH)?;
    let without_projects = one_of(call, "without_projects", WHICH)?;
    acts(move |w, caller, _| {
        let listed = w
            .organizations
            .values()
            .filter(|o| caller.sees_organization(w, o.rec.id))
            .filter(|_| personal.as_deref() != Some("only"))
            .filter(|o| {
                let empty = !w.projects.values().any(|p| p.organization() == o.rec.id);
                match without_projects.as_deref() {
                    Some("exclude") => !empty,
                    Some("only") => empty,
                    _ => true,
                }
            });
        let path = format_args!("{API_PREFIX}/{COLLECTION}");
        let page = list::page(
            "organizations",
            &path,
            listed,
            |o| o.meta.seq,
            &listing,
            |o| w.organization_view_with(o, caller, &listing.expand),
        );
        reply(&page)
    })
}

/// `createOrganization`: its maker is a member of it.
fn create_organization(call: &Call) -> Result<Prepared, ApiError> {
    let body: types::OrganizationInput = call.json()?;
    let expand = expand(call);
    acts(move |w, caller, now| {
        let id = w.create_organization(&body, caller, now)?;
        reply(&w.organization_view_with(w.organization(id)?, caller, &expand))
    })
}

fn find_organization_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, caller, _| reply(&w.organization_view_with(w.organization(id)?, caller, &expand)))
}

fn update_organization(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: types::OrganizationInput = call.json()?;
    let expand = expand(call);
    acts(move |w, caller, now| {
        w.update_organization(id, &body, now)?;
        reply(&w.organization_view_with(w.organization(id)?, caller, &expand))
    })
}

/// `deleteOrganization`: refused while it holds projects.
fn delete_organization(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.delete_record(Kind::Organization, id, now)?;
        Ok(Reply::Empty)
    })
}

/// The organisation's projects the caller sees, oldest first.
fn find_organization_projects(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let listing = Listing::of(call, &["name"])?;
    let name = call.text("name");
    acts(move |w, caller, _| {
        w.organization(id)?;
        let path = format_args!("{API_PREFIX}/{COLLECTION}/{id}/projects");
        w.projects_page(&path, Some(id), name.as_deref(), caller, &listing)
    })
}

/// `createOrganizationProject`: a project of this organisation.
fn create_organization_project(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: types::ProjectCreateInput = call.json()?;
    acts(move |w, caller, now| {
        w.organization(id)?;
        let project = w.create_project(&body, Some(id), caller, now)?;
        let p = w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        reply(&w.project_view(p))
    })
}

fn find_organization_customdata(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| reply(&w.organization(id)?.rec.customdata))
}

/// The devices of the organisation's projects the caller sees, oldest
/// first.
fn find_organization_devices(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let listing = Listing::of(call, DeviceFilter::PARAMS)?;
    let filter = DeviceFilter::of(call)?;
    let expand = expand(call);
    acts(move |w, caller, now| {
        w.organization(id)?;
        let listed = w.devices.values().filter(|d| {
            caller.sees(d.rec.project)
                && w.projects
                    .get(&d.rec.project)
                    .is_some_and(|p| p.organization() == id)
                && w.device_passes(d, &filter)
        });
        let path = format_args!("{API_PREFIX}/{COLLECTION}/{id}/devices");
        let page = list::page(
            "devices",
            &path,
            listed,
            |d| d.meta.seq,
            &listing,
            |d| w.device_view(d, &expand, now),
        );
        reply(&page)
    })
}
