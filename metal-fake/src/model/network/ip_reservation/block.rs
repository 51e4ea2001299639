//! A block of IPv4 addresses (a reservation's, an assignment's, a pool's):
//! what every rule of addresses reads; and a block of IPv6 addresses (a
//! VRF's IPv6 reservation).

use std::net::{Ipv4Addr, Ipv6Addr};

/// A block of IPv4 addresses: a network and a prefix length (0 to 32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    first: u32,
    cidr: u8,
}

impl Block {
    /// The block of `cidr` bits that `address` starts (`cidr` above 32 is
    /// taken as 32).
    pub(crate) fn new(address: Ipv4Addr, cidr: u8) -> Self {
        Self {
            first: u32::from(address),
            cidr: cidr.min(32),
        }
    }

    /// How many addresses it holds.
    pub(crate) fn size(self) -> u64 {
        1u64 << (32 - u32::from(self.cidr))
    }

    fn mask(self) -> u32 {
        // `cidr` is at most 32, so the shift is at most 32 bits of a u64.
        (u64::from(u32::MAX) << (32 - u32::from(self.cidr))) as u32
    }

    /// Its first address as a number.
    pub(crate) fn first(self) -> u32 {
        self.first
    }

    /// Its last address as a number.
    pub(crate) fn last(self) -> u32 {
        self.first | !self.mask()
    }

    /// Its network address (the first, with the host bits cleared).
    pub(crate) fn network(self) -> Ipv4Addr {
        Ipv4Addr::from(self.first & self.mask())
    }

    /// Its netmask.
    pub(crate) fn netmask(self) -> Ipv4Addr {
        Ipv4Addr::from(self.mask())
    }

    /// Its gateway: the address after the network, or the network itself
    /// for a single address.
    pub(crate) fn gateway(self) -> Ipv4Addr {
        let net = u32::from(self.network());
        Ipv4Addr::from(if self.cidr >= 32 { net } else { net + 1 })
    }

    /// Its prefix length.
    pub(crate) fn cidr(self) -> u8 {
        self.cidr
    }

    /// Whether `other` lies wholly inside it.
    pub(crate) fn holds(self, other: Block) -> bool {
        self.first <= other.first && other.last() <= self.last()
    }

    /// Whether the two share an address.
    pub(crate) fn overlaps(self, other: Block) -> bool {
        self.first <= other.last() && other.first <= self.last()
    }
}

/// A block of IPv6 addresses: a network and a prefix length (0 to 128).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Block6 {
    first: u128,
    cidr: u8,
}

impl Block6 {
    /// The block of `cidr` bits that `address` starts (`cidr` above 128
    /// is taken as 128).
    pub(crate) fn new(address: Ipv6Addr, cidr: u8) -> Self {
        Self {
            first: u128::from(address),
            cidr: cidr.min(128),
        }
    }

    fn mask(self) -> u128 {
        u128::MAX
            .checked_shl(128 - u32::from(self.cidr))
            .unwrap_or(0)
    }

    /// Its first address as a number.
    pub(crate) fn first(self) -> u128 {
        self.first
    }

    /// Its last address as a number.
    pub(crate) fn last(self) -> u128 {
        self.first | !self.mask()
    }

    /// Its network address (the first, with the host bits cleared).
    pub(crate) fn network(self) -> Ipv6Addr {
        Ipv6Addr::from(self.first & self.mask())
    }

    /// Its netmask.
    pub(crate) fn netmask(self) -> Ipv6Addr {
        Ipv6Addr::from(self.mask())
    }

    /// Its gateway: the address after the network, or the network itself
    /// for a single address.
    pub(crate) fn gateway(self) -> Ipv6Addr {
        let net = u128::from(self.network());
        Ipv6Addr::from(if self.cidr >= 128 { net } else { net + 1 })
    }

    /// Its prefix length.
    pub(crate) fn cidr(self) -> u8 {
        self.cidr
    }

    /// Whether `other` lies wholly inside it.
    pub(crate) fn holds(self, other: Block6) -> bool {
        self.first <= other.first && other.last() <= self.last()
    }

    /// Whether the two share an address.
    pub(crate) fn overlaps(self, other: Block6) -> bool {
        self.first <= other.last() && other.first <= self.last()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_know_their_addresses() {
        let b = Block::new(Ipv4Addr::new(139, 178, 64, 8), 29);
        assert_eq!(b.size(), 8);
        assert_eq!(b.netmask(), Ipv4Addr::new(255, 255, 255, 248));
        assert_eq!(b.gateway(), Ipv4Addr::new(139, 178, 64, 9));
        assert!(b.holds(Block::new(Ipv4Addr::new(139, 178, 64, 15), 32)));
        assert!(!b.holds(Block::new(Ipv4Addr::new(139, 178, 64, 16), 32)));
        let one = Block::new(Ipv4Addr::new(1, 2, 3, 4), 32);
        assert_eq!((one.size(), one.gateway()), (1, Ipv4Addr::new(1, 2, 3, 4)));
        assert_eq!(one.netmask(), Ipv4Addr::new(255, 255, 255, 255));
        assert!(b.overlaps(Block::new(Ipv4Addr::new(139, 178, 64, 0), 28)));
    }

    #[test]
    fn ipv6_blocks_know_their_addresses() {
        let b = Block6::new("2001:d78::".parse().unwrap(), 64);
        assert_eq!(b.gateway(), "2001:d78::1".parse::<Ipv6Addr>().unwrap());
        assert_eq!(
            b.netmask(),
            "ffff:ffff:ffff:ffff::".parse::<Ipv6Addr>().unwrap()
        );
        assert_eq!(b.last() - b.first(), u128::from(u64::MAX));
        let parent = Block6::new("2001:d78::".parse().unwrap(), 59);
        assert!(parent.holds(b) && !b.holds(parent) && b.overlaps(parent));
        assert!(!b.overlaps(Block6::new("2001:d78:0:1::".parse().unwrap(), 64)));
        let all = Block6::new(Ipv6Addr::UNSPECIFIED, 0);
        assert_eq!((all.first(), all.last()), (0, u128::MAX));
    }
}
