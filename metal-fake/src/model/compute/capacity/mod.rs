//! Capacity: how many machines of a plan a metro or facility has for
//! on-demand devices, and how the API reports it (a level, never a count).
//!
//! - `record`: [`Capacity`], one pool's document entry, and the world's
//!   table of pools.
//! - `rules`: what an on-demand create takes (and its delete gives back),
//!   the level a metro or facility reports, a capacity check.
//! - `view`: the capacity lists and check replies.
//! - `operations`: the operations modelled (the global ones and the
//!   organization's twins), and how the pools load and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub use record::{Capacity, CapacityLevel};
pub(crate) use record::{Table, DEFAULT_ON_DEMAND};
pub(crate) use rules::{Place, NO_FACILITY, NO_SERVERS_IN_METRO};

/// The collection of capacity's paths.
pub(crate) const COLLECTION: &str = "capacity";
