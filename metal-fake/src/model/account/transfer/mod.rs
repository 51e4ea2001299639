//! Project transfer requests: a project asks to move to another
//! organisation; a member of that organisation accepts (the project moves)
//! or declines (the request goes).
//!
//! - `operations`: the record ([`Transfer`], also its world-document
//!   entry), the operations modelled, the view, who sees a request, and
//!   how requests load and save.

mod operations;

pub use operations::Transfer;
pub(crate) use operations::{Kept, RESOURCE};

/// The collection of transfer requests' paths and hrefs.
pub(crate) const COLLECTION: &str = "transfers";

crate::model::journal::owned_table! {
    /// The world's project transfer requests, by ID: written only here.
    Transfers of Kept
}
