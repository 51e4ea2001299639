//! A VRF as the API sends it, written straight to bytes from the record:
//! the project a stub unless included (Terraform reads it with
//! `include=project,metro`), the metro whole unless excluded; and the
//! VRF where a block or a gateway names it.

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use super::COLLECTION;
use crate::model::catalog::MetroView;
use crate::model::project::ProjectField;
use crate::model::render::{Expand, Href, Stamp, Stub};
use crate::model::virtual_circuit::VrfVcView;
use crate::model::World;

/// A VRF in a reply.
#[derive(Serialize)]
pub(crate) struct VrfView<'a> {
    id: Uuid,
    href: Href,
    name: &'a str,
    /// `null` when unset (see "Replies whole" in `metal_fake::fidelity`).
    description: Option<&'a str>,
    local_asn: u32,
    ip_ranges: &'a [String],
    tags: &'a [String],
    bill: bool,
    bgp_dynamic_neighbors_enabled: bool,
    bgp_dynamic_neighbors_bfd_enabled: bool,
    bgp_dynamic_neighbors_export_route_map: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    metro: Option<MetroView<'a>>,
    project: ProjectField<'a>,
    created_by: Stub,
    virtual_circuits: Vec<VrfVcView<'a>>,
    created_at: Stamp,
    updated_at: Stamp,
}

/// A VRF where another record names it: included, or a stub.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum VrfField<'a> {
    Full(Box<VrfView<'a>>),
    Stub(Stub),
}

impl World {
    /// `v` as the API shows it, with `expand` applied.
    pub(crate) fn vrf_view<'a>(&'a self, v: &'a Kept, expand: &Expand) -> VrfView<'a> {
        let rec = &v.rec;
        VrfView {
            id: rec.id,
            href: Href::new(COLLECTION, rec.id),
            name: &rec.name,
            description: rec.description.as_deref(),
            local_asn: rec.local_asn,
            ip_ranges: &rec.ip_ranges,
            tags: &rec.tags,
            bill: false,
            bgp_dynamic_neighbors_enabled: rec.bgp_dynamic_neighbors_enabled,
            bgp_dynamic_neighbors_bfd_enabled: rec.bgp_dynamic_neighbors_bfd_enabled,
            bgp_dynamic_neighbors_export_route_map: rec.bgp_dynamic_neighbors_export_route_map,
            metro: Some(self.catalog.metro_of_code(&rec.metro)),
            project: self.project_field(rec.project, expand.includes("project")),
            created_by: Stub::new(crate::model::user::COLLECTION, self.user),
            virtual_circuits: self.vrf_circuit_views(rec.id),
            created_at: Stamp(self.clock.wall(v.meta.created)),
            updated_at: Stamp(self.clock.wall(v.meta.updated)),
        }
    }

    /// The VRF `id` where a block or a gateway names it: whole when
    /// `include` (and it exists), else a stub.
    pub(crate) fn vrf_field(&self, id: Uuid, include: bool, expand: &Expand) -> VrfField<'_> {
        match self.vrfs.get(&id) {
            Some(v) if include => VrfField::Full(Box::new(self.vrf_view(v, expand))),
            _ => VrfField::Stub(Stub::new(COLLECTION, id)),
        }
    }
}
