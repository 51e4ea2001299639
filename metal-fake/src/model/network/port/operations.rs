//! The port operations the fake models, and who owns a port (its
//! device's project). Each change answers the port as it is after it.

use metal_api::operation as op;
use metal_api::types;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::layout;
use super::record::{entry, Kept, Port, State};
use super::rules::requested;
use super::rules::MAX_VLANS_PER_PORT;
use super::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::list::flag_in_query_or_body;
use crate::model::load::{unique, unknown};
use crate::model::render::{reply, Expand};
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::World;

/// Devices' network ports.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_PORT_BY_ID, find_port_by_id).names("id", &RESOURCE),
        Modelled::new(&op::ASSIGN_PORT, assign_port).names("id", &RESOURCE),
        Modelled::new(&op::UNASSIGN_PORT, unassign_port).names("id", &RESOURCE),
        Modelled::new(&op::ASSIGN_NATIVE_VLAN, assign_native_vlan).names("id", &RESOURCE),
        Modelled::new(&op::DELETE_NATIVE_VLAN, delete_native_vlan).names("id", &RESOURCE),
        Modelled::new(&op::BOND_PORT, bond_port).names("id", &RESOURCE),
        Modelled::new(&op::DISBOND_PORT, disbond_port).names("id", &RESOURCE),
        Modelled::new(&op::CONVERT_LAYER2, convert_layer2).names("id", &RESOURCE),
        Modelled::new(&op::CONVERT_LAYER3, convert_layer3).names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    let (d, _) = w.find_port(id).ok()?;
    Some(Owner::Project(d.rec.project))
}

/// Port `id` as the reply.
fn port_reply(
    w: &World,
    id: Uuid,
    expand: &Expand,
    now: tokio::time::Instant,
) -> Result<Reply, ApiError> {
    let (d, slot) = w.find_port(id)?;
    reply(&w.port_view(d, slot, expand, now))
}

/// A port change: what `change` does to port `id`, answered with the port.
fn change(
    call: &Call,
    change: impl FnOnce(&mut World, Uuid, Instant) -> Result<(), ApiError> + Send + 'static,
) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        change(w, id, now)?;
        port_reply(w, id, &expand, now)
    })
}

/// The `vnid` of a body (`PortAssignInput`).
fn vnid(call: &Call) -> Result<Option<String>, ApiError> {
    let body: types::PortAssignInput = call.json()?;
    Ok(body.vnid)
}

fn find_port_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| port_reply(w, id, &expand, now))
}

fn assign_port(call: &Call) -> Result<Prepared, ApiError> {
    let vnid = vnid(call)?;
    change(call, move |w, id, now| {
        w.assign_port(id, vnid.as_deref(), now)
    })
}

fn unassign_port(call: &Call) -> Result<Prepared, ApiError> {
    let vnid = vnid(call)?;
    change(call, move |w, id, now| {
        w.unassign_port(id, vnid.as_deref(), now)
    })
}

fn assign_native_vlan(call: &Call) -> Result<Prepared, ApiError> {
    // The spec's `vnid` is a query parameter (metalv1 sends it so);
    // packngo's `AssignNative` sends it in a `PortAssignInput` body, which
    // the real API took too.
    let vnid = match call.text("vnid") {
        Some(vnid) => Some(vnid),
        None if call.body().iter().any(|b| !b.is_ascii_whitespace()) => vnid(call)?,
        None => None,
    };
    change(call, move |w, id, now| {
        w.set_native_vlan(id, vnid.as_deref(), now)
    })
}

fn delete_native_vlan(call: &Call) -> Result<Prepared, ApiError> {
    change(call, |w, id, now| w.remove_native_vlan(id, now))
}

/// A bond or disbond's `name` flag: the spec's query parameter, or the
/// body's field of that name, as packngo sends it (`{"id": ...,
/// "bulk_enable": true}`).
fn bulk(call: &Call, name: &str) -> Result<bool, ApiError> {
    Ok(flag_in_query_or_body(call, name)?.unwrap_or(false))
}

fn bond_port(call: &Call) -> Result<Prepared, ApiError> {
    let bulk = bulk(call, "bulk_enable")?;
    change(call, move |w, id, now| w.bond_port(id, bulk, now))
}

fn disbond_port(call: &Call) -> Result<Prepared, ApiError> {
    let bulk = bulk(call, "bulk_disable")?;
    change(call, move |w, id, now| w.disbond_port(id, bulk, now))
}

fn convert_layer2(call: &Call) -> Result<Prepared, ApiError> {
    change(call, |w, id, now| w.convert_layer2(id, now))
}

fn convert_layer3(call: &Call) -> Result<Prepared, ApiError> {
    // `request_ips`: the addresses the device gets back.
    let body: types::PortConvertLayer3Input = if call.body().iter().all(u8::is_ascii_whitespace) {
        types::PortConvertLayer3Input::default()
    } else {
        call.json()?
    };
    let request = body
        .request_ips
        .iter()
        .map(|r| requested(r.address_family, r.public))
        .collect::<Result<Vec<_>, _>>()?;
    change(call, move |w, id, now| w.convert_layer3(id, &request, now))
}

/// Loads the document's ports: each of a device the world has, named as
/// its plan names ports, once; a bond's `bonded` and a physical port's
/// `layer2` left alone; its VLANs of the device's project and metro, at
/// most [`MAX_VLANS_PER_PORT`], a bonded physical port none; its native
/// VLAN one of them.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    for p in &doc.ports {
        let what = || format!("port {} of device {}", p.name, p.device);
        let inconsistent = |why: &str| WorldError::Inconsistent(format!("{}: {why}", what()));
        let d = w
            .devices
            .get(&p.device)
            .ok_or_else(|| unknown(what(), "device", p.device))?;
        let slot = layout::slot_named(&d.rec.plan, &p.name)
            .ok_or_else(|| inconsistent("the device's plan has no such port"))?;
        unique(&mut seen, (p.device, slot.index), "port", what())?;
        if slot.bond.is_none() && !p.bonded {
            return Err(inconsistent(
                "a bond's bonding follows its ports: leave bonded out",
            ));
        }
        if slot.bond.is_some() && p.layer2 {
            return Err(inconsistent("only a bond converts to layer 2"));
        }
        if slot.bond.is_some() && p.bonded && !p.virtual_networks.is_empty() {
            return Err(inconsistent("a bonded port has no VLANs of its own"));
        }
        if p.virtual_networks.len() > MAX_VLANS_PER_PORT {
            return Err(inconsistent(&format!(
                "more than {MAX_VLANS_PER_PORT} VLANs"
            )));
        }
        let metro = w.catalog.facility(&d.rec.facility).map(|f| f.metro.clone());
        let mut vlans = HashSet::new();
        for v in &p.virtual_networks {
            let vlan = w
                .vlans
                .get(v)
                .ok_or_else(|| unknown(what(), "virtual network", v))?;
            if vlan.rec.project != d.rec.project || Some(&vlan.rec.metro) != metro.as_ref() {
                return Err(inconsistent(&format!(
                    "virtual network {v} is not of the device's project and metro"
                )));
            }
            if !vlans.insert(*v) {
                return Err(inconsistent(&format!(
                    "virtual network {v} is assigned twice"
                )));
            }
        }
        if let Some(n) = p.native_virtual_network
            && !vlans.contains(&n)
        {
            return Err(inconsistent(
                "its native virtual network is not one of its virtual networks",
            ));
        }
        let state = State {
            device: p.device,
            slot,
            bonded: p.bonded,
            layer2: p.layer2,
            vlans: p.virtual_networks.clone(),
            native: p.native_virtual_network,
        };
        if !state.is_fresh() {
            w.ports
                .rows()
                .insert(&mut w.journal, state.id(), now, |meta| Kept { state, meta });
        }
    }
    Ok(())
}

/// Saves the ports that are not a fresh server's into `doc`, by device
/// (oldest first) and port order.
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    let mut kept: Vec<&State> = w
        .ports
        .values()
        .map(|p| &p.state)
        .filter(|p| !p.is_fresh())
        .collect();
    kept.sort_by_key(|p| {
        (
            w.devices.get(&p.device).map_or(u64::MAX, |d| d.meta.seq),
            p.slot.index,
        )
    });
    doc.ports = kept.into_iter().map(entry).collect();
}

impl World {
    /// The entries of `device`'s ports in a world document: those that are
    /// not a fresh server's, in port order.
    pub(crate) fn saved_ports_of(&self, device: Uuid) -> Vec<Port> {
        layout::ids_of(device)
            .filter_map(|id| self.ports.get(&id))
            .map(|p| &p.state)
            .filter(|p| !p.is_fresh())
            .map(entry)
            .collect()
    }
}
