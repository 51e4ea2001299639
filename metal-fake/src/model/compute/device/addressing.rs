//! A device's own addresses as its first bond's layer changes them: the
//! bond converted to layer 2 takes them away (with the public IPv4 its
//! create took from a reserved block); back to layer 3 it gets those its
//! conversion asks for (packngo's `ConvertToLayerTwo`: "IP assignments of
//! the port will be removed"; `ConvertToLayerThree`'s `request_ips`).

use tokio::time::Instant;
use uuid::Uuid;

use super::record::OwnAddress;
use crate::model::World;

/// The three kinds a device gets by default, in the order its
/// `ip_addresses` lists them.
const ALL: [OwnAddress; 3] = [
    OwnAddress::PublicIpv4,
    OwnAddress::PublicIpv6,
    OwnAddress::PrivateIpv4,
];

impl World {
    /// Device `id` has no addresses of its own any more, nor the public
    /// IPv4 its create took from a reserved block (whose assignment the
    /// IP folder removes: [`World::remove_device_assignments`]).
    pub(crate) fn drop_own_addresses(&mut self, id: Uuid, now: Instant) {
        self.devices
            .rows
            .update(&mut self.journal, id, "addresses_removed", now, |d| {
                d.rec.own_addresses = Some(Vec::new());
                d.rec.public_ipv4_assignment = None;
            });
    }

    /// Device `id` gets `kinds` as its own addresses (once each; all
    /// three are the default, which the world document leaves out).
    pub(crate) fn give_own_addresses(&mut self, id: Uuid, kinds: &[OwnAddress], now: Instant) {
        let own: Vec<OwnAddress> = ALL.into_iter().filter(|k| kinds.contains(k)).collect();
        let own = (own.len() < ALL.len()).then_some(own);
        self.devices
            .rows
            .update(&mut self.journal, id, "addresses_requested", now, |d| {
                d.rec.own_addresses = own;
            });
    }
}
