//! A port as the API sends it, written straight to bytes from its state:
//! a bond with its `network_type`, a physical port with its MAC address
//! and bond; its VLANs (and native VLAN) stubs unless included
//! (`include=virtual_networks`, `native_virtual_network`). A device's
//! `network_ports` are its ports in this form.

use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::layout::{self, mac, port_id, Mac, Slot};
use super::rules::network_type;
use super::COLLECTION;
use crate::model::device;
use crate::model::render::{Expand, Href};
use crate::model::vlan::VlanField;
use crate::model::World;

/// A port in a reply.
#[derive(Serialize)]
pub(crate) struct PortView<'a> {
    id: Uuid,
    href: Href,
    name: &'static str,
    #[serde(rename = "type")]
    type_: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    network_type: Option<&'static str>,
    data: PortData,
    bond: Option<Bond>,
    disbond_operation_supported: bool,
    virtual_networks: Vec<VlanField<'a>>,
    native_virtual_network: Option<VlanField<'a>>,
}

#[derive(Serialize)]
struct PortData {
    bonded: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    mac: Option<Mac>,
}

#[derive(Serialize)]
struct Bond {
    id: Uuid,
    name: &'static str,
}

/// A device's ports, as its `network_ports` show them.
pub(crate) type DevicePorts<'a> = Vec<PortView<'a>>;

impl World {
    /// Port `slot` of device `d` as the API shows it at `now`.
    pub(crate) fn port_view<'a>(
        &'a self,
        d: &'a device::Kept,
        slot: Slot,
        expand: &Expand,
        now: Instant,
    ) -> PortView<'a> {
        let device = d.rec.id;
        let port = self.port_state(device, slot);
        let (network_type, bonded, bond) = match slot.bond {
            None => {
                let members = self.bond_members(device, &d.rec.plan, slot.index);
                (
                    Some(network_type(&port, &members)),
                    members.iter().any(|m| m.bonded),
                    None,
                )
            }
            Some(b) => (
                None,
                port.bonded,
                layout::slot(&d.rec.plan, b).map(|s| Bond {
                    id: port_id(device, s.index),
                    name: s.name,
                }),
            ),
        };
        let vlans = expand.includes("virtual_networks");
        let nested = expand.nested("virtual_networks");
        PortView {
            id: port_id(device, slot.index),
            href: Href::new(COLLECTION, port_id(device, slot.index)),
            name: slot.name,
            type_: if slot.bond.is_none() {
                "NetworkBondPort"
            } else {
                "NetworkPort"
            },
            network_type,
            data: PortData {
                bonded,
                mac: mac(slot, d.meta.seq),
            },
            bond,
            disbond_operation_supported: true,
            virtual_networks: port
                .vlans
                .iter()
                .map(|v| self.vlan_field(*v, vlans, &nested, now))
                .collect(),
            native_virtual_network: port.native.map(|v| {
                self.vlan_field(
                    v,
                    expand.includes("native_virtual_network"),
                    &expand.nested("native_virtual_network"),
                    now,
                )
            }),
        }
    }

    /// Device `d`'s ports, in the order the API lists them, with `expand`
    /// (the device's, narrowed to `network_ports`).
    pub(crate) fn device_ports<'a>(
        &'a self,
        d: &'a device::Kept,
        expand: &Expand,
        now: Instant,
    ) -> DevicePorts<'a> {
        layout::layout(&d.rec.plan)
            .iter()
            .map(|s| self.port_view(d, *s, expand, now))
            .collect()
    }
}
