//! An SSH key as the API sends it, written straight to bytes.

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use super::rules::Fingerprint;
use super::COLLECTION;
use crate::model::project;
use crate::model::render::{Href, Stamp, Stub};
use crate::model::World;

/// An SSH key in a reply.
#[derive(Serialize)]
pub(crate) struct SshKeyView<'a> {
    id: Uuid,
    href: Href,
    label: &'a str,
    key: &'a str,
    fingerprint: Fingerprint<'a>,
    tags: &'a [String],
    created_at: Stamp,
    updated_at: Stamp,
    entity: Stub,
    /// The same link as `entity`: packngo reads it as `SSHKey.Owner`, and
    /// the Terraform provider takes the owner's ID from its href.
    owner: Stub,
}

/// A list of SSH keys.
#[derive(Serialize)]
pub(crate) struct SshKeyList<'a> {
    pub(crate) ssh_keys: Vec<SshKeyView<'a>>,
}

impl World {
    /// `k` as the API shows it.
    pub(crate) fn ssh_key_view<'a>(&'a self, k: &'a Kept) -> SshKeyView<'a> {
        let entity = match k.rec.project {
            None => Stub::new(crate::model::user::COLLECTION, self.user),
            Some(p) => Stub::new(project::COLLECTION, p),
        };
        SshKeyView {
            id: k.rec.id,
            href: Href::new(COLLECTION, k.rec.id),
            label: &k.rec.label,
            key: &k.rec.key,
            fingerprint: Fingerprint(&k.rec.key),
            tags: &k.rec.tags,
            created_at: Stamp(self.clock.wall(k.meta.created)),
            updated_at: Stamp(self.clock.wall(k.meta.updated)),
            entity,
            owner: entity,
        }
    }
}
