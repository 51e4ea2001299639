//! The addresses a device's create asks for (`ip_addresses`): which of
//! its own it gets, and a public IPv4 taken from one of the project's
//! reserved blocks (`ip_reservations`), as the Terraform provider's
//! `ip_address { type = "public_ipv4", reservation_ids = [...] }` asks.

use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::block::Block;
use super::record::{IpAssignment, IpReservationState, IpReservationType, KeptAssignment};
use super::rules::MAX_ASSIGNMENTS;
use crate::call::ApiError;
use crate::model::device::{OwnAddress, OwnCidrs};
use crate::model::World;

/// What a create's `ip_addresses` asks for, checked.
#[derive(Debug, Default)]
pub(crate) struct AskedAddresses {
    /// The device's own addresses (`None`: the default three).
    pub(crate) own: Option<Vec<OwnAddress>>,
    /// Their prefix lengths.
    pub(crate) cidrs: OwnCidrs,
    /// Its public IPv4 from a reserved block: the reservation and the
    /// addresses.
    pub(crate) from_block: Option<(Uuid, Block)>,
}

impl World {
    /// Reads a create's `ip_addresses` for a device of `project` in
    /// `facility`: none asked is the default (a public IPv4, a public IPv6
    /// and a private IPv4); otherwise exactly those asked (`address_family`
    /// 4 or 6, `public`), a public IPv4 with `ip_reservations` taking the
    /// first free aligned `cidr` (default: the whole block) of the first
    /// of them that has one. `422` for a private IPv6, reservations on
    /// another kind of address, a reservation that is not the project's
    /// approved public IPv4 block in the device's metro, a `cidr` the block
    /// cannot hold, or no free addresses.
    pub(crate) fn asked_addresses(
        &self,
        project: Uuid,
        facility: &str,
        asked: &[types::IpAddress],
        os: &str,
    ) -> Result<AskedAddresses, ApiError> {
        let smallest = crate::model::device::smallest_public_ipv4(os);
        let mut cidrs = OwnCidrs {
            public_ipv4: smallest,
            ..OwnCidrs::default()
        };
        if asked.is_empty() {
            return Ok(AskedAddresses {
                cidrs,
                ..AskedAddresses::default()
            });
        }
        let mut own = Vec::new();
        let mut from_block = None;
        for a in asked {
            let family = a.address_family.as_ref().map_or(4, |f| **f);
            let kind = match (family, a.public) {
                (4, true) => OwnAddress::PublicIpv4,
                (6, true) => OwnAddress::PublicIpv6,
                (4, false) => OwnAddress::PrivateIpv4,
                _ => {
                    return Err(ApiError::unprocessable(
                        "Private IPv6 addresses are not supported",
                    ))
                }
            };
            if a.ip_reservations.is_empty() {
                if !own.contains(&kind) {
                    own.push(kind);
                }
                if let Some(c) = a.cidr {
                    let (range, what) = match kind {
                        OwnAddress::PublicIpv4 => (28..=smallest, "a public IPv4"),
                        OwnAddress::PrivateIpv4 => (28..=31, "a private IPv4"),
                        OwnAddress::PublicIpv6 => (124..=127, "a public IPv6"),
                    };
                    let c = u8::try_from(c)
                        .ok()
                        .filter(|c| range.contains(c))
                        .ok_or_else(|| {
                            ApiError::unprocessable(format!(
                                "cidr {c} is not valid for {what} subnet of {os}: /{} to /{}",
                                range.start(),
                                range.end()
                            ))
                        })?;
                    match kind {
                        OwnAddress::PublicIpv4 => cidrs.public_ipv4 = c,
                        OwnAddress::PrivateIpv4 => cidrs.private_ipv4 = c,
                        OwnAddress::PublicIpv6 => cidrs.public_ipv6 = c,
                    }
                }
                continue;
            }
            if kind != OwnAddress::PublicIpv4 {
                return Err(ApiError::unprocessable(
                    "Only a public IPv4 address can come from an IP reservation",
                ));
            }
            from_block = Some(self.block_for_device(project, facility, a)?);
        }
        own.sort();
        Ok(AskedAddresses {
            own: Some(own),
            cidrs,
            from_block,
        })
    }

    /// The first free aligned block of `asked.cidr` addresses among the
    /// reservations `asked` names.
    fn block_for_device(
        &self,
        project: Uuid,
        facility: &str,
        asked: &types::IpAddress,
    ) -> Result<(Uuid, Block), ApiError> {
        let metro = self.catalog.facility(facility).map(|f| f.metro.as_str());
        for text in &asked.ip_reservations {
            let r = Uuid::parse_str(text.trim())
                .ok()
                .and_then(|id| self.ips.reservations.get(&id))
                .filter(|r| r.rec.project == project)
                .ok_or_else(|| {
                    ApiError::unprocessable(format!(
                        "IP reservation {text} is not a reservation of this project"
                    ))
                })?;
            if r.rec.state != IpReservationState::Created {
                return Err(ApiError::unprocessable(
                    "The IP reservation is not approved yet",
                ));
            }
            if r.rec.kind != IpReservationType::PublicIpv4 || r.rec.metro.as_deref() != metro {
                return Err(ApiError::unprocessable(
                    "Address is reserved in another metro than the device's",
                ));
            }
            // A public IPv4 reservation's block is IPv4 (its load and its
            // request check so); the refusal is for a world that is not.
            let block = r.block().ok_or_else(|| {
                ApiError::unprocessable(
                    "Only a public IPv4 address can come from an IP reservation",
                )
            })?;
            let cidr = match asked.cidr {
                None => block.cidr(),
                Some(c) if (i32::from(block.cidr())..=32).contains(&c) => {
                    // In range 0..=32 just checked.
                    u8::try_from(c).unwrap_or(32)
                }
                Some(c) => {
                    return Err(ApiError::unprocessable(format!(
                        "cidr {c} does not fit the IP reservation's /{}",
                        block.cidr()
                    )))
                }
            };
            let taken: Vec<Block> = self
                .live_assignments(r)
                .filter_map(KeptAssignment::block)
                .collect();
            if taken.len() >= MAX_ASSIGNMENTS {
                continue;
            }
            let size = Block::new(block.network(), cidr).size();
            let free = (0..block.size() / size)
                .map(|i| {
                    // Within the block, so below 2^32.
                    let first = u64::from(block.first()) + i * size;
                    Block::new(std::net::Ipv4Addr::from(first as u32), cidr)
                })
                .find(|b| !taken.iter().any(|t| t.overlaps(*b)));
            if let Some(b) = free {
                return Ok((r.rec.id, b));
            }
        }
        Err(ApiError::unprocessable(
            "No free addresses in the IP reservations asked for",
        ))
    }

    /// Assigns `block` of `reservation` to the new `device` (checked by
    /// [`World::asked_addresses`] under the same lock). Returns the
    /// assignment's ID.
    pub(crate) fn assign_at_create(
        &mut self,
        device: Uuid,
        (reservation, block): (Uuid, Block),
        now: Instant,
    ) -> Uuid {
        let id = Uuid::new_v4();
        self.ips.insert_assignment(
            &mut self.journal,
            IpAssignment {
                id,
                device,
                address: block.network().into(),
                cidr: block.cidr(),
            },
            reservation,
            now,
        );
        id
    }
}
