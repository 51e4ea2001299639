//! Licenses: software licenses a project holds (a licensee product, a
//! size, and the key the API issues).
//!
//! - `record`: [`License`], what the world keeps and its document entry.
//! - `rules`: create, update and delete, and what a body may say.
//! - `view`: a license as the API sends it.
//! - `operations`: the operations modelled, who owns a license, and how
//!   licenses load and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::License;

/// The collection of licenses' paths and hrefs.
pub(crate) const COLLECTION: &str = "licenses";

crate::model::journal::owned_table! {
    /// The world's projects' software licenses, by ID: written only here.
    Licenses of Kept
}
