//! The world's links, kept in the relations' index ([`LinkIndex`]):
//! made anew after a load, told of every record the journal saw written,
//! and read by a delete to find a parent's children.

use uuid::Uuid;

use super::{token_key, Kind, LinkIndex, Linked, RELATIONS};
use crate::model::World;

impl World {
    /// Every ID of `kind` the world holds, in order (a token's key,
    /// [`token_key`]).
    pub(crate) fn ids(&self, kind: Kind) -> Vec<Uuid> {
        fn keys<'a>(k: impl Iterator<Item = &'a Uuid>) -> Vec<Uuid> {
            k.copied().collect()
        }
        match kind {
            Kind::Organization => keys(self.organizations.keys()),
            Kind::Project => keys(self.projects.keys()),
            Kind::Device => keys(self.devices.keys()),
            Kind::HardwareReservation => keys(self.reservations.keys()),
            Kind::SshKey => keys(self.ssh_keys.keys()),
            Kind::IpReservation => keys(self.ips.reservations().keys()),
            Kind::IpAssignment => keys(self.ips.assignments().keys()),
            Kind::VirtualNetwork => keys(self.vlans.keys()),
            Kind::Port => keys(self.ports.keys()),
            Kind::BgpSession => keys(self.bgp_sessions.keys()),
            Kind::MetalGateway => keys(self.gateways.keys()),
            Kind::Vrf => keys(self.vrfs.keys()),
            Kind::VrfRoute => keys(self.vrf_routes.keys()),
            Kind::BgpDynamicNeighbor => keys(self.bgp_dynamic_neighbors.keys()),
            Kind::GlobalBgpRange => keys(self.global_bgp_ranges.keys()),
            Kind::ElasticIp => keys(self.elastic_ips.keys()),
            Kind::Interconnection => keys(self.interconnections.keys()),
            Kind::VirtualCircuit => keys(self.virtual_circuits.keys()),
            Kind::PortVlanBatch => keys(self.port_vlan_batches.keys()),
            Kind::Token => (0..self.tokens.len()).map(token_key).collect(),
            Kind::User => keys(self.users.keys()),
            Kind::Membership => keys(self.memberships.keys()),
            Kind::ApiKey => keys(self.api_keys.keys()),
            Kind::Invitation => keys(self.invitations.keys()),
            Kind::Transfer => keys(self.transfers.keys()),
            Kind::Email => keys(self.emails.keys()),
            Kind::PaymentMethod => keys(self.payment_methods.keys()),
            Kind::License => keys(self.licenses.keys()),
            Kind::SpotMarketRequest => keys(self.spot_requests.keys()),
            Kind::Batch => keys(self.batches.keys()),
            Kind::SelfServiceReservation => keys(self.self_service_reservations.keys()),
        }
    }

    /// The index of every link in the world, made anew (after a load,
    /// which the journal does not record).
    pub(crate) fn index_links(&mut self) {
        let mut index = LinkIndex::default();
        for (i, r) in RELATIONS.iter().enumerate() {
            if let Linked::ByChild(parents) = r.links {
                for c in self.ids(r.child) {
                    index.relink(i, c, parents(self, c));
                }
            }
        }
        self.links = index;
        self.index_access();
        self.journal.take_relinks();
    }

    /// The index told of every record the journal saw written since it
    /// last was.
    pub(crate) fn sync_links(&mut self) {
        for (kind, id) in self.journal.take_relinks() {
            self.relink(kind, id);
        }
    }

    /// The children of `parent` (of kind `parent_kind`) of kind `child`
    /// under every relation between the two kinds, in ID order within
    /// each: found through the index.
    pub(crate) fn children_of(&self, child: Kind, parent_kind: Kind, parent: Uuid) -> Vec<Uuid> {
        RELATIONS
            .iter()
            .enumerate()
            .filter(|(_, r)| r.child == child && r.parent == parent_kind)
            .flat_map(|(i, r)| r.children(self, i, parent))
            .collect()
    }

    /// The indexes told of `id` of `kind` now (its links, and what the
    /// access checks find it by).
    pub(crate) fn relink(&mut self, kind: Kind, id: Uuid) {
        self.reindex_access(kind, id);
        for (i, r) in RELATIONS.iter().enumerate() {
            if let (true, Linked::ByChild(parents)) = (r.child == kind, r.links) {
                let now = parents(self, id);
                self.links.relink(i, id, now);
            }
        }
    }
}
