//! A VRF's IP reservation as the API sends it (the spec's
//! `VrfIpReservation`: no assignments, the VRF a stub unless included),
//! and a reservation of either kind where a reply may hold both.

use std::net::IpAddr;

use serde::Serialize;
use uuid::Uuid;

use super::block::{Block, Block6};
use super::record::{IpReservationType, Kept};
use super::view::ReservationView;
use super::COLLECTION;
use crate::model::catalog::MetroView;
use crate::model::metal_gateway::GatewayLite;
use crate::model::project::{self, ProjectField};
use crate::model::render::{Expand, Href, Stamp, Stub};
use crate::model::vrf::VrfField;
use crate::model::World;

/// A VRF's IP reservation in a reply.
#[derive(Serialize)]
pub(crate) struct VrfReservationView<'a> {
    id: Uuid,
    href: Href,
    #[serde(rename = "type")]
    type_: &'static str,
    address_family: u8,
    address: IpAddr,
    network: IpAddr,
    gateway: IpAddr,
    netmask: IpAddr,
    cidr: u8,
    public: bool,
    management: bool,
    manageable: bool,
    bill: bool,
    state: &'static str,
    tags: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    details: Option<&'a str>,
    customdata: &'a serde_json::Map<String, serde_json::Value>,
    project: ProjectField<'a>,
    project_lite: Stub,
    #[serde(skip_serializing_if = "Option::is_none")]
    metro: Option<MetroView<'a>>,
    /// The gateway on it, when one is (as an `IPReservation`'s).
    #[serde(skip_serializing_if = "Option::is_none")]
    metal_gateway: Option<GatewayLite>,
    vrf: VrfField<'a>,
    created_by: Stub,
    created_at: Stamp,
}

/// A reservation of either kind (a list or a read under `/ips`).
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum AnyReservationView<'a> {
    Ip(Box<ReservationView<'a>>),
    Vrf(Box<VrfReservationView<'a>>),
}

impl World {
    /// `r`, a VRF's block, as the API shows it, with `expand` applied.
    pub(crate) fn vrf_reservation_view<'a>(
        &'a self,
        r: &'a Kept,
        expand: &Expand,
    ) -> VrfReservationView<'a> {
        let rec = &r.rec;
        let (address_family, network, gateway, netmask) = match rec.network {
            IpAddr::V4(a) => {
                let b = Block::new(a, rec.cidr);
                (
                    4,
                    b.network().into(),
                    b.gateway().into(),
                    b.netmask().into(),
                )
            }
            IpAddr::V6(a) => {
                let b = Block6::new(a, rec.cidr);
                (
                    6,
                    b.network().into(),
                    b.gateway().into(),
                    b.netmask().into(),
                )
            }
        };
        VrfReservationView {
            id: rec.id,
            href: Href::new(COLLECTION, rec.id),
            type_: rec.kind.as_str(),
            address_family,
            address: network,
            network,
            gateway,
            netmask,
            cidr: rec.cidr,
            public: false,
            management: false,
            manageable: true,
            bill: false,
            state: rec.state.as_str(),
            tags: &rec.tags,
            details: rec.details.as_deref(),
            customdata: &rec.customdata,
            project: self.project_field(rec.project, expand.includes("project")),
            project_lite: Stub::new(project::COLLECTION, rec.project),
            metro: rec.metro.as_deref().map(|m| self.catalog.metro_of_code(m)),
            metal_gateway: self.gateway_of_block(rec.id).map(|g| self.gateway_lite(g)),
            vrf: self.vrf_field(
                rec.vrf.unwrap_or_default(),
                expand.includes("vrf"),
                &expand.nested("vrf"),
            ),
            created_by: Stub::new(crate::model::user::COLLECTION, self.user),
            created_at: Stamp(self.clock.wall(r.meta.created)),
        }
    }

    /// `r` as the API shows it, in the form of its kind.
    pub(crate) fn any_reservation_view<'a>(
        &'a self,
        r: &'a Kept,
        expand: &Expand,
    ) -> AnyReservationView<'a> {
        if r.rec.kind == IpReservationType::Vrf {
            AnyReservationView::Vrf(Box::new(self.vrf_reservation_view(r, expand)))
        } else {
            AnyReservationView::Ip(Box::new(self.ip_reservation_view(r, expand)))
        }
    }
}
