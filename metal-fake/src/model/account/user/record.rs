//! What the fake keeps of a user: its entry in the world document, and
//! when it was made and changed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// A user.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct User {
    /// Its ID.
    pub id: Uuid,
    /// Its first name.
    #[serde(default)]
    pub first_name: String,
    /// Its last name.
    #[serde(default)]
    pub last_name: String,
    /// Its primary email address (unique among users).
    #[serde(default)]
    pub email: String,
    /// Its phone number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone_number: Option<String>,
    /// Its time zone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Its custom data.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub customdata: serde_json::Map<String, serde_json::Value>,
    /// Whether two-factor authentication (an app) is on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub two_factor: bool,
}

impl User {
    /// A user named `first last`, reached at `email`.
    pub(crate) fn named(id: Uuid, first: &str, last: &str, email: String) -> Self {
        Self {
            id,
            first_name: first.to_string(),
            last_name: last.to_string(),
            email,
            phone_number: None,
            timezone: None,
            customdata: serde_json::Map::new(),
            two_factor: false,
        }
    }
}

/// A user as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: User,
    /// A password reset was requested and not yet used.
    pub(crate) reset_requested: bool,
    /// The token of an email verification requested (not saved).
    pub(crate) verification: Option<String>,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::User, |_k| Scope::default());
