//! A VRF circuit's peering addresses as the spec's
//! `VrfVirtualCircuitCreateInput` describes them: a /30 or /31 IPv4
//! subnet (a /126 or /127 IPv6 one), the Metal side's address the first
//! usable one and the customer's the other unless one is given (a /30's
//! network and broadcast addresses are not usable); and the MD5 password's
//! pattern.

use std::net::{Ipv4Addr, Ipv6Addr};

use crate::call::ApiError;

/// One family's subnet: its first address as a number, its prefix length,
/// and whether it is IPv6.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Subnet {
    pub(crate) v6: bool,
    pub(crate) first: u128,
    pub(crate) prefix: u8,
}

impl Subnet {
    /// Reads `text` (`12.0.0.0/30`, `2604:1380:4641:a00::4/126`) as a
    /// subnet of the family `v6` says: `/30` or `/31` (`/126` or `/127`),
    /// its host bits clear; `422` otherwise.
    pub(crate) fn parse(field: &str, text: &str, v6: bool) -> Result<Self, ApiError> {
        let sizes: [u8; 2] = if v6 { [126, 127] } else { [30, 31] };
        let bad = || {
            ApiError::unprocessable(format!(
                "{field} {text:?} must be an IPv{} /{} or /{} subnet",
                if v6 { 6 } else { 4 },
                sizes[0],
                sizes[1]
            ))
        };
        let (address, prefix) = text.trim().split_once('/').ok_or_else(bad)?;
        let prefix: u8 = prefix.parse().map_err(|_| bad())?;
        if !sizes.contains(&prefix) {
            return Err(bad());
        }
        let first = parse_address(address, v6).ok_or_else(bad)?;
        let host = (1u128 << (bits(v6) - u32::from(prefix))) - 1;
        if first & host != 0 {
            return Err(ApiError::unprocessable(format!(
                "{field} {text:?} is not a network address: its host bits are set"
            )));
        }
        Ok(Self { v6, first, prefix })
    }

    /// The addresses a side may take: both of a /31 (/127), the middle two
    /// of a /30 (/126).
    fn usable(self) -> [u128; 2] {
        if self.prefix == if self.v6 { 127 } else { 31 } {
            [self.first, self.first + 1]
        } else {
            [self.first + 1, self.first + 2]
        }
    }

    /// The Metal and customer addresses: those given (each a usable one of
    /// the subnet, apart), or the other usable one for the side left out,
    /// or the first and the second.
    pub(crate) fn sides(
        self,
        metal: Option<&str>,
        customer: Option<&str>,
    ) -> Result<(String, String), ApiError> {
        let usable = self.usable();
        let read = |field: &str, text: &str| {
            parse_address(text, self.v6)
                .filter(|a| usable.contains(a))
                .ok_or_else(|| {
                    ApiError::unprocessable(format!(
                        "{field} {text} is not a usable address of the subnet {}",
                        self.text()
                    ))
                })
        };
        let (metal_field, customer_field) = if self.v6 {
            ("metal_ipv6", "customer_ipv6")
        } else {
            ("metal_ip", "customer_ip")
        };
        let other = |a: u128| if a == usable[0] { usable[1] } else { usable[0] };
        let (m, c) = match (metal, customer) {
            (Some(m), Some(c)) => {
                let (m, c) = (read(metal_field, m)?, read(customer_field, c)?);
                if m == c {
                    return Err(ApiError::unprocessable(
                        "The Metal and customer addresses must differ",
                    ));
                }
                (m, c)
            }
            (Some(m), None) => {
                let m = read(metal_field, m)?;
                (m, other(m))
            }
            (None, Some(c)) => {
                let c = read(customer_field, c)?;
                (other(c), c)
            }
            (None, None) => (usable[0], usable[1]),
        };
        Ok((address_text(m, self.v6), address_text(c, self.v6)))
    }

    /// The subnet in CIDR form.
    pub(crate) fn text(self) -> String {
        format!("{}/{}", address_text(self.first, self.v6), self.prefix)
    }

    /// Its last address as a number.
    pub(crate) fn last(self) -> u128 {
        self.first | ((1u128 << (bits(self.v6) - u32::from(self.prefix))) - 1)
    }

    /// Whether the two share an address.
    pub(crate) fn overlaps(self, other: Subnet) -> bool {
        self.v6 == other.v6 && self.first <= other.last() && other.first <= self.last()
    }
}

fn bits(v6: bool) -> u32 {
    if v6 {
        128
    } else {
        32
    }
}

fn parse_address(text: &str, v6: bool) -> Option<u128> {
    let text = text.trim();
    if v6 {
        text.parse::<Ipv6Addr>().ok().map(u128::from)
    } else {
        text.parse::<Ipv4Addr>()
            .ok()
            .map(|a| u128::from(u32::from(a)))
    }
}

fn address_text(value: u128, v6: bool) -> String {
    if v6 {
        Ipv6Addr::from(value).to_string()
    } else {
        // An IPv4 subnet's addresses fit in 32 bits.
        Ipv4Addr::from(u32::try_from(value).unwrap_or_default()).to_string()
    }
}

/// Checks an MD5 password as the spec's pattern does: 10 to 20 letters
/// and digits, with a lowercase letter, an uppercase letter and a digit.
pub(crate) fn check_md5(md5: &str) -> Result<(), ApiError> {
    let ok = (10..=20).contains(&md5.len())
        && md5.bytes().all(|b| b.is_ascii_alphanumeric())
        && md5.bytes().any(|b| b.is_ascii_lowercase())
        && md5.bytes().any(|b| b.is_ascii_uppercase())
        && md5.bytes().any(|b| b.is_ascii_digit());
    if ok {
        Ok(())
    } else {
        Err(ApiError::unprocessable(
            "md5 must be 10 to 20 letters and digits, with a lowercase letter, an uppercase letter and a digit",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sides_are_the_usable_addresses_of_the_subnet() {
        let s31 = Subnet::parse("subnet", "12.0.0.0/31", false).unwrap();
        assert_eq!(
            s31.sides(None, None).unwrap(),
            ("12.0.0.0".into(), "12.0.0.1".into())
        );
        let s30 = Subnet::parse("subnet", "12.0.0.0/30", false).unwrap();
        assert_eq!(
            s30.sides(None, None).unwrap(),
            ("12.0.0.1".into(), "12.0.0.2".into())
        );
        assert_eq!(
            s30.sides(None, Some("12.0.0.1")).unwrap(),
            ("12.0.0.2".into(), "12.0.0.1".into()),
            "the customer's given, the Metal side takes the other"
        );
        for (metal, customer) in [
            (Some("12.0.0.0"), None),
            (Some("12.0.0.3"), None),
            (Some("12.0.0.1"), Some("12.0.0.1")),
            (None, Some("12.0.1.1")),
        ] {
            assert_eq!(s30.sides(metal, customer).unwrap_err().status, 422);
        }
        let v6 = Subnet::parse("subnet_ipv6", "2604:1380:4641:a00::4/126", true).unwrap();
        assert_eq!(
            v6.sides(None, None).unwrap(),
            (
                "2604:1380:4641:a00::5".into(),
                "2604:1380:4641:a00::6".into()
            )
        );
        for (text, v6) in [
            ("12.0.0.0/29", false),
            ("12.0.0.1/30", false),
            ("12.0.0.0", false),
            ("2604::/64", true),
            ("12.0.0.0/31", true),
        ] {
            assert!(Subnet::parse("subnet", text, v6).is_err(), "{text}");
        }
        assert!(
            s30.overlaps(s31) && !s30.overlaps(Subnet::parse("s", "12.0.0.4/31", false).unwrap())
        );
    }

    #[test]
    fn md5_follows_the_spec_s_pattern() {
        assert!(check_md5("Abcdefgh12").is_ok());
        for bad in [
            "short1A",
            "alllowercase123",
            "ALLUPPER1234",
            "NoDigitsHere",
            "Has-Punct1a",
            "A1bcdefghijklmnopqrstu",
        ] {
            assert!(check_md5(bad).is_err(), "{bad}");
        }
    }
}
