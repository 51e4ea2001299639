//! The interconnection operations the fake models (connections, their
//! ports, the metros that have them and their prices), and who owns a
//! connection.

use metal_api::operation as op;
use uuid::Uuid;

use super::catalog;
use super::record::InterconnectionStatus;
use super::record::Kept;
use super::rules;
use super::rules::{CreateInput, UpdateInput};
use super::service_token;
use super::view::PortList;
use super::COLLECTION;
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::list::{self, Listing};
use crate::model::load::{unique, unknown};
use crate::model::render::{reply, Href};
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::{organization, project, World};
use std::collections::HashSet;
use tokio::time::Instant;

/// Interconnections (`/connections`).
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(
            &op::CREATE_ORGANIZATION_INTERCONNECTION,
            create_for_organization,
        )
        .names("organization_id", &organization::RESOURCE),
        Modelled::new(&op::CREATE_PROJECT_INTERCONNECTION, create_for_project)
            .names("project_id", &project::RESOURCE),
        Modelled::new(
            &op::ORGANIZATION_LIST_INTERCONNECTIONS,
            list_of_organization,
        )
        .names("organization_id", &organization::RESOURCE),
        Modelled::new(&op::PROJECT_LIST_INTERCONNECTIONS, list_of_project)
            .names("project_id", &project::RESOURCE),
        Modelled::new(&op::GET_INTERCONNECTION, get_interconnection)
            .names("connection_id", &RESOURCE),
        // packngo's `Connections.Update` sends PUT; a PATCH is served too.
        Modelled::new(&op::UPDATE_INTERCONNECTION, update_interconnection)
            .also_patch()
            .names("connection_id", &RESOURCE),
        Modelled::new(&op::DELETE_INTERCONNECTION, delete_interconnection)
            .names("connection_id", &RESOURCE),
        Modelled::new(&op::LIST_INTERCONNECTION_PORTS, list_ports)
            .names("connection_id", &RESOURCE),
        Modelled::new(&op::GET_INTERCONNECTION_PORT, get_port).names("connection_id", &RESOURCE),
        Modelled::new(&op::GET_INTERCONNECTION_METROS, get_metros),
        Modelled::new(&op::GET_INTERCONNECTION_PRICING, get_pricing),
        // Outside the 2024 spec: packngo's `FabricServiceTokens.Get`. A
        // token's ID names no connection, so access passes here and the
        // handler checks the token's connection.
        Modelled::new(
            &service_token::FIND_FABRIC_SERVICE_TOKEN_BY_ID,
            service_token::find_fabric_service_token_by_id,
        )
        .names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.interconnections.get(&id).map(|c| match c.rec.project {
        Some(p) => Owner::Project(p),
        None => Owner::Organization(c.rec.organization),
    })
}

fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    catalog::load_metros(w, doc)?;
    load_connections(w, doc, now)
}

fn save(w: &World, doc: &mut WorldDoc, now: Instant) {
    catalog::save_metros(w, doc);
    save_connections(w, doc, now);
}

fn create_for_organization(call: &Call) -> Result<Prepared, ApiError> {
    let organization = call.id("organization_id")?;
    create(call, Some(organization), None)
}

fn create_for_project(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("project_id")?;
    create(call, None, Some(project))
}

fn create(
    call: &Call,
    organization: Option<Uuid>,
    project: Option<Uuid>,
) -> Result<Prepared, ApiError> {
    let body: CreateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, caller, now| {
        let id = w.create_interconnection(organization, project, &body, now)?;
        reply(&w.interconnection_view(w.interconnection(id)?, &expand, caller, now))
    })
}

/// One page of `listed` connections at `path`.
fn connections_page(
    call: &Call,
    path: String,
    exists: fn(&World, Uuid) -> bool,
    of: fn(&Kept, Uuid) -> bool,
    (id, paged): (Uuid, bool),
) -> Result<Prepared, ApiError> {
    // The spec pages a project's connections, not an organisation's.
    let listing = if paged {
        Listing::of(call, &[])?
    } else {
        Listing::unpaged(call, &[])?
    };
    acts(move |w, caller, now| {
        if !exists(w, id) {
            return Err(ApiError::not_found());
        }
        let page = list::page(
            "interconnections",
            &path,
            w.interconnections.values().filter(|c| of(c, id)),
            |c| c.meta.seq,
            &listing,
            |c| w.interconnection_view(c, &listing.expand, caller, now),
        );
        reply(&page)
    })
}

fn list_of_organization(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("organization_id")?;
    let path = format!("{}/{COLLECTION}", Href::new(organization::COLLECTION, id));
    connections_page(
        call,
        path,
        |w, id| w.organizations.contains_key(&id),
        |c, id| c.rec.organization == id,
        (id, false),
    )
}

fn list_of_project(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("project_id")?;
    let path = format!("{}/{COLLECTION}", Href::new(project::COLLECTION, id));
    connections_page(
        call,
        path,
        |w, id| w.projects.contains_key(&id),
        |c, id| c.rec.project == Some(id),
        (id, true),
    )
}

fn get_interconnection(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("connection_id")?;
    let expand = expand(call);
    acts(move |w, caller, now| {
        reply(&w.interconnection_view(w.interconnection(id)?, &expand, caller, now))
    })
}

fn update_interconnection(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("connection_id")?;
    let body: UpdateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, caller, now| {
        w.update_interconnection(id, &body, now)?;
        reply(&w.interconnection_view(w.interconnection(id)?, &expand, caller, now))
    })
}

fn delete_interconnection(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("connection_id")?;
    let expand = expand(call);
    acts(move |w, caller, now| {
        // The reply is the connection as it was when its deletion was
        // accepted.
        let before = reply(&w.interconnection_view(w.interconnection(id)?, &expand, caller, now))?;
        w.delete_interconnection(id, now)?;
        Ok(before)
    })
}

fn list_ports(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("connection_id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let c = w.interconnection(id)?;
        reply(&PortList {
            ports: (0..c.rec.ports.len())
                .filter_map(|i| w.interconnection_port_view(c, i, &expand, now))
                .collect(),
        })
    })
}

fn get_port(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("connection_id")?;
    let port = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let c = w.interconnection(id)?;
        let index = c
            .rec
            .ports
            .iter()
            .position(|p| *p == port)
            .ok_or_else(ApiError::not_found)?;
        let view = w
            .interconnection_port_view(c, index, &expand, now)
            .ok_or_else(ApiError::not_found)?;
        reply(&view)
    })
}

fn get_metros(call: &Call) -> Result<Prepared, ApiError> {
    let listing = Listing::unpaged(call, &[])?;
    acts(move |w, _, _| {
        let metros = w.interconnection_metros_view();
        let path = format!("{}/{COLLECTION}/metros", crate::model::render::API_PREFIX);
        let indexed: Vec<(u64, catalog::InterconnectionMetroView<'_>)> =
            (0u64..).zip(metros).collect();
        let page = list::page(
            "metros",
            &path,
            indexed.iter(),
            |(i, _)| *i,
            &listing,
            |(_, m)| m,
        );
        reply(&page)
    })
}

fn get_pricing(_call: &Call) -> Result<Prepared, ApiError> {
    acts(move |w, _, _| reply(&w.interconnection_pricing()))
}

/// Loads the document's interconnections: each of an organisation the
/// world has (and a project of it), in a metro with interconnections,
/// with as many ports (and service tokens) as its redundancy and type
/// say; a requested one becomes active when its delay has passed.
fn load_connections(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    for c in &doc.interconnections {
        unique(&mut ids, c.id, "interconnection", c.id)?;
        for p in c.ports.iter().chain(&c.service_tokens) {
            unique(&mut ids, *p, "interconnection port or token", p)?;
        }
        let what = || format!("interconnection {}", c.id);
        if !w.organizations.contains_key(&c.organization) {
            return Err(unknown(what(), "organization", c.organization));
        }
        if let Some(p) = c.project {
            let project = w
                .projects
                .get(&p)
                .ok_or_else(|| unknown(what(), "project", p))?;
            if project.rec.organization != Some(c.organization) {
                return Err(WorldError::Inconsistent(format!(
                    "{}: project {p} is not of its organization",
                    what()
                )));
            }
        }
        rules::check_record(w, c)
            .map_err(|why| WorldError::Inconsistent(format!("{}: {why}", what())))?;
        w.interconnections
            .rows()
            .insert(&mut w.journal, c.id, now, |meta| Kept {
                rec: c.clone(),
                meta,
            });
        if c.status == InterconnectionStatus::Requested {
            w.queue_interconnection_activation(c.id, now);
        }
    }
    Ok(())
}

/// Saves the interconnections into `doc`, oldest first.
fn save_connections(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.interconnections = oldest_first(w.interconnections.iter(), |c| c.meta.seq)
        .into_iter()
        .map(|c| c.rec.clone())
        .collect();
}
