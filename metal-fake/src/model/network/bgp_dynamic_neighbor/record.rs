//! What the fake keeps of a BGP dynamic neighbour: its description (also
//! its entry in the world document).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// A BGP dynamic neighbour of a VRF gateway.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BgpDynamicNeighbor {
    /// Its ID.
    pub id: Uuid,
    /// Its gateway: a VRF gateway (one on a VRF's IP reservation).
    pub metal_gateway: Uuid,
    /// The IPv4 range its peers come from (`a.b.c.d/n`), inside the
    /// gateway's block.
    pub bgp_neighbor_range: String,
    /// Its peers' ASN.
    pub bgp_neighbor_asn: u32,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// A neighbour as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: BgpDynamicNeighbor,
    /// Its gateway's project.
    pub(crate) project: Uuid,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::BgpDynamicNeighbor, |k| Scope::project(
    k.project
));
