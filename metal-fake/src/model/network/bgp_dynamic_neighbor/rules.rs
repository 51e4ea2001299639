//! The API's rules for BGP dynamic neighbours: on a VRF gateway only, a
//! range of the gateway's block (given as metal-cli's example gives it,
//! `10.70.43.226/29`: an address and a prefix length, the range being the
//! block of that length around the address; or a bare address, as
//! metal-cli's e2e test gives the block's `10.10.1.0`, one address, echoed
//! as given), a 4-byte ASN; `pending` after its create, `ready`
//! [`SETTLE`] later (a [`Due::BgpDynamicNeighbor`]).

use std::net::Ipv4Addr;
use std::time::Duration;

use serde::Deserialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{BgpDynamicNeighbor, Kept, NeighborState};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, room_for};
use crate::model::ip_reservation::{Block, IpReservationType};
use crate::model::journal::Due;
use crate::model::relations::Kind;
use crate::model::World;

/// How long a new neighbour reads `pending` before it is `ready`: the
/// fake's choice (metal-cli's `TestBgpDynamicNeighbors_Create` and `_Get`
/// accept either right after the create; no client waits for one).
pub(crate) const SETTLE: Duration = Duration::from_secs(10);

/// A create request (the spec's `BgpDynamicNeighborCreateInput`).
#[derive(Debug, Deserialize)]
pub(crate) struct CreateInput {
    bgp_neighbor_range: String,
    bgp_neighbor_asn: i64,
    #[serde(default)]
    tags: Vec<String>,
}

/// `a.b.c.d/n` as the block of `n` bits around the address, `a.b.c.d`
/// as that one address; else `422`.
fn parse_range(text: &str) -> Result<Block, ApiError> {
    let bad =
        || ApiError::unprocessable(format!("bgp_neighbor_range {text:?} is not an IPv4 CIDR"));
    let (address, cidr) = text.trim().split_once('/').unwrap_or((text.trim(), "32"));
    let address: Ipv4Addr = address.parse().map_err(|_| bad())?;
    let cidr: u8 = cidr.parse().ok().filter(|c| *c <= 32).ok_or_else(bad)?;
    Ok(Block::new(Block::new(address, cidr).network(), cidr))
}

impl World {
    /// Whether a neighbour of `gateway` may take `range`: the gateway a
    /// VRF gateway, the range inside its block.
    pub(crate) fn check_neighbor(
        &self,
        gateway: Uuid,
        range: &str,
        tags: &[String],
    ) -> Result<(), ApiError> {
        refuse([bad_tags(tags)])?;
        let g = self
            .gateways
            .get(&gateway)
            .ok_or_else(ApiError::not_found)?;
        let block = self
            .ips
            .reservations()
            .get(&g.rec.ip_reservation)
            .filter(|r| r.rec.kind == IpReservationType::Vrf)
            .ok_or_else(|| {
                ApiError::unprocessable("BGP dynamic neighbors are for VRF Metal Gateways only")
            })?
            .block()
            .ok_or_else(|| {
                ApiError::unprocessable(
                    "BGP dynamic neighbors take an IPv4 range: this gateway's VRF block is IPv6",
                )
            })?;
        if !block.holds(parse_range(range)?) {
            return Err(ApiError::unprocessable(format!(
                "bgp_neighbor_range {range} is not within the gateway's {}/{}",
                block.network(),
                block.cidr()
            )));
        }
        Ok(())
    }

    /// `createBgpDynamicNeighbor`: a neighbour of `gateway`'s, `pending`
    /// (metal-cli's create test accepts only `pending` or `ready` in the
    /// create's reply).
    pub(crate) fn create_neighbor(
        &mut self,
        gateway: Uuid,
        body: CreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        let project = self
            .gateways
            .get(&gateway)
            .map(|g| g.rec.project)
            .ok_or_else(ApiError::not_found)?;
        room_for("BGP dynamic neighbors", self.bgp_dynamic_neighbors.len())?;
        let asn = u32::try_from(body.bgp_neighbor_asn).map_err(|_| {
            ApiError::unprocessable("bgp_neighbor_asn must be a 4-byte ASN (0 to 4294967295)")
        })?;
        self.check_neighbor(gateway, &body.bgp_neighbor_range, &body.tags)?;
        let id = Uuid::new_v4();
        let rec = BgpDynamicNeighbor {
            id,
            metal_gateway: gateway,
            bgp_neighbor_range: body.bgp_neighbor_range.trim().to_string(),
            bgp_neighbor_asn: asn,
            tags: body.tags,
            state: NeighborState::Pending,
        };
        self.insert_neighbor(rec, project, now);
        Ok(id)
    }

    /// Inserts `rec` (of a gateway of `project`) at `now`; one `pending`
    /// is due to settle [`SETTLE`] later.
    pub(crate) fn insert_neighbor(&mut self, rec: BgpDynamicNeighbor, project: Uuid, now: Instant) {
        let (id, pending) = (rec.id, rec.state == NeighborState::Pending);
        self.bgp_dynamic_neighbors
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept {
                rec,
                project,
                meta,
            });
        if pending {
            self.due.push(now + SETTLE, Due::BgpDynamicNeighbor { id });
        }
    }

    /// A neighbour's configuration done (a [`Due::BgpDynamicNeighbor`]):
    /// stale unless it is still pending.
    pub(crate) fn settle_neighbor(&mut self, id: Uuid, at: Instant) {
        if self
            .bgp_dynamic_neighbors
            .get(&id)
            .is_some_and(|n| n.rec.state == NeighborState::Pending)
        {
            self.bgp_dynamic_neighbors
                .rows()
                .update(&mut self.journal, id, "ready", at, |k| {
                    k.rec.state = NeighborState::Ready
                });
        }
    }

    /// `deleteBgpDynamicNeighborById`: the neighbour goes.
    pub(crate) fn delete_neighbor(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        self.delete_record(Kind::BgpDynamicNeighbor, id, now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_the_block_around_its_address() {
        let r = parse_range("10.70.43.226/29").unwrap();
        assert_eq!(
            (r.network(), r.cidr()),
            (Ipv4Addr::new(10, 70, 43, 224), 29)
        );
        let one = parse_range("10.10.1.0").unwrap();
        assert_eq!(
            (one.network(), one.cidr()),
            (Ipv4Addr::new(10, 10, 1, 0), 32)
        );
        for bad in ["10.70.43.226/33", "x/29", "10.70.43", ""] {
            assert_eq!(parse_range(bad).unwrap_err().status, 422, "{bad:?}");
        }
    }
}
