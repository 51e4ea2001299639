//! Device batches: many devices asked for in one call, each entry a
//! `createDevice` body with a `quantity` (or `hostnames`), made through
//! the device create path.
//!
//! - `record`: [`Batch`], what the world keeps and its document entry.
//! - `rules`: the create (each entry's devices, and what could not be
//!   made) and the delete (`remove_associated_instances`).
//! - `view`: a batch as the API sends it.
//! - `operations`: the operations modelled, who owns a batch, and how
//!   batches load and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::entry;
pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::{Batch, DeviceBatchState};

/// The collection of batches' paths.
pub(crate) const COLLECTION: &str = "batches";

crate::model::journal::owned_table! {
    /// The world's device batches, by ID: written only here.
    Batches of Kept
}
