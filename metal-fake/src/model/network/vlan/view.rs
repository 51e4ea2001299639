//! A virtual network as the API sends it, written straight to bytes from
//! the record: the project a stub unless included (`assigned_to`), the
//! devices with a port on it (`instances`) stubs unless included, the
//! metro whole unless excluded.

use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use super::COLLECTION;
use crate::model::catalog::MetroView;
use crate::model::device::{self, DeviceField};
use crate::model::metal_gateway::GatewayLite;
use crate::model::project::ProjectField;
use crate::model::render::{Expand, Href, Stamp, Stub};
use crate::model::World;

/// A VLAN in a reply.
#[derive(Serialize)]
pub(crate) struct VlanView<'a> {
    id: Uuid,
    href: Href,
    vxlan: u32,
    description: Option<&'a str>,
    tags: &'a [String],
    metro_code: &'a str,
    /// The code of the facility it was made in, `null` for a VLAN made in
    /// a metro: beyond the spec, as the real API sent it (see "Replies
    /// whole" in `metal_fake::fidelity`).
    facility_code: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metro: Option<MetroView<'a>>,
    facility: Option<FacilityHref>,
    assigned_to: ProjectField<'a>,
    assigned_to_virtual_circuit: bool,
    instances: Vec<DeviceField<'a>>,
    metal_gateways: Vec<GatewayLite>,
    created_at: Stamp,
}

/// A facility as a VLAN names it: its href by code.
#[derive(Serialize)]
struct FacilityHref {
    href: String,
}

/// A VLAN where a port names it: included, or a stub.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum VlanField<'a> {
    Full(Box<VlanView<'a>>),
    Stub(Stub),
}

impl World {
    /// `v` as the API shows it at `now`, with `expand` applied.
    pub(crate) fn vlan_view<'a>(
        &'a self,
        v: &'a Kept,
        expand: &Expand,
        now: Instant,
    ) -> VlanView<'a> {
        let rec = &v.rec;
        let nested = expand.nested("instances");
        let instances = self
            .devices_on_vlan(rec.id)
            .into_iter()
            .filter_map(|d| self.devices.get(&d))
            .map(|d| {
                if expand.includes("instances") {
                    DeviceField::Full(Box::new(self.device_view(d, &nested, now)))
                } else {
                    DeviceField::Stub(Stub::new(device::COLLECTION, d.rec.id))
                }
            })
            .collect();
        VlanView {
            id: rec.id,
            href: Href::new(COLLECTION, rec.id),
            vxlan: rec.vxlan,
            description: rec.description.as_deref(),
            tags: &rec.tags,
            metro_code: &rec.metro,
            facility_code: rec.facility.as_deref(),
            // A VLAN made in a facility has no metro in its replies
            // (packngo's TestAccVirtualNetworksFacility).
            metro: rec
                .facility
                .is_none()
                .then(|| self.catalog.metro_of_code(&rec.metro)),
            facility: rec.facility.as_ref().map(|f| {
                let id = self.catalog.facility(f).and_then(|x| x.id);
                FacilityHref {
                    href: match id {
                        Some(id) => format!("{}/facilities/{id}", crate::model::render::API_PREFIX),
                        None => format!("{}/facilities/{f}", crate::model::render::API_PREFIX),
                    },
                }
            }),
            assigned_to: self.project_field(rec.project, expand.includes("assigned_to")),
            assigned_to_virtual_circuit: self.vlan_has_circuit(rec.id),
            instances,
            metal_gateways: self
                .gateways_of_vlan(rec.id)
                .into_iter()
                .map(|g| self.gateway_lite(g))
                .collect(),
            created_at: Stamp(self.clock.wall(v.meta.created)),
        }
    }

    /// The VLAN `id` where a port names it: whole when `include`, else a
    /// stub.
    pub(crate) fn vlan_field(
        &self,
        id: Uuid,
        include: bool,
        expand: &Expand,
        now: Instant,
    ) -> VlanField<'_> {
        match self.vlans.get(&id) {
            Some(v) if include => VlanField::Full(Box::new(self.vlan_view(v, expand, now))),
            _ => VlanField::Stub(Stub::new(COLLECTION, id)),
        }
    }
}
