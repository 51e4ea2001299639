//! A user's email addresses: added, read, made the default (the user's
//! `email`), deleted (never the default).
//!
//! - `operations`: the record ([`Email`], also its world-document entry),
//!   the operations modelled, the view, who owns an address (its user),
//!   and how addresses load and save.

mod operations;

pub use operations::Email;
pub(crate) use operations::{primary_email_id, Kept, RESOURCE};

/// The collection of email addresses' paths and hrefs.
pub(crate) const COLLECTION: &str = "emails";

crate::model::journal::owned_table! {
    /// The world's users' email addresses besides their default, by ID: written only here.
    Emails of Kept
}
