//! The compute family: devices, the hardware reservations they run on,
//! and the capacity on-demand devices take their machines from.
//! Its resources, in the order a world document loads them, are
//! [`RESOURCES`].

pub(crate) mod capacity;
pub(crate) mod device;
pub(crate) mod hardware_reservation;

use super::Resource;

/// The compute family's resources, in load order (a device names the
/// reservation it runs on; capacity names only the catalog).
pub(crate) static RESOURCES: &[&Resource] = &[
    &capacity::RESOURCE,
    &hardware_reservation::RESOURCE,
    &device::RESOURCE,
];
