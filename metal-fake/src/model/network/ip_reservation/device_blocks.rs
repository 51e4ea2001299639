//! A device's own blocks (its private IPv4 /31 and public IPv6 /127, once
//! it has them) as its project's IP reservations list them when `types`
//! asks for their kind, as the Terraform provider's
//! `equinix_metal_precreated_ip_block` data source finds them among `GET
//! /projects/{id}/ips`. Its public IPv4 /31 (its management subnet) is not
//! listed. They are read from the devices, never written to the IP
//! tables: deleting the device releases them.

use serde::Serialize;
use uuid::Uuid;

use super::COLLECTION;
use crate::model::catalog::{FacilityView, MetroView};
use crate::model::device::{self, OwnBlock};
use crate::model::project::{self, ProjectField};
use crate::model::render::{Empty, Expand, Href, Stamp, Stub, Whole};
use crate::model::{OwnAddress, World};

/// A device's own block in a reply, shaped as an `IPReservation`.
#[derive(Serialize)]
pub(crate) struct DeviceBlockView<'a> {
    id: Uuid,
    href: Href,
    #[serde(rename = "type")]
    type_: &'static str,
    address_family: u8,
    address: String,
    network: String,
    gateway: String,
    netmask: String,
    cidr: u8,
    public: bool,
    management: bool,
    manageable: bool,
    enabled: bool,
    global_ip: bool,
    addon: bool,
    bill: bool,
    state: &'static str,
    tags: Empty,
    customdata: NoData,
    assignments: [Whole<OwnAssignment>; 1],
    project: ProjectField<'a>,
    project_lite: Stub,
    metro: Option<MetroView<'a>>,
    facility: Option<FacilityView<'a>>,
    created_at: Stamp,
    /// `null`: a device's own block has no details, gateway or requester,
    /// and no public source gives `available` (see "Replies whole" in
    /// `metal_fake::fidelity`).
    details: (),
    /// As `details`.
    metal_gateway: (),
    /// As `details`.
    requested_by: (),
    /// As `details`.
    available: (),
}

/// `{}`.
#[derive(Serialize)]
struct NoData {}

/// The device's assignment of the whole block, included.
#[derive(Serialize)]
pub(crate) struct OwnAssignment {
    id: Uuid,
    href: Href,
    #[serde(rename = "type")]
    type_: &'static str,
    address_family: u8,
    address: String,
    network: String,
    gateway: String,
    netmask: String,
    cidr: u8,
    public: bool,
    management: bool,
    manageable: bool,
    enabled: bool,
    global_ip: bool,
    state: &'static str,
    assigned_to: Stub,
    created_at: Stamp,
    /// `null`: a device's own addresses have no next hop, metro or
    /// parent block (see "Replies whole" in `metal_fake::fidelity`).
    next_hop: (),
    /// As `next_hop`.
    metro: (),
    /// As `next_hop`.
    parent_block: (),
}

/// The reservation type of one of a device's own blocks.
pub(crate) fn block_type(kind: OwnAddress) -> &'static str {
    match kind {
        OwnAddress::PublicIpv4 => "public_ipv4",
        OwnAddress::PrivateIpv4 => "private_ipv4",
        OwnAddress::PublicIpv6 => "public_ipv6",
    }
}

/// Whether a device's own block of `kind` is listed: the precreated kinds
/// (private IPv4, public IPv6); a device's public IPv4 management subnet
/// is not.
fn listed_kind(kind: OwnAddress) -> bool {
    kind != OwnAddress::PublicIpv4
}

/// `d`'s own blocks its project's list shows.
pub(crate) fn listed_blocks(d: &device::Kept) -> impl Iterator<Item = OwnBlock> {
    device::own_blocks(d)
        .into_iter()
        .filter(|b| listed_kind(b.kind))
}

impl World {
    /// Block `b` of device `d` as its project's IP reservations show it,
    /// with `expand` applied (`project`, `assignments` included; `metro`,
    /// `facility` whole unless excluded).
    pub(crate) fn device_block_view<'a>(
        &'a self,
        d: &'a device::Kept,
        b: OwnBlock,
        expand: &Expand,
    ) -> DeviceBlockView<'a> {
        let rec = &d.rec;
        let made = Stamp(self.clock.wall(d.meta.created));
        let assignment = if expand.includes("assignments") {
            Whole::Full(Box::new(OwnAssignment {
                id: b.assignment,
                href: Href::new(COLLECTION, b.assignment),
                type_: "IPAssignment",
                address_family: b.address_family,
                address: b.address.clone(),
                network: b.network.clone(),
                gateway: b.gateway.clone(),
                netmask: b.netmask.clone(),
                cidr: b.cidr,
                public: b.public,
                management: true,
                manageable: true,
                enabled: true,
                global_ip: false,
                state: "active",
                assigned_to: Stub::new(device::COLLECTION, rec.id),
                created_at: made,
                next_hop: (),
                metro: (),
                parent_block: (),
            }))
        } else {
            Whole::Stub(Stub::new(COLLECTION, b.assignment))
        };
        DeviceBlockView {
            id: b.block,
            href: Href::new(COLLECTION, b.block),
            type_: block_type(b.kind),
            address_family: b.address_family,
            address: b.network.clone(),
            gateway: b.gateway,
            network: b.network,
            netmask: b.netmask,
            cidr: b.cidr,
            public: b.public,
            management: true,
            manageable: true,
            enabled: true,
            global_ip: false,
            addon: false,
            bill: false,
            state: "created",
            tags: Empty,
            customdata: NoData {},
            assignments: [assignment],
            project: self.project_field(rec.project, expand.includes("project")),
            project_lite: Stub::new(project::COLLECTION, rec.project),
            metro: Some(self.catalog.metro_view(&rec.facility)),
            facility: Some(self.catalog.facility_view(&rec.facility)),
            created_at: made,
            details: (),
            metal_gateway: (),
            requested_by: (),
            available: (),
        }
    }

    /// The device whose own block has the ID `id`, and the block.
    pub(crate) fn device_block(&self, id: Uuid) -> Option<(&device::Kept, OwnBlock)> {
        device::own_block_owner(id).find_map(|(device, _)| {
            let d = self.devices.get(&device)?;
            let b = listed_blocks(d).find(|b| b.block == id)?;
            Some((d, b))
        })
    }
}
