//! What the fake keeps of a BGP dynamic neighbour: its description (also
//! its entry in the world document).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// Where a neighbour is in its configuration: the SDK's
/// `BgpDynamicNeighborState` has `active`, `deleting`, `pending` and
/// `ready`; the fake's neighbours go `pending`, then `ready` (no BGP runs
/// here to make one `active`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NeighborState {
    /// Being configured (after its create).
    Pending,
    /// Configured.
    #[default]
    Ready,
}

impl NeighborState {
    /// The API's name of it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Ready => "ready",
        }
    }
}

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
    /// Its state (default `ready`; a seeded `pending` neighbour settles
    /// like a new one).
    #[serde(default)]
    pub state: NeighborState,
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
