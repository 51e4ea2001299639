//! What the fake keeps of a VRF: its description (also its entry in the
//! world document).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// The ASN a VRF gets when its create names none.
pub(crate) const DEFAULT_ASN: u32 = 65100;

fn default_asn() -> u32 {
    DEFAULT_ASN
}

/// A VRF of a project, in one metro.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Vrf {
    /// Its ID.
    pub id: Uuid,
    /// Its project.
    pub project: Uuid,
    /// Its metro's code.
    pub metro: String,
    /// Its name, unique in the project.
    pub name: String,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its ASN (default 65100).
    #[serde(default = "default_asn")]
    pub local_asn: u32,
    /// The ranges it routes: IPv4 CIDRs of /8 to /29, IPv6 of /56 to /64,
    /// apart from each other and from the project's other VRFs in the
    /// metro.
    #[serde(default)]
    pub ip_ranges: Vec<String>,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Whether its gateways take BGP dynamic neighbours.
    #[serde(default)]
    pub bgp_dynamic_neighbors_enabled: bool,
    /// Whether those sessions run BFD.
    #[serde(default)]
    pub bgp_dynamic_neighbors_bfd_enabled: bool,
    /// Whether routes are exported to them through a route map.
    #[serde(default)]
    pub bgp_dynamic_neighbors_export_route_map: bool,
}

/// A VRF as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Vrf,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::Vrf, |k| Scope::project(k.rec.project));
