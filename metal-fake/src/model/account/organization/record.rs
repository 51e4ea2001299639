//! What the fake keeps of an organisation: its entry in the world
//! document, and its place in creation order.

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
    /// Its address, as its create or an update gave it (shown with
    /// `include=address`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<Address>,
    /// Its billing address (shown with `include=billing_address`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub billing_address: Option<Address>,
}

/// A postal address, as the spec's `Address` has it (without its
/// coordinates).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Address {
    /// The street address.
    #[serde(default)]
    pub address: String,
    /// A second line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address2: Option<String>,
    /// The city.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    /// The state or region.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// The postal code.
    #[serde(default)]
    pub zip_code: String,
    /// The country, as its two-letter code.
    #[serde(default)]
    pub country: String,
}

impl Address {
    /// The address a request gave, its missing text empty.
    pub(crate) fn of(a: &metal_api::types::Address) -> Self {
        Self {
            address: a.address.clone().unwrap_or_default(),
            address2: a.address2.clone(),
            city: a.city.clone(),
            state: a.state.clone(),
            zip_code: a.zip_code.clone().unwrap_or_default(),
            country: a.country.clone().unwrap_or_default(),
        }
    }
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
