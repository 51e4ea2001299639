//! The API's rules for SSH keys: a valid public key, unique per owner.

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::records::{KeyOwner, SshKeyRec};
use super::world::World;
use crate::call::ApiError;

impl World {
    /// `createSSHKey` and `createProjectSSHKey`: a new key of `owner`.
    pub(super) fn create_ssh_key(
        &mut self,
        owner: KeyOwner,
        body: &types::SshKeyCreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        if let KeyOwner::Project(p) = owner {
            self.projects.get(&p).ok_or_else(ApiError::not_found)?;
        }
        let key = body.key.as_deref().unwrap_or_default();
        check_public_key(key)?;
        self.check_key_unique(owner, key, None)?;
        let id = Uuid::new_v4();
        let seq = self.next_seq();
        self.ssh_keys.insert(
            id,
            SshKeyRec {
                id,
                seq,
                owner,
                label: body.label.clone().unwrap_or_default(),
                key: key.to_string(),
                tags: body.tags.clone(),
                created: now,
                updated: now,
            },
        );
        Ok(id)
    }

    /// `updateSSHKey`: a new label, key or tags.
    pub(super) fn update_ssh_key(
        &mut self,
        id: Uuid,
        body: &types::SshKeyInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        let owner = self
            .ssh_keys
            .get(&id)
            .ok_or_else(ApiError::not_found)?
            .owner;
        if let Some(key) = &body.key {
            check_public_key(key)?;
            self.check_key_unique(owner, key, Some(id))?;
        }
        let rec = self.ssh_keys.get_mut(&id).ok_or_else(ApiError::not_found)?;
        if let Some(label) = &body.label {
            rec.label.clone_from(label);
        }
        if let Some(key) = &body.key {
            rec.key.clone_from(key);
        }
        if !body.tags.is_empty() {
            rec.tags.clone_from(&body.tags);
        }
        rec.updated = now;
        Ok(())
    }

    /// `deleteSSHKey`.
    pub(super) fn delete_ssh_key(&mut self, id: Uuid) -> Result<(), ApiError> {
        self.ssh_keys.remove(&id).ok_or_else(ApiError::not_found)?;
        Ok(())
    }

    fn check_key_unique(
        &self,
        owner: KeyOwner,
        key: &str,
        except: Option<Uuid>,
    ) -> Result<(), ApiError> {
        let taken = self
            .ssh_keys
            .values()
            .any(|k| k.owner == owner && k.key == key && Some(k.id) != except);
        if taken {
            return Err(ApiError::unprocessable(
                "Fingerprint has already been taken",
            ));
        }
        Ok(())
    }
}

fn check_public_key(key: &str) -> Result<(), ApiError> {
    let mut parts = key.split_whitespace();
    let kind = parts.next().unwrap_or_default();
    let body = parts.next().unwrap_or_default();
    let known = kind.starts_with("ssh-") || kind.starts_with("ecdsa-");
    if key.trim().is_empty() {
        return Err(ApiError::unprocessable("Key can't be blank"));
    }
    if !known || body.is_empty() {
        return Err(ApiError::unprocessable("Key is not a valid public key"));
    }
    Ok(())
}
