//! What the fake keeps of a BGP session: its description (also its entry
//! in the world document).

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use crate::document::{WorldDoc, WorldError};
use crate::model::journal::{record, Meta, Scope};
use crate::model::load::{unique, unknown};
use crate::model::relations::Kind;
use crate::model::world::oldest_first;
use crate::model::World;

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

/// Loads the document's sessions: each of a device the world has, whose
/// project has BGP on, one a family a device.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    let mut families = HashSet::new();
    for s in &doc.bgp_sessions {
        let from = || format!("bgp session {}", s.id);
        unique(&mut ids, s.id, "bgp session", s.id)?;
        let d = w
            .devices
            .get(&s.device)
            .ok_or_else(|| unknown(from(), "device", s.device))?;
        if w.bgp_config_of(d.rec.project).is_none() {
            return Err(WorldError::Inconsistent(format!(
                "{}: its device's project has no BGP configuration",
                from()
            )));
        }
        if !families.insert((s.device, s.address_family)) {
            return Err(WorldError::Inconsistent(format!(
                "{}: its device has another {} session",
                from(),
                s.address_family.as_str()
            )));
        }
        w.bgp_sessions
            .rows()
            .insert(&mut w.journal, s.id, now, |meta| Kept {
                rec: s.clone(),
                meta,
            });
    }
    Ok(())
}

/// Saves the sessions into `doc`, oldest first.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.bgp_sessions = oldest_first(w.bgp_sessions.iter(), |s| s.meta.seq)
        .into_iter()
        .map(|s| s.rec.clone())
        .collect();
}
