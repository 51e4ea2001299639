//! What the fake keeps of a VRF route: its description (also its entry in
//! the world document).

use std::net::Ipv4Addr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// Where a route is in its configuration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RouteStatus {
    /// Being configured (after a create or an update).
    Pending,
    /// Configured.
    #[default]
    Active,
}

impl RouteStatus {
    /// The API's name of it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Active => "active",
        }
    }
}

/// A static route of a VRF.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VrfRoute {
    /// Its ID.
    pub id: Uuid,
    /// Its VRF.
    pub vrf: Uuid,
    /// The IPv4 prefix it routes (`0.0.0.0/0`: the default route),
    /// unique in the VRF.
    pub prefix: String,
    /// The host that handles it: an address of one of the VRF's IP
    /// reservations.
    pub next_hop: Ipv4Addr,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Its status (default `active`; a seeded `pending` route settles
    /// like a new one).
    #[serde(default)]
    pub status: RouteStatus,
}

/// A route as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: VrfRoute,
    /// Its VRF's project.
    pub(crate) project: Uuid,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::VrfRoute, |k| Scope::project(k.project));
