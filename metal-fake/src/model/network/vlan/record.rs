//! What the fake keeps of a virtual network (VLAN): its description (also
//! its entry in the world document).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// A virtual network (VLAN) of a project, in one metro.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VirtualNetwork {
    /// Its ID.
    pub id: Uuid,
    /// Its project.
    pub project: Uuid,
    /// Its metro's code (the facility's metro when a facility is given).
    pub metro: String,
    /// Its facility's code, for a VLAN made in a facility.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facility: Option<String>,
    /// Its VLAN number, 2 to 3999, unique among the metro's VLANs of the
    /// project.
    pub vxlan: u32,
    /// Its description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
}

/// A VLAN as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: VirtualNetwork,
    pub(crate) meta: Meta,
}

record!(
    Kept,
    Kind::VirtualNetwork,
    |k| Scope::project(k.rec.project),
    label | k | Some(format!("{} ({})", k.rec.vxlan, k.rec.metro))
);
