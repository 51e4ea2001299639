//! An email address of a user besides its default: what the world keeps
//! and its world-document entry, and the ID of a user's default address
//! as one of its emails.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// An email address of a user besides its default (the user's `email`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Email {
    /// Its ID.
    pub id: Uuid,
    /// The user (one of `users`, or the world's `user`).
    pub user: Uuid,
    /// The address.
    pub address: String,
    /// Whether it was verified.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verified: bool,
}

/// An address as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Email,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::Email, |_k| Scope::default());

/// The ID of `user`'s own address (its `email`) as one of its emails: an
/// ID derived from the user's, stable, no record of its own.
pub(crate) fn primary_email_id(user: Uuid) -> Uuid {
    Uuid::from_u128(user.as_u128() ^ 0x0e0e_0000_0000_0000_0000_0000_0000_0e0e)
}
