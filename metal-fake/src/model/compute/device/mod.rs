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
//! - `filter`: the filters of the project's device list.
//! - `view`: a device as the API sends it.
//! - `operations`: the operations modelled, and who owns a device.

mod create;
mod filter;
mod on_demand;
mod operations;
mod record;
mod rules;
mod view;

pub(crate) use create::read_create_body;
pub(crate) use operations::RESOURCE;
pub use record::{Device, DeviceState, OwnAddress};
pub(crate) use record::{Kept, Step, FAILED_PROVISIONING_PROJECT};
pub(crate) use view::{address_texts, Addresses, DeviceField, COLLECTION};
