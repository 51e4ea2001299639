//! Virtual networks (VLANs): a project's layer-2 networks, one metro
//! each, numbered by `vxlan` (unique in the metro), that devices' ports
//! join (`model/network/port`).
//!
//! - `record`: [`VirtualNetwork`], what the world keeps and its document
//!   entry.
//! - `rules`: a create (metro or facility, `vxlan` given or the next
//!   free one), an update, a delete (refused while ports are on it).
//! - `view`: a VLAN as the API sends it.
//! - `operations`: the operations modelled, who owns a VLAN, and how
//!   VLANs load and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::VirtualNetwork;
pub(crate) use view::VlanField;

/// The collection of VLANs' paths and hrefs.
pub(crate) const COLLECTION: &str = "virtual-networks";

crate::model::journal::owned_table! {
    /// The world's virtual networks (VLANs), by ID: written only here.
    Vlans of Kept
}
