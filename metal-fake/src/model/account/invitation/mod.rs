//! Invitations: an organisation invites an email address, to the
//! organisation or to some of its projects, with roles; the invited user
//! accepts (a membership of each project, or of the organisation) or
//! declines (the invitation goes).
//!
//! - `record`: [`Invitation`], what the world keeps and its document
//!   entry.
//! - `operations`: the operations modelled, the view, who sees an
//!   invitation, and how invitations load and save.
//! - `resend`: an invitation sent again, a method outside the 2024 spec
//!   that packngo used.

mod operations;
mod record;
mod resend;

pub(crate) use operations::RESOURCE;
pub use record::Invitation;
pub(crate) use record::Kept;

/// The collection of invitations' paths and hrefs.
pub(crate) const COLLECTION: &str = "invitations";

crate::model::journal::owned_table! {
    /// The world's invitations to organisations, by ID: written only here.
    Invitations of Kept
}
