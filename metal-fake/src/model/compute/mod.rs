//! The compute family: devices, the hardware reservations they run on,
//! the capacity on-demand devices take their machines from, the
//! licenses projects hold, the spot market (its prices, and the
//! requests that make spot devices), device batches, and self-service
//! reservations.
//! Its resources, in the order a world document loads them, are
//! [`RESOURCES`].

pub(crate) mod batch;
pub(crate) mod capacity;
pub(crate) mod device;
pub(crate) mod hardware_reservation;
pub(crate) mod license;
pub(crate) mod self_service_reservation;
pub(crate) mod spot_market;

use super::Resource;

/// The compute family's resources, in load order (a device names the
/// reservation it runs on; capacity names only the catalog; a spot market
/// request names its devices).
pub(crate) static RESOURCES: &[&Resource] = &[
    &capacity::RESOURCE,
    &hardware_reservation::RESOURCE,
    &device::RESOURCE,
    &license::RESOURCE,
    &spot_market::price::RESOURCE,
    &spot_market::request::RESOURCE,
    &batch::RESOURCE,
    &self_service_reservation::RESOURCE,
];
