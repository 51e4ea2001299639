//! An elastic IP as the API sends it: an `IPAssignment` assigned to its
//! gateway, with its next hop and the block it comes from (shown as an
//! IP reservation's assignments are).

use std::net::Ipv4Addr;

use serde::Serialize;

use super::record::Kept;
use crate::model::ip_reservation::{Addressing, Block, IpReservationType, ParentBlock, COLLECTION};
use crate::model::metal_gateway;
use crate::model::render::{Href, Stamp, Stub};
use crate::model::World;

/// One elastic IP.
#[derive(Serialize)]
pub(crate) struct ElasticIpView {
    id: uuid::Uuid,
    href: Href,
    #[serde(rename = "type")]
    type_: &'static str,
    #[serde(flatten)]
    addresses: Addressing,
    state: &'static str,
    next_hop: Ipv4Addr,
    assigned_to: Stub,
    parent_block: Option<ParentBlock>,
    /// `null`: an elastic IP's metro is its gateway's, which the fake does
    /// not repeat here.
    metro: (),
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
        // Its block's gateway and kind; its own, public, while the block
        // it came from is gone.
        let (from, kind) = parent
            .and_then(|p| Some((p.block()?, p.rec.kind)))
            .unwrap_or((block, IpReservationType::PublicIpv4));
        ElasticIpView {
            id: rec.id,
            href: Href::new(COLLECTION, rec.id),
            type_: "IPAssignment",
            addresses: Addressing::of(block, from, kind).at(rec.address),
            state: "active",
            next_hop: rec.next_hop,
            assigned_to: Stub::new(metal_gateway::COLLECTION, rec.metal_gateway),
            parent_block: parent.and_then(|p| Some(ParentBlock::of(p.block()?, p.rec.id))),
            metro: (),
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
