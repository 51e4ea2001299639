//! Devices' network ports: every device has the ports of its plan (`bond0`
//! over `eth0` and `eth1`, or two bonds over four ports), each with the
//! VLANs assigned to it, its native VLAN, whether it is in its bond, and
//! (a bond) whether it is layer 2. The bond's `network_type` follows from
//! them.
//!
//! - `layout`: the ports each plan has, their IDs (derived from the
//!   device's, stable) and MAC addresses.
//! - `record`: [`Port`], a port's state where it differs from a fresh
//!   server's (also its entry in the world document).
//! - `rules`: assign and unassign a VLAN, the native VLAN, bond and
//!   disbond, convert to layer 2 or 3, with the API's refusals; the
//!   network type.
//! - `view`: a port as the API sends it (and as a device's
//!   `network_ports` show it).
//! - `operations`: the operations modelled, who owns a port, and how
//!   ports load and save.

mod layout;
mod operations;
mod record;
mod rules;
mod view;

pub(crate) use layout::macs_of;
pub(crate) use operations::RESOURCE;
pub(crate) use record::Kept;
pub use record::Port;
pub(crate) use view::DevicePorts;
pub(crate) use view::PortView;

/// The collection of ports' paths and hrefs.
pub(crate) const COLLECTION: &str = "ports";

crate::model::journal::owned_table! {
    /// The world's ports changed from a fresh server's, by ID: written only here.
    Ports of Kept
}
