//! What the fake keeps of a license: its description (also its entry in
//! the world document).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// A software license of a project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct License {
    /// Its ID.
    pub id: Uuid,
    /// The project that holds it.
    pub project: Uuid,
    /// The licensee product it is for (an ID or slug, as the create named
    /// it).
    pub licensee_product_id: String,
    /// Its size (seats, cores: as the product counts).
    pub size: f64,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The key the API issued.
    pub license_key: String,
}

/// A license as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: License,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::License, |k| Scope::project(k.rec.project));
