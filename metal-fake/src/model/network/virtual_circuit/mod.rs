//! Virtual circuits: a VLAN, or a VRF's routes (BGP with a peer over a
//! small subnet), carried over an interconnection's port, made on a
//! dedicated port's (with an `nni_vlan` unique on it) or with a shared
//! connection (one a port); each becomes active, and a deleted one goes,
//! on the fake's clock.
//!
//! - `record`: [`VirtualCircuit`], what the world keeps and its document
//!   entry.
//! - `rules`: a create, an update, a delete, and the timed steps.
//! - `vrf`: a VRF circuit's VRF and peering, checked against the VRF.
//! - `peering`: a peering subnet's addresses, and the MD5 password.
//! - `view`: a circuit as the API sends it.
//! - `operations`: the operations modelled, who owns a circuit, and how
//!   circuits load and save.
//! - `by_project`: a create through the circuit's project, a path
//!   outside the 2024 spec that packngo used.

mod by_project;
mod operations;
mod peering;
mod record;
mod rules;
mod view;
mod vrf;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::{Peering, VirtualCircuit, VirtualCircuitStatus};
pub(crate) use view::{VcView, VrfVcView};

/// The collection of virtual circuits' paths.
pub(crate) const COLLECTION: &str = "virtual-circuits";

crate::model::journal::owned_table! {
    /// The world's virtual circuits, by ID: written only here.
    VirtualCircuits of Kept
}
