//! The SSH key operations the fake models, and who owns a key.

use metal_api::operation as op;
use metal_api::types;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use super::rules::Fingerprint;
use super::rules::{check_bounds, check_public_key};
use super::view::SshKeyList;
use super::COLLECTION;
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::load::unknown;
use crate::model::project;
use crate::model::render::{contains_ignoring_case, reply};
use crate::model::resource::{acts, Modelled, Prepared, Resource, Scope};
use crate::model::world::oldest_first;
use crate::model::World;

/// SSH keys: the user's (`/ssh-keys`) and projects'.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_SSH_KEYS, find_ssh_keys),
        Modelled::new(&op::FIND_PROJECT_SSH_KEYS, find_project_ssh_keys)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::CREATE_SSH_KEY, create_ssh_key),
        Modelled::new(&op::CREATE_PROJECT_SSH_KEY, create_project_ssh_key)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::FIND_SSH_KEY_BY_ID, find_ssh_key_by_id).names("id", &RESOURCE),
        // packngo's `SSHKeys.Update` sends PATCH.
        Modelled::new(&op::UPDATE_SSH_KEY, update_ssh_key)
            .also_patch()
            .names("id", &RESOURCE),
        Modelled::new(&op::DELETE_SSH_KEY, delete_ssh_key).names("id", &RESOURCE),
    ],
    owner,
    load,
    save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.ssh_keys.get(&id).map(|k| match k.rec.project {
        None => Owner::Everyone,
        Some(p) => Owner::Project(p),
    })
}

/// The search of an SSH key list: `search` (`findSSHKeys`) or `query`
/// (`findProjectSSHKeys`), matched against the key, its label and its
/// fingerprint.
struct KeySearch(Option<String>);

impl KeySearch {
    fn of(call: &Call, name: &str) -> Self {
        Self(call.text(name))
    }

    fn matches(&self, k: &Kept) -> bool {
        let Some(text) = &self.0 else { return true };
        contains_ignoring_case(&k.rec.key, text)
            || contains_ignoring_case(&k.rec.label, text)
            || contains_ignoring_case(&Fingerprint(&k.rec.key).to_string(), text)
    }
}

impl World {
    /// The SSH keys of `project` (`None`: the user's) that `search`
    /// matches, oldest first. The user's list (`GET /ssh-keys`) also has
    /// the keys of every project the caller sees, as the real API answers
    /// (Monogon's live test expects it).
    fn ssh_keys_of(
        &self,
        project: Option<Uuid>,
        search: &KeySearch,
        caller: &Scope,
    ) -> Result<SshKeyList<'_>, ApiError> {
        if let Some(p) = project {
            self.projects.get(&p).ok_or_else(ApiError::not_found)?;
        }
        let listed = |k: &Kept| match (project, k.rec.project) {
            (None, Some(p)) => self.projects.contains_key(&p) && caller.sees(p),
            _ => k.rec.project == project,
        };
        let mut keys: Vec<&Kept> = self
            .ssh_keys
            .values()
            .filter(|k| listed(k) && search.matches(k))
            .collect();
        keys.sort_by_key(|k| k.meta.seq);
        Ok(SshKeyList {
            ssh_keys: keys.into_iter().map(|k| self.ssh_key_view(k)).collect(),
        })
    }

    fn ssh_key(&self, id: Uuid) -> Result<&Kept, ApiError> {
        self.ssh_keys.get(&id).ok_or_else(ApiError::not_found)
    }
}

fn find_ssh_keys(call: &Call) -> Result<Prepared, ApiError> {
    let search = KeySearch::of(call, "search");
    acts(move |w, caller, _| reply(&w.ssh_keys_of(None, &search, caller)?))
}

fn find_project_ssh_keys(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    // The spec names this list's search `query`, not `search`.
    let search = KeySearch::of(call, "query");
    acts(move |w, caller, _| reply(&w.ssh_keys_of(Some(project), &search, caller)?))
}

fn create_ssh_key(call: &Call) -> Result<Prepared, ApiError> {
    new_ssh_key(call, None)
}

fn create_project_ssh_key(call: &Call) -> Result<Prepared, ApiError> {
    new_ssh_key(call, Some(call.id("id")?))
}

fn new_ssh_key(call: &Call, project: Option<Uuid>) -> Result<Prepared, ApiError> {
    let body: types::SshKeyCreateInput = call.json()?;
    acts(move |w, _, now| {
        let id = w.create_ssh_key(project, &body, now)?;
        reply(&w.ssh_key_view(w.ssh_key(id)?))
    })
}

fn find_ssh_key_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| reply(&w.ssh_key_view(w.ssh_key(id)?)))
}

fn update_ssh_key(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: types::SshKeyInput = call.json()?;
    acts(move |w, _, now| {
        w.update_ssh_key(id, &body, now)?;
        reply(&w.ssh_key_view(w.ssh_key(id)?))
    })
}

fn delete_ssh_key(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, now| {
        w.delete_ssh_key(id, now)?;
        Ok(crate::call::Reply::Empty)
    })
}

/// Loads the document's SSH keys: each a valid public key, unique per
/// owner, of a project the world has (or the user's).
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
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
fn save(w: &World, doc: &mut WorldDoc, _now: Instant) {
    doc.ssh_keys = oldest_first(w.ssh_keys.iter(), |k| k.meta.seq)
        .into_iter()
        .map(|k| k.rec.clone())
        .collect();
}
