//! VRF routes: a VRF's static routes (a default `0.0.0.0/0` among them),
//! each to a next hop inside one of the VRF's IP reservations, `pending`
//! until the fake's clock settles it `active`.
//!
//! - `record`: [`VrfRoute`], what the world keeps and its document entry.
//! - `rules`: a create and an update (an IPv4 prefix, unique in the VRF;
//!   a next hop in one of its blocks), the settling through the
//!   due-queue, a delete.
//! - `view`: a route as the API sends it.
//! - `operations`: the operations modelled, who owns a route, and how
//!   routes load and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::{RouteStatus, VrfRoute};

/// The collection of routes' paths and hrefs.
pub(crate) const COLLECTION: &str = "routes";

crate::model::journal::owned_table! {
    /// The world's VRF routes, by ID: written only here.
    VrfRoutes of Kept
}
