//! VRFs (virtual routing and forwarding): a project's routing domain in
//! one metro, with its own ASN and the IPv4 and IPv6 ranges it routes.
//! Its IP reservations (`type: vrf`) are blocks of the IP reservations
//! table (`model/network/ip_reservation/vrf_block.rs`); a Metal Gateway on
//! such a block is the VRF's gateway.
//!
//! - `record`: [`Vrf`], what the world keeps and its document entry.
//! - `range`: an IP range of a VRF (a CIDR), read and checked.
//! - `rules`: a create (metro, a name unique in the project, ranges apart
//!   from the project's other VRFs in the metro), an update (ranges that
//!   still hold the VRF's blocks), a delete (refused while in use).
//! - `view`: a VRF as the API sends it.
//! - `operations`: the operations modelled, who owns a VRF, and how VRFs
//!   load and save.

mod operations;
pub(crate) mod range;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::Vrf;
pub(crate) use view::VrfField;

/// The collection of VRFs' paths and hrefs.
pub(crate) const COLLECTION: &str = "vrfs";

crate::model::journal::owned_table! {
    /// The world's VRFs, by ID: written only here.
    Vrfs of Kept
}
