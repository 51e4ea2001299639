//! Global BGP ranges: the address ranges a project may announce over BGP
//! in every metro (granted by Equinix, so seeded from the world document
//! only: the API has no create).
//!
//! - `record`: [`GlobalBgpRange`], what the world keeps and its document
//!   entry.
//! - `view`: the project's ranges as the API sends them.
//! - `operations`: the operation modelled, who owns a range, and how
//!   ranges load and save.

mod operations;
mod record;
mod view;

pub(crate) use operations::RESOURCE;
pub use record::GlobalBgpRange;
pub(crate) use record::Kept;
pub(crate) use view::RangeView;

/// The collection of ranges' hrefs.
pub(crate) const COLLECTION: &str = "global-bgp-ranges";

crate::model::journal::owned_table! {
    /// The world's projects' global BGP ranges, by ID: written only here.
    GlobalBgpRanges of Kept
}
