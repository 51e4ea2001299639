//! A BGP session and the neighbour data as the API sends them: the device
//! a stub unless included (the Terraform provider reads the session with
//! `include=device` for the device's ID).

use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use super::rules::{peer_ips, Neighbor, Route, PEER_AS};
use super::COLLECTION;
use crate::model::device::{self, DeviceField};
use crate::model::render::{Empty, Expand, Href, Stamp, Stub};
use crate::model::World;

/// A session in a reply.
#[derive(Serialize)]
pub(crate) struct SessionView<'a> {
    id: Uuid,
    href: Href,
    address_family: &'static str,
    default_route: bool,
    device: DeviceField<'a>,
    learned_routes: Empty,
    status: &'static str,
    created_at: Stamp,
    updated_at: Stamp,
}

/// Sessions: the spec's `BgpSessionList`.
#[derive(Serialize)]
pub(crate) struct SessionList<'a> {
    pub(crate) bgp_sessions: Vec<SessionView<'a>>,
}

/// A route of the neighbour data.
#[derive(Serialize)]
struct RouteView<'a> {
    route: &'a str,
    exact: bool,
}

/// The neighbour data of one session: the spec's `BgpNeighborData`.
#[derive(Serialize)]
struct NeighborView<'a> {
    address_family: u8,
    customer_as: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    customer_ip: Option<&'a str>,
    md5_enabled: bool,
    /// `null` when unset (see "Replies whole" in `metal_fake::fidelity`).
    md5_password: Option<&'a str>,
    multihop: bool,
    peer_as: u32,
    peer_ips: [&'static str; 2],
    routes_in: Vec<RouteView<'a>>,
    routes_out: Vec<RouteView<'a>>,
}

/// A device's neighbour data: the spec's `BgpSessionNeighbors`.
#[derive(Serialize)]
pub(crate) struct NeighborsView<'a> {
    bgp_neighbors: Vec<NeighborView<'a>>,
}

fn routes(routes: &[Route]) -> Vec<RouteView<'_>> {
    routes
        .iter()
        .map(|r| RouteView {
            route: &r.route,
            exact: r.exact,
        })
        .collect()
}

/// `neighbors` as the API shows them.
pub(crate) fn neighbors_view<'a>(neighbors: &'a [Neighbor<'a>]) -> NeighborsView<'a> {
    NeighborsView {
        bgp_neighbors: neighbors
            .iter()
            .map(|n| NeighborView {
                address_family: n.family.number(),
                customer_as: n.config.asn,
                customer_ip: n.customer_ip.as_deref(),
                md5_enabled: n.config.md5.is_some(),
                md5_password: n.config.md5.as_deref(),
                multihop: true,
                peer_as: PEER_AS,
                peer_ips: peer_ips(n.family),
                routes_in: routes(&n.routes_in),
                routes_out: routes(&n.routes_out),
            })
            .collect(),
    }
}

impl World {
    /// `s` as the API shows it at `now`, with `expand` applied.
    pub(crate) fn bgp_session_view<'a>(
        &'a self,
        s: &'a Kept,
        expand: &Expand,
        now: Instant,
    ) -> SessionView<'a> {
        let device = match self.devices.get(&s.rec.device) {
            Some(d) if expand.includes("device") => {
                DeviceField::Full(Box::new(self.device_view(d, &expand.nested("device"), now)))
            }
            _ => DeviceField::Stub(Stub::new(device::COLLECTION, s.rec.device)),
        };
        SessionView {
            id: s.rec.id,
            href: Href::new(COLLECTION, s.rec.id),
            address_family: s.rec.address_family.as_str(),
            default_route: s.rec.default_route,
            device,
            learned_routes: Empty,
            // The fake's devices run no BGP speaker: no session comes up.
            status: "down",
            created_at: Stamp(self.clock.wall(s.meta.created)),
            updated_at: Stamp(self.clock.wall(s.meta.updated)),
        }
    }
}
