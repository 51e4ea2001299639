//! The compute family: devices and the hardware reservations they run on.
//! Its resources, in the order a world document loads them, are
//! [`RESOURCES`].

pub(crate) mod device;
pub(crate) mod hardware_reservation;

use super::Resource;

/// The compute family's resources, in load order (a device names the
/// reservation it runs on).
pub(crate) static RESOURCES: &[&Resource] = &[&hardware_reservation::RESOURCE, &device::RESOURCE];
