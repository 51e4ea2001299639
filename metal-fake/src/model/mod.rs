//! The in-memory Metal world, one folder a resource, with device
//! lifecycles on the fake's clock ([`tokio::time::Instant`], so
//! paused-clock tests are deterministic).
//!
//! Each resource's folder owns its record (also its entry in the world
//! document), its rules, its view (how it renders, with
//! `include`/`exclude`, straight to bytes), its table of operations and
//! its owner (for access); its `operations.rs` gives one [`Resource`]
//! value, and [`RESOURCES`] lists them. The operations the fake models
//! are the union of their tables.
//!
//! - `device`, `hardware_reservation`, `ssh_key`, `project`,
//!   `organization`: the resources.
//! - `ip_reservation`: IP reservations and their assignments to devices.
//! - `catalog`: plans, operating systems, metros and facilities, listed.
//! - `user`: the current user.
//! - `access`: the world's tokens, and who may see what (`403`).
//! - `world`: the tables, and the world built, loaded and saved.
//! - `resource`: what a folder gives ([`Resource`]), and how an
//!   operation reads a call and acts.
//! - `list`, `render`, `load`: what every list, view and loader shares.
//! - `request`: how a request body is read (`null` as absent).
//! - `inspect`: what tests and `/_fake/state` look at ([`WorldCounts`]).
//! - `timings`: [`Timings`], how long each lifecycle phase lasts.

mod access;
mod bounds;
mod catalog;
pub(crate) mod device;
pub(crate) mod hardware_reservation;
mod inspect;
pub(crate) mod ip_reservation;
mod json;
mod list;
mod load;
pub(crate) mod organization;
pub(crate) mod project;
pub(crate) mod relations;
pub(crate) mod render;
pub(crate) mod request;
mod resource;
pub(crate) mod ssh_key;
mod timings;
pub(crate) mod user;
mod world;

pub(crate) use access::Access;
pub use access::Token;
pub(crate) use access::ACCESS_DENIED;
pub use catalog::{Facility, Metro, OperatingSystem, Plan};
pub use device::{Device, DeviceState};
pub use hardware_reservation::HardwareReservation;
pub use inspect::WorldCounts;
pub use ip_reservation::{IpAssignment, IpReservation, IpReservationState, IpReservationType};
pub use organization::Organization;
pub use project::{BgpConfig, Project};
pub(crate) use resource::{Modelled, Prepare, Prepared, Resource, Target};
pub use ssh_key::SshKey;
pub use timings::Timings;
pub(crate) use world::{World, WorldSpec};

/// Every resource the fake models, in the order a world document loads
/// them (a record names only records loaded before it). Adding a resource
/// is a folder and one line here.
pub(crate) static RESOURCES: &[&Resource] = &[
    &organization::RESOURCE,
    &project::RESOURCE,
    &hardware_reservation::RESOURCE,
    &device::RESOURCE,
    &ssh_key::RESOURCE,
    &ip_reservation::RESOURCE,
    &user::RESOURCE,
    &catalog::PLANS,
    &catalog::OPERATING_SYSTEMS,
    &catalog::METROS,
    &catalog::FACILITIES,
];

/// Every operation a resource models.
pub(crate) fn modelled() -> impl Iterator<Item = &'static Modelled> {
    RESOURCES.iter().flat_map(|r| r.operations.iter())
}

/// The resource whose things the `{id}` of `path` (an operation's path in
/// the spec, `/devices/{id}/actions`) names: the one of its first segment.
pub(crate) fn resource_of(path: &str) -> Option<&'static Resource> {
    let collection = path.trim_start_matches('/').split('/').next()?;
    RESOURCES
        .iter()
        .copied()
        .find(|r| r.collection == collection)
}
