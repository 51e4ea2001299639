//! An event as the API sends it, rendered from one journal entry, and who
//! may see it.

use serde::Serialize;
use uuid::Uuid;

use super::kinds::describe;
use crate::model::access::Owner;
use crate::model::journal::Entry;
use crate::model::relations::Kind;
use crate::model::render::{Href, Stamp, Stub};
use crate::model::resource::Scope;
use crate::model::World;
use crate::model::{
    bgp_session, device, hardware_reservation, ip_reservation, metal_gateway, organization, port,
    project, ssh_key, vlan,
};

/// The collection of events' paths and hrefs.
pub(crate) const COLLECTION: &str = "events";

/// One event.
#[derive(Serialize)]
pub(crate) struct EventView {
    id: Uuid,
    href: Href,
    #[serde(rename = "type")]
    kind: &'static str,
    body: &'static str,
    interpolated: &'static str,
    state: &'static str,
    created_at: Stamp,
    /// The thing that changed, and the project and device it concerned.
    relationships: Vec<Stub>,
}

/// The collection of a kind's hrefs (`None`: it has none).
fn collection(kind: Kind) -> Option<&'static str> {
    Some(match kind {
        Kind::Organization => organization::COLLECTION,
        Kind::Project => project::COLLECTION,
        Kind::Device => device::COLLECTION,
        Kind::HardwareReservation => hardware_reservation::COLLECTION,
        Kind::SshKey => ssh_key::COLLECTION,
        Kind::License => crate::model::license::COLLECTION,
        Kind::Batch => crate::model::compute::batch::COLLECTION,
        Kind::SpotMarketRequest => crate::model::compute::spot_market::request::COLLECTION,
        // An assignment is read at `/ips/{id}` too.
        Kind::IpReservation | Kind::IpAssignment => ip_reservation::COLLECTION,
        Kind::VirtualNetwork => vlan::COLLECTION,
        Kind::Port => port::COLLECTION,
        Kind::BgpSession => bgp_session::COLLECTION,
        Kind::MetalGateway => metal_gateway::COLLECTION,
        Kind::Vrf => crate::model::vrf::COLLECTION,
        Kind::VrfRoute => crate::model::vrf_route::COLLECTION,
        Kind::BgpDynamicNeighbor => crate::model::bgp_dynamic_neighbor::COLLECTION,
        // Seeded only: its changes are no events.
        Kind::GlobalBgpRange | Kind::ElasticIp => return None,
        // Journaled, but no change of theirs is an event (kinds.rs):
        // the real API's event lists showed none that clients read.
        Kind::Interconnection => crate::model::interconnection::COLLECTION,
        Kind::VirtualCircuit => "virtual-circuits",
        Kind::PortVlanBatch
        | Kind::Token
        | Kind::User
        | Kind::Membership
        | Kind::ApiKey
        | Kind::Invitation
        | Kind::Transfer
        | Kind::Email
        | Kind::PaymentMethod
        // Read under their project's path only.
        | Kind::SelfServiceReservation => return None,
    })
}

/// Who owns the change `e`, for access: its project's, else its
/// organisation's, else everyone's (the user's own SSH keys).
pub(crate) fn owner_of(e: &Entry) -> Owner {
    match (e.scope.project, e.scope.organization) {
        (Some(p), _) if e.kind != Kind::Organization => Owner::Project(p),
        (_, Some(o)) => Owner::Organization(o),
        _ => Owner::Everyone,
    }
}

impl World {
    /// Whether `caller` sees the change `e`.
    pub(crate) fn sees_event(&self, e: &Entry, caller: &Scope) -> bool {
        self.check_access(caller, Some(owner_of(e))).is_ok()
    }

    /// `e` as an event (see [`is_event`]).
    pub(crate) fn event_view(&self, e: &Entry) -> EventView {
        let (kind, body) = describe(e).unwrap_or(("change", "Changed"));
        let mut relationships = Vec::with_capacity(3);
        if let Some(c) = collection(e.kind) {
            relationships.push(Stub::new(c, e.record));
        }
        if let Some(d) = e.scope.device.filter(|d| *d != e.record) {
            relationships.push(Stub::new(device::COLLECTION, d));
        }
        if let Some(p) = e.scope.project.filter(|p| *p != e.record) {
            if p != device::FAILED_PROVISIONING_PROJECT {
                relationships.push(Stub::new(project::COLLECTION, p));
            }
        }
        EventView {
            id: e.id,
            href: Href::new(COLLECTION, e.id),
            kind,
            body,
            interpolated: body,
            state: "success",
            created_at: Stamp(self.clock.wall(e.at)),
            relationships,
        }
    }
}

/// Whether the change `e` is an event.
pub(crate) fn is_event(e: &Entry) -> bool {
    describe(e).is_some()
}
