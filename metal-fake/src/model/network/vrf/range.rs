//! An IP range of a VRF: an IPv4 or IPv6 network in CIDR form, of the
//! sizes the API took (IPv4 /8 to /29, IPv6 /56 to /64), its host bits
//! clear.

use std::net::IpAddr;

use crate::call::ApiError;

/// The prefix lengths an IPv4 range may have.
const V4: std::ops::RangeInclusive<u8> = 8..=29;
/// The prefix lengths an IPv6 range may have.
const V6: std::ops::RangeInclusive<u8> = 56..=64;

/// One range: its first and last address as numbers (IPv4 in the low 32
/// bits), and its family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Range {
    v6: bool,
    first: u128,
    last: u128,
}

impl Range {
    /// Reads `text` (`192.168.100.0/25`, `2001:db8::/56`): `422` for
    /// anything else, a prefix out of the family's sizes, or host bits set.
    pub(crate) fn parse(text: &str) -> Result<Self, ApiError> {
        let bad = |why: &str| ApiError::unprocessable(format!("IP range {text:?} {why}"));
        let (address, prefix) = text
            .trim()
            .split_once('/')
            .ok_or_else(|| bad("is not a CIDR (address/prefix)"))?;
        let address: IpAddr = address
            .parse()
            .map_err(|_| bad("is not an IPv4 or IPv6 network"))?;
        let prefix: u8 = prefix.parse().map_err(|_| bad("has no prefix length"))?;
        let (v6, bits, value, sizes) = match address {
            IpAddr::V4(a) => (false, 32u32, u128::from(u32::from(a)), V4),
            IpAddr::V6(a) => (true, 128u32, u128::from(a), V6),
        };
        if !sizes.contains(&prefix) {
            return Err(bad(&format!(
                "must be /{} to /{} for IPv{}",
                sizes.start(),
                sizes.end(),
                if v6 { 6 } else { 4 }
            )));
        }
        let host_bits = bits - u32::from(prefix);
        // `host_bits` is below 128 (prefix at least 8).
        let host = (1u128 << host_bits) - 1;
        if value & host != 0 {
            return Err(bad("is not a network address: its host bits are set"));
        }
        Ok(Self {
            v6,
            first: value,
            last: value | host,
        })
    }

    /// An IPv4 block (first address and prefix length) as a range (the
    /// tests' shorthand; the rules read a block's span).
    #[cfg(test)]
    pub(crate) fn v4(first: u32, prefix: u8) -> Self {
        let host = if prefix >= 32 {
            0
        } else {
            (1u128 << (32 - u32::from(prefix))) - 1
        };
        Self {
            v6: false,
            first: u128::from(first),
            last: u128::from(first) | host,
        }
    }

    /// The addresses `first` to `last` of a family (IPv4 in the low 32
    /// bits), for checking that a circuit's subnet lies inside a range.
    pub(crate) fn span(v6: bool, first: u128, last: u128) -> Self {
        Self { v6, first, last }
    }

    /// Whether the two share an address.
    pub(crate) fn overlaps(self, other: Range) -> bool {
        self.v6 == other.v6 && self.first <= other.last && other.first <= self.last
    }

    /// Whether `other` lies wholly inside it.
    pub(crate) fn holds(self, other: Range) -> bool {
        self.v6 == other.v6 && self.first <= other.first && other.last <= self.last
    }
}

/// Reads a VRF's ranges: each a [`Range`], apart from each other (`422`
/// otherwise).
pub(crate) fn parse_all(texts: &[String]) -> Result<Vec<Range>, ApiError> {
    let ranges = texts
        .iter()
        .map(|t| Range::parse(t))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, a) in ranges.iter().enumerate() {
        if let Some(j) = ranges[..i].iter().position(|b| a.overlaps(*b)) {
            return Err(ApiError::unprocessable(format!(
                "IP range {} overlaps {} of the same VRF",
                texts[i], texts[j]
            )));
        }
    }
    Ok(ranges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_of_the_api_s_sizes_read_and_others_are_refused() {
        let a = Range::parse("192.168.100.0/25").unwrap();
        assert_eq!(
            a,
            Range::v4(u32::from(std::net::Ipv4Addr::new(192, 168, 100, 0)), 25)
        );
        assert!(Range::parse("2001:db8::/56").is_ok());
        assert!(Range::parse("10.0.0.0/8").is_ok());
        for bad in [
            "192.168.100.0/30",
            "10.0.0.0/7",
            "192.168.100.1/25",
            "2001:db8::/48",
            "2001:db8::/65",
            "192.168.100.0",
            "nope/24",
            "",
        ] {
            assert_eq!(Range::parse(bad).unwrap_err().status, 422, "{bad:?}");
        }
        let b = Range::parse("192.168.100.64/26").unwrap();
        assert!(a.overlaps(b) && a.holds(b) && !b.holds(a));
        assert!(!a.overlaps(Range::parse("192.168.200.0/25").unwrap()));
        assert!(a.holds(Range::v4(
            u32::from(std::net::Ipv4Addr::new(192, 168, 100, 8)),
            29
        )));
        assert!(!a.holds(Range::v4(
            u32::from(std::net::Ipv4Addr::new(192, 168, 100, 128)),
            29
        )));
    }

    #[test]
    fn a_vrf_s_ranges_stay_apart() {
        let ok = ["192.168.100.0/25".to_string(), "2001:db8::/56".to_string()];
        assert_eq!(parse_all(&ok).unwrap().len(), 2);
        let overlapping = [
            "192.168.100.0/24".to_string(),
            "192.168.100.0/25".to_string(),
        ];
        assert_eq!(parse_all(&overlapping).unwrap_err().status, 422);
    }
}
