//! A virtual circuit as the API sends it, written straight to bytes: its
//! port an href (clients read the connection and port IDs from it), its
//! project and VLAN stubs unless included.

use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, VirtualCircuitStatus};
use crate::model::interconnection::port_href;
use crate::model::project::ProjectField;
use crate::model::render::{Expand, Stamp};
use crate::model::vlan::VlanField;
use crate::model::World;

/// The collection of virtual circuits' paths.
pub(crate) const COLLECTION: &str = "virtual-circuits";

/// A port where a circuit names it: its href.
#[derive(Serialize)]
struct PortHref {
    href: String,
}

/// A virtual circuit in a reply (`VlanVirtualCircuit`).
#[derive(Serialize)]
pub(crate) struct VcView<'a> {
    id: Uuid,
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    bill: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    nni_vlan: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vnid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    virtual_network: Option<VlanField<'a>>,
    port: PortHref,
    project: ProjectField<'a>,
    speed: u64,
    status: VirtualCircuitStatus,
    tags: &'a [String],
    created_at: Stamp,
    updated_at: Stamp,
}

/// A list of circuits (`VirtualCircuitList`).
#[derive(Serialize)]
pub(crate) struct VcList<'a> {
    pub(crate) virtual_circuits: Vec<VcView<'a>>,
}

impl World {
    /// `vc` as the API shows it at `now`, with `expand` applied.
    pub(crate) fn vc_view<'a>(&'a self, vc: &'a Kept, expand: &Expand, now: Instant) -> VcView<'a> {
        let rec = &vc.rec;
        VcView {
            id: rec.id,
            kind: "vlan",
            name: &rec.name,
            description: rec.description.as_deref().unwrap_or_default(),
            bill: false,
            nni_vlan: rec.nni_vlan,
            vnid: rec
                .virtual_network
                .and_then(|v| self.vlans.get(&v))
                .map(|v| v.rec.vxlan),
            virtual_network: rec.virtual_network.map(|v| {
                self.vlan_field(
                    v,
                    expand.includes("virtual_network"),
                    &expand.nested("virtual_network"),
                    now,
                )
            }),
            port: PortHref {
                href: port_href(rec.interconnection, rec.port),
            },
            project: self.project_field(rec.project, expand.includes("project")),
            speed: rec.speed,
            status: rec.status,
            tags: &rec.tags,
            created_at: Stamp(self.clock.wall(vc.meta.created)),
            updated_at: Stamp(self.clock.wall(vc.meta.updated)),
        }
    }
}
