//! Self-service reservations: a project's order of hardware for a period
//! (items of a plan in a metro, a quantity and a term), priced from the
//! catalog.
//!
//! - `record`: [`SelfServiceReservation`], what the world keeps and its
//!   document entry.
//! - `rules`: the create and what it may ask.
//! - `view`: a reservation as the API sends it.
//! - `operations`: the operations modelled, and how reservations load
//!   and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::{Period, ReservationItem, SelfServiceReservation};

crate::model::journal::owned_table! {
    /// The world's self-service reservations, by ID: written only here.
    SelfServiceReservations of Kept
}
