//! Elastic IPs of a Metal Gateway: addresses of the project's public
//! blocks that a VRF gateway routes to a next hop inside its own block.
//!
//! - `record`: [`ElasticIp`], what the world keeps and its document entry.
//! - `rules`: a create's refusals (a VRF gateway only, an address of the
//!   project's public blocks not taken, a next hop in the gateway's block).
//! - `view`: an elastic IP as the API sends it (an `IPAssignment`).
//! - `operations`: the operations modelled, who owns an elastic IP, and
//!   how elastic IPs load and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub use record::ElasticIp;
pub(crate) use record::Kept;

crate::model::journal::owned_table! {
    /// The world's Metal Gateways' elastic IPs, by ID: written only here.
    ElasticIps of Kept
}
