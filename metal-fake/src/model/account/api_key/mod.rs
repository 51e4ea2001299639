//! API keys: a user's (`/user/api-keys`) and a project's
//! (`/projects/{id}/api-keys`). A key's token authenticates as what it was
//! given: a user key as its user, a project key as its project alone; a
//! read-only key is refused every write; a deleted key's token is `401`.
//!
//! - `record`: [`ApiKey`], what the world keeps and its document entry.
//! - `view`: a key as the API sends it.
//! - `operations`: the operations modelled, who owns a key, and how keys
//!   load and save.

mod operations;
mod record;
mod view;

pub(crate) use operations::RESOURCE;
pub use record::ApiKey;
pub(crate) use record::Kept;

/// The collection of API keys' paths.
pub(crate) const COLLECTION: &str = "api-keys";

crate::model::journal::owned_table! {
    /// The world's API keys, users' and projects', by ID: written only here.
    ApiKeys of Kept
}
