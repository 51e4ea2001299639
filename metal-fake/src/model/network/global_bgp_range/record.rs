//! What the fake keeps of a global BGP range: its description (also its
//! entry in the world document).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::journal::{record, Meta, Scope};
use crate::model::relations::Kind;

/// A global BGP range of a project.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobalBgpRange {
    /// Its ID.
    pub id: Uuid,
    /// Its project.
    pub project: Uuid,
    /// The range: an IPv4 or IPv6 network in CIDR form
    /// (`147.75.0.0/24`, `2604:1380::/48`).
    pub range: String,
}

/// A range as the world keeps it, with its address family (4 or 6).
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) rec: GlobalBgpRange,
    pub(crate) address_family: u8,
    pub(crate) meta: Meta,
}

record!(Kept, Kind::GlobalBgpRange, |k| Scope::project(
    k.rec.project
));

/// The address family of `range` (`a.b.c.d/n` or an IPv6 CIDR, its host
/// bits clear), else why not.
pub(super) fn family(range: &str) -> Result<u8, String> {
    let bad = || format!("range {range:?} is not a CIDR network");
    let (address, prefix) = range.split_once('/').ok_or_else(bad)?;
    let address: std::net::IpAddr = address.parse().map_err(|_| bad())?;
    let prefix: u32 = prefix.parse().map_err(|_| bad())?;
    let (bits, value) = match address {
        std::net::IpAddr::V4(a) => (32, u128::from(u32::from(a))),
        std::net::IpAddr::V6(a) => (128, u128::from(a)),
    };
    if prefix > bits || (prefix < bits && value & ((1u128 << (bits - prefix)) - 1) != 0) {
        return Err(bad());
    }
    Ok(if bits == 32 { 4 } else { 6 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_is_a_network_of_either_family() {
        assert_eq!(family("147.75.0.0/24"), Ok(4));
        assert_eq!(family("2604:1380::/48"), Ok(6));
        for bad in ["147.75.0.1/24", "147.75.0.0", "147.75.0.0/33", "x/8"] {
            assert!(family(bad).is_err(), "{bad:?}");
        }
    }
}
