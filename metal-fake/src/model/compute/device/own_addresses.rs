//! A device's own addresses, derived from its record alone (its creation
//! order, which of the three it has, their prefix lengths): their text,
//! netmasks and IDs, stable across reads. What its view, its metadata, a
//! list's `search`, the project's IP reservations and a BGP session's
//! neighbour data show of them.

use std::fmt;

use serde::{Serialize, Serializer};
use uuid::Uuid;

use super::record::{Kept, OwnAddress, OwnCidrs};

/// An ID derived from `base` (a device's), stable across reads.
pub(super) fn derived_id(base: Uuid, n: u128) -> Uuid {
    Uuid::from_u128(base.as_u128() ^ (n << 96))
}

/// The three numbers a device's addresses are made from, derived from its
/// creation order (stable, distinct per device; wraps after 2^24 devices,
/// far beyond any world the fake holds).
fn address_parts(seq: u64) -> (u32, u32, u32) {
    let n = (seq & 0x00ff_ffff) as u32;
    ((n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff)
}

/// One of a device's three addresses: `(address, network)`.
#[derive(Clone, Copy)]
enum Family {
    Public4,
    Public6,
    Private4,
}

/// Which address of a device's own block a text is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    Address,
    Network,
    Gateway,
}

/// An address of a device's own block, written without allocating: a
/// /31 (or an IPv6 block) is its network and the address after it (the
/// gateway the network itself); a larger IPv4 block is its network, its
/// gateway the address after it, the device's address the next, from a
/// range of its own per size, so blocks of every size stay apart.
pub(super) struct AddressText {
    family: Family,
    seq: u64,
    cidr: u8,
    part: Part,
}

impl fmt::Display for AddressText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (hi, mid, lo) = address_parts(self.seq);
        let v4 = |a: u32, b: u32| {
            if self.cidr >= 31 {
                let base = (a << 24) | (b << 16) | (mid << 8) | ((lo & 0x7f) << 1);
                return V4(if self.part == Part::Address {
                    base + 1
                } else {
                    base
                });
            }
            // /28 to /30: 16 second octets a size, from 166 up.
            let size = 1u32 << (32 - u32::from(self.cidr.max(28)));
            let b = 150 + (31 - u32::from(self.cidr.max(28))) * 16 + (hi & 0xf);
            let base = (a << 24) | (b << 16) | (mid << 8) | ((lo % (256 / size)) * size);
            V4(match self.part {
                Part::Network => base,
                Part::Gateway => base + 1,
                Part::Address => base + 2,
            })
        };
        match self.family {
            Family::Public4 => write!(f, "{}", v4(147, 75 + (hi & 0x3f))),
            Family::Private4 => write!(f, "{}", v4(10, 64 + hi)),
            Family::Public6 => {
                let host = if self.part == Part::Address { "1" } else { "" };
                write!(f, "2604:1380:{hi:x}:{:x}::{host}", (mid << 8) | lo)
            }
        }
    }
}

impl Serialize for AddressText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// One of a device's own blocks: which it is, its place in the device's
/// addresses, its family, address family, publicity and prefix length.
#[derive(Clone, Copy)]
pub(super) struct Own {
    kind: OwnAddress,
    pub(super) index: usize,
    family: Family,
    pub(super) address_family: u8,
    pub(super) public: bool,
    pub(super) cidr: u8,
}

impl Own {
    pub(super) fn text(self, seq: u64, part: Part) -> AddressText {
        AddressText {
            family: self.family,
            seq,
            cidr: self.cidr,
            part,
        }
    }

    /// Its netmask, as text.
    pub(super) fn netmask(self) -> String {
        if self.address_family == 6 {
            let mask = u128::MAX << (128 - u32::from(self.cidr.min(128)));
            std::net::Ipv6Addr::from(mask).to_string()
        } else {
            let mask = (u64::from(u32::MAX) << (32 - u32::from(self.cidr.min(32)))) as u32;
            std::net::Ipv4Addr::from(mask).to_string()
        }
    }
}

/// The own blocks a device with `own` (`None`: all three) and `cidrs`
/// has, in the order its `ip_addresses` lists them.
pub(super) fn own_kinds(own: Option<&[OwnAddress]>, cidrs: &OwnCidrs) -> Vec<Own> {
    [
        (OwnAddress::PublicIpv4, Family::Public4, 4, true),
        (OwnAddress::PublicIpv6, Family::Public6, 6, true),
        (OwnAddress::PrivateIpv4, Family::Private4, 4, false),
    ]
    .into_iter()
    .enumerate()
    .filter(|(_, (kind, ..))| own.is_none_or(|o| o.contains(kind)))
    .map(|(index, (kind, family, address_family, public))| Own {
        kind,
        index,
        family,
        address_family,
        public,
        cidr: cidrs.of(kind),
    })
    .collect()
}

/// The addresses of device `d` (its own, once it has them), as text
/// (what the list's `search` and a BGP session's neighbour data read),
/// in the order public IPv4, public IPv6, private IPv4.
pub(crate) fn address_texts(d: &Kept) -> impl Iterator<Item = String> {
    let seq = d.meta.seq;
    own_kinds(None, &d.rec.own_cidrs)
        .into_iter()
        .map(move |o| o.text(seq, Part::Address).to_string())
}

/// One of a device's own addresses (once it has them), as text: what
/// its metadata lists and what the project's list of IP reservations
/// shows as the device's own block.
#[derive(Clone, Debug)]
pub(crate) struct OwnBlock {
    /// Which of its own it is.
    pub(crate) kind: OwnAddress,
    /// The ID of its assignment (as the device's `ip_addresses` shows it).
    pub(crate) assignment: Uuid,
    /// The ID of the block it is, as the project's IP reservations list
    /// it.
    pub(crate) block: Uuid,
    /// The address.
    pub(crate) address: String,
    /// The network.
    pub(crate) network: String,
    /// The gateway (the network itself for a /31 or an IPv6 block).
    pub(crate) gateway: String,
    /// The netmask.
    pub(crate) netmask: String,
    /// The prefix length (31 or 127 unless the create asked another).
    pub(crate) cidr: u8,
    /// 4 or 6.
    pub(crate) address_family: u8,
    /// Whether it is public.
    pub(crate) public: bool,
}

/// Where the derived IDs of a device's own blocks begin (its assignments'
/// are 1 to 3).
const OWN_BLOCK_IDS: u128 = 0x11;

/// The device whose own block `block` might be, and which of its three
/// (`0` to `2`): the device is the world's to look up.
pub(crate) fn own_block_owner(block: Uuid) -> impl Iterator<Item = (Uuid, usize)> {
    (0..3usize).map(move |i| (derived_id(block, OWN_BLOCK_IDS + i as u128), i))
}

/// `d`'s own addresses, in the order its `ip_addresses` lists them; none
/// before it has them.
pub(crate) fn own_blocks(d: &Kept) -> Vec<OwnBlock> {
    if !d.state().has_addresses() {
        return Vec::new();
    }
    let seq = d.meta.seq;
    own_kinds(d.rec.own_addresses.as_deref(), &d.rec.own_cidrs)
        .into_iter()
        .map(|o| OwnBlock {
            kind: o.kind,
            assignment: derived_id(d.rec.id, o.index as u128 + 1),
            block: derived_id(d.rec.id, OWN_BLOCK_IDS + o.index as u128),
            address: o.text(seq, Part::Address).to_string(),
            network: o.text(seq, Part::Network).to_string(),
            gateway: o.text(seq, Part::Gateway).to_string(),
            netmask: o.netmask(),
            cidr: o.cidr,
            address_family: o.address_family,
            public: o.public,
        })
        .collect()
}

/// An IPv4 address, written without `Ipv4Addr`'s padding machinery.
struct V4(u32);

impl fmt::Display for V4 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut text = [0u8; 15];
        let mut n = 0;
        for (i, octet) in self.0.to_be_bytes().into_iter().enumerate() {
            if i > 0 {
                text[n] = b'.';
                n += 1;
            }
            let digits = [octet / 100, octet / 10 % 10, octet % 10];
            let skip = if octet >= 100 {
                0
            } else if octet >= 10 {
                1
            } else {
                2
            };
            for d in &digits[skip..] {
                text[n] = b'0' + d;
                n += 1;
            }
        }
        // Only ASCII digits and dots were written.
        f.write_str(std::str::from_utf8(&text[..n]).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_written_as_std_writes_them() {
        for v in [0u32, 1, 0x0a40_0102, 0x934b_ff7f, u32::MAX, 0x0a00_6400] {
            assert_eq!(V4(v).to_string(), std::net::Ipv4Addr::from(v).to_string());
        }
    }
}
