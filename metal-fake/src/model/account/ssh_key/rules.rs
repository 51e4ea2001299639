//! The API's rules for SSH keys: a valid public key, unique per owner; and
//! the fingerprint the API shows.

use std::fmt;

use metal_api::types;

use crate::model::relations::Kind;
use serde::{Serialize, Serializer};
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, SshKey};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, too_long, MAX_KEY, MAX_KEYS_PER_OWNER, MAX_NAME};
use crate::model::World;

impl World {
    /// `createSSHKey` and `createProjectSSHKey`: a new key of `project`
    /// (`None`: the user's).
    pub(crate) fn create_ssh_key(
        &mut self,
        project: Option<Uuid>,
        body: &types::SshKeyCreateInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        if let Some(p) = project {
            self.projects.get(&p).ok_or_else(ApiError::not_found)?;
        }
        self.insert_ssh_key(
            project,
            body.label.as_deref().unwrap_or_default(),
            body.key.as_deref().unwrap_or_default(),
            &body.tags,
            now,
        )
    }

    /// A new key of `project` (`None`: the user's), checked as the API
    /// checks one (bounds, a valid public key, unique per owner).
    pub(crate) fn insert_ssh_key(
        &mut self,
        project: Option<Uuid>,
        label: &str,
        key: &str,
        tags: &[String],
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        check_bounds(Some(label), Some(key), Some(tags))?;
        let held = self.ssh_keys.count_of_project(project);
        if held >= MAX_KEYS_PER_OWNER {
            return Err(ApiError::unprocessable(format!(
                "SSH keys are too many (maximum is {MAX_KEYS_PER_OWNER} a project, and for the user)"
            )));
        }
        check_public_key(key)?;
        self.check_key_unique(project, key, None)?;
        let id = Uuid::new_v4();
        self.ssh_keys
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept {
                rec: SshKey {
                    id,
                    project,
                    label: label.to_string(),
                    key: key.to_string(),
                    tags: tags.to_vec(),
                },
                meta,
            });
        Ok(id)
    }

    /// `updateSSHKey`: a new label, key or tags.
    pub(crate) fn update_ssh_key(
        &mut self,
        id: Uuid,
        body: &types::SshKeyInput,
        now: Instant,
    ) -> Result<(), ApiError> {
        let project = self
            .ssh_keys
            .get(&id)
            .ok_or_else(ApiError::not_found)?
            .rec
            .project;
        check_bounds(
            body.label.as_deref(),
            body.key.as_deref(),
            body.tags.as_deref(),
        )?;
        if let Some(key) = &body.key {
            check_public_key(key)?;
            self.check_key_unique(project, key, Some(id))?;
        }
        self.ssh_keys
            .rows()
            .update(&mut self.journal, id, "fields", now, |k| {
                if let Some(label) = &body.label {
                    k.rec.label.clone_from(label);
                }
                if let Some(key) = &body.key {
                    k.rec.key.clone_from(key);
                }
                if let Some(tags) = &body.tags {
                    k.rec.tags.clone_from(tags);
                }
            })
            .ok_or_else(ApiError::not_found)
    }

    /// `deleteSSHKey`.
    pub(crate) fn delete_ssh_key(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        self.delete_record(Kind::SshKey, id, now)
    }

    fn check_key_unique(
        &self,
        project: Option<Uuid>,
        key: &str,
        except: Option<Uuid>,
    ) -> Result<(), ApiError> {
        // The owner's keys alone (a key's scope is its project).
        let taken = self
            .ssh_keys
            .of_project(project)
            .any(|k| k.rec.key == key && Some(k.rec.id) != except);
        if taken {
            return Err(ApiError::unprocessable(
                "Fingerprint has already been taken",
            ));
        }
        Ok(())
    }
}

/// Checks the sizes of a key's fields (those given).
pub(crate) fn check_bounds(
    label: Option<&str>,
    key: Option<&str>,
    tags: Option<&[String]>,
) -> Result<(), ApiError> {
    refuse([
        label.and_then(|l| too_long("Label", l, MAX_NAME)),
        key.and_then(|k| too_long("Key", k, MAX_KEY)),
        tags.and_then(bad_tags),
    ])
}

/// Checks a public key as the API does: not blank, a known type, and a
/// body that is base64 (what `ssh-keygen` decodes before it hashes; the
/// fake does not parse the decoded blob further). `422` otherwise.
pub(crate) fn check_public_key(key: &str) -> Result<(), ApiError> {
    let mut parts = key.split_whitespace();
    let kind = parts.next().unwrap_or_default();
    let body = parts.next().unwrap_or_default();
    let known = kind.starts_with("ssh-") || kind.starts_with("ecdsa-");
    if key.trim().is_empty() {
        return Err(ApiError::unprocessable("Key can't be blank"));
    }
    if !known || key_blob(body).is_none_or(|b| b.is_empty()) {
        return Err(ApiError::unprocessable("Key is not a valid public key"));
    }
    Ok(())
}

/// The key's blob: its second field, base64-decoded (padding optional).
fn key_blob(body: &str) -> Option<Vec<u8>> {
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    use base64::Engine as _;
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    LENIENT.decode(body).ok()
}

/// A key's fingerprint as `ssh-keygen -l -E md5` prints it (without the
/// `MD5:` prefix): the MD5 of the base64-decoded second field, in
/// colon-separated lowercase hex. Empty for a key that does not decode
/// (never stored: [`check_public_key`] refuses it).
pub(crate) struct Fingerprint<'a>(pub(crate) &'a str);

impl fmt::Display for Fingerprint<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use md5::{Digest, Md5};
        let Some(blob) = self.0.split_whitespace().nth(1).and_then(key_blob) else {
            return Ok(());
        };
        for (i, b) in Md5::digest(&blob).iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl Serialize for Fingerprint<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ssh-keygen -l -E md5 -f` of this key prints
    /// `256 MD5:a7:c2:ca:af:43:04:a8:38:c7:ad:32:e1:8c:a6:13:ca`.
    const KEY: &str =
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBb9vT0wFYDTZ2E3y6Q2n1Yx8c4ZQ0yF0bG5m2b8l9eB me@laptop";
    const KEY_MD5: &str = "a7:c2:ca:af:43:04:a8:38:c7:ad:32:e1:8c:a6:13:ca";

    #[test]
    fn the_fingerprint_is_the_md5_of_the_decoded_key() {
        assert_eq!(Fingerprint(KEY).to_string(), KEY_MD5);
    }

    #[test]
    fn an_update_without_tags_keeps_them_and_an_empty_list_clears_them() {
        let mut w = World::for_tests();
        let now = Instant::now();
        let created = types::SshKeyCreateInput {
            key: Some(KEY.into()),
            label: Some("desk".into()),
            tags: vec!["a".into()],
            instances_ids: Vec::new(),
        };
        let id = w.create_ssh_key(None, &created, now).unwrap();
        let tags = |w: &World| {
            w.ssh_keys
                .get(&id)
                .map(|k| k.rec.tags.clone())
                .unwrap_or_default()
        };
        let update = |tags: Option<Vec<String>>| types::SshKeyInput {
            key: None,
            label: Some("desk-2".into()),
            tags,
        };
        w.update_ssh_key(id, &update(None), now).unwrap();
        assert_eq!(tags(&w), ["a"]);
        w.update_ssh_key(id, &update(Some(Vec::new())), now)
            .unwrap();
        assert!(tags(&w).is_empty());
    }

    #[test]
    fn a_body_that_is_not_base64_is_refused() {
        assert_eq!(check_public_key(KEY), Ok(()));
        for bad in ["ssh-ed25519 not*base64", "ssh-ed25519", "rsa AAAA", "  "] {
            let e = check_public_key(bad).unwrap_err();
            assert_eq!(e.status, 422, "{bad:?}");
        }
    }
}
