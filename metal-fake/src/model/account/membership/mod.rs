//! Memberships: a user's roles in a project. A member sees the project
//! (its tokens and user keys do); accepting an invitation makes them.
//!
//! - `record`: [`Membership`], what the world keeps and its document
//!   entry.
//! - `rules`: the roles a membership may hold, and how a user becomes a
//!   member.
//! - `operations`: the operations modelled, the view, who owns a
//!   membership, and how memberships load and save.
//! - `organization_members`: an organisation's members, read and
//!   removed on paths outside the 2024 spec that packngo used.

mod operations;
mod organization_members;
mod record;
mod rules;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::Membership;
pub(crate) use rules::{check_roles, insert};

/// The collection of memberships' paths and hrefs.
pub(crate) const COLLECTION: &str = "memberships";

crate::model::journal::owned_table! {
    /// The world's memberships of users in projects, by ID: written only here.
    Memberships of Kept
}
