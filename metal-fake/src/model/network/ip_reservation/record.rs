//! What the fake keeps of an IP reservation and of an assignment of its
//! addresses to a device: their descriptions (also their entries in the
//! world document), and the table that holds both, with the index by
//! device a device's `ip_addresses` reads.

use std::collections::{BTreeSet, HashMap};
use std::net::IpAddr;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use super::block::{Block, Block6};
use crate::model::journal::{self, record, Journal, Meta, Scope};
use crate::model::relations::Kind;

/// What a reservation's addresses are.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum IpReservationType {
    /// Public IPv4 addresses of one metro (elastic IPs).
    PublicIpv4,
    /// Global anycast IPv4 addresses, assignable in every metro.
    GlobalIpv4,
    /// Private IPv4 addresses of one metro: a Metal Gateway's block, made
    /// with the gateway, or the project's pre-created block of the metro,
    /// made with its first device there.
    PrivateIpv4,
    /// Public IPv6 addresses of one facility: the project's pre-created
    /// /56 there, made with its first device in the facility.
    PublicIpv6,
    /// IPv4 (or IPv6) addresses of a VRF's ranges, in its metro: a VRF
    /// gateway's block.
    Vrf,
}

impl IpReservationType {
    /// The API's name of it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::PublicIpv4 => "public_ipv4",
            Self::GlobalIpv4 => "global_ipv4",
            Self::PrivateIpv4 => "private_ipv4",
            Self::PublicIpv6 => "public_ipv6",
            Self::Vrf => "vrf",
        }
    }
}

/// Where a reservation is in its approval.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IpReservationState {
    /// Waiting for approval: its addresses cannot be assigned yet.
    Pending,
    /// Approved: its addresses can be assigned.
    #[default]
    Created,
}

impl IpReservationState {
    /// The API's name of it.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Created => "created",
        }
    }
}

/// A block of addresses reserved for a project: IPv4, or IPv6 for a VRF's
/// block and a pre-created public IPv6 one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IpReservation {
    /// Its ID.
    pub id: Uuid,
    /// Its project.
    pub project: Uuid,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: IpReservationType,
    /// Its network address (the first of the block): IPv4, or IPv6 for
    /// a VRF's block and a public IPv6 one.
    pub network: IpAddr,
    /// Its prefix length: 24 (256 addresses) to 32 (one) for a public
    /// IPv4 block; a VRF's IPv4 block 22 to 31, its IPv6 block 64; a
    /// public IPv6 block 56.
    pub cidr: u8,
    /// Its metro's code (a public block; the facility's metro when a
    /// facility is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metro: Option<String>,
    /// Its facility's code, when it was requested in one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facility: Option<String>,
    /// Its state (default `created`).
    #[serde(default)]
    pub state: IpReservationState,
    /// Its tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Its description (`details`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
    /// Its custom data.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub customdata: serde_json::Map<String, serde_json::Value>,
    /// Its addresses assigned to devices.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub assignments: Vec<IpAssignment>,
    /// Its VRF (a `vrf` block only): the block lies in one of the VRF's
    /// ranges, in its metro.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vrf: Option<Uuid>,
}

/// Addresses of a reservation assigned to a device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IpAssignment {
    /// Its ID.
    pub id: Uuid,
    /// The device, of the reservation's project.
    pub device: Uuid,
    /// The first address assigned (IPv6 for an assignment of a public
    /// IPv6 block).
    pub address: IpAddr,
    /// Its prefix length (default 32: one address), at least the
    /// reservation's.
    #[serde(default = "one_address")]
    pub cidr: u8,
}

fn one_address() -> u8 {
    32
}

/// A reservation as the world keeps it (its assignments are in the
/// table, by ID, in the order they were made).
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    /// The record, without its assignments.
    pub(crate) rec: IpReservation,
    pub(crate) meta: Meta,
    pub(crate) assignments: Vec<Uuid>,
}

record!(
    Kept,
    Kind::IpReservation,
    |k| Scope::project(k.rec.project),
    label | k | Some(format!("{}/{}", k.rec.network, k.rec.cidr))
);

impl Kept {
    /// The IPv4 block it holds (`None` for an IPv6 one).
    pub(crate) fn block(&self) -> Option<Block> {
        match self.rec.network {
            IpAddr::V4(a) => Some(Block::new(a, self.rec.cidr)),
            IpAddr::V6(_) => None,
        }
    }

    /// The IPv6 block it holds (`None` for an IPv4 one).
    pub(crate) fn block6(&self) -> Option<Block6> {
        match self.rec.network {
            IpAddr::V4(_) => None,
            IpAddr::V6(a) => Some(Block6::new(a, self.rec.cidr)),
        }
    }
}

/// An assignment as the world keeps it.
#[derive(Clone, Debug)]
pub(crate) struct KeptAssignment {
    pub(crate) rec: IpAssignment,
    pub(crate) reservation: Uuid,
    /// The project of its reservation.
    pub(crate) project: Uuid,
    pub(crate) meta: Meta,
}

record!(
    KeptAssignment,
    Kind::IpAssignment,
    |k| Scope {
        project: Some(k.project),
        organization: None,
        device: Some(k.rec.device),
    },
    label | k | Some(format!("{}/{}", k.rec.address, k.rec.cidr))
);

impl KeptAssignment {
    /// The IPv4 addresses it holds (`None` for IPv6 ones).
    pub(crate) fn block(&self) -> Option<Block> {
        match self.rec.address {
            IpAddr::V4(a) => Some(Block::new(a, self.rec.cidr)),
            IpAddr::V6(_) => None,
        }
    }

    /// The IPv6 addresses it holds (`None` for IPv4 ones).
    pub(crate) fn block6(&self) -> Option<Block6> {
        match self.rec.address {
            IpAddr::V4(_) => None,
            IpAddr::V6(a) => Some(Block6::new(a, self.rec.cidr)),
        }
    }
}

/// The made-up pools the fake hands blocks out of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Pool {
    /// Public IPv4 blocks.
    Public,
    /// Global IPv4 blocks.
    Global,
    /// Metal Gateways' private IPv4 blocks.
    GatewayPrivate,
    /// Projects' pre-created private IPv4 blocks (one a metro).
    PrecreatedPrivate,
    /// Projects' pre-created public IPv6 /56 blocks (one a facility),
    /// counted in /56s.
    PrecreatedIpv6,
}

impl Pool {
    /// The type of the reservations it hands out.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Public => "public_ipv4",
            Self::Global => "global_ipv4",
            Self::GatewayPrivate | Self::PrecreatedPrivate => "private_ipv4",
            Self::PrecreatedIpv6 => "public_ipv6",
        }
    }
}

/// The world's IP reservations and assignments.
#[derive(Debug, Default)]
pub(crate) struct Table {
    pub(super) reservations: journal::Table<Kept>,
    pub(super) assignments: journal::Table<KeptAssignment>,
    /// `(device, seq, assignment)`: each device's assignments, oldest
    /// first.
    pub(super) by_device: BTreeSet<(Uuid, u64, Uuid)>,
    /// How far into each pool blocks have been handed out.
    pub(super) next: HashMap<Pool, u32>,
    /// `(project, type, reservation)`: each project's reservations by
    /// type (a project's pre-created blocks are found among its blocks of
    /// their type, not among all its blocks).
    by_kind: HashMap<(Uuid, IpReservationType), BTreeSet<Uuid>>,
    /// `(project, network, prefix length, reservation)`: each project's
    /// reservations by their block (an address's block is found by its
    /// networks, one a prefix length, not by reading every block). A
    /// reservation's type, project and block never change after its
    /// insert, so its insert and its removal keep both.
    by_network: HashMap<(Uuid, IpAddr, u8), BTreeSet<Uuid>>,
}

impl Table {
    /// The reservations, to read (only this folder writes them).
    pub(crate) fn reservations(&self) -> &journal::Table<Kept> {
        &self.reservations
    }

    /// The assignments, to read (only this folder writes them).
    pub(crate) fn assignments(&self) -> &journal::Table<KeptAssignment> {
        &self.assignments
    }

    /// Makes reservation `id` at `at` (as [`journal::Table::insert`]),
    /// kept in the indexes by type and by block: the only way a
    /// reservation is made.
    pub(super) fn insert_reservation(
        &mut self,
        log: &mut Journal,
        id: Uuid,
        at: Instant,
        make: impl FnOnce(Meta) -> Kept,
    ) -> bool {
        let made = self.reservations.insert(log, id, at, make);
        if let Some(r) = self.reservations.get(&id).filter(|_| made) {
            let rec = &r.rec;
            self.by_kind
                .entry((rec.project, rec.kind))
                .or_default()
                .insert(id);
            self.by_network
                .entry((rec.project, rec.network, rec.cidr))
                .or_default()
                .insert(id);
        }
        made
    }

    /// Removes reservation `id` at `at`, journaled: for the relations'
    /// cascade alone (`World::delete_record`), which decided it (its
    /// assignments went first).
    pub(in crate::model) fn remove_reservation_row(
        &mut self,
        log: &mut Journal,
        id: Uuid,
        at: Instant,
    ) {
        if let Some(r) = self.reservations.remove(log, id, at) {
            let rec = &r.rec;
            forget(&mut self.by_kind, (rec.project, rec.kind), id);
            forget(
                &mut self.by_network,
                (rec.project, rec.network, rec.cidr),
                id,
            );
        }
    }

    /// `project`'s reservations of type `kind`, by ID.
    pub(super) fn of_project_kind(
        &self,
        project: Uuid,
        kind: IpReservationType,
    ) -> impl Iterator<Item = &Kept> + '_ {
        self.by_kind
            .get(&(project, kind))
            .into_iter()
            .flatten()
            .filter_map(|id| self.reservations.get(id))
    }

    /// `project`'s reservation whose block is `network`/`cidr` (the one
    /// of lowest ID, were there several).
    pub(super) fn with_block(&self, project: Uuid, network: IpAddr, cidr: u8) -> Option<&Kept> {
        self.by_network
            .get(&(project, network, cidr))
            .into_iter()
            .flatten()
            .find_map(|id| self.reservations.get(id))
    }

    /// The IDs of `device`'s assignments, oldest first.
    pub(crate) fn of_device(&self, device: Uuid) -> impl Iterator<Item = Uuid> + '_ {
        self.by_device
            .range((device, 0, Uuid::nil())..=(device, u64::MAX, Uuid::max()))
            .map(|(_, _, a)| *a)
    }

    /// Adds an assignment of `reservation` at `at` (its reservation holds
    /// it).
    pub(crate) fn insert_assignment(
        &mut self,
        log: &mut Journal,
        rec: IpAssignment,
        reservation: Uuid,
        at: Instant,
    ) {
        let Some(project) = self.reservations.get(&reservation).map(|r| r.rec.project) else {
            return;
        };
        let id = rec.id;
        let device = rec.device;
        let made = self.assignments.insert(log, id, at, |meta| KeptAssignment {
            rec,
            reservation,
            project,
            meta,
        });
        if !made {
            return;
        }
        self.reservations
            .update(log, reservation, "assigned", at, |r| r.assignments.push(id));
        if let Some(seq) = self.assignments.get(&id).map(|a| a.meta.seq) {
            self.by_device.insert((device, seq, id));
        }
    }

    /// Removes an assignment at `at`.
    pub(crate) fn remove_assignment(
        &mut self,
        log: &mut Journal,
        id: Uuid,
        at: Instant,
    ) -> Option<KeptAssignment> {
        let a = self.assignments.remove(log, id, at)?;
        self.reservations
            .update(log, a.reservation, "unassigned", at, |r| {
                r.assignments.retain(|x| *x != id)
            });
        self.by_device.remove(&(a.rec.device, a.meta.seq, id));
        Some(a)
    }
}

/// `id` no longer under `key` in `index` (nor the key, once it has none).
fn forget<K: std::hash::Hash + Eq>(index: &mut HashMap<K, BTreeSet<Uuid>>, key: K, id: Uuid) {
    if let Some(ids) = index.get_mut(&key) {
        ids.remove(&id);
        if ids.is_empty() {
            index.remove(&key);
        }
    }
}
