//! A VRF route as the API sends it: the VRF, and the gateway and VLAN of
//! the block its next hop is in, stubs (the VRF whole when included).

use std::net::Ipv4Addr;

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use super::COLLECTION;
use crate::model::render::{Expand, Href, Stamp, Stub};
use crate::model::vrf::VrfField;
use crate::model::World;

/// A route in a reply.
#[derive(Serialize)]
pub(crate) struct RouteView<'a> {
    id: Uuid,
    href: Href,
    #[serde(rename = "type")]
    type_: &'static str,
    prefix: &'a str,
    next_hop: Ipv4Addr,
    status: &'static str,
    tags: &'a [String],
    vrf: VrfField<'a>,
    /// The gateway on the next hop's block (none while it has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    metal_gateway: Option<Stub>,
    /// That gateway's VLAN.
    #[serde(skip_serializing_if = "Option::is_none")]
    virtual_network: Option<Stub>,
    created_at: Stamp,
    updated_at: Stamp,
}

impl World {
    /// `r` as the API shows it, with `expand` applied.
    pub(crate) fn route_view<'a>(&'a self, r: &'a Kept, expand: &Expand) -> RouteView<'a> {
        let rec = &r.rec;
        let gateway = self.route_block(r).and_then(|b| self.gateway_of_block(b));
        RouteView {
            id: rec.id,
            href: Href::new(COLLECTION, rec.id),
            type_: "static",
            prefix: &rec.prefix,
            next_hop: rec.next_hop,
            status: rec.status.as_str(),
            tags: &rec.tags,
            vrf: self.vrf_field(rec.vrf, expand.includes("vrf"), &expand.nested("vrf")),
            metal_gateway: gateway
                .map(|g| Stub::new(crate::model::metal_gateway::COLLECTION, g.rec.id)),
            virtual_network: gateway
                .map(|g| Stub::new(crate::model::vlan::COLLECTION, g.rec.virtual_network)),
            created_at: Stamp(self.clock.wall(r.meta.created)),
            updated_at: Stamp(self.clock.wall(r.meta.updated)),
        }
    }
}
