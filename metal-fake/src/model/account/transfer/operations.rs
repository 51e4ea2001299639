//! Transfer requests: the record, the operations modelled, the view, who
//! sees one (the project's and the target organisation's members), and
//! how they load and save.

use std::collections::HashSet;

use metal_api::operation as op;
use metal_api::types;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::{Owner, ACCESS_DENIED};
use crate::model::bounds::room_for;
use crate::model::journal::{record, Meta, Scope};
use crate::model::load::{unique, unknown};
use crate::model::relations::Kind;
use crate::model::render::{reply, Href, Stamp, Stub};
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::{organization, project, World};

/// A request to move a project to another organisation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Transfer {
    /// Its ID.
    pub id: Uuid,
    /// The project to move.
    pub project: Uuid,
    /// The organisation it moves to.
    pub target_organization: Uuid,
}

/// A transfer request as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Transfer,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::Transfer, |k| Scope::project(k.rec.project));

/// Transfer requests.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::CREATE_TRANSFER_REQUEST, create_transfer_request)
            .names("id", &project::RESOURCE),
        Modelled::new(
            &op::FIND_ORGANIZATION_TRANSFERS,
            find_organization_transfers,
        )
        .names("id", &organization::RESOURCE),
        Modelled::new(
            &op::FIND_TRANSFER_REQUEST_BY_ID,
            find_transfer_request_by_id,
        )
        .names("id", &RESOURCE),
        Modelled::new(&op::ACCEPT_TRANSFER_REQUEST, accept_transfer_request).names("id", &RESOURCE),
        Modelled::new(&op::DECLINE_TRANSFER_REQUEST, decline_transfer_request)
            .names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.transfers.get(&id).map(|t| Owner::ProjectOrOrganization {
        project: t.rec.project,
        organization: t.rec.target_organization,
    })
}

/// Why a request cannot be: the project is already of that organisation,
/// or has a request open.
fn check(w: &World, t: &Transfer) -> Result<(), String> {
    let p = w
        .projects
        .get(&t.project)
        .ok_or_else(|| format!("project {} does not exist", t.project))?;
    if !w.organizations.contains_key(&t.target_organization) {
        return Err(format!(
            "target_organization_id {} names no organization",
            t.target_organization
        ));
    }
    if p.organization() == t.target_organization {
        return Err("The project already belongs to the target organization".into());
    }
    if w.transfers.values().any(|o| o.rec.project == t.project) {
        return Err("The project has a transfer request pending".into());
    }
    Ok(())
}

fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    for t in &doc.transfers {
        unique(&mut seen, t.id, "transfer", t.id)?;
        let from = || format!("transfer {}", t.id);
        if !w.projects.contains_key(&t.project) {
            return Err(unknown(from(), "project", t.project));
        }
        if !w.organizations.contains_key(&t.target_organization) {
            return Err(unknown(from(), "organization", t.target_organization));
        }
        check(w, t).map_err(|e| WorldError::Inconsistent(format!("{}: {e}", from())))?;
        w.transfers
            .rows()
            .insert(&mut w.journal, t.id, now, |meta| Kept {
                rec: t.clone(),
                meta,
            });
    }
    Ok(())
}

fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.transfers = oldest_first(w.transfers.iter(), |t| t.meta.seq)
        .into_iter()
        .map(|t| t.rec.clone())
        .collect();
}

/// A transfer request in a reply.
#[derive(Serialize)]
struct TransferView {
    id: Uuid,
    href: Href,
    project: Stub,
    target_organization: Stub,
    created_at: Stamp,
    updated_at: Stamp,
}

/// A list of transfer requests.
#[derive(Serialize)]
struct TransferList {
    transfers: Vec<TransferView>,
}

impl World {
    fn transfer_view(&self, t: &Kept) -> TransferView {
        let at = Stamp(self.clock.wall(t.meta.created));
        TransferView {
            id: t.rec.id,
            href: Href::new(COLLECTION, t.rec.id),
            project: Stub::new(project::COLLECTION, t.rec.project),
            target_organization: Stub::new(organization::COLLECTION, t.rec.target_organization),
            created_at: at,
            updated_at: at,
        }
    }

    fn transfer(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.transfers.get(&id).ok_or_else(ApiError::not_found)
    }
}

fn create_transfer_request(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let body: types::TransferRequestInput = call.json()?;
    let target = body
        .target_organization_id
        .ok_or_else(|| ApiError::unprocessable("target_organization_id can't be blank"))?;
    acts(move |w, _, now| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        room_for("Transfers", w.transfers.len())?;
        let id = Uuid::new_v4();
        let rec = Transfer {
            id,
            project,
            target_organization: target,
        };
        check(w, &rec).map_err(ApiError::unprocessable)?;
        w.transfers
            .rows()
            .insert(&mut w.journal, id, now, |meta| Kept { rec, meta });
        reply(&w.transfer_view(w.transfer(id)?))
    })
}

/// The requests to move a project into, or out of, the organisation.
fn find_organization_transfers(call: &Call) -> Result<Prepared, ApiError> {
    let organization = call.id("id")?;
    acts(move |w, _, _| {
        w.organization(organization)?;
        let mut listed: Vec<&Kept> = w
            .transfers
            .values()
            .filter(|t| {
                t.rec.target_organization == organization
                    || w.projects
                        .get(&t.rec.project)
                        .is_some_and(|p| p.organization() == organization)
            })
            .collect();
        listed.sort_by_key(|t| t.meta.seq);
        reply(&TransferList {
            transfers: listed.into_iter().map(|t| w.transfer_view(t)).collect(),
        })
    })
}

fn find_transfer_request_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| reply(&w.transfer_view(w.transfer(id)?)))
}

/// `acceptTransferRequest`: by a member of the target organisation; the
/// project moves there, and the request goes.
fn accept_transfer_request(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, caller, now| {
        let t = w.transfer(id)?.rec.clone();
        if !caller.sees_organization(w, t.target_organization) {
            return Err(ApiError::new(403, ACCESS_DENIED));
        }
        w.transfer_project(t.project, t.target_organization, now)?;
        // The old organisation's invitations to the project go with it.
        for i in w.invitations_left_behind(t.project, t.target_organization) {
            w.delete_record(Kind::Invitation, i, now)?;
        }
        w.delete_record(Kind::Transfer, id, now)?;
        Ok(Reply::Empty)
    })
}

/// `declineTransferRequest`: the request goes.
fn decline_transfer_request(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.delete_record(Kind::Transfer, id, now)?;
        Ok(Reply::Empty)
    })
}
