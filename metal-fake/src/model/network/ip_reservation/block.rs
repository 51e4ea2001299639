//! A block of IPv4 addresses (a reservation's, an assignment's, a pool's):
//! what every rule of addresses reads.

use std::net::Ipv4Addr;

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
}
