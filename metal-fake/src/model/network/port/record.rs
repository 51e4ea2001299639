//! What the fake keeps of a port: its state where it differs from a fresh
//! server's (in its bond, layer 3, no VLANs), also its entry in the world
//! document, named by device and port name.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::layout::{port_id, Slot};
use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

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
