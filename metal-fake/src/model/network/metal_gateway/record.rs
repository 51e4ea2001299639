//! What the fake keeps of a Metal Gateway: its description (also its
//! entry in the world document).

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
    /// is gone, 10 seconds after its delete (or after the load).
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

/// Loads the document's gateways: each of a project the world has, on one
/// of its VLANs that has no other gateway, with a block of the project in
/// the VLAN's metro that no other gateway holds; one deleting is gone
/// after its delay.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    for g in &doc.metal_gateways {
        let from = || format!("metal gateway {}", g.id);
        unique(&mut ids, g.id, "metal gateway", g.id)?;
        if !w.projects.contains_key(&g.project) {
            return Err(unknown(from(), "project", g.project));
        }
        if !w.vlans.contains_key(&g.virtual_network) {
            return Err(unknown(from(), "virtual network", g.virtual_network));
        }
        if !w.ips.reservations().contains_key(&g.ip_reservation) {
            return Err(unknown(from(), "ip reservation", g.ip_reservation));
        }
        w.check_gateway(g.project, g.virtual_network, g.ip_reservation)
            .map_err(|e| {
                WorldError::Inconsistent(format!("{}: {}", from(), e.messages.join("; ")))
            })?;
        w.gateways
            .rows()
            .insert(&mut w.journal, g.id, now, |meta| Kept {
                rec: g.clone(),
                meta,
            });
        if g.deleting {
            w.queue_gateway_gone(g.id, now);
        }
    }
    Ok(())
}

/// Saves the gateways into `doc`, oldest first.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.metal_gateways = oldest_first(w.gateways.iter(), |g| g.meta.seq)
        .into_iter()
        .map(|g| g.rec.clone())
        .collect();
}
