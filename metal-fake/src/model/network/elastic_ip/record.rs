//! What the fake keeps of an elastic IP: its description (also its entry
//! in the world document).

use std::collections::HashSet;
use std::net::Ipv4Addr;

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

/// Loads the document's elastic IPs: each of a VRF gateway the world has,
/// by the same rules as a create.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    for e in &doc.elastic_ips {
        let from = || format!("elastic ip {}", e.id);
        unique(&mut ids, e.id, "elastic ip", e.id)?;
        let project = w
            .gateways
            .get(&e.metal_gateway)
            .map(|g| g.rec.project)
            .ok_or_else(|| unknown(from(), "metal gateway", e.metal_gateway))?;
        w.check_elastic_ip(e)
            .map_err(|why| WorldError::Inconsistent(format!("{}: {why}", from())))?;
        w.elastic_ips
            .rows()
            .insert(&mut w.journal, e.id, now, |meta| Kept {
                rec: e.clone(),
                project,
                meta,
            });
    }
    Ok(())
}

/// Saves the elastic IPs into `doc`, oldest first.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.elastic_ips = oldest_first(w.elastic_ips.iter(), |e| e.meta.seq)
        .into_iter()
        .map(|e| e.rec.clone())
        .collect();
}
