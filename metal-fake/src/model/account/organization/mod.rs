//! Organisations: they own projects, and a token of an organisation (a
//! member) sees its projects.
//!
//! - `record`: [`Organization`], what the world keeps and its document
//!   entry.
//! - `rules`: creating and updating one, and the bounds of its fields.
//! - `view`: an organisation as the API sends it.
//! - `operations`: the operations modelled, who owns an organisation,
//!   and how organisations load and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::{Address, Coordinates, Organization};
pub(crate) use rules::insert;
pub(crate) use view::OrganizationView;

/// The collection of organisations' paths and hrefs.
pub(crate) const COLLECTION: &str = "organizations";

crate::model::journal::owned_table! {
    /// The world's organisations, by ID: written only here.
    Organizations of Kept
}
