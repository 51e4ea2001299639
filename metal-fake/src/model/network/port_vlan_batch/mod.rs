//! Port VLAN assignment batches: several VLANs assigned to or taken off
//! one port (and its native VLAN set or unset) in one request, applied
//! through the port's own rules (`model/network/port`) on the fake's
//! clock: `queued`, `in_progress`, then `completed` or `failed` with its
//! error messages. A port's current VLANs are its VLAN assignments.
//!
//! - `record`: [`PortVlanBatch`], what the world keeps and its document
//!   entry.
//! - `rules`: a batch's create, its timed steps and what each assignment
//!   does to the port.
//! - `view`: a batch and a port's assignments as the API sends them.
//! - `operations`: the operations modelled, and how batches load and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::{BatchAssignment, BatchAssignmentState, BatchState, PortVlanBatch};

crate::model::journal::owned_table! {
    /// The world's port VLAN assignment batches, by ID: written only here.
    PortVlanBatches of Kept
}
