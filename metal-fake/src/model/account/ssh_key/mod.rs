//! SSH keys: the user's and projects'.
//!
//! - `record`: [`SshKey`], what the world keeps and its document entry.
//! - `rules`: a valid public key, unique per owner; the fingerprint.
//! - `view`: a key as the API sends it.
//! - `operations`: the operations modelled, who owns a key, and how keys
//!   load and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::SshKey;
pub(crate) use rules::{check_bounds, check_public_key};
pub(crate) use view::SshKeyList;

/// The collection of SSH keys' paths and hrefs.
pub(crate) const COLLECTION: &str = "ssh-keys";

crate::model::journal::owned_table! {
    /// The world's SSH keys, by ID: written only here.
    SshKeys of Kept
}
