//! What the fake keeps of an organisation: its entry in the world
//! document, and its place in creation order.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// An organisation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Organization {
    /// Its ID.
    pub id: uuid::Uuid,
    /// Its name.
    #[serde(default)]
    pub name: String,
}

/// An organisation as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Organization,
    /// Creation order across all records.
    pub(crate) seq: u64,
}
