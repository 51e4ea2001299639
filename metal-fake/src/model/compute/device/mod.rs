//! Devices: their lifecycle on the fake's clock, the rules of each change,
//! the list's filters, and how the API shows them.
//!
//! - `record`: [`Device`], what the world keeps and its document entry;
//!   the state it reports at an instant.
//! - `create`: the create request as clients send it, the reservation it
//!   lands on (named, or `next-available`), the SSH keys it gets.
//! - `on_demand`: where a create without a reservation puts its device
//!   (the catalog's checks, a machine from the place's capacity).
//! - `rules`: update, actions, delete, the changes due as time passes,
//!   competitors.
//! - `addressing`: its own addresses as its bond's layer 2 or 3 changes
//!   them.
//! - `provisioning`: the steps a provisioning device reports (its
//!   provisioning events).
//! - `failures`: which devices fail to provision (scripted or drawn).
//! - `filter`: the filters of the project's device list.
//! - `table`: the devices, with their provisioning's own state (which
//!   fail, how many were made), written only in this folder.
//! - `own_addresses`: its own addresses, derived from its record: their
//!   text, netmasks and IDs (what its view, metadata and search read, and
//!   other folders' rules).
//! - `view`: a device as the API sends it.
//! - `metadata`: what a device knows of itself (metadata, custom data,
//!   user data), and the check of user data.
//! - `keys`: the SSH keys it got at create.
//! - `usage`: the hours it ran and their cost, its own and its project's.
//! - `telemetry`: its bandwidth and traffic (zero-filled series).
//! - `diagnostics`: its health rollup and a console screenshot.
//! - `firmware`: firmware sets (none modelled).
//! - `operations`: the operations modelled, who owns a device, and how
//!   the devices load and save.

mod addressing;
mod create;
mod diagnostics;
mod failures;
mod filter;
mod firmware;
mod keys;
mod metadata;
mod on_demand;
mod operations;
mod own_addresses;
pub(crate) mod provisioning;
mod record;
mod rules;
mod table;
mod telemetry;
mod usage;
mod view;

pub(crate) use create::read_create_body;
pub(crate) use failures::FailurePlan;
pub use failures::{FailProvisioning, RandomFailures};
pub(crate) use filter::DeviceFilter;
pub(crate) use operations::RESOURCE;
pub(crate) use own_addresses::{address_texts, own_block_owner, own_blocks, OwnBlock};
pub(crate) use record::{entry, smallest_public_ipv4, Kept, Step, FAILED_PROVISIONING_PROJECT};
pub use record::{Device, DeviceState, OwnAddress, OwnCidrs};
pub(crate) use table::Devices;
pub(crate) use view::{Addresses, DeviceField, ReservationWithDevice, EXCLUDED_BY_VIEW};

/// The collection of devices' paths and hrefs.
pub(crate) const COLLECTION: &str = "devices";
