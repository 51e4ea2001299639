//! What the fake keeps of a BGP session: its description (also its entry
//! in the world document).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// The address family of a BGP session.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AddressFamily {
    /// IPv4.
    Ipv4,
    /// IPv6.
    Ipv6,
}

impl AddressFamily {
    /// The API's name of it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Ipv4 => "ipv4",
            Self::Ipv6 => "ipv6",
        }
    }

    /// Its number (4 or 6), as the neighbour data shows it.
    pub(crate) fn number(self) -> u8 {
        match self {
            Self::Ipv4 => 4,
            Self::Ipv6 => 6,
        }
    }
}

/// A BGP session of a device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BgpSession {
    /// Its ID.
    pub id: Uuid,
    /// Its device, of a project whose BGP is on; one session a family.
    pub device: Uuid,
    /// Its address family.
    pub address_family: AddressFamily,
    /// Whether the device is sent a default route.
    #[serde(default)]
    pub default_route: bool,
}

/// A session as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: BgpSession,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::BgpSession, |k| Scope {
    device: Some(k.rec.device),
    ..Scope::default()
});
