//! Projects: they hold reservations, devices and SSH keys, and belong to
//! an organisation.
//!
//! - `record`: [`Project`], what the world keeps and its document entry
//!   (with its BGP configuration, [`BgpConfig`]).
//! - `view`: a project as the API sends it, and as other records name it.
//! - `rules`: creating, updating and deleting a project.
//! - `bgp`: its BGP configuration read and requested.
//! - `operations`: the operations modelled, who owns a project, and how
//!   projects load and save.

mod bgp;
mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::{BgpConfig, Project, ProjectType};
pub(crate) use view::ProjectField;

/// The collection of projects' paths and hrefs.
pub(crate) const COLLECTION: &str = "projects";

crate::model::journal::owned_table! {
    /// The world's projects, by ID: written only here.
    Projects of Kept
}
