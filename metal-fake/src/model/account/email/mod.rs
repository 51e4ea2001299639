//! A user's email addresses: added, read, made the default (the user's
//! `email`), deleted (never the default).
//!
//! - `record`: [`Email`], what the world keeps and its world-document
//!   entry; the ID of a user's default address as one of its emails.
//! - `operations`: the operations modelled, the view, who owns an address
//!   (its user), and how addresses load and save.

mod operations;
mod record;

pub(crate) use operations::RESOURCE;
pub use record::Email;
pub(crate) use record::{primary_email_id, Kept};

/// The collection of email addresses' paths and hrefs.
pub(crate) const COLLECTION: &str = "emails";

crate::model::journal::owned_table! {
    /// The world's users' email addresses besides their default, by ID: written only here.
    Emails of Kept
}
