//! Metal Gateways: a project's router on one of its VLANs, with a block of
//! addresses: a private IPv4 block made with it (and released with it),
//! or a reserved block of the VLAN's metro named.
//!
//! - `record`: [`MetalGateway`], what the world keeps and its document
//!   entry.
//! - `rules`: a create (the VLAN free of gateways, the block of its metro
//!   and project), a delete (gone at once with a block made with it, or
//!   `deleting` first when a test sets a lag).
//! - `view`: a gateway as the API sends it.
//! - `lite`: the short form VLANs and IP reservations show.
//! - `operations`: the operations modelled, who owns a gateway, and how
//!   gateways load and save.

mod lite;
mod operations;
mod record;
mod rules;
mod view;

pub(crate) use lite::GatewayLite;
pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::MetalGateway;

/// The collection of gateways' paths and hrefs.
pub(crate) const COLLECTION: &str = "metal-gateways";

crate::model::journal::owned_table! {
    /// The world's Metal Gateways, by ID: written only here.
    Gateways of Kept
}
