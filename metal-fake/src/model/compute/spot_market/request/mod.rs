//! Spot market requests: bids for `devices_min` to `devices_max` spot
//! instances of one plan in a metro (or facilities), made through the
//! device create path.
//!
//! - `record`: [`SpotMarketRequest`], what the world keeps and its
//!   document entry.
//! - `rules`: the create (its checks, the bid, capacity, its devices)
//!   and the delete (`force_termination`).
//! - `view`: a request as the API sends it.
//! - `operations`: the operations modelled, who owns a request, and how
//!   requests load and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::entry;
pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::SpotMarketRequest;

/// The collection of requests' paths and hrefs.
pub(crate) const COLLECTION: &str = "spot-market-requests";

crate::model::journal::owned_table! {
    /// The world's spot market requests, by ID: written only here.
    SpotRequests of Kept
}
