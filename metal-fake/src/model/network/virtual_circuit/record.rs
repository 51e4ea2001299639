//! What the fake keeps of a virtual circuit: its description (also its
//! entry in the world document), and its place in the journal.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// Where a virtual circuit is in its life (the spec's
/// `VlanVirtualCircuit.status` and `VrfVirtualCircuit.status` values the
/// fake reaches).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum VirtualCircuitStatus {
    /// A shared connection's circuit while its connection is requested.
    Pending,
    /// A VLAN circuit without a VLAN: it activates once one is given.
    WaitingOnCustomerVlan,
    /// A VRF circuit of a shared connection without its peering details:
    /// it activates once they are given.
    WaitingOnPeeringDetails,
    /// Being configured: active after a delay on the fake's clock.
    Activating,
    /// An active circuit given another VLAN: active again after a delay.
    ChangingVlan,
    /// An active VRF circuit given new peering details: active again
    /// after a delay.
    ChangingPeeringDetails,
    /// An active circuit whose VLAN was taken off: waiting on a VLAN
    /// again after a delay.
    Deactivating,
    /// Carrying its VLAN, or routing its VRF.
    #[default]
    Active,
    /// Deleted: gone after a delay on the fake's clock.
    Deleting,
}

/// A VRF circuit's BGP peering (the spec's `VrfVirtualCircuitCreateInput`
/// fields): a /30 or /31 IPv4 subnet of the VRF's ranges with the Metal
/// and customer addresses in it, optionally an IPv6 /126 or /127 one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Peering {
    /// The peer's ASN (4 bytes, not the VRF's own).
    pub peer_asn: u32,
    /// The IPv4 subnet, `a.b.c.d/30` or `/31`.
    pub subnet: String,
    /// The Metal side's IPv4 address in the subnet.
    pub metal_ip: String,
    /// The customer side's IPv4 address in the subnet.
    pub customer_ip: String,
    /// The IPv6 subnet, `/126` or `/127`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subnet_ipv6: Option<String>,
    /// The Metal side's IPv6 address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metal_ipv6: Option<String>,
    /// The customer side's IPv6 address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customer_ipv6: Option<String>,
    /// The BGP session's MD5 password (absent: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub md5: Option<String>,
}

/// A virtual circuit on an interconnection's port: a VLAN circuit, or a
/// VRF circuit (with `vrf`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VirtualCircuit {
    /// Its ID.
    pub id: Uuid,
    /// Its connection.
    pub interconnection: Uuid,
    /// Its connection's port.
    pub port: Uuid,
    /// Its project.
    pub project: Uuid,
    /// The VLAN it carries, of its project in its connection's metro
    /// (absent: none yet, as a shared connection made without VLANs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub virtual_network: Option<Uuid>,
    /// The VLAN tag on the port (2 to 4094, unique on the port; absent on
    /// a shared connection's circuit or a tunnel-mode port's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nni_vlan: Option<u16>,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its speed in bits per second.
    #[serde(default)]
    pub speed: u64,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Where it is in its life (absent: active).
    #[serde(default)]
    pub status: VirtualCircuitStatus,
    /// A VRF circuit's VRF (of its project, in its connection's metro).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vrf: Option<Uuid>,
    /// A VRF circuit's peering (absent: none yet, as a shared connection's
    /// VRF circuit is made).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peering: Option<Peering>,
    /// The VRF IP reservation its subnet lies in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vrf_block: Option<Uuid>,
    /// Whether that reservation was made for it (then it goes with it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub own_block: bool,
}

/// A virtual circuit as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: VirtualCircuit,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::VirtualCircuit, |k| Scope::project(
    k.rec.project
));
