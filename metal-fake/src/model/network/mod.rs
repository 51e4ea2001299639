//! The network family: IP reservations and their assignments to devices,
//! virtual networks (VLANs), devices' ports with the VLANs on them, and
//! devices' BGP sessions, Metal Gateways (with BGP dynamic neighbours and
//! elastic IPs on VRF gateways), VRFs with their blocks and routes, projects' global BGP
//! ranges, interconnections and the virtual circuits on their ports, and
//! batches of a port's VLAN assignments.
//! Its resources, in the order a world document loads them, are
//! [`RESOURCES`].

pub(crate) mod bgp_dynamic_neighbor;
pub(crate) mod bgp_session;
pub(crate) mod elastic_ip;
pub(crate) mod global_bgp_range;
pub(crate) mod interconnection;
pub(crate) mod ip_reservation;
pub(crate) mod metal_gateway;
pub(crate) mod port;
pub(crate) mod port_vlan_batch;
pub(crate) mod virtual_circuit;
pub(crate) mod vlan;
pub(crate) mod vrf;
pub(crate) mod vrf_route;

use super::Resource;

/// The network family's resources, in load order (a VRF's blocks name
/// it, a port names the VLANs on it; a virtual circuit its connection and
/// VLAN).
pub(crate) static RESOURCES: &[&Resource] = &[
    &vrf::RESOURCE,
    &ip_reservation::RESOURCE,
    &vlan::RESOURCE,
    &port::RESOURCE,
    &bgp_session::RESOURCE,
    &metal_gateway::RESOURCE,
    &elastic_ip::RESOURCE,
    &bgp_dynamic_neighbor::RESOURCE,
    &vrf_route::RESOURCE,
    &global_bgp_range::RESOURCE,
    &interconnection::RESOURCE,
    &virtual_circuit::RESOURCE,
    &port_vlan_batch::RESOURCE,
];
