//! What the fake keeps of a port VLAN assignment batch: its description
//! (also its entry in the world document), and its place in the journal.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// Where a batch is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BatchState {
    /// Accepted, not started.
    Queued,
    /// Being applied.
    InProgress,
    /// Every assignment applied.
    #[default]
    Completed,
    /// Stopped at an assignment the port refused (`error_messages`).
    Failed,
}

/// Whether an assignment puts its VLAN on the port or takes it off.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BatchAssignmentState {
    /// On the port.
    #[default]
    Assigned,
    /// Off the port.
    Unassigned,
}

/// One assignment of a batch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BatchAssignment {
    /// Its ID.
    pub id: Uuid,
    /// The VLAN's `vxlan` (of the device's project and metro).
    pub vlan: u32,
    /// On or off the port.
    #[serde(default)]
    pub state: BatchAssignmentState,
    /// Whether the VLAN is (`true`) or is no longer (`false`) the port's
    /// native VLAN; absent: left as it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub native: Option<bool>,
}

/// A batch of VLAN assignments to one port of a device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PortVlanBatch {
    /// Its ID.
    pub id: Uuid,
    /// The port's ID.
    pub port: Uuid,
    /// The project of the port's device.
    pub project: Uuid,
    /// Its assignments, applied in order.
    pub vlan_assignments: Vec<BatchAssignment>,
    /// Where it is (a queued or in-progress one goes on after its delay).
    #[serde(default)]
    pub state: BatchState,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub error_messages: Vec<String>,
}

/// A batch as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: PortVlanBatch,
    pub(crate) meta: Meta,
    /// The port's device.
    pub(crate) device: Uuid,
}

record!(Kept, Kind::PortVlanBatch, |k| Scope {
    project: Some(k.rec.project),
    device: Some(k.device),
    ..Scope::default()
});
