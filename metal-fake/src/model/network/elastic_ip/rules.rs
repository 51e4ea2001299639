//! The rules of an elastic IP: only a VRF gateway takes one; its address
//! lies in one of the gateway's project's public IPv4 blocks and no other
//! elastic IP has it; its next hop lies in the gateway's own block.

use std::net::Ipv4Addr;

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{ElasticIp, Kept};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse};
use crate::model::ip_reservation::{Block, IpReservationType};
use crate::model::World;

/// The most elastic IPs one gateway holds.
pub(crate) const MAX_PER_GATEWAY: usize = 64;

/// `a.b.c.d` or `a.b.c.d/n` as its first address and prefix length.
fn parse_address(text: &str) -> Result<(Ipv4Addr, u8), String> {
    let bad = || format!("address {text:?} is not an IPv4 address or network");
    let (address, cidr) = match text.split_once('/') {
        Some((a, c)) => (a, c.parse::<u8>().map_err(|_| bad())?),
        None => (text, 32),
    };
    let address: Ipv4Addr = address.parse().map_err(|_| bad())?;
    if cidr > 32 || Block::new(address, cidr).network() != address {
        return Err(bad());
    }
    Ok((address, cidr))
}

impl World {
    /// Why `e` cannot be (the gateway not a VRF one, the address in none
    /// of the project's public blocks or taken, the next hop outside the
    /// gateway's block, the gateway full).
    pub(super) fn check_elastic_ip(&self, e: &ElasticIp) -> Result<(), String> {
        let g = self
            .gateways
            .get(&e.metal_gateway)
            .ok_or("there is no such metal gateway")?;
        let own = self
            .ips
            .reservations()
            .get(&g.rec.ip_reservation)
            .filter(|r| r.rec.vrf.is_some())
            .ok_or("Elastic IPs can only be added to a VRF Metal Gateway")?;
        if !own
            .block()
            .is_some_and(|b| b.holds(Block::new(e.next_hop, 32)))
        {
            return Err(format!(
                "next_hop {} is not in the Metal Gateway's IP reservation",
                e.next_hop
            ));
        }
        let block = Block::new(e.address, e.cidr);
        let public = self.ips.reservations().get(&e.ip_reservation).filter(|r| {
            r.rec.project == g.rec.project
                && matches!(
                    r.rec.kind,
                    IpReservationType::PublicIpv4 | IpReservationType::GlobalIpv4
                )
                && r.block().is_some_and(|b| b.holds(block))
        });
        if public.is_none() {
            return Err(format!(
                "address {}/{} is not in a public IPv4 reservation of the project",
                e.address, e.cidr
            ));
        }
        let taken = self.elastic_ips.values().any(|o| {
            o.rec.id != e.id
                && o.project == g.rec.project
                && Block::new(o.rec.address, o.rec.cidr).overlaps(block)
        });
        if taken {
            return Err(format!(
                "address {}/{} is already an elastic IP of the project",
                e.address, e.cidr
            ));
        }
        let held = self
            .elastic_ips
            .values()
            .filter(|o| o.rec.metal_gateway == e.metal_gateway && o.rec.id != e.id)
            .count();
        if held >= MAX_PER_GATEWAY {
            return Err(format!(
                "The Metal Gateway has too many elastic IPs (maximum is {MAX_PER_GATEWAY})"
            ));
        }
        Ok(())
    }

    /// `createMetalGatewayElasticIp`: `address` of the project's public
    /// blocks routed by gateway `gateway` to `next_hop`; `404` without
    /// the gateway, `422` for what [`World::check_elastic_ip`] refuses.
    pub(crate) fn create_elastic_ip(
        &mut self,
        gateway: Uuid,
        body: &types::MetalGatewayElasticIpCreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        refuse([bad_tags(&body.tags)])?;
        let project = self
            .gateways
            .get(&gateway)
            .map(|g| g.rec.project)
            .ok_or_else(ApiError::not_found)?;
        let (address, cidr) = parse_address(&body.address).map_err(ApiError::unprocessable)?;
        let block = Block::new(address, cidr);
        let ip_reservation = self
            .ips
            .reservations()
            .values()
            .filter(|r| r.rec.project == project && r.block().is_some_and(|b| b.holds(block)))
            .map(|r| r.rec.id)
            .next()
            .unwrap_or_else(Uuid::nil);
        let rec = ElasticIp {
            id: Uuid::new_v4(),
            metal_gateway: gateway,
            ip_reservation,
            address,
            cidr,
            next_hop: body.next_hop,
            tags: body.tags.clone(),
        };
        self.check_elastic_ip(&rec)
            .map_err(ApiError::unprocessable)?;
        let id = rec.id;
        self.elastic_ips
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept {
                rec,
                project,
                meta,
            });
        Ok(id)
    }

    /// Gateway `gateway`'s elastic IPs, oldest first.
    pub(crate) fn elastic_ips_of(&self, gateway: Uuid) -> Vec<&Kept> {
        let mut all: Vec<&Kept> = self
            .elastic_ips
            .values()
            .filter(|e| e.rec.metal_gateway == gateway)
            .collect();
        all.sort_by_key(|e| e.meta.seq);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_one_address_or_a_network() {
        assert_eq!(
            parse_address("147.75.1.8"),
            Ok((Ipv4Addr::new(147, 75, 1, 8), 32))
        );
        assert_eq!(
            parse_address("147.75.1.8/30"),
            Ok((Ipv4Addr::new(147, 75, 1, 8), 30))
        );
        for bad in ["147.75.1.9/30", "147.75.1.8/33", "x", "2604::1/128", ""] {
            assert!(parse_address(bad).is_err(), "{bad:?}");
        }
    }
}
