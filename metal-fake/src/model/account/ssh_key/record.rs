//! What the fake keeps of an SSH key: its description (also its entry in
//! the world document), and when it was made and changed.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use super::rules::{check_bounds, check_public_key};
use crate::document::{WorldDoc, WorldError};
use crate::model::journal::{record, Meta, Scope};
use crate::model::load::unknown;
use crate::model::relations::Kind;
use crate::model::world::oldest_first;
use crate::model::World;

/// An SSH key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SshKey {
    /// Its ID.
    pub id: Uuid,
    /// The project that owns it; absent: the user's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<Uuid>,
    /// Its label.
    #[serde(default)]
    pub label: String,
    /// The public key (`ssh-ed25519 AAAA... comment`).
    pub key: String,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// An SSH key as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: SshKey,
    pub(crate) meta: Meta,
}

record!(
    Kept,
    Kind::SshKey,
    |k| Scope {
        project: k.rec.project,
        ..Scope::default()
    },
    label | k | Some(format!("\"{}\"", k.rec.label))
);

/// Loads the document's SSH keys: each a valid public key, unique per
/// owner, of a project the world has (or the user's).
pub(crate) fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    let mut held: std::collections::HashMap<Option<Uuid>, usize> = Default::default();
    for k in &doc.ssh_keys {
        let count = held.entry(k.project).or_default();
        *count += 1;
        if *count > crate::model::bounds::MAX_KEYS_PER_OWNER {
            return Err(WorldError::SshKey {
                id: k.id,
                reason: format!(
                    "its owner holds more than {} keys",
                    crate::model::bounds::MAX_KEYS_PER_OWNER
                ),
            });
        }
        if w.ssh_keys.contains_key(&k.id) {
            return Err(WorldError::Duplicate {
                kind: "ssh key",
                id: k.id.to_string(),
            });
        }
        if let Some(p) = k.project.filter(|p| !w.projects.contains_key(p)) {
            return Err(unknown(format!("ssh key {}", k.id), "project", p));
        }
        check_bounds(Some(&k.label), Some(&k.key), Some(&k.tags))
            .and_then(|()| check_public_key(&k.key))
            .map_err(|e| WorldError::SshKey {
                id: k.id,
                reason: e.messages.join("; "),
            })?;
        if !seen.insert((k.project, k.key.as_str())) {
            return Err(WorldError::SshKey {
                id: k.id,
                reason: "Fingerprint has already been taken".to_string(),
            });
        }
        w.ssh_keys
            .rows()
            .insert(&mut w.journal, k.id, now, |meta| Kept {
                rec: k.clone(),
                meta,
            });
    }
    Ok(())
}

/// Saves the SSH keys into `doc`, oldest first.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.ssh_keys = oldest_first(w.ssh_keys.iter(), |k| k.meta.seq)
        .into_iter()
        .map(|k| k.rec.clone())
        .collect();
}
