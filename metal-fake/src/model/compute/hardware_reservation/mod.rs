//! Hardware reservations: the servers a project holds, which devices are
//! provisioned on.
//!
//! - `record`: [`HardwareReservation`], what the world keeps and its
//!   document entry; whether a create on it would succeed.
//! - `rules`: moving one between projects; the stale list after a release.
//! - `filter`: the filters of the project's reservation list.
//! - `view`: a reservation as the API sends it.
//! - `by_organization`: an organisation's reservations, a path outside
//!   the 2024 spec.
//! - `operations`: the operations modelled, who owns a reservation, and
//!   how reservations load and save.

mod by_organization;
mod filter;
mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub use record::HardwareReservation;
pub(crate) use record::{entry, Kept};
pub(crate) use view::ReservationView;

/// The collection of reservations' paths and hrefs.
pub(crate) const COLLECTION: &str = "hardware-reservations";

crate::model::journal::owned_table! {
    /// The world's hardware reservations, by ID: written only here.
    Reservations of Kept
}
