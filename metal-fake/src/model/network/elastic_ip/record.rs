//! What the fake keeps of an elastic IP: its description (also its entry
//! in the world document).

use std::net::Ipv4Addr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// An elastic IP of a Metal Gateway.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ElasticIp {
    /// Its ID.
    pub id: Uuid,
    /// The VRF Metal Gateway that routes it.
    pub metal_gateway: Uuid,
    /// The IP reservation (a public IPv4 block of the gateway's project)
    /// its addresses come from.
    pub ip_reservation: Uuid,
    /// Its first address.
    pub address: Ipv4Addr,
    /// Its prefix length (32 for one address).
    pub cidr: u8,
    /// Where the gateway sends its traffic: an address of the gateway's
    /// own block.
    pub next_hop: Ipv4Addr,
    /// Its tags.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// An elastic IP as the world keeps it, with its gateway's project.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: ElasticIp,
    pub(crate) project: Uuid,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::ElasticIp, |k| Scope::project(k.project));
