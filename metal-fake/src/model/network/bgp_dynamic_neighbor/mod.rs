//! BGP dynamic neighbours: a range of addresses of a VRF gateway's block
//! from which peers of one ASN may open BGP sessions with the gateway.
//!
//! - `record`: [`BgpDynamicNeighbor`], what the world keeps and its
//!   document entry.
//! - `rules`: a create (a VRF gateway, a range inside its block, a 4-byte
//!   ASN), a delete.
//! - `view`: a neighbour as the API sends it.
//! - `operations`: the operations modelled, who owns a neighbour, and how
//!   neighbours load and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::{BgpDynamicNeighbor, NeighborState};

/// The collection of neighbours' paths and hrefs.
pub(crate) const COLLECTION: &str = "bgp-dynamic-neighbors";

crate::model::journal::owned_table! {
    /// The world's VRF gateways' BGP dynamic neighbours, by ID: written only here.
    BgpDynamicNeighbors of Kept
}
