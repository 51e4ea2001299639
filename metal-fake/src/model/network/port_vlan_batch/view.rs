//! A port VLAN assignment batch, and a port's VLAN assignments, as the
//! API sends them: the port whole when included (metal-cli asks for it),
//! else its href.

use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{BatchAssignmentState, BatchState, Kept};
use crate::call::ApiError;
use crate::model::port::{self, PortView};
use crate::model::project;
use crate::model::render::{Expand, Stamp, Stub};
use crate::model::vlan;
use crate::model::World;

/// A batch's port: whole when included, else a stub.
#[derive(Serialize)]
#[serde(untagged)]
enum PortField<'a> {
    Full(Box<PortView<'a>>),
    Stub(Stub),
}

/// A batch in a reply (`PortVlanAssignmentBatch`).
#[derive(Serialize)]
pub(crate) struct BatchView<'a> {
    id: Uuid,
    port: PortField<'a>,
    project: Stub,
    quantity: usize,
    state: BatchState,
    error_messages: &'a [String],
    vlan_assignments: Vec<AssignmentItem>,
    created_at: Stamp,
    updated_at: Stamp,
}

/// One assignment of a batch.
#[derive(Serialize)]
struct AssignmentItem {
    id: Uuid,
    vlan: u32,
    state: BatchAssignmentState,
    native: bool,
}

/// A port's batches (`PortVlanAssignmentBatchList`).
#[derive(Serialize)]
pub(crate) struct BatchList<'a> {
    pub(crate) batches: Vec<BatchView<'a>>,
}

/// A VLAN on a port (`PortVlanAssignment`).
#[derive(Serialize)]
pub(crate) struct AssignmentView {
    id: Uuid,
    port: Stub,
    virtual_network: Stub,
    vlan: u32,
    native: bool,
    state: &'static str,
    created_at: Stamp,
    updated_at: Stamp,
}

impl AssignmentView {
    /// Its ID.
    pub(crate) fn id(&self) -> Uuid {
        self.id
    }
}

/// A port's VLAN assignments (`PortVlanAssignmentList`).
#[derive(Serialize)]
pub(crate) struct AssignmentList {
    pub(crate) vlan_assignments: Vec<AssignmentView>,
}

/// The ID of the assignment of VLAN `vlan` to port `port`: both IDs
/// folded together, so that it is the same on every read.
pub(crate) fn assignment_id(port: Uuid, vlan: Uuid) -> Uuid {
    Uuid::from_u128(port.as_u128() ^ vlan.as_u128())
}

impl World {
    /// `b` as the API shows it at `now`, with `expand` applied.
    pub(crate) fn batch_view<'a>(
        &'a self,
        b: &'a Kept,
        expand: &Expand,
        now: Instant,
    ) -> BatchView<'a> {
        let port =
            match self.find_port(b.rec.port) {
                Ok((d, slot)) if expand.includes("port") => PortField::Full(Box::new(
                    self.port_view(d, slot, &expand.nested("port"), now),
                )),
                _ => PortField::Stub(Stub::new(port::COLLECTION, b.rec.port)),
            };
        BatchView {
            id: b.rec.id,
            port,
            project: Stub::new(project::COLLECTION, b.rec.project),
            quantity: b.rec.vlan_assignments.len(),
            state: b.rec.state,
            error_messages: &b.rec.error_messages,
            vlan_assignments: b
                .rec
                .vlan_assignments
                .iter()
                .map(|a| AssignmentItem {
                    id: a.id,
                    vlan: a.vlan,
                    state: a.state,
                    native: a.native.unwrap_or(false),
                })
                .collect(),
            created_at: Stamp(self.clock.wall(b.meta.created)),
            updated_at: Stamp(self.clock.wall(b.meta.updated)),
        }
    }

    /// The VLANs on port `port` now, as assignments (their times the
    /// VLANs'); `404` when no device has the port.
    pub(crate) fn port_assignments(&self, port: Uuid) -> Result<Vec<AssignmentView>, ApiError> {
        let (d, slot) = self.find_port(port)?;
        let state = self.port_state(d.rec.id, slot);
        Ok(state
            .vlans
            .iter()
            .filter_map(|v| self.vlans.get(v))
            .map(|v| AssignmentView {
                id: assignment_id(port, v.rec.id),
                port: Stub::new(port::COLLECTION, port),
                virtual_network: Stub::new(vlan::COLLECTION, v.rec.id),
                vlan: v.rec.vxlan,
                native: state.native == Some(v.rec.id),
                state: "assigned",
                created_at: Stamp(self.clock.wall(v.meta.created)),
                updated_at: Stamp(self.clock.wall(v.meta.updated)),
            })
            .collect())
    }
}
