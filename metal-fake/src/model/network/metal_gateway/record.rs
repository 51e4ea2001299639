//! What the fake keeps of a Metal Gateway: its description (also its
//! entry in the world document).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// A Metal Gateway of a project: a VLAN's router, with a block of
/// addresses.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MetalGateway {
    /// Its ID.
    pub id: Uuid,
    /// Its project.
    pub project: Uuid,
    /// Its VLAN, of the project; one gateway a VLAN.
    pub virtual_network: Uuid,
    /// Its block: a private or public IPv4 reservation of the project in
    /// the VLAN's metro, bound to no other gateway.
    pub ip_reservation: Uuid,
    /// Whether the block was made with the gateway (a private block of
    /// the size asked for), and goes with it.
    #[serde(default)]
    pub own_block: bool,
    /// Whether it is being deleted: it reads `state: deleting` until it
    /// is gone, the `deleting` lag of the fake's timings after its delete
    /// (or after the load; at once without a lag).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleting: bool,
}

/// A gateway as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: MetalGateway,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::MetalGateway, |k| Scope::project(k.rec.project));
