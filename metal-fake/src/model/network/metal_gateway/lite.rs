//! A gateway where a VLAN or a block names it (the spec's
//! `MetalGatewayLite`), and its state, which both its views show.

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use super::COLLECTION;
use crate::model::render::{Href, Stamp};
use crate::model::World;

/// A gateway's state: `ready` at once, `deleting` once deleted.
pub(super) fn state(g: &Kept) -> &'static str {
    if g.rec.deleting {
        "deleting"
    } else {
        "ready"
    }
}

/// A gateway where a VLAN or a block names it: the spec's
/// `MetalGatewayLite`.
#[derive(Serialize)]
pub(crate) struct GatewayLite {
    id: Uuid,
    href: Href,
    state: &'static str,
    vlan: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    gateway_address: Option<String>,
    created_at: Stamp,
    updated_at: Stamp,
}

impl World {
    /// `g` in short, as VLANs and blocks name it.
    pub(crate) fn gateway_lite(&self, g: &Kept) -> GatewayLite {
        let made = Stamp(self.clock.wall(g.meta.created));
        GatewayLite {
            id: g.rec.id,
            href: Href::new(COLLECTION, g.rec.id),
            state: state(g),
            vlan: self
                .vlans
                .get(&g.rec.virtual_network)
                .map_or(0, |v| v.rec.vxlan),
            gateway_address: self.ips.reservations().get(&g.rec.ip_reservation).map(|r| {
                match (r.block(), r.block6()) {
                    (Some(b), _) => format!("{}/{}", b.gateway(), b.cidr()),
                    (None, Some(b)) => format!("{}/{}", b.gateway(), b.cidr()),
                    (None, None) => format!("{}/{}", r.rec.network, r.rec.cidr),
                }
            }),
            created_at: made,
            updated_at: made,
        }
    }
}
