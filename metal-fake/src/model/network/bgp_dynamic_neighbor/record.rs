//! What the fake keeps of a BGP dynamic neighbour: its description (also
//! its entry in the world document).

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

/// Loads the document's neighbours: each of a gateway the world has,
/// checked as a create is.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    for n in &doc.bgp_dynamic_neighbors {
        let from = || format!("bgp dynamic neighbor {}", n.id);
        unique(&mut ids, n.id, "bgp dynamic neighbor", n.id)?;
        let project = w
            .gateways
            .get(&n.metal_gateway)
            .map(|g| g.rec.project)
            .ok_or_else(|| unknown(from(), "metal gateway", n.metal_gateway))?;
        w.check_neighbor(n.metal_gateway, &n.bgp_neighbor_range, &n.tags)
            .map_err(|e| {
                WorldError::Inconsistent(format!("{}: {}", from(), e.messages.join("; ")))
            })?;
        w.bgp_dynamic_neighbors
            .rows()
            .insert(&mut w.journal, n.id, now, |meta| Kept {
                rec: n.clone(),
                project,
                meta,
            });
    }
    Ok(())
}

/// Saves the neighbours into `doc`, oldest first.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.bgp_dynamic_neighbors = oldest_first(w.bgp_dynamic_neighbors.iter(), |n| n.meta.seq)
        .into_iter()
        .map(|n| n.rec.clone())
        .collect();
}
