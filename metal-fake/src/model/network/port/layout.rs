//! The ports a device has, by plan: `bond0` over `eth0` and `eth1` on
//! the two-port plans; `bond0` over `eth0` and `eth3` and `bond1` over
//! `eth1` and `eth2` on the four-port ones. A port's ID is derived from
//! its device's (stable across reads, and back: an ID names its device),
//! and so is its MAC address.

use std::fmt;

use uuid::Uuid;

use crate::model::render::hex;

/// One port of a layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Slot {
    /// Its number, from which its ID is derived.
    pub(crate) index: u8,
    pub(crate) name: &'static str,
    /// The number of its bond (a physical port), or `None` (a bond).
    pub(crate) bond: Option<u8>,
    /// The low two bits of its MAC address (a physical port).
    mac: u8,
}

const fn bond(index: u8, name: &'static str) -> Slot {
    Slot {
        index,
        name,
        bond: None,
        mac: 0,
    }
}

const fn eth(index: u8, name: &'static str, of: u8, mac: u8) -> Slot {
    Slot {
        index,
        name,
        bond: Some(of),
        mac,
    }
}

/// A two-port server: `bond0` over `eth0` and `eth1` (the numbers are
/// those the fake always gave these ports, so their IDs stay).
const TWO: &[Slot] = &[bond(0, "bond0"), eth(1, "eth0", 0, 1), eth(2, "eth1", 0, 2)];

/// A four-port server: `bond0` over `eth0` and `eth3`, `bond1` over `eth1`
/// and `eth2`.
const FOUR: &[Slot] = &[
    bond(0, "bond0"),
    bond(3, "bond1"),
    eth(1, "eth0", 0, 1),
    eth(2, "eth1", 3, 2),
    eth(4, "eth2", 3, 3),
    eth(5, "eth3", 0, 0),
];

/// The plans whose servers have four ports.
const FOUR_PORT_PLANS: &[&str] = &["n2.xlarge.x86", "n3.xlarge.x86"];

/// The ports of a device on `plan`, bonds first, in the order the API
/// lists them.
pub(crate) fn layout(plan: &str) -> &'static [Slot] {
    if FOUR_PORT_PLANS.contains(&plan) {
        FOUR
    } else {
        TWO
    }
}

/// The slot named `name` of `plan`'s layout.
pub(crate) fn slot_named(plan: &str, name: &str) -> Option<Slot> {
    layout(plan).iter().copied().find(|s| s.name == name)
}

/// The slot numbered `index` of `plan`'s layout.
pub(crate) fn slot(plan: &str, index: u8) -> Option<Slot> {
    layout(plan).iter().copied().find(|s| s.index == index)
}

/// The ID of port `index` of `device`.
pub(crate) fn port_id(device: Uuid, index: u8) -> Uuid {
    Uuid::from_u128(device.as_u128() ^ ((10 + u128::from(index)) << 96))
}

/// One more than the highest port number of any layout.
const PORT_NUMBERS: u8 = 6;

/// The device and number a port ID would name (the device may not
/// exist), for each number a layout has.
pub(crate) fn candidates(port: Uuid) -> impl Iterator<Item = (Uuid, u8)> {
    (0..PORT_NUMBERS).map(move |index| (port_id(port, index), index))
}

/// The IDs every port of `device` could have, whatever its layout.
pub(crate) fn ids_of(device: Uuid) -> impl Iterator<Item = Uuid> {
    (0..PORT_NUMBERS).map(move |index| port_id(device, index))
}

/// A MAC address, written without allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mac(u64);

impl fmt::Display for Mac {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        let mut text = *b"0c:42:a1:00:00:00";
        for (i, byte) in [(v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff]
            .into_iter()
            .enumerate()
        {
            let at = 9 + 3 * i;
            hex(byte, &mut text[at..at + 2]);
        }
        // Only ASCII was written.
        f.write_str(std::str::from_utf8(&text).unwrap_or_default())
    }
}

impl serde::Serialize for Mac {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The MAC address of physical port `slot` of the device with creation
/// order `seq`: made up, stable per device, distinct between ports and
/// devices.
pub(crate) fn mac(slot: Slot, seq: u64) -> Option<Mac> {
    slot.bond?;
    Some(Mac(((seq & 0xff_ffff) << 2) | u64::from(slot.mac)))
}

/// The MAC addresses of the physical ports of a device on `plan` with
/// creation order `seq` (what the device list's `mac_address` matches).
pub(crate) fn macs_of(plan: &str, seq: u64) -> impl Iterator<Item = Mac> {
    layout(plan).iter().filter_map(move |s| mac(*s, seq))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_name_their_device_and_macs_are_distinct() {
        let device = Uuid::new_v4();
        for plan in ["c3.small.x86", "n3.xlarge.x86"] {
            let ids: Vec<Uuid> = layout(plan)
                .iter()
                .map(|s| port_id(device, s.index))
                .collect();
            for (s, id) in layout(plan).iter().zip(&ids) {
                assert!(candidates(*id).any(|c| c == (device, s.index)));
                assert_eq!(slot(plan, s.index), Some(*s));
                assert_eq!(slot_named(plan, s.name), Some(*s));
            }
            let mut unique = ids.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), ids.len());
            let mut macs: Vec<Mac> = macs_of(plan, 7).chain(macs_of(plan, 8)).collect();
            let n = macs.len();
            macs.sort_by_key(|m| m.0);
            macs.dedup();
            assert_eq!(macs.len(), n);
        }
        assert_eq!(Mac(0x01_02ab).to_string(), "0c:42:a1:01:02:ab");
        // The two-port layout keeps the MACs the fake always gave.
        let two: Vec<String> = macs_of("c3.small.x86", 1).map(|m| m.to_string()).collect();
        assert_eq!(two, ["0c:42:a1:00:00:05", "0c:42:a1:00:00:06"]);
    }
}
