//! The in-memory Metal world, one folder a resource, with device
//! lifecycles on the fake's clock ([`tokio::time::Instant`], so
//! paused-clock tests are deterministic).
//!
//! Each resource's folder owns its record (also its entry in the world
//! document), its rules, its view (how it renders, with
//! `include`/`exclude`, straight to bytes), its table of operations and
//! its owner (for access); its `operations.rs` gives one [`Resource`]
//! value, and its family lists it ([`resources`] gives them all). The operations the fake models
//! are the union of their tables.
//!
//! The resources come in families, each a folder whose `mod.rs` lists its
//! resources:
//! - `compute`: `device`, `hardware_reservation`, `capacity` (the
//!   machines on-demand devices take).
//! - `network`: `ip_reservation` (IP reservations and their assignments
//!   to devices), `vlan` (virtual networks), `port` (devices' ports),
//!   `bgp_session` (devices' BGP sessions and neighbour data),
//!   `metal_gateway` (a VLAN's router with its block), `elastic_ip`
//!   (addresses a VRF gateway routes), `vrf` (VRFs,
//!   whose blocks are IP reservations of `type: vrf`), `vrf_route` (a
//!   VRF's static routes), `bgp_dynamic_neighbor` (a VRF gateway's BGP
//!   dynamic neighbours), `global_bgp_range` (a project's global BGP
//!   ranges, seeded), `interconnection` (Fabric connections and their
//!   ports), `virtual_circuit` (a VLAN on a connection's port),
//!   `port_vlan_batch` (batches of a port's VLAN assignments).
//! - `account`: `organization`, `project`, `ssh_key`, `user` (users, the
//!   current one among them), `membership`, `api_key`, `invitation`,
//!   `transfer`, `email`, `billing` (payment methods, invoices), `support`
//!   (support requests, incidents).
//! - `catalog`: plans, operating systems, metros and facilities, listed.
//!
//! What every family shares stays here:
//! - `journal`: the one write path ([`journal::Table`]: every insert,
//!   update and remove bumps the record's [`journal::Meta`] and appends
//!   to the bounded journal) and the due-queue of timed transitions.
//! - `event`: the event lists, rendered from the journal.
//! - `access`: the world's tokens, and who may see what (`403`).
//! - `world`: the tables, and the world built, loaded and saved.
//! - `resource`: what a folder gives ([`Resource`]), and how an
//!   operation reads a call and acts.
//! - `list`, `render`, `load`: what every list, view and loader shares.
//! - `inspect`: what tests and `/_fake/state` look at ([`WorldCounts`]).
//! - `saved`: what a change of the world is in its document, for the
//!   durable log (`crate::state`).
//! - `timings`: [`Timings`], how long each lifecycle phase lasts.

mod access;
mod account;
mod bounds;
mod catalog;
mod compute;
mod event;
pub(crate) mod expand;
mod inspect;
mod journal;
mod json;
mod list;
mod load;
mod network;
pub(crate) mod relations;
pub(crate) mod render;
mod resource;
pub(crate) mod saved;
mod timings;
mod world;

pub(crate) use account::{
    api_key, billing, email, invitation, membership, organization, project, ssh_key, support,
    transfer, user,
};
pub(crate) use compute::{capacity, device, hardware_reservation, license};
pub(crate) use network::{
    bgp_dynamic_neighbor, bgp_session, elastic_ip, global_bgp_range, interconnection,
    ip_reservation, metal_gateway, port, port_vlan_batch, virtual_circuit, vlan, vrf, vrf_route,
};

pub(crate) use access::Access;
pub use access::Token;
pub(crate) use access::ACCESS_DENIED;
pub use api_key::ApiKey;
pub use bgp_dynamic_neighbor::{BgpDynamicNeighbor, NeighborState};
pub use bgp_session::{AddressFamily, BgpSession};
pub use billing::{BillingAddress, PaymentMethod};
pub use capacity::{Capacity, CapacityLevel};
pub use catalog::{
    CatalogChoice, Counted, Drive, Facility, Metro, OperatingSystem, Plan, PlanMetro, PlanSpecs,
    Price,
};
pub use compute::batch::{Batch, DeviceBatchState};
pub use compute::self_service_reservation::{Period, ReservationItem, SelfServiceReservation};
pub use compute::spot_market::price::SpotPrice;
pub use compute::spot_market::request::SpotMarketRequest;
pub(crate) use device::FailurePlan;
pub use device::{Device, DeviceState, OwnAddress, OwnCidrs};
pub use device::{FailProvisioning, RandomFailures};
pub use elastic_ip::ElasticIp;
pub use email::Email;
pub use event::Event;
pub use global_bgp_range::GlobalBgpRange;
pub use hardware_reservation::HardwareReservation;
pub use inspect::WorldCounts;
pub use interconnection::{
    FabricProvider, Interconnection, InterconnectionMode, InterconnectionStatus,
    InterconnectionType, Redundancy, TokenSide,
};
pub use invitation::Invitation;
pub use ip_reservation::{IpAssignment, IpReservation, IpReservationState, IpReservationType};
pub use license::License;
pub use membership::Membership;
pub use metal_gateway::MetalGateway;
pub use organization::{Address, Coordinates, Organization};
pub use port::Port;
pub use port_vlan_batch::{BatchAssignment, BatchAssignmentState, BatchState, PortVlanBatch};
pub use project::{BgpConfig, Project, ProjectType};
pub(crate) use resource::{Modelled, Prepared, Resource, Target};
pub use ssh_key::SshKey;
pub use timings::Timings;
pub use transfer::Transfer;
pub use user::User;
pub use virtual_circuit::{Peering, VirtualCircuit, VirtualCircuitStatus};
pub use vlan::VirtualNetwork;
pub use vrf::Vrf;
pub use vrf_route::{RouteStatus, VrfRoute};
pub(crate) use world::{World, WorldSpec};

/// The families, in the order a world document loads them (a record names
/// only records loaded before it): each family's `mod.rs` lists its
/// resources in its own load order. Adding a resource is a folder and one
/// line in its family.
static FAMILIES: &[&[&Resource]] = &[
    account::RESOURCES,
    compute::RESOURCES,
    network::RESOURCES,
    catalog::RESOURCES,
    SHARED,
];

/// What the families share that serves operations of its own: events,
/// rendered from the journal of every family's changes.
static SHARED: &[&Resource] = &[&event::RESOURCE];

/// Every resource the fake models, in the order a world document loads
/// them.
pub(crate) fn resources() -> impl Iterator<Item = &'static Resource> {
    FAMILIES.iter().flat_map(|family| family.iter().copied())
}

/// Every operation a resource models.
pub(crate) fn modelled() -> impl Iterator<Item = &'static Modelled> {
    resources().flat_map(|r| r.operations.iter())
}

/// The resource whose things the `{id}` of `path` (an operation's path in
/// the spec, `/devices/{id}/actions`) names: the one of its first segment.
pub(crate) fn resource_of(path: &str) -> Option<&'static Resource> {
    let collection = path.trim_start_matches('/').split('/').next()?;
    resources().find(|r| r.collection == collection)
}

#[cfg(test)]
mod tests {
    use super::{modelled, Target};

    /// Deny by default: every modelled operation whose path has a
    /// parameter names, as its target, that very parameter.
    #[test]
    fn every_modelled_operation_with_a_path_parameter_declares_its_target() {
        let mut undeclared = Vec::new();
        for m in modelled() {
            let params: Vec<&str> = m
                .operation
                .path
                .split('/')
                .filter_map(|s| s.strip_prefix('{')?.strip_suffix('}'))
                .collect();
            match (params.first(), m.target) {
                (None, Target::Caller) => {}
                (Some(p), Target::Param { param, .. }) if params.contains(&param) => {
                    assert_eq!(*p, param, "{}", m.operation.id);
                }
                _ => undeclared.push(m.operation.id),
            }
        }
        assert!(undeclared.is_empty(), "no declared target: {undeclared:?}");
    }
}
