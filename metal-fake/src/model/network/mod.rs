//! The network family: IP reservations and their assignments to devices.
//! Its resources, in the order a world document loads them, are
//! [`RESOURCES`].

pub(crate) mod ip_reservation;

use super::Resource;

/// The network family's resources, in load order.
pub(crate) static RESOURCES: &[&Resource] = &[&ip_reservation::RESOURCE];
