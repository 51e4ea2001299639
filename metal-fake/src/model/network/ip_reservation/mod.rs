//! IP reservations (blocks of elastic addresses a project reserves) and
//! their assignments to devices. One concept: both live under `/ips/{id}`
//! (`findIPAddressById` and `deleteIPAddress` serve either), and an
//! assignment is a part of its reservation.
//!
//! - `record`: [`IpReservation`] and [`IpAssignment`], what the world keeps
//!   and their document entries; the table of both.
//! - `block`: a block of IPv4 addresses, as every rule reads one.
//! - `rules`: a request (type, quantity, location, quota), an assignment
//!   (an address of one of the project's blocks, in the device's metro),
//!   an unassignment, a release (refused while assigned); the address
//!   pools blocks come from.
//! - `at_create`: the addresses a device's create asks for, and its public
//!   IPv4 from a reserved block.
//! - `availability`: the free addresses of a reservation for a prefix
//!   length, and the custom data reads.
//! - `device_blocks`: a device's own blocks, as its project's list of IP
//!   reservations (and `GET /ips/{id}`) shows them.
//! - `update`: `PATCH /ips/{id}`, a reservation's details, tags and
//!   custom data.
//! - `view`: a reservation and an assignment as the API sends them.
//! - `vrf_block`: a VRF's blocks (`type: vrf`), requested inside the
//!   VRF's ranges.
//! - `vrf_view`: a VRF's block as the API sends it, and either kind
//!   where a reply may hold both.
//! - `operations`: the operations modelled, who owns an address, and how
//!   reservations and their assignments load and save.

mod at_create;
mod availability;
mod block;
mod device_blocks;
mod operations;
mod record;
mod rules;
mod update;
mod view;
mod vrf_block;
mod vrf_view;

pub(crate) use block::Block;
pub(crate) use operations::entry;
pub(crate) use operations::RESOURCE;
pub(crate) use record::Table;
pub use record::{IpAssignment, IpReservation, IpReservationState, IpReservationType};
pub(crate) use view::{Addressing, AssignmentView, ParentBlock};
pub(crate) use vrf_view::{AnyReservationView, VrfReservationView};

/// The collection of IP addresses' paths and hrefs.
pub(crate) const COLLECTION: &str = "ips";
