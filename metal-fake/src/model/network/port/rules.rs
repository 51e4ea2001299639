//! The API's rules for ports: which VLAN a port may take (of the device's
//! project and metro; not on a physical port in its bond, nor on a bond
//! whose ports all left it), the native VLAN (one of the port's), bonding
//! and disbonding (a layer-3 bond may lose all its ports: `hybrid`, the
//! step clients take on their way to layer 2 individual), converting a
//! bond to layer 2 (the device's addresses go, when it is the first bond)
//! or back to layer 3 (the bond's own VLANs stay, and it reads
//! `hybrid-bonded`; not while a port it would bond again has VLANs; the
//! addresses asked for come back), and the network type that follows.
//!
//! The VLAN rules by the bond's network type:
//!
//! | network type | a VLAN on the bond | on a port | back to layer 3 |
//! | --- | --- | --- | --- |
//! | `layer3` | yes (then `hybrid-bonded`) | no: in the bond | no change |
//! | `hybrid-bonded` | yes | no: in the bond | no change |
//! | `hybrid` | yes (no once all its ports left it) | a disbonded one | its ports' VLANs off first |
//! | `layer2-bonded` | yes | no: in the bond | its VLANs stay (`hybrid-bonded`) |
//! | `layer2-individual` | no: its ports left it | yes | its ports' VLANs off first |

use tokio::time::Instant;
use uuid::Uuid;

use super::layout::{self, candidates, port_id, Slot};
use super::record::{Kept, State};
use crate::call::ApiError;
use crate::model::device::{self, OwnAddress};
use crate::model::relations::{Kind, RELATIONS};
use crate::model::World;

/// The addresses a bond converted back to layer 3 gets when its request
/// asks for none: the three a device has by default (and those packngo's
/// `PortToLayerThree` and the Terraform provider ask for).
const DEFAULT_REQUEST: [OwnAddress; 3] = [
    OwnAddress::PublicIpv4,
    OwnAddress::PrivateIpv4,
    OwnAddress::PublicIpv6,
];

/// The own address a `request_ips` entry asks for: `address_family` 4
/// or 6 and `public`; a private IPv6 is not offered (`422`).
pub(crate) fn requested(
    address_family: Option<i64>,
    public: Option<bool>,
) -> Result<OwnAddress, ApiError> {
    match (address_family, public) {
        (Some(4), Some(true)) => Ok(OwnAddress::PublicIpv4),
        (Some(4), Some(false)) => Ok(OwnAddress::PrivateIpv4),
        (Some(6), Some(true)) => Ok(OwnAddress::PublicIpv6),
        (Some(6), Some(false)) => Err(ApiError::unprocessable(
            "Private IPv6 addresses are not offered: request_ips takes public IPv6, public or private IPv4",
        )),
        _ => Err(ApiError::unprocessable(
            "Each of request_ips needs address_family (4 or 6) and public (true or false)",
        )),
    }
}

/// The most VLANs one port holds (a bound of the fake's).
pub(crate) const MAX_VLANS_PER_PORT: usize = 100;

/// A bond's network type, from its state and its ports'.
pub(crate) fn network_type(bond: &State, members: &[State]) -> &'static str {
    let all_bonded = members.iter().all(|m| m.bonded);
    match (bond.layer2, all_bonded) {
        (true, true) => "layer2-bonded",
        (true, false) => "layer2-individual",
        (false, false) => "hybrid",
        (false, true) if bond.vlans.is_empty() => "layer3",
        (false, true) => "hybrid-bonded",
    }
}

impl World {
    /// The device and slot of port `id`; `404` when no device has it.
    pub(crate) fn find_port(&self, id: Uuid) -> Result<(&device::Kept, Slot), ApiError> {
        candidates(id)
            .find_map(|(device, index)| {
                let d = self.devices.get(&device)?;
                Some((d, layout::slot(&d.rec.plan, index)?))
            })
            .ok_or_else(ApiError::not_found)
    }

    /// The state of port `slot` of `device`.
    pub(crate) fn port_state(&self, device: Uuid, slot: Slot) -> State {
        self.ports
            .get(&port_id(device, slot.index))
            .map(|k| k.state.clone())
            .unwrap_or_else(|| State::fresh(device, slot))
    }

    /// The physical ports of `bond` (a bond's slot) of `device` on `plan`.
    pub(crate) fn bond_members(&self, device: Uuid, plan: &str, bond: u8) -> Vec<State> {
        layout::layout(plan)
            .iter()
            .filter(|s| s.bond == Some(bond))
            .map(|s| self.port_state(device, *s))
            .collect()
    }

    /// Keeps `port`'s state at `now`, the change named `what`: a port
    /// the world keeps is updated (a state equal to its own is no
    /// change); one it does not keep (a fresh server's) is kept from its
    /// first change on.
    fn keep_port(&mut self, port: State, what: &'static str, now: Instant) {
        let id = port.id();
        match self.ports.get(&id) {
            Some(k) if k.state == port => {}
            Some(_) => {
                self.ports
                    .rows()
                    .update(&mut self.journal, id, what, now, |k| k.state = port);
            }
            None if port.is_fresh() => {}
            None => {
                self.ports
                    .rows()
                    .insert(&mut self.journal, id, now, |meta| Kept {
                        state: port,
                        meta,
                    });
            }
        }
    }

    /// The devices with a port on VLAN `vlan`, oldest first.
    pub(crate) fn devices_on_vlan(&self, vlan: Uuid) -> Vec<Uuid> {
        // The ports the relations' index links to the VLAN, and those
        // written since it was last told of them (the journal's pending
        // relinks), each read as it is now: not every port of the world.
        let on_vlan = RELATIONS
            .iter()
            .position(|r| r.child == Kind::Port && r.parent == Kind::VirtualNetwork);
        let mut ports: Vec<Uuid> = on_vlan
            .map(|i| self.links.children(i, vlan).collect())
            .unwrap_or_default();
        ports.extend(
            self.journal
                .pending_relinks()
                .filter(|(kind, _)| *kind == Kind::Port)
                .map(|(_, id)| id),
        );
        ports.sort_unstable();
        ports.dedup();
        let mut devices: Vec<(u64, Uuid)> = ports
            .iter()
            .filter_map(|id| self.ports.get(id))
            .filter(|p| p.state.vlans.contains(&vlan))
            .filter_map(|p| Some((self.devices.get(&p.state.device)?.meta.seq, p.state.device)))
            .collect();
        devices.sort();
        devices.dedup();
        devices.into_iter().map(|(_, d)| d).collect()
    }

    /// The VLAN `vnid` names for a port of `d`: its ID, or its `vxlan` in
    /// the device's metro; of the device's project and metro.
    fn vlan_for(&self, d: &device::Kept, vnid: Option<&str>) -> Result<Uuid, ApiError> {
        let vnid = vnid
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| ApiError::unprocessable("vnid is required"))?;
        let metro = self
            .catalog
            .facility(&d.rec.facility)
            .map(|f| f.metro.as_str());
        let vlan = match (vnid.parse::<Uuid>(), vnid.parse::<u32>()) {
            (Ok(id), _) => self.vlans.get(&id),
            (_, Ok(vxlan)) => self.vlans.values().find(|v| {
                v.rec.project == d.rec.project
                    && Some(v.rec.metro.as_str()) == metro
                    && v.rec.vxlan == vxlan
            }),
            _ => None,
        }
        .ok_or_else(|| ApiError::unprocessable(format!("Virtual network {vnid} was not found")))?;
        if vlan.rec.project != d.rec.project {
            return Err(ApiError::unprocessable(
                "The virtual network belongs to another project than the device",
            ));
        }
        if Some(vlan.rec.metro.as_str()) != metro {
            return Err(ApiError::unprocessable(format!(
                "Virtual network {} is in metro {}, not in the device's metro",
                vlan.rec.vxlan, vlan.rec.metro
            )));
        }
        Ok(vlan.rec.id)
    }

    /// `assignPort`: VLAN `vnid` on port `id`.
    pub(crate) fn assign_port(
        &mut self,
        id: Uuid,
        vnid: Option<&str>,
        now: Instant,
    ) -> Result<(), ApiError> {
        let (d, slot) = self.find_port(id)?;
        let vlan = self.vlan_for(d, vnid)?;
        let (device, plan) = (d.rec.id, d.rec.plan.clone());
        let mut port = self.port_state(device, slot);
        match slot.bond {
            Some(_) if port.bonded => {
                return Err(ApiError::unprocessable(
                    "Cannot assign a virtual network to a bonded port: disbond it first, or assign it to its bond",
                ))
            }
            None if self
                .bond_members(device, &plan, slot.index)
                .iter()
                .all(|m| !m.bonded) =>
            {
                return Err(ApiError::unprocessable(
                    "Cannot assign a virtual network to a bond whose ports are disbonded: assign it to a port",
                ))
            }
            _ => {}
        }
        if port.vlans.contains(&vlan) {
            return Err(ApiError::unprocessable(
                "The virtual network is already assigned to the port",
            ));
        }
        if port.vlans.len() >= MAX_VLANS_PER_PORT {
            return Err(ApiError::unprocessable(format!(
                "The port has too many virtual networks (maximum is {MAX_VLANS_PER_PORT})"
            )));
        }
        port.vlans.push(vlan);
        self.keep_port(port, "vlan_assigned", now);
        Ok(())
    }

    /// `unassignPort`: VLAN `vnid` off port `id` (not its native VLAN).
    pub(crate) fn unassign_port(
        &mut self,
        id: Uuid,
        vnid: Option<&str>,
        now: Instant,
    ) -> Result<(), ApiError> {
        let (d, slot) = self.find_port(id)?;
        let vlan = self.vlan_for(d, vnid)?;
        let mut port = self.port_state(d.rec.id, slot);
        if !port.vlans.contains(&vlan) {
            // The words terraform-provider-metal's port VLAN attachment
            // delete takes as done (`isNotAssigned`: a `422` that starts
            // "Virtual network" and ends "not assigned").
            let vxlan = self
                .vlans
                .get(&vlan)
                .map_or_else(|| vlan.to_string(), |v| v.rec.vxlan.to_string());
            return Err(ApiError::unprocessable(format!(
                "Virtual network {vxlan} is not assigned"
            )));
        }
        if port.native == Some(vlan) {
            return Err(ApiError::unprocessable(
                "The virtual network is the port's native VLAN: remove the native VLAN first",
            ));
        }
        port.vlans.retain(|v| *v != vlan);
        self.keep_port(port, "vlan_unassigned", now);
        Ok(())
    }

    /// `assignNativeVlan`: `vnid`, one of port `id`'s VLANs, as its native
    /// VLAN.
    pub(crate) fn set_native_vlan(
        &mut self,
        id: Uuid,
        vnid: Option<&str>,
        now: Instant,
    ) -> Result<(), ApiError> {
        let (d, slot) = self.find_port(id)?;
        let vlan = self.vlan_for(d, vnid)?;
        let mut port = self.port_state(d.rec.id, slot);
        if !port.vlans.contains(&vlan) {
            return Err(ApiError::unprocessable(
                "The native VLAN must be assigned to the port first",
            ));
        }
        port.native = Some(vlan);
        self.keep_port(port, "native_vlan", now);
        Ok(())
    }

    /// `deleteNativeVlan`: port `id` has no native VLAN (none before is
    /// no change).
    pub(crate) fn remove_native_vlan(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        let (d, slot) = self.find_port(id)?;
        let mut port = self.port_state(d.rec.id, slot);
        port.native = None;
        self.keep_port(port, "native_vlan_removed", now);
        Ok(())
    }

    /// The physical ports a bond or disbond of port `id` changes: the
    /// port itself, or every port of its bond (`bulk`, or a bond named).
    fn bonding_targets(&self, id: Uuid, bulk: bool) -> Result<(Uuid, Vec<State>), ApiError> {
        let (d, slot) = self.find_port(id)?;
        let (device, plan) = (d.rec.id, d.rec.plan.as_str());
        let targets = match slot.bond {
            Some(bond) if bulk => self.bond_members(device, plan, bond),
            Some(_) => vec![self.port_state(device, slot)],
            None => self.bond_members(device, plan, slot.index),
        };
        Ok((device, targets))
    }

    /// `bondPort`: port `id` (every port of its bond with `bulk`, or all
    /// of a bond's) back in its bond; refused while one has VLANs of its
    /// own.
    pub(crate) fn bond_port(&mut self, id: Uuid, bulk: bool, now: Instant) -> Result<(), ApiError> {
        let (_, targets) = self.bonding_targets(id, bulk)?;
        if targets.iter().any(|p| !p.vlans.is_empty()) {
            return Err(ApiError::unprocessable(
                "Cannot bond a port that has virtual networks: unassign them first",
            ));
        }
        for mut p in targets {
            p.bonded = true;
            self.keep_port(p, "bonded", now);
        }
        Ok(())
    }

    /// `disbondPort`: port `id` (every port of its bond with `bulk`, or all
    /// of a bond's) out of its bond. A layer-3 bond may lose every port
    /// (its network type reads `hybrid` then): the Terraform providers'
    /// port resource and metal-cli's `port convert --layer2
    /// --bonded=false` disbond bond0 while it is still layer 3, then
    /// convert it to layer 2 (`layer2-individual`); what they refuse
    /// before asking is only the end state "layer 3 and unbonded".
    pub(crate) fn disbond_port(
        &mut self,
        id: Uuid,
        bulk: bool,
        now: Instant,
    ) -> Result<(), ApiError> {
        let (_, targets) = self.bonding_targets(id, bulk)?;
        for mut p in targets {
            p.bonded = false;
            self.keep_port(p, "disbonded", now);
        }
        Ok(())
    }

    /// The bond port `id` names, refused for a physical port.
    fn bond_port_state(&self, id: Uuid, action: &str) -> Result<(State, Vec<State>), ApiError> {
        let (d, slot) = self.find_port(id)?;
        if slot.bond.is_some() {
            return Err(ApiError::unprocessable(format!(
                "Only a bond port converts to {action}"
            )));
        }
        let members = self.bond_members(d.rec.id, &d.rec.plan, slot.index);
        Ok((self.port_state(d.rec.id, slot), members))
    }

    /// `convertLayer2`: bond `id` to layer 2 (its ports stay as they are).
    /// The first bond carries the device's addresses: they go, its own and
    /// those assigned from the project's blocks.
    pub(crate) fn convert_layer2(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        let (mut bond, _) = self.bond_port_state(id, "layer 2")?;
        if bond.layer2 {
            return Ok(());
        }
        bond.layer2 = true;
        let (device, first) = (bond.device, bond.slot.index == 0);
        self.keep_port(bond, "layer2", now);
        if first {
            self.drop_own_addresses(device, now);
            self.remove_device_assignments(device, now);
        }
        Ok(())
    }

    /// `convertLayer3`: bond `id` back to layer 3, its ports bonded. The
    /// bond's own VLANs stay (it reads `hybrid-bonded`), as the Ansible
    /// collection's `metal_port` integration target saw the real API do
    /// (a `layer2-bonded` bond0 with two VLANs converted, then
    /// `hybrid-bonded` with both); refused while a port it would bond
    /// again has VLANs of its own (a bonded port takes none). A first
    /// bond that was layer 2 gets back the addresses `request` asks for
    /// (none: the three a device has by default).
    pub(crate) fn convert_layer3(
        &mut self,
        id: Uuid,
        request: &[OwnAddress],
        now: Instant,
    ) -> Result<(), ApiError> {
        let (mut bond, members) = self.bond_port_state(id, "layer 3")?;
        if members.iter().any(|m| !m.vlans.is_empty()) {
            return Err(ApiError::unprocessable(
                "Virtual networks must be unassigned from the bond's ports before converting to layer 3",
            ));
        }
        let addresses = (bond.layer2 && bond.slot.index == 0).then_some(bond.device);
        bond.layer2 = false;
        self.keep_port(bond, "layer3", now);
        for mut m in members {
            m.bonded = true;
            self.keep_port(m, "layer3", now);
        }
        if let Some(device) = addresses {
            let kinds = if request.is_empty() {
                &DEFAULT_REQUEST[..]
            } else {
                request
            };
            self.give_own_addresses(device, kinds, now);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bond_s_network_type_follows_from_it_and_its_ports() {
        let d = Uuid::new_v4();
        let slots = layout::layout("c3.small.x86");
        let (b, e0, e1) = (slots[0], slots[1], slots[2]);
        let mut bond = State::fresh(d, b);
        let mut ports = vec![State::fresh(d, e0), State::fresh(d, e1)];
        assert_eq!(network_type(&bond, &ports), "layer3");
        bond.vlans.push(Uuid::new_v4());
        assert_eq!(network_type(&bond, &ports), "hybrid-bonded");
        bond.vlans.clear();
        ports[1].bonded = false;
        assert_eq!(network_type(&bond, &ports), "hybrid");
        bond.layer2 = true;
        assert_eq!(network_type(&bond, &ports), "layer2-individual");
        ports[1].bonded = true;
        assert_eq!(network_type(&bond, &ports), "layer2-bonded");
    }
}
