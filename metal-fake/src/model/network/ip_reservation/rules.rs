//! The API's rules for IP reservations and assignments: what a request
//! may ask for (type, quantity, location, the project's quota), which
//! address an assignment may take, and when a reservation may go; and the
//! pools the fake hands blocks out of.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use metal_api::types;

use crate::model::journal::Cause;
use crate::model::relations::Kind;
use tokio::time::Instant;
use uuid::Uuid;

use super::block::{Block, Block6};
use super::record::{
    IpAssignment, IpReservation, IpReservationState, IpReservationType, Kept, KeptAssignment, Pool,
    Table,
};
use crate::call::ApiError;
use crate::model::bounds::{bad_tags, refuse, too_long, MAX_TEXT};
use crate::model::World;

/// The most public IPv4 addresses (and, separately, global IPv4
/// addresses) one project holds in approved reservations: the API's
/// documented default limit for public IPv4.
pub(crate) const MAX_ADDRESSES_PER_PROJECT: u32 = 256;

/// The most assignments one reservation holds.
pub(crate) const MAX_ASSIGNMENTS: usize = 256;

/// The largest IPv4 block of each type, in addresses: public IPv4 from
/// /32 to /24, global IPv4 from /32 to /30, as the API's documentation
/// lists; a private block /25 at the largest.
fn largest(kind: IpReservationType) -> u32 {
    match kind {
        IpReservationType::PublicIpv4 => 256,
        IpReservationType::GlobalIpv4 => 4,
        IpReservationType::PrivateIpv4 => 128,
        // Within a VRF's ranges, which are /8 at the largest.
        IpReservationType::Vrf => 1 << 24,
        // Never IPv4 (`check_record` refuses it first).
        IpReservationType::PublicIpv6 => 0,
    }
}

/// The prefix length of a project's pre-created public IPv6 block of a
/// facility.
pub(crate) const PRECREATED_IPV6_CIDR: u8 = 56;

/// The size of a project's pre-created private IPv4 block of a metro, in
/// addresses (a /25).
pub(crate) const PRECREATED_PRIVATE_SIZE: u32 = 128;

/// The made-up IPv4 pool each kind of block comes from: apart from each
/// other and from the addresses devices get at provisioning.
fn pool(pool: Pool) -> Block {
    match pool {
        Pool::Public => Block::new(Ipv4Addr::new(139, 178, 64, 0), 18),
        Pool::Global => Block::new(Ipv4Addr::new(145, 40, 192, 0), 20),
        // Below the devices' own private addresses (10.64.0.0 and up).
        Pool::GatewayPrivate => Block::new(Ipv4Addr::new(10, 0, 0, 0), 12),
        Pool::PrecreatedPrivate => Block::new(Ipv4Addr::new(10, 32, 0, 0), 12),
        // Counted in /56s of `IPV6_POOL`; no IPv4 block is in it.
        Pool::PrecreatedIpv6 => Block::new(Ipv4Addr::UNSPECIFIED, 32),
    }
}

/// The made-up pool of pre-created public IPv6 blocks: /56s of
/// `2604:1380:4000::/36`, apart from the devices' own addresses
/// (`2604:1380:0::/48` and up to `2604:1380:ff::`).
fn ipv6_pool() -> Block6 {
    Block6::new(Ipv6Addr::new(0x2604, 0x1380, 0x4000, 0, 0, 0, 0, 0), 36)
}

/// The IPv4 pool a reservation of `kind` comes from (`None`: a VRF's
/// block, the caller's own addresses, or an IPv6 one).
fn pool_of(kind: IpReservationType, block: Block) -> Option<Pool> {
    match kind {
        IpReservationType::PublicIpv4 => Some(Pool::Public),
        IpReservationType::GlobalIpv4 => Some(Pool::Global),
        IpReservationType::PrivateIpv4 if pool(Pool::PrecreatedPrivate).holds(block) => {
            Some(Pool::PrecreatedPrivate)
        }
        IpReservationType::PrivateIpv4 => Some(Pool::GatewayPrivate),
        IpReservationType::Vrf | IpReservationType::PublicIpv6 => None,
    }
}

/// Notes that reservation `r`'s block is taken, so its pool hands out
/// only what lies beyond it.
pub(crate) fn note_allocated(table: &mut Table, r: &Kept) {
    if let Some(block) = r.block() {
        let Some(kind) = pool_of(r.rec.kind, block) else {
            return;
        };
        let pool = pool(kind);
        if pool.holds(block) {
            let end = block.last() - pool.first() + 1;
            let next = table.next.entry(kind).or_default();
            *next = (*next).max(end);
        }
    } else if let Some(block) = r.block6() {
        let pool = ipv6_pool();
        if r.rec.kind == IpReservationType::PublicIpv6 && pool.holds(block) {
            let shift = 128 - u32::from(PRECREATED_IPV6_CIDR);
            // Within the pool's 2^20 /56s.
            let end =
                u32::try_from(((block.last() - pool.first()) >> shift) + 1).unwrap_or(u32::MAX);
            let next = table.next.entry(Pool::PrecreatedIpv6).or_default();
            *next = (*next).max(end);
        }
    }
}

/// Checks a reservation of a world document: a type's size, an aligned
/// network, a metro and facility the world has (none for a global block).
pub(crate) fn check_record(w: &World, r: &IpReservation) -> Result<(), String> {
    match r.network {
        IpAddr::V4(_) if r.kind == IpReservationType::PublicIpv6 => {
            return Err("a public_ipv6 block is IPv6".to_string())
        }
        IpAddr::V4(network) => {
            let block = Block::new(network, r.cidr);
            if r.cidr > 32 || block.size() > u64::from(largest(r.kind)) {
                return Err(format!(
                    "a {} block is /{} or smaller",
                    r.kind.as_str(),
                    32 - largest(r.kind).trailing_zeros()
                ));
            }
            if block.network() != network {
                return Err(format!("{} is not the network of a /{}", r.network, r.cidr));
            }
        }
        // Only a VRF's block and a public IPv6 one are IPv6 (a VRF's
        // size and network checked with its VRF).
        IpAddr::V6(_) if r.kind == IpReservationType::Vrf => {}
        IpAddr::V6(a) if r.kind == IpReservationType::PublicIpv6 => {
            if r.cidr != PRECREATED_IPV6_CIDR || Block6::new(a, r.cidr).network() != a {
                return Err(format!(
                    "a public_ipv6 block is the network of a /{PRECREATED_IPV6_CIDR}"
                ));
            }
        }
        IpAddr::V6(_) => return Err(format!("a {} block is IPv4", r.kind.as_str())),
    }
    bad_tags(&r.tags).map_or(Ok(()), Err)?;
    if r.vrf.is_some() != (r.kind == IpReservationType::Vrf) {
        return Err("a vrf block names its VRF, and only a vrf block does".to_string());
    }
    match r.kind {
        IpReservationType::Vrf => super::vrf_block::check_vrf_record(w, r),
        IpReservationType::GlobalIpv4 if r.metro.is_some() || r.facility.is_some() => {
            Err("a global block has no metro or facility".to_string())
        }
        IpReservationType::GlobalIpv4 => Ok(()),
        IpReservationType::PublicIpv6 if r.facility.is_none() => {
            Err("a public_ipv6 block is of a facility".to_string())
        }
        IpReservationType::PublicIpv4
        | IpReservationType::PrivateIpv4
        | IpReservationType::PublicIpv6 => w
            .place(r.metro.as_deref(), r.facility.as_deref())
            .map(|_| ())
            .map_err(|e| e.messages.join("; ")),
    }
}

/// `text`, unless it is absent or empty (clients send `""` for a location
/// they leave out).
fn given(text: &Option<String>) -> Option<&str> {
    text.as_deref().filter(|t| !t.is_empty())
}

impl World {
    /// The metro (and facility) a public block is placed in: the facility's
    /// metro when a facility is given (in the metro, when both are).
    pub(crate) fn place(
        &self,
        metro: Option<&str>,
        facility: Option<&str>,
    ) -> Result<(String, Option<String>), ApiError> {
        let facility = match facility {
            Some(code) => Some(self.catalog.facility(code).ok_or_else(|| {
                ApiError::unprocessable(format!("Facility {code} was not found"))
            })?),
            None => None,
        };
        match (metro, facility) {
            (None, None) => Err(ApiError::unprocessable("Metro or facility is required")),
            (Some(m), f) => {
                self.catalog
                    .metro(m)
                    .ok_or_else(|| ApiError::unprocessable(format!("Metro {m} was not found")))?;
                if f.is_some_and(|f| f.metro != m) {
                    return Err(ApiError::unprocessable("The facility is not in the metro"));
                }
                Ok((m.to_string(), f.map(|f| f.code.clone())))
            }
            (None, Some(f)) => Ok((f.metro.clone(), Some(f.code.clone()))),
        }
    }

    /// `requestIPReservation`: a new block of `project`'s.
    pub(crate) fn request_ip_reservation(
        &mut self,
        project: Uuid,
        body: &types::IpReservationRequestInput,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        self.projects
            .get(&project)
            .ok_or_else(ApiError::not_found)?;
        let kind = match body.type_.as_str() {
            "public_ipv4" => IpReservationType::PublicIpv4,
            "global_ipv4" => IpReservationType::GlobalIpv4,
            // The real API made these blocks itself, with a project's
            // first device in a metro, and took no request for them
            // (`metal_fake::fidelity`, IP reservations).
            other @ ("private_ipv4" | "public_ipv6") => {
                return Err(ApiError::unprocessable(format!(
                    "{other} blocks cannot be requested: a project's private IPv4 and IPv6 blocks are allocated with its first device in a metro; request public_ipv4, global_ipv4 or vrf"
                )))
            }
            _ => {
                return Err(ApiError::unprocessable(
                    "type must be one of public_ipv4, global_ipv4",
                ))
            }
        };
        let most = largest(kind);
        let quantity = u32::try_from(body.quantity)
            .ok()
            .filter(|q| q.is_power_of_two() && *q <= most)
            .ok_or_else(|| {
                ApiError::unprocessable(format!(
                    "Quantity must be a power of 2 from 1 to {most} for {}",
                    kind.as_str()
                ))
            })?;
        let customdata = serde_json::to_string(&body.customdata).unwrap_or_default();
        refuse([
            bad_tags(&body.tags),
            body.details
                .as_deref()
                .and_then(|d| too_long("Details", d, MAX_TEXT)),
            body.comments
                .as_deref()
                .and_then(|c| too_long("Comments", c, MAX_TEXT)),
            too_long("Customdata", &customdata, MAX_TEXT),
        ])?;
        let (metro, facility) = match kind {
            IpReservationType::GlobalIpv4 => {
                if given(&body.metro).is_some() || given(&body.facility).is_some() {
                    return Err(ApiError::unprocessable(
                        "A global_ipv4 reservation takes no metro or facility",
                    ));
                }
                (None, None)
            }
            IpReservationType::PublicIpv4
            | IpReservationType::PrivateIpv4
            | IpReservationType::PublicIpv6
            | IpReservationType::Vrf => {
                let (m, f) = self.place(given(&body.metro), given(&body.facility))?;
                (Some(m), f)
            }
        };
        // The project's blocks of the type alone, through the index by
        // type, not every block.
        let held: u64 = self
            .ips
            .of_project_kind(project, kind)
            .filter(|r| r.rec.state == IpReservationState::Created)
            .filter_map(|r| r.block())
            .map(|b| b.size())
            .sum();
        // Below the quota a request is approved at once; one that would
        // bring the project to it (a /24 of a new project, as packngo's
        // `TestAccPublicIPReservationFailFast` asks and the real API
        // refused with the flag) waits for review.
        let state = if held + u64::from(quantity) < u64::from(MAX_ADDRESSES_PER_PROJECT) {
            IpReservationState::Created
        } else if body.fail_on_approval_required == Some(true) {
            return Err(ApiError::unprocessable(format!(
                "The request cannot be approved automatically: the project would hold {MAX_ADDRESSES_PER_PROJECT} or more {} addresses",
                kind.as_str()
            )));
        } else {
            IpReservationState::Pending
        };
        let pool = match kind {
            IpReservationType::GlobalIpv4 => Pool::Global,
            _ => Pool::Public,
        };
        let block = self.allocate(pool, quantity)?;
        let id = Uuid::new_v4();
        self.ips
            .insert_reservation(&mut self.journal, id, now, |meta| Kept {
                rec: IpReservation {
                    id,
                    project,
                    kind,
                    network: block.network().into(),
                    cidr: block.cidr(),
                    metro,
                    facility,
                    state,
                    tags: body.tags.clone(),
                    details: body.details.clone(),
                    customdata: body.customdata.clone(),
                    assignments: Vec::new(),
                    vrf: None,
                },
                meta,
                assignments: Vec::new(),
            });
        Ok(id)
    }

    /// A private block of `size` addresses (a power of 2) of `project`'s
    /// in `metro`, for a Metal Gateway.
    pub(crate) fn reserve_private(
        &mut self,
        project: Uuid,
        metro: &str,
        size: u32,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        let block = self.allocate(Pool::GatewayPrivate, size)?;
        let id = Uuid::new_v4();
        self.ips
            .insert_reservation(&mut self.journal, id, now, |meta| Kept {
                rec: IpReservation {
                    id,
                    project,
                    kind: IpReservationType::PrivateIpv4,
                    network: block.network().into(),
                    cidr: block.cidr(),
                    metro: Some(metro.to_string()),
                    facility: None,
                    state: IpReservationState::Created,
                    tags: Vec::new(),
                    details: None,
                    customdata: serde_json::Map::new(),
                    assignments: Vec::new(),
                    vrf: None,
                },
                meta,
                assignments: Vec::new(),
            });
        Ok(id)
    }

    /// The next free aligned block of `quantity` addresses (a power of 2)
    /// of `pool`; `422` once the pool is used up.
    fn allocate(&mut self, pool: Pool, quantity: u32) -> Result<Block, ApiError> {
        let kind = pool;
        let pool = self::pool(kind);
        let next = self.ips.next.entry(kind).or_default();
        let start = next.div_ceil(quantity).saturating_mul(quantity);
        if u64::from(start) + u64::from(quantity) > pool.size() {
            return Err(ApiError::unprocessable(format!(
                "No {} address space is left (metal-fake's pool holds {} addresses)",
                kind.as_str(),
                pool.size()
            )));
        }
        *next = start + quantity;
        let cidr = 32 - quantity.trailing_zeros() as u8;
        Ok(Block::new(Ipv4Addr::from(pool.first() + start), cidr))
    }

    /// The assignments of `r` whose device is still there, oldest first.
    pub(crate) fn live_assignments<'a>(
        &'a self,
        r: &'a Kept,
    ) -> impl Iterator<Item = &'a KeptAssignment> + 'a {
        r.assignments
            .iter()
            .filter_map(|a| self.ips.assignments.get(a))
            .filter(|a| self.devices.contains_key(&a.rec.device))
    }

    /// An assignment whose device is still there.
    pub(crate) fn live_assignment(&self, id: Uuid) -> Option<&KeptAssignment> {
        self.ips
            .assignments
            .get(&id)
            .filter(|a| self.devices.contains_key(&a.rec.device))
    }

    /// `createIPAssignment`: `address` (`a.b.c.d`, or `a.b.c.d/n`) of one
    /// of the project's reservations, to `device`; or an IPv6 block of the
    /// project's pre-created public IPv6 block of the device's metro.
    pub(crate) fn assign_ip(
        &mut self,
        device: Uuid,
        address: &str,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        if address.contains(':') {
            return self.assign_ipv6(device, address, now);
        }
        let d = self.devices.get(&device).ok_or_else(ApiError::not_found)?;
        let (project, facility) = (d.rec.project, d.rec.facility.clone());
        let wanted = parse_address(address)?;
        // A deleted device's assignments leave the table with it (the
        // relations' cascade), so none here names a device gone. The
        // block holding `wanted` is one of its networks (an IPv4 block's
        // network is its first address: loads and requests check so),
        // found through the index by block, one prefix length at a time,
        // not by reading every block; the lowest ID of those holding it,
        // as the blocks in ID order found it.
        let r = (0..=wanted.cidr())
            .filter_map(|cidr| {
                let network = Block::new(wanted.network(), cidr).network();
                self.ips.with_block(project, network.into(), cidr)
            })
            .filter(|r| r.block().is_some_and(|b| b.holds(wanted)))
            .min_by_key(|r| r.rec.id)
            .ok_or_else(|| ApiError::unprocessable("Address is not reserved for the project"))?;
        if r.rec.state != IpReservationState::Created {
            return Err(ApiError::unprocessable(
                "The IP reservation is not approved yet",
            ));
        }
        if r.rec.kind == IpReservationType::Vrf {
            return Err(ApiError::unprocessable(
                "The IP reservation is a VRF's: its addresses are not assigned to devices",
            ));
        }
        if r.rec.kind == IpReservationType::PrivateIpv4 || self.gateway_of_block(r.rec.id).is_some()
        {
            return Err(ApiError::unprocessable(
                "The IP reservation is a Metal Gateway's: its addresses are not assigned to devices",
            ));
        }
        if r.rec.kind == IpReservationType::PublicIpv4 {
            let metro = self.catalog.facility(&facility).map(|f| f.metro.as_str());
            if metro != r.rec.metro.as_deref() {
                return Err(ApiError::unprocessable(
                    "Address is reserved in another metro than the device's",
                ));
            }
        }
        let on_device = self
            .ips
            .of_device(device)
            .filter_map(|a| self.ips.assignments.get(&a))
            .filter_map(KeptAssignment::block)
            .any(|a| a.overlaps(wanted));
        if on_device {
            return Err(ApiError::unprocessable(
                "Address is already assigned to this device",
            ));
        }
        let (reservation, held) = (r.rec.id, r.assignments.len());
        self.add_assignment(
            reservation,
            held,
            device,
            wanted.network().into(),
            wanted.cidr(),
            now,
        )
    }

    /// The assignment of `address/cidr` (found free and of `reservation`,
    /// which holds `held` assignments) to `device`, up to the
    /// reservation's bound: the last step of [`Self::assign_ip`] and
    /// [`Self::assign_ipv6`].
    fn add_assignment(
        &mut self,
        reservation: Uuid,
        held: usize,
        device: Uuid,
        address: IpAddr,
        cidr: u8,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        if held >= MAX_ASSIGNMENTS {
            return Err(ApiError::unprocessable(format!(
                "The IP reservation has too many assignments (maximum is {MAX_ASSIGNMENTS})"
            )));
        }
        let id = Uuid::new_v4();
        self.ips.insert_assignment(
            &mut self.journal,
            IpAssignment {
                id,
                device,
                address,
                cidr,
            },
            reservation,
            now,
        );
        Ok(id)
    }

    /// `createIPAssignment` of an IPv6 block (`…::/n`, `n` from the
    /// parent's 56 to 128; a bare address is one): of the project's
    /// public IPv6 block of the device's metro (Terraform's pre-created
    /// block tests attach `cidrsubnet(<the /56>, 8, 2)`, a /64).
    fn assign_ipv6(&mut self, device: Uuid, address: &str, now: Instant) -> Result<Uuid, ApiError> {
        let d = self.devices.get(&device).ok_or_else(ApiError::not_found)?;
        let project = d.rec.project;
        let metro = self
            .catalog
            .facility(&d.rec.facility)
            .map(|f| f.metro.clone());
        let wanted = parse_address6(address)?;
        // The project's blocks alone (a deleted device's assignments left
        // with it: see `assign_ip`).
        let r = self
            .ips
            .reservations
            .of_project(Some(project))
            .find(|r| r.block6().is_some_and(|b| b.holds(wanted)))
            .ok_or_else(|| ApiError::unprocessable("Address is not reserved for the project"))?;
        if r.rec.kind != IpReservationType::PublicIpv6 {
            return Err(ApiError::unprocessable(
                "The IP reservation is a VRF's: its addresses are not assigned to devices",
            ));
        }
        if r.rec.metro != metro {
            return Err(ApiError::unprocessable(
                "Address is reserved in another metro than the device's",
            ));
        }
        let on_device = self
            .ips
            .of_device(device)
            .filter_map(|a| self.ips.assignments.get(&a))
            .filter_map(KeptAssignment::block6)
            .any(|a| a.overlaps(wanted));
        if on_device {
            return Err(ApiError::unprocessable(
                "Address is already assigned to this device",
            ));
        }
        let (reservation, held) = (r.rec.id, r.assignments.len());
        self.add_assignment(
            reservation,
            held,
            device,
            wanted.network().into(),
            wanted.cidr(),
            now,
        )
    }

    /// The project's pre-created blocks where its new device goes: a
    /// public IPv6 /56 of `facility` and a private IPv4 /25 of its metro,
    /// each made with the project's first device there (terraform-provider-
    /// equinix's `equinix_metal_precreated_ip_block` and
    /// `equinix_metal_ip_block_ranges` tests find them once a device is
    /// there). A pool used up makes none (the device is made all the same).
    pub(crate) fn ensure_precreated(&mut self, project: Uuid, facility: &str, now: Instant) {
        let Some(metro) = self.catalog.facility(facility).map(|f| f.metro.clone()) else {
            return;
        };
        let has = |w: &World, kind: IpReservationType, pool: Option<Pool>| {
            // The project's blocks of the type alone, through the index by
            // type, not every block of the project.
            w.ips.of_project_kind(project, kind).any(|r| match pool {
                Some(p) => {
                    r.rec.metro.as_deref() == Some(metro.as_str())
                        && r.block().and_then(|b| pool_of(kind, b)) == Some(p)
                }
                None => r.rec.facility.as_deref() == Some(facility),
            })
        };
        if !has(self, IpReservationType::PublicIpv6, None)
            && let Some(network) = self.allocate6()
        {
            self.insert_precreated(
                project,
                IpReservationType::PublicIpv6,
                (network.into(), PRECREATED_IPV6_CIDR),
                (metro.clone(), Some(facility.to_string())),
                now,
            );
        }
        if !has(
            self,
            IpReservationType::PrivateIpv4,
            Some(Pool::PrecreatedPrivate),
        ) && let Ok(block) = self.allocate(Pool::PrecreatedPrivate, PRECREATED_PRIVATE_SIZE)
        {
            self.insert_precreated(
                project,
                IpReservationType::PrivateIpv4,
                (block.network().into(), block.cidr()),
                (metro, None),
                now,
            );
        }
    }

    /// The next free /56 of the pre-created IPv6 pool (`None` once it is
    /// used up).
    fn allocate6(&mut self) -> Option<Ipv6Addr> {
        let pool = ipv6_pool();
        let shift = 128 - u32::from(PRECREATED_IPV6_CIDR);
        let next = self.ips.next.entry(Pool::PrecreatedIpv6).or_default();
        let first = pool.first() + (u128::from(*next) << shift);
        if first > pool.last() {
            return None;
        }
        *next += 1;
        Some(Ipv6Addr::from(first))
    }

    /// Inserts a pre-created block of `project`'s: the API's own making,
    /// journaled as the fake's, so no event (the recorded event list of a
    /// new project's provisioned device holds none).
    fn insert_precreated(
        &mut self,
        project: Uuid,
        kind: IpReservationType,
        (network, cidr): (IpAddr, u8),
        (metro, facility): (String, Option<String>),
        now: Instant,
    ) {
        let id = Uuid::new_v4();
        let cause = self.journal.cause();
        self.journal.set_cause(Cause::Fake);
        self.ips
            .insert_reservation(&mut self.journal, id, now, |meta| Kept {
                rec: IpReservation {
                    id,
                    project,
                    kind,
                    network,
                    cidr,
                    metro: Some(metro),
                    facility,
                    state: IpReservationState::Created,
                    tags: Vec::new(),
                    details: None,
                    customdata: serde_json::Map::new(),
                    assignments: Vec::new(),
                    vrf: None,
                },
                meta,
                assignments: Vec::new(),
            });
        self.journal.set_cause(cause);
    }

    /// Every assignment to `device` goes (its bond converted to layer 2).
    pub(crate) fn remove_device_assignments(&mut self, device: Uuid, now: Instant) {
        let all: Vec<Uuid> = self.ips.of_device(device).collect();
        for id in all {
            self.ips.remove_assignment(&mut self.journal, id, now);
        }
    }

    /// `deleteIPAddress`: removes an assignment, or releases a reservation
    /// that has none (`422` while it has). A release's refusal names the
    /// block as the real API's did: `IP Reservation "192.168.100.0/29"
    /// error: Cannot delete with associated metal gateway`
    /// (terraform-provider-equinix PR 138's log).
    pub(crate) fn delete_ip_address(&mut self, id: Uuid, now: Instant) -> Result<(), ApiError> {
        if self.live_assignment(id).is_some() {
            self.ips.remove_assignment(&mut self.journal, id, now);
            return Ok(());
        }
        let block = self
            .ips
            .reservations()
            .get(&id)
            .map(|r| (r.rec.network, r.rec.cidr));
        // Refused while in use (model::relations).
        self.delete_record(Kind::IpReservation, id, now)
            .map_err(|mut e| {
                if let (422, Some((network, cidr))) = (e.status, block) {
                    for m in &mut e.messages {
                        *m = format!("IP Reservation \"{network}/{cidr}\" error: {m}");
                    }
                }
                e
            })
    }
}

/// An address to assign: `a.b.c.d` (one address) or `a.b.c.d/n`, the
/// network of its block; `422` otherwise.
fn parse_address(text: &str) -> Result<Block, ApiError> {
    let invalid =
        || ApiError::unprocessable(format!("Address {text} is not an IPv4 address or block"));
    let (address, cidr) = match text.trim().split_once('/') {
        Some((a, n)) => (
            a,
            n.parse::<u8>()
                .ok()
                .filter(|n| *n <= 32)
                .ok_or_else(invalid)?,
        ),
        None => (text.trim(), 32),
    };
    let address: Ipv4Addr = address.parse().map_err(|_| invalid())?;
    let block = Block::new(address, cidr);
    if block.network() != address {
        return Err(ApiError::unprocessable(format!(
            "Address {text} is not the network of a /{cidr}"
        )));
    }
    Ok(block)
}

/// An IPv6 address to assign: `…` (one address) or `…/n`, the network of
/// its block; `422` otherwise.
fn parse_address6(text: &str) -> Result<Block6, ApiError> {
    let invalid =
        || ApiError::unprocessable(format!("Address {text} is not an IPv6 address or block"));
    let (address, cidr) = match text.trim().split_once('/') {
        Some((a, n)) => (
            a,
            n.parse::<u8>()
                .ok()
                .filter(|n| *n <= 128)
                .ok_or_else(invalid)?,
        ),
        None => (text.trim(), 128),
    };
    let address: Ipv6Addr = address.parse().map_err(|_| invalid())?;
    let block = Block6::new(address, cidr);
    if block.network() != address {
        return Err(ApiError::unprocessable(format!(
            "Address {text} is not the network of a /{cidr}"
        )));
    }
    Ok(block)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_address_to_assign_is_a_network() {
        assert_eq!(parse_address6("2604:1380:4000:2::/64").unwrap().cidr(), 64);
        assert_eq!(parse_address6("2604:1380:4000:2::1").unwrap().cidr(), 128);
        for bad in ["2604:1380:4000:2::1/64", "2604::/129", "1.2.3.4", "::g"] {
            assert_eq!(parse_address6(bad).unwrap_err().status, 422, "{bad:?}");
        }
    }

    #[test]
    fn an_address_to_assign_is_a_network() {
        assert_eq!(parse_address("1.2.3.4").unwrap().cidr(), 32);
        assert_eq!(parse_address("1.2.3.4/31").unwrap().cidr(), 31);
        for bad in ["1.2.3.5/31", "1.2.3", "1.2.3.4/33", "2604::1", ""] {
            assert_eq!(parse_address(bad).unwrap_err().status, 422, "{bad:?}");
        }
    }

    #[test]
    fn blocks_are_handed_out_aligned_and_apart() {
        let mut w = World::for_tests();
        let a = w.allocate(Pool::Public, 1).unwrap();
        let b = w.allocate(Pool::Public, 8).unwrap();
        let c = w.allocate(Pool::Public, 2).unwrap();
        assert_eq!(a.network(), Ipv4Addr::new(139, 178, 64, 0));
        assert_eq!(
            (b.network(), b.cidr()),
            (Ipv4Addr::new(139, 178, 64, 8), 29)
        );
        assert_eq!(c.network(), Ipv4Addr::new(139, 178, 64, 16));
        assert!(!a.overlaps(b) && !b.overlaps(c));
    }
}
