//! An elastic IP as the API sends it: an `IPAssignment` assigned to its
//! gateway, with its next hop and the block it comes from.

use std::net::Ipv4Addr;

use serde::Serialize;

use super::record::Kept;
use crate::model::ip_reservation::{Block, COLLECTION};
use crate::model::metal_gateway;
use crate::model::render::{Href, Stamp, Stub};
use crate::model::World;

/// The block an elastic IP's addresses come from.
#[derive(Serialize)]
struct ParentBlock {
    network: Ipv4Addr,
    netmask: Ipv4Addr,
    cidr: u8,
    href: Href,
}

/// One elastic IP.
#[derive(Serialize)]
pub(crate) struct ElasticIpView {
    id: uuid::Uuid,
    href: Href,
    #[serde(rename = "type")]
    type_: &'static str,
    address_family: u8,
    address: Ipv4Addr,
    network: Ipv4Addr,
    gateway: Ipv4Addr,
    netmask: Ipv4Addr,
    cidr: u8,
    public: bool,
    management: bool,
    manageable: bool,
    enabled: bool,
    global_ip: bool,
    state: &'static str,
    next_hop: Ipv4Addr,
    assigned_to: Stub,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_block: Option<ParentBlock>,
    created_at: Stamp,
}

/// A gateway's elastic IPs.
#[derive(Serialize)]
pub(crate) struct ElasticIpList {
    ip_addresses: Vec<ElasticIpView>,
}

impl World {
    /// `e` as the API shows it.
    pub(crate) fn elastic_ip_view(&self, e: &Kept) -> ElasticIpView {
        let rec = &e.rec;
        let block = Block::new(rec.address, rec.cidr);
        let parent = self.ips.reservations().get(&rec.ip_reservation);
        ElasticIpView {
            id: rec.id,
            href: Href::new(COLLECTION, rec.id),
            type_: "IPAssignment",
            address_family: 4,
            address: rec.address,
            network: block.network(),
            gateway: parent.map_or(block.gateway(), |p| p.block().gateway()),
            netmask: block.netmask(),
            cidr: rec.cidr,
            public: true,
            management: false,
            manageable: true,
            enabled: true,
            global_ip: parent.is_some_and(|p| {
                p.rec.kind == crate::model::ip_reservation::IpReservationType::GlobalIpv4
            }),
            state: "active",
            next_hop: rec.next_hop,
            assigned_to: Stub::new(metal_gateway::COLLECTION, rec.metal_gateway),
            parent_block: parent.map(|p| ParentBlock {
                network: p.block().network(),
                netmask: p.block().netmask(),
                cidr: p.block().cidr(),
                href: Href::new(COLLECTION, p.rec.id),
            }),
            created_at: Stamp(self.clock.wall(e.meta.created)),
        }
    }

    /// Gateway `gateway`'s elastic IPs as the API lists them.
    pub(crate) fn elastic_ip_list(&self, gateway: uuid::Uuid) -> ElasticIpList {
        ElasticIpList {
            ip_addresses: self
                .elastic_ips_of(gateway)
                .into_iter()
                .map(|e| self.elastic_ip_view(e))
                .collect(),
        }
    }
}
