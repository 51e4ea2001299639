//! An IP reservation and an assignment as the API sends them, written
//! straight to bytes from the records: the project a stub unless
//! included, the assignments stubs unless included (`include=assignments`,
//! as cloud-provider-equinix-metal asks), the metro and facility whole
//! unless excluded.

use std::net::{IpAddr, Ipv4Addr};

use serde::Serialize;
use uuid::Uuid;

use super::block::{Block, Block6};
use super::record::{IpReservationType, Kept, KeptAssignment};
use super::COLLECTION;
use crate::model::catalog::{FacilityView, MetroView};
use crate::model::device;
use crate::model::metal_gateway::GatewayLite;
use crate::model::project::{self, ProjectField};
use crate::model::render::{Expand, Href, Stamp, Stub, Whole};
use crate::model::World;

/// An IP reservation in a reply.
#[derive(Serialize)]
pub(crate) struct ReservationView<'a> {
    id: Uuid,
    href: Href,
    #[serde(rename = "type")]
    type_: &'static str,
    #[serde(flatten)]
    addresses: Addressing,
    addon: bool,
    bill: bool,
    state: &'static str,
    tags: &'a [String],
    details: Option<&'a str>,
    customdata: &'a serde_json::Map<String, serde_json::Value>,
    assignments: Vec<AssignmentField<'a>>,
    project: ProjectField<'a>,
    project_lite: Stub,
    metro: Option<MetroField<'a>>,
    facility: Option<FacilityView<'a>>,
    metal_gateway: Option<GatewayLite>,
    created_at: Stamp,
    /// Who asked for it: the world's own user, who makes what the fake
    /// makes.
    requested_by: Stub,
    /// The path of its free addresses, `{href}/available`, as a recorded
    /// reply of the real API gave it (see "Replies whole" in
    /// `metal_fake::fidelity`).
    available: AvailablePath,
}

/// A reservation's `available`: the path of its availability read
/// (`findIPAvailabilities`), its href with `/available` after it.
pub(crate) struct AvailablePath(Href);

impl Serialize for AvailablePath {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}/available", self.0))
    }
}

/// The addresses a reservation or an assignment holds, as both show them
/// (elastic IPv4: public, not the device's management addresses).
#[derive(Serialize)]
pub(crate) struct Addressing {
    address_family: u8,
    address: IpAddr,
    network: IpAddr,
    gateway: IpAddr,
    netmask: IpAddr,
    cidr: u8,
    public: bool,
    management: bool,
    manageable: bool,
    enabled: bool,
    global_ip: bool,
}

impl Addressing {
    /// The addresses of `block`, whose gateway is `parent`'s.
    pub(crate) fn of(block: Block, parent: Block, kind: IpReservationType) -> Self {
        Self {
            address_family: 4,
            address: block.network().into(),
            network: block.network().into(),
            gateway: parent.gateway().into(),
            netmask: block.netmask().into(),
            cidr: block.cidr(),
            public: kind != IpReservationType::PrivateIpv4,
            management: false,
            manageable: true,
            enabled: true,
            global_ip: kind == IpReservationType::GlobalIpv4,
        }
    }

    /// The addresses of the IPv6 `block`, whose gateway is `parent`'s.
    pub(crate) fn of6(block: Block6, parent: Block6, kind: IpReservationType) -> Self {
        Self {
            address_family: 6,
            address: block.network().into(),
            network: block.network().into(),
            gateway: parent.gateway().into(),
            netmask: block.netmask().into(),
            cidr: block.cidr(),
            public: kind == IpReservationType::PublicIpv6,
            management: false,
            manageable: true,
            enabled: true,
            global_ip: false,
        }
    }

    /// The addresses of reservation `r`'s own block, IPv4 or IPv6.
    pub(crate) fn of_reservation(r: &Kept) -> Self {
        match r.rec.network {
            IpAddr::V4(a) => {
                let b = Block::new(a, r.rec.cidr);
                Self::of(b, b, r.rec.kind)
            }
            IpAddr::V6(a) => {
                let b = Block6::new(a, r.rec.cidr);
                Self::of6(b, b, r.rec.kind)
            }
        }
    }

    /// The same, shown at `address` of the block (an elastic IP's).
    pub(crate) fn at(self, address: Ipv4Addr) -> Self {
        Self {
            address: address.into(),
            ..self
        }
    }
}

/// An assignment where its reservation names it: included, or a stub.
type AssignmentField<'a> = Whole<AssignmentView<'a>>;

/// A metro: as the catalog shows it, or its code alone (a metro without
/// facilities).
#[derive(Serialize)]
#[serde(untagged)]
enum MetroField<'a> {
    View(MetroView<'a>),
    Code { code: &'a str },
}

/// An assignment in a reply.
#[derive(Serialize)]
pub(crate) struct AssignmentView<'a> {
    id: Uuid,
    href: Href,
    #[serde(rename = "type")]
    type_: &'static str,
    #[serde(flatten)]
    addresses: Addressing,
    state: &'static str,
    assigned_to: Stub,
    parent_block: ParentBlock,
    metro: Option<MetroField<'a>>,
    /// `null`: only a routed block's assignment has a next hop.
    next_hop: (),
    created_at: Stamp,
}

impl AssignmentView<'_> {
    /// The assignment's ID.
    pub(crate) fn id(&self) -> Uuid {
        self.id
    }

    /// Shown as its device's management address (the public IPv4 its
    /// create took from the block).
    pub(crate) fn into_management(mut self) -> Self {
        self.addresses.management = true;
        self
    }
}

/// The reservation an assignment's addresses come from.
#[derive(Serialize)]
pub(crate) struct ParentBlock {
    network: IpAddr,
    netmask: IpAddr,
    cidr: u8,
    href: Href,
}

impl ParentBlock {
    /// Reservation `id`, which holds `block`.
    pub(crate) fn of(block: Block, id: Uuid) -> Self {
        Self {
            network: block.network().into(),
            netmask: block.netmask().into(),
            cidr: block.cidr(),
            href: Href::new(COLLECTION, id),
        }
    }

    /// Reservation `id`, which holds the IPv6 `block`.
    pub(crate) fn of6(block: Block6, id: Uuid) -> Self {
        Self {
            network: block.network().into(),
            netmask: block.netmask().into(),
            cidr: block.cidr(),
            href: Href::new(COLLECTION, id),
        }
    }
}

impl World {
    /// The metro a block of `r`'s shows.
    fn metro_field<'a>(&'a self, r: &'a Kept) -> Option<MetroField<'a>> {
        let code = r.rec.metro.as_deref()?;
        let facility = r.rec.facility.as_deref().or_else(|| {
            self.catalog
                .facilities
                .iter()
                .find(|f| f.metro == code)
                .map(|f| f.code.as_str())
        });
        Some(match facility {
            Some(f) => MetroField::View(self.catalog.metro_view(f)),
            None => MetroField::Code { code },
        })
    }

    /// `r` as the API shows it, with `expand` applied.
    pub(crate) fn ip_reservation_view<'a>(
        &'a self,
        r: &'a Kept,
        expand: &Expand,
    ) -> ReservationView<'a> {
        let rec = &r.rec;
        let assignments = self
            .live_assignments(r)
            .map(|a| {
                if expand.includes("assignments") {
                    AssignmentField::Full(Box::new(self.ip_assignment_view(a, r)))
                } else {
                    AssignmentField::Stub(Stub::new(COLLECTION, a.rec.id))
                }
            })
            .collect();
        ReservationView {
            id: rec.id,
            href: Href::new(COLLECTION, rec.id),
            type_: rec.kind.as_str(),
            addresses: Addressing::of_reservation(r),
            addon: true,
            bill: true,
            state: rec.state.as_str(),
            tags: &rec.tags,
            details: rec.details.as_deref(),
            customdata: &rec.customdata,
            assignments,
            project: self.project_field(rec.project, expand.includes("project")),
            project_lite: Stub::new(project::COLLECTION, rec.project),
            metro: self.metro_field(r),
            facility: rec
                .facility
                .as_deref()
                .map(|f| self.catalog.facility_view(f)),
            metal_gateway: self.gateway_of_block(rec.id).map(|g| self.gateway_lite(g)),
            created_at: Stamp(self.clock.wall(r.meta.created)),
            requested_by: Stub::new(crate::model::user::COLLECTION, self.user),
            available: AvailablePath(Href::new(COLLECTION, rec.id)),
        }
    }

    /// `a`, an assignment of `r`'s addresses, as the API shows it.
    pub(crate) fn ip_assignment_view<'a>(
        &'a self,
        a: &'a KeptAssignment,
        r: &'a Kept,
    ) -> AssignmentView<'a> {
        // An assignment and its block are of one family (their loads and
        // creates check so); one that is not shows as its own parent.
        let (addresses, parent_block) = match a.rec.address {
            IpAddr::V4(address) => {
                let block = Block::new(address, a.rec.cidr);
                let parent = r.block().unwrap_or(block);
                (
                    Addressing::of(block, parent, r.rec.kind),
                    ParentBlock::of(parent, r.rec.id),
                )
            }
            IpAddr::V6(address) => {
                let block = Block6::new(address, a.rec.cidr);
                let parent = r.block6().unwrap_or(block);
                (
                    Addressing::of6(block, parent, r.rec.kind),
                    ParentBlock::of6(parent, r.rec.id),
                )
            }
        };
        AssignmentView {
            id: a.rec.id,
            href: Href::new(COLLECTION, a.rec.id),
            type_: "IPAssignment",
            addresses,
            state: "active",
            assigned_to: Stub::new(device::COLLECTION, a.rec.device),
            parent_block,
            metro: self.metro_field(r),
            next_hop: (),
            created_at: Stamp(self.clock.wall(a.meta.created)),
        }
    }

    /// The assignments of reservations to `device`, oldest first, as its
    /// `ip_addresses` show them.
    pub(crate) fn elastic_addresses_of(&self, device: Uuid) -> Vec<AssignmentView<'_>> {
        self.ips
            .of_device(device)
            .filter_map(|id| {
                let a = self.ips.assignments.get(&id)?;
                let r = self.ips.reservations.get(&a.reservation)?;
                Some(self.ip_assignment_view(a, r))
            })
            .collect()
    }
}
