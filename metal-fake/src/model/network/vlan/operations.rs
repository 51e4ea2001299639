//! The virtual network operations the fake models, and who owns a VLAN.

use metal_api::operation as op;
use metal_api::types;
use serde::Serialize;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::record;
use super::record::Kept;
use super::rules;
use super::view::VlanView;
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::load::{unique, unknown};
use crate::model::project;
use crate::model::render::reply;
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::world::oldest_first;
use crate::model::World;

/// Virtual networks (VLANs).
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_VIRTUAL_NETWORKS, find_virtual_networks)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::CREATE_VIRTUAL_NETWORK, create_virtual_network)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::GET_VIRTUAL_NETWORK, get_virtual_network).names("id", &RESOURCE),
        Modelled::new(&op::UPDATE_VIRTUAL_NETWORK, update_virtual_network).names("id", &RESOURCE),
        Modelled::new(&op::DELETE_VIRTUAL_NETWORK, delete_virtual_network).names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.vlans.get(&id).map(|v| Owner::Project(v.rec.project))
}

/// A project's VLANs: the spec's `VirtualNetworkList` (no `meta`: the
/// list is not paginated).
#[derive(Serialize)]
struct VlanList<'a> {
    virtual_networks: Vec<VlanView<'a>>,
}

/// `metro` and `facility` filters: the code, ASCII case ignored.
fn matches(filter: &Option<String>, value: Option<&str>) -> bool {
    filter
        .as_deref()
        .is_none_or(|f| value.is_some_and(|v| v.eq_ignore_ascii_case(f)))
}

fn find_virtual_networks(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let expand = expand(call);
    let metro = call.text("metro");
    let facility = call.text("facility");
    acts(move |w, _, now| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        let mut listed: Vec<&record::Kept> = w
            .vlans
            .values()
            .filter(|v| {
                v.rec.project == project
                    && matches(&metro, Some(&v.rec.metro))
                    && matches(&facility, v.rec.facility.as_deref())
            })
            .collect();
        listed.sort_by_key(|v| v.meta.seq);
        reply(&VlanList {
            virtual_networks: listed
                .into_iter()
                .map(|v| w.vlan_view(v, &expand, now))
                .collect(),
        })
    })
}

fn create_virtual_network(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let body: types::VirtualNetworkCreateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        let id = w.create_vlan(project, &body, now)?;
        reply(&w.vlan_view(w.vlan(id)?, &expand, now))
    })
}

fn get_virtual_network(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| reply(&w.vlan_view(w.vlan(id)?, &expand, now)))
}

fn update_virtual_network(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: types::VirtualNetworkUpdateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.update_vlan(id, &body, now)?;
        reply(&w.vlan_view(w.vlan(id)?, &expand, now))
    })
}

fn delete_virtual_network(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.delete_vlan(id, now)?;
        Ok(Reply::Empty)
    })
}

/// Loads the document's VLANs: each of a project the world has, in a
/// metro (and facility) of its catalog, with a `vxlan` in range and not
/// taken in the metro, within the bounds of its fields.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    let inconsistent =
        |id: Uuid, why: String| WorldError::Inconsistent(format!("virtual network {id}: {why}"));
    for v in &doc.virtual_networks {
        unique(&mut ids, v.id, "virtual network", v.id)?;
        if !w.projects.contains_key(&v.project) {
            return Err(unknown(
                format!("virtual network {}", v.id),
                "project",
                v.project,
            ));
        }
        rules::check_record(w, v).map_err(|why| inconsistent(v.id, why))?;
        w.vlans
            .rows()
            .insert(&mut w.journal, v.id, now, |meta| Kept {
                rec: v.clone(),
                meta,
            });
    }
    Ok(())
}

/// Saves the VLANs into `doc`, oldest first.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.virtual_networks = oldest_first(w.vlans.iter(), |v| v.meta.seq)
        .into_iter()
        .map(|v| v.rec.clone())
        .collect();
}
