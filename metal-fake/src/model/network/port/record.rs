//! What the fake keeps of a port: its state where it differs from a fresh
//! server's (in its bond, layer 3, no VLANs), also its entry in the world
//! document, named by device and port name.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use super::layout::{self, port_id, Slot};
use super::rules::MAX_VLANS_PER_PORT;
use crate::document::{WorldDoc, WorldError};
use crate::model::journal::{record, Meta, Scope};
use crate::model::load::{unique, unknown};
use crate::model::relations::Kind;
use crate::model::World;

/// A device's port whose state is not a fresh server's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Port {
    /// Its device.
    pub device: Uuid,
    /// Its name, one of its device's plan's (`bond0`, `eth1`).
    pub name: String,
    /// A physical port: whether it is in its bond (default `true`). A
    /// bond's own follows from its ports, and stays `true` here.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub bonded: bool,
    /// A bond: whether it was converted to layer 2 (default `false`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub layer2: bool,
    /// The VLANs assigned to it, of the device's project and metro, oldest
    /// first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub virtual_networks: Vec<Uuid>,
    /// Its native VLAN, one of `virtual_networks`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native_virtual_network: Option<Uuid>,
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A port as the world keeps it, from its first change on (a port it
/// does not keep is a fresh server's).
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) state: State,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::Port, |k| Scope {
    device: Some(k.state.device),
    ..Scope::default()
});

/// A port's state (a fresh server's, or as it was changed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct State {
    pub(crate) device: Uuid,
    pub(crate) slot: Slot,
    /// A physical port: in its bond.
    pub(crate) bonded: bool,
    /// A bond: converted to layer 2.
    pub(crate) layer2: bool,
    pub(crate) vlans: Vec<Uuid>,
    pub(crate) native: Option<Uuid>,
}

impl State {
    /// Port `slot` of `device` as a fresh server has it.
    pub(crate) fn fresh(device: Uuid, slot: Slot) -> Self {
        Self {
            device,
            slot,
            bonded: true,
            layer2: false,
            vlans: Vec::new(),
            native: None,
        }
    }

    /// Its ID.
    pub(crate) fn id(&self) -> Uuid {
        port_id(self.device, self.slot.index)
    }

    /// Whether it is a fresh server's (so the world need not keep it).
    pub(crate) fn is_fresh(&self) -> bool {
        *self == Self::fresh(self.device, self.slot)
    }
}

/// Loads the document's ports: each of a device the world has, named as
/// its plan names ports, once; a bond's `bonded` and a physical port's
/// `layer2` left alone; its VLANs of the device's project and metro, at
/// most [`MAX_VLANS_PER_PORT`], a bonded physical port none; its native
/// VLAN one of them.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
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
        if let Some(n) = p.native_virtual_network {
            if !vlans.contains(&n) {
                return Err(inconsistent(
                    "its native virtual network is not one of its virtual networks",
                ));
            }
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
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
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
        super::layout::ids_of(device)
            .filter_map(|id| self.ports.get(&id))
            .map(|p| &p.state)
            .filter(|p| !p.is_fresh())
            .map(entry)
            .collect()
    }
}

/// One port's entry in a world document.
pub(crate) fn entry(p: &State) -> Port {
    Port {
        device: p.device,
        name: p.slot.name.to_string(),
        bonded: p.bonded,
        layer2: p.layer2,
        virtual_networks: p.vlans.clone(),
        native_virtual_network: p.native,
    }
}
