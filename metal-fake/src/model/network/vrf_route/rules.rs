//! The API's rules for VRF routes: an IPv4 prefix in CIDR form (its host
//! bits clear; `0.0.0.0/0` the default route), unique in the VRF; a next
//! hop inside one of the VRF's IP reservations; `pending` after a create
//! or an update, `active` once the fake's clock passes
//! [`SETTLE`] (a [`Due::Route`] on the due-queue).

use std::net::Ipv4Addr;
use std::time::Duration;

use serde::Deserialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, RouteStatus, VrfRoute};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, room_for};
use crate::model::ip_reservation::Block;
use crate::model::journal::Due;
use crate::model::relations::Kind;
use crate::model::World;

/// How long a route stays `pending`.
pub(crate) const SETTLE: Duration = Duration::from_secs(10);

/// A create request (the spec's `VrfRouteCreateInput`).
#[derive(Debug, Deserialize)]
pub(crate) struct CreateInput {
    prefix: String,
    next_hop: String,
    #[serde(default)]
    tags: Vec<String>,
}

/// An update request (the spec's `VrfRouteUpdateInput`): what it names
/// changes.
#[derive(Debug, Deserialize)]
pub(crate) struct UpdateInput {
    #[serde(default)]
    prefix: Option<String>,
    #[serde(default)]
    next_hop: Option<String>,
    #[serde(default)]
    tags: Option<Vec<String>>,
}

/// `a.b.c.d/n` with its host bits clear, else `422`.
fn parse_prefix(text: &str) -> Result<Block, ApiError> {
    let bad = || {
        ApiError::unprocessable(format!(
            "prefix {text:?} is not an IPv4 network in CIDR form"
        ))
    };
    let (address, cidr) = text.trim().split_once('/').ok_or_else(bad)?;
    let address: Ipv4Addr = address.parse().map_err(|_| bad())?;
    let cidr: u8 = cidr.parse().ok().filter(|c| *c <= 32).ok_or_else(bad)?;
    let block = Block::new(address, cidr);
    if block.network() != address {
        return Err(bad());
    }
    Ok(block)
}

/// An IPv4 address, else `422`.
fn parse_hop(text: &str) -> Result<Ipv4Addr, ApiError> {
    text.trim()
        .parse()
        .map_err(|_| ApiError::unprocessable(format!("next_hop {text:?} is not an IPv4 address")))
}

impl World {
    /// Whether a route of `vrf` may route `prefix` to `next_hop`: see the
    /// module's rules. `except`: the route it replaces (an update).
    pub(crate) fn check_route(
        &self,
        vrf: Uuid,
        prefix: &str,
        next_hop: Ipv4Addr,
        tags: &[String],
        except: Option<Uuid>,
    ) -> Result<(), ApiError> {
        refuse([bad_tags(tags)])?;
        let wanted = parse_prefix(prefix)?;
        let hop = Block::new(next_hop, 32);
        if !self.vrf_blocks(vrf).any(|b| b.holds(hop)) {
            return Err(ApiError::unprocessable(format!(
                "next_hop {next_hop} is not within an IP reservation of the VRF"
            )));
        }
        let taken = self.vrf_routes.values().any(|r| {
            r.rec.vrf == vrf
                && Some(r.rec.id) != except
                && parse_prefix(&r.rec.prefix).is_ok_and(|b| b == wanted)
        });
        if taken {
            return Err(ApiError::unprocessable(format!(
                "The VRF already has a route for {prefix}"
            )));
        }
        Ok(())
    }

    /// Inserts `rec` at `now` (`pending`: due to settle).
    pub(crate) fn insert_route(&mut self, rec: VrfRoute, project: Uuid, now: Instant) {
        let id = rec.id;
        let pending = rec.status == RouteStatus::Pending;
        self.vrf_routes
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept {
                rec,
                project,
                meta,
            });
        if pending {
            self.due_route(id, now);
        }
    }

    /// Queues the settling of route `id` (as it is now).
    fn due_route(&mut self, id: Uuid, now: Instant) {
        if let Some(version) = self.vrf_routes.get(&id).map(|r| r.meta.version) {
            self.due.push(now + SETTLE, Due::Route { id, version });
        }
    }

    /// `createVrfRoute`: a route of `vrf`, `pending`.
    pub(crate) fn create_route(
        &mut self,
        vrf: Uuid,
        body: CreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        let project = self
            .vrfs
            .get(&vrf)
            .map(|v| v.rec.project)
            .ok_or_else(ApiError::not_found)?;
        room_for("VRF routes", self.vrf_routes.len())?;
        let next_hop = parse_hop(&body.next_hop)?;
        self.check_route(vrf, &body.prefix, next_hop, &body.tags, None)?;
        let id = Uuid::new_v4();
        let rec = VrfRoute {
            id,
            vrf,
            prefix: body.prefix.trim().to_string(),
            next_hop,
            tags: body.tags,
            status: RouteStatus::Pending,
        };
        self.insert_route(rec, project, now);
        Ok(id)
    }

    /// `updateVrfRouteById`: what `body` names changes, and the route is
    /// `pending` again.
    pub(crate) fn update_route(
        &mut self,
        id: Uuid,
        body: UpdateInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        let mut rec = self
            .vrf_routes
            .get(&id)
            .ok_or_else(ApiError::not_found)?
            .rec
            .clone();
        if let Some(p) = body.prefix {
            rec.prefix = p.trim().to_string();
        }
        if let Some(h) = body.next_hop {
            rec.next_hop = parse_hop(&h)?;
        }
        if let Some(t) = body.tags {
            rec.tags = t;
        }
        self.check_route(rec.vrf, &rec.prefix, rec.next_hop, &rec.tags, Some(id))?;
        rec.status = RouteStatus::Pending;
        self.vrf_routes
            .rows()
            .update(&mut self.journal, id, "fields", now, |k| k.rec = rec);
        self.due_route(id, now);
        Ok(())
    }

    /// A route's configuration done (a [`Due::Route`]): stale unless the
    /// route is still at `version`.
    pub(crate) fn settle_route(&mut self, id: Uuid, version: u64, at: Instant) {
        if self
            .vrf_routes
            .get(&id)
            .is_some_and(|r| r.meta.version == version && r.rec.status == RouteStatus::Pending)
        {
            self.vrf_routes
                .rows()
                .update(&mut self.journal, id, "active", at, |k| {
                    k.rec.status = RouteStatus::Active
                });
        }
    }

    /// `deleteVrfRouteById`: the route goes.
    pub(crate) fn delete_route(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        self.delete_record(Kind::VrfRoute, id, now)
    }

    /// The VRF IP reservation that holds route `r`'s next hop.
    pub(crate) fn route_block(&self, r: &Kept) -> Option<Uuid> {
        let hop = Block::new(r.rec.next_hop, 32);
        self.vrf_reservations(r.rec.vrf)
            .find(|b| b.block().is_some_and(|b| b.holds(hop)))
            .map(|b| b.rec.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_are_ipv4_networks() {
        assert_eq!(parse_prefix("0.0.0.0/0").unwrap().cidr(), 0);
        assert_eq!(parse_prefix("10.10.0.0/16").unwrap().cidr(), 16);
        for bad in [
            "10.10.0.1/16",
            "10.0.0.0",
            "10.0.0.0/33",
            "2001:db8::/64",
            "",
        ] {
            assert_eq!(parse_prefix(bad).unwrap_err().status, 422, "{bad:?}");
        }
        assert!(parse_hop("192.168.100.2").is_ok());
        assert_eq!(parse_hop("x").unwrap_err().status, 422);
    }
}
