//! What the fake keeps of an organisation: its entry in the world
//! document, and its place in creation order.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::journal::{Meta, Record, Scope};
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
}

/// An organisation as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: Organization,
    pub(crate) meta: Meta,
}

impl Record for Kept {
    const KIND: Kind = Kind::Organization;
    fn meta(&self) -> &Meta {
        &self.meta
    }
    fn meta_mut(&mut self) -> &mut Meta {
        &mut self.meta
    }
    fn scope(&self) -> Scope {
        Scope {
            organization: Some(self.rec.id),
            ..Scope::default()
        }
    }
}
