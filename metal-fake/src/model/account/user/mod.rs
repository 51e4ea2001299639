//! Users: the world's own user (the server token's, whose ID the world
//! document holds), each world token's user, and users made through the
//! API. `GET /user` is the caller's, with defaults it can see.
//!
//! - `record`: [`User`], what the world keeps and its document entry.
//! - `view`: a user as the API sends it.
//! - `rules`: the one write path of a user's changes.
//! - `security`: two-factor authentication, password reset and email
//!   verification of the current user.
//! - `operations`: the operations modelled, who sees a user, and how
//!   users load and save.
//! - `notifications`: the user's notifications, on paths outside the
//!   2024 spec that packngo used (the fake keeps none).

mod notifications;
mod operations;
mod record;
mod rules;
mod security;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::User;
pub(crate) use view::{Avatar, UserLimited, UserLite};

/// The collection of users' paths and hrefs.
pub(crate) const COLLECTION: &str = "users";

crate::model::journal::owned_table! {
    /// The world's users, by ID: written only here.
    Users of Kept
}
