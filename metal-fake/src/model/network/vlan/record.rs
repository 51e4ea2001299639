//! What the fake keeps of a virtual network (VLAN): its description (also
//! its entry in the world document).

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use super::rules;
use crate::document::{WorldDoc, WorldError};
use crate::model::journal::{record, Meta, Scope};
use crate::model::load::{unique, unknown};
use crate::model::relations::Kind;
use crate::model::world::oldest_first;
use crate::model::World;

/// A virtual network (VLAN) of a project, in one metro.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VirtualNetwork {
    /// Its ID.
    pub id: Uuid,
    /// Its project.
    pub project: Uuid,
    /// Its metro's code (the facility's metro when a facility is given).
    pub metro: String,
    /// Its facility's code, for a VLAN made in a facility.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facility: Option<String>,
    /// Its VLAN number, 2 to 3999, unique among the metro's VLANs of the
    /// project.
    pub vxlan: u32,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// A VLAN as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: VirtualNetwork,
    pub(crate) meta: Meta,
}

record!(
    Kept,
    Kind::VirtualNetwork,
    |k| Scope::project(k.rec.project),
    label | k | Some(format!("{} ({})", k.rec.vxlan, k.rec.metro))
);

/// Loads the document's VLANs: each of a project the world has, in a
/// metro (and facility) of its catalog, with a `vxlan` in range and not
/// taken in the metro, within the bounds of its fields.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut ids = HashSet::new();
    let inconsistent =
        |id: Uuid, why: String| WorldError::Inconsistent(format!("virtual network {id}: {why}"));
    for v in &doc.virtual_networks {
        unique(&mut ids, v.id, "virtual network", v.id)?;
        if !w.projects.contains_key(&v.project) {
            return Err(unknown(
                format!("virtual network {}", v.id),
                "project",
                v.project,
            ));
        }
        rules::check_record(w, v).map_err(|why| inconsistent(v.id, why))?;
        w.vlans
            .rows()
            .insert(&mut w.journal, v.id, now, |meta| Kept {
                rec: v.clone(),
                meta,
            });
    }
    Ok(())
}

/// Saves the VLANs into `doc`, oldest first.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.virtual_networks = oldest_first(w.vlans.iter(), |v| v.meta.seq)
        .into_iter()
        .map(|v| v.rec.clone())
        .collect();
}
