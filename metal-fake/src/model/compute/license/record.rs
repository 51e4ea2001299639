//! What the fake keeps of a license: its description (also its entry in
//! the world document).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use super::rules::check;
use crate::document::{WorldDoc, WorldError};
use crate::model::journal::{record, Meta, Scope};
use crate::model::load::unknown;
use crate::model::relations::Kind;
use crate::model::world::oldest_first;
use crate::model::World;

/// A software license of a project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct License {
    /// Its ID.
    pub id: Uuid,
    /// The project that holds it.
    pub project: Uuid,
    /// The licensee product it is for (an ID or slug, as the create named
    /// it).
    pub licensee_product_id: String,
    /// Its size (seats, cores: as the product counts).
    pub size: f64,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The key the API issued.
    pub license_key: String,
}

/// A license as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: License,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::License, |k| Scope::project(k.rec.project));

/// Loads the document's licenses: each of a project the world has, with
/// a product, a positive size and a description within bounds.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    for l in &doc.licenses {
        if w.licenses.contains_key(&l.id) {
            return Err(WorldError::Duplicate {
                kind: "license",
                id: l.id.to_string(),
            });
        }
        if !w.projects.contains_key(&l.project) {
            return Err(unknown(format!("license {}", l.id), "project", l.project));
        }
        check(
            Some(&l.licensee_product_id),
            Some(l.size),
            l.description.as_deref(),
        )
        .map_err(|e| {
            WorldError::Inconsistent(format!("license {}: {}", l.id, e.messages.join("; ")))
        })?;
        w.licenses
            .rows()
            .insert(&mut w.journal, l.id, now, |meta| Kept {
                rec: l.clone(),
                meta,
            });
    }
    Ok(())
}

/// Saves the licenses into `doc`, oldest first.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.licenses = oldest_first(w.licenses.iter(), |l| l.meta.seq)
        .into_iter()
        .map(|l| l.rec.clone())
        .collect();
}
