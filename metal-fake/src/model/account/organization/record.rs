//! What the fake keeps of an organisation: its entry in the world
//! document, and its place in creation order.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// An organisation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Organization {
    /// Its ID.
    pub id: uuid::Uuid,
    /// Its name.
    #[serde(default)]
    pub name: String,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its website.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website: Option<String>,
    /// Its Twitter handle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub twitter: Option<String>,
    /// Its custom data.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub customdata: serde_json::Map<String, serde_json::Value>,
    /// Its members (users who see every project of it) besides the
    /// world's own user, who is a member of every organisation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<Uuid>,
    /// Its postal address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<Address>,
    /// Its billing address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing_address: Option<Address>,
    /// Its logo's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo: Option<String>,
    /// From when its members must have two-factor authentication on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforce_2fa_at: Option<DateTime<Utc>>,
}

/// A postal address: the spec's `Address`, whose `address`, `country` and
/// `zip_code` are required.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Address {
    /// The street and number.
    pub address: String,
    /// More of the street address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address2: Option<String>,
    /// The city.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    /// The state or province.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// The postal code.
    pub zip_code: String,
    /// The country, as its two-letter ISO 3166-1 code.
    pub country: String,
    /// Where it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coordinates: Option<Coordinates>,
}

/// A place's latitude and longitude, as the spec's `Coordinates` (text).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Coordinates {
    /// Its latitude.
    pub latitude: String,
    /// Its longitude.
    pub longitude: String,
}

impl Organization {
    /// An organisation with only its ID and name.
    pub(crate) fn named(id: Uuid, name: &str) -> Self {
        Self {
            id,
            name: name.to_string(),
            description: None,
            website: None,
            twitter: None,
            customdata: serde_json::Map::new(),
            members: Vec::new(),
            address: None,
            billing_address: None,
            logo: None,
            enforce_2fa_at: None,
        }
    }
}

/// An organisation as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Organization,
    pub(crate) meta: Meta,
}

record!(
    Kept,
    Kind::Organization,
    |k| Scope {
        organization: Some(k.rec.id),
        ..Scope::default()
    },
    label | k | Some(format!("\"{}\"", k.rec.name))
);
