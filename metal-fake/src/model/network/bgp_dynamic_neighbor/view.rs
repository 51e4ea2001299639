//! A BGP dynamic neighbour as the API sends it: its gateway a stub.

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use super::COLLECTION;
use crate::model::render::{Href, Stamp, Stub};
use crate::model::user::UserLimited;
use crate::model::World;

/// A neighbour in a reply.
#[derive(Serialize)]
pub(crate) struct NeighborView<'a> {
    id: Uuid,
    href: Href,
    bgp_neighbor_range: &'a str,
    bgp_neighbor_asn: u32,
    state: &'static str,
    tags: &'a [String],
    metal_gateway: Stub,
    /// Whole: the spec's `UserLimited` requires its `id`.
    created_by: UserLimited,
    created_at: Stamp,
    updated_at: Stamp,
}

impl World {
    /// `n` as the API shows it.
    pub(crate) fn neighbor_view<'a>(&'a self, n: &'a Kept) -> NeighborView<'a> {
        let rec = &n.rec;
        NeighborView {
            id: rec.id,
            href: Href::new(COLLECTION, rec.id),
            bgp_neighbor_range: &rec.bgp_neighbor_range,
            bgp_neighbor_asn: rec.bgp_neighbor_asn,
            state: rec.state.as_str(),
            tags: &rec.tags,
            metal_gateway: Stub::new(crate::model::metal_gateway::COLLECTION, rec.metal_gateway),
            created_by: self.user_limited(),
            created_at: Stamp(self.clock.wall(n.meta.created)),
            updated_at: Stamp(self.clock.wall(n.meta.updated)),
        }
    }
}
