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
        for (kind, id, removed) in self.journal.take_relinks() {
            self.relink_as(kind, id, removed);
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
        self.relink_as(kind, id, false);
    }

    /// As [`World::relink`]; a record the journal saw `removed` has no
    /// parents, and its table is not read for what it no longer holds
    /// (unless a later write, a record made again under its ID, says
    /// otherwise: that comes after it in the journal and is relinked
    /// after it).
    fn relink_as(&mut self, kind: Kind, id: Uuid, removed: bool) {
        self.reindex_access(kind, id);
        for (i, r) in RELATIONS.iter().enumerate() {
            if let (true, Linked::ByChild(parents)) = (r.child == kind, r.links) {
                let now = if removed {
                    Vec::new()
                } else {
                    parents(self, id)
                };
                self.links.relink(i, id, now);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tokio::time::Instant;
    use uuid::Uuid;

    use crate::document::WorldDoc;
    use crate::model::relations::Kind;
    use crate::model::{Timings, World};

    fn id(kind: u128, n: u128) -> Uuid {
        Uuid::from_u128(kind << 112 | 0x4000_8000_0000_0000_0000 | n)
    }

    /// The index the writes kept is the one made anew from the tables.
    fn kept_is_made_anew(w: &mut World, after: &str) {
        w.sync_links();
        let kept = std::mem::take(&mut w.links);
        w.index_links();
        assert_eq!(kept, w.links, "after {after}");
    }

    #[tokio::test(start_paused = true)]
    async fn the_index_each_write_keeps_is_the_index_made_anew() {
        let (p1, p2) = (id(0xb, 1), id(0xb, 2));
        let (d1, d2) = (id(0xd, 1), id(0xd, 2));
        let vlan = id(0xf, 1);
        let doc: WorldDoc = serde_json::from_value(json!({
            "projects": [{"id": p1}, {"id": p2}],
            "plans": [{"slug": "c3.small.x86"}],
            "metros": [{"code": "da"}],
            "facilities": [{"code": "da11", "metro": "da"}],
            "reservations": ([1, 2].map(|n| json!({"id": id(0xa, n), "project": p1,
                "plan": "c3.small.x86", "facility": "da11"}))),
            "devices": ([(d1, 1), (d2, 2)].map(|(d, n)| json!({"id": d, "project": p1,
                "reservation": id(0xa, n), "plan": "c3.small.x86", "facility": "da11",
                "hostname": format!("web-{n}")}))),
            "virtual_networks": [{"id": vlan, "project": p1, "metro": "da", "vxlan": 1000}],
            "ports": [{"device": d1, "name": "eth1", "bonded": false,
                "virtual_networks": [vlan]}],
            "ssh_keys": [{"id": id(0xe, 1), "project": p2, "label": "k",
                "key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl k"}],
            "ip_reservations": [{"id": id(0x9, 1), "project": p1, "type": "public_ipv4",
                "network": "45.0.0.0", "cidr": 28, "metro": "da",
                "assignments": ([(d1, 1), (d2, 2)].map(|(d, n)| json!({"id": id(0xc, n),
                    "device": d, "address": format!("45.0.0.{n}")})))}],
        }))
        .unwrap();
        let t0 = Instant::now();
        let clock = crate::clock::Clock::new(1.0);
        let mut w = World::from_doc(&doc, Timings::default(), clock.wall(), t0).unwrap();
        kept_is_made_anew(&mut w, "the load");

        // Written, its links unchanged.
        let body: metal_api::types::DeviceUpdateInput =
            serde_json::from_value(json!({"hostname": "web-two"})).unwrap();
        w.update_device(d2, &body, t0).unwrap();
        kept_is_made_anew(&mut w, "an update");

        // Removed with its ports (one on the VLAN) and its assignment,
        // its reservation released.
        w.remove_record(Kind::Device, d1, t0);
        assert!(!w.holds(Kind::IpAssignment, id(0xc, 1)));
        kept_is_made_anew(&mut w, "a device's removal");

        // Removed with its key; and a VLAN no port is on any more.
        w.remove_record(Kind::Project, p2, t0);
        w.remove_record(Kind::VirtualNetwork, vlan, t0);
        kept_is_made_anew(&mut w, "a project's and a VLAN's removal");

        // The other device's links, after its delete's whole course.
        w.delete_device(d2, t0).unwrap();
        w.drain(t0 + std::time::Duration::from_secs(3600));
        assert!(!w.holds(Kind::Device, d2));
        kept_is_made_anew(&mut w, "a device's delete");
    }
}
