//! A virtual circuit as the API sends it, written straight to bytes: a
//! VLAN circuit (`VlanVirtualCircuit`) or a VRF circuit
//! (`VrfVirtualCircuit`, `type: vrf`, its peering and its VRF), its port
//! an href (clients read the connection and port IDs from it), its
//! project, VLAN and VRF stubs unless included.

use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, VirtualCircuitStatus};
use crate::model::interconnection::port_href;
use crate::model::project::ProjectField;
use crate::model::render::{Expand, Stamp, Stub};
use crate::model::vlan::VlanField;
use crate::model::vrf;
use crate::model::World;

/// A port where a circuit names it: its href.
#[derive(Serialize)]
struct PortHref {
    href: String,
}

/// A virtual circuit in a reply: a VLAN one or a VRF one.
#[derive(Serialize)]
#[serde(untagged)]
pub(crate) enum VcView<'a> {
    /// A VLAN circuit.
    Vlan(Box<VlanVcView<'a>>),
    /// A VRF circuit.
    Vrf(Box<VrfVcView<'a>>),
}

/// A VLAN circuit in a reply (`VlanVirtualCircuit`).
#[derive(Serialize)]
pub(crate) struct VlanVcView<'a> {
    id: Uuid,
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    bill: bool,
    /// `null`, as the spec allows: how a Fabric circuit is billed, which
    /// the fake does not say.
    bill_type: Option<&'static str>,
    nni_vlan: Option<u16>,
    vnid: Option<u32>,
    virtual_network: Option<VlanField<'a>>,
    /// `null`: the cloud provider's side, which the fake does not model.
    provider_connection_id: (),
    port: PortHref,
    project: ProjectField<'a>,
    speed: u64,
    status: VirtualCircuitStatus,
    tags: &'a [String],
    created_at: Stamp,
    updated_at: Stamp,
}

/// A VRF circuit in a reply (`VrfVirtualCircuit`).
#[derive(Serialize)]
pub(crate) struct VrfVcView<'a> {
    id: Uuid,
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    nni_vlan: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    peer_asn: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    subnet: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metal_ip: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    customer_ip: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    subnet_ipv6: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metal_ipv6: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    customer_ipv6: Option<&'a str>,
    /// The spec's "MD5 password for the BGP peering in plaintext", which
    /// the Terraform provider reads back.
    #[serde(skip_serializing_if = "Option::is_none")]
    md5: Option<&'a str>,
    port: PortHref,
    project: ProjectField<'a>,
    speed: u64,
    status: VirtualCircuitStatus,
    tags: &'a [String],
    vrf: Stub,
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
        if vc.rec.vrf.is_some() {
            return VcView::Vrf(Box::new(self.vrf_vc_view(vc, expand)));
        }
        let rec = &vc.rec;
        VcView::Vlan(Box::new(VlanVcView {
            id: rec.id,
            kind: "vlan",
            name: &rec.name,
            description: rec.description.as_deref().unwrap_or_default(),
            bill: false,
            bill_type: None,
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
            provider_connection_id: (),
            port: PortHref {
                href: port_href(rec.interconnection, rec.port),
            },
            project: self.project_field(rec.project, expand.includes("project")),
            speed: rec.speed,
            status: rec.status,
            tags: &rec.tags,
            created_at: Stamp(self.clock.wall(vc.meta.created)),
            updated_at: Stamp(self.clock.wall(vc.meta.updated)),
        }))
    }

    /// The VRF circuit `vc` as the API shows it (its VRF a stub, made
    /// whole when `expand` includes it by the include walk).
    pub(crate) fn vrf_vc_view<'a>(&'a self, vc: &'a Kept, expand: &Expand) -> VrfVcView<'a> {
        let rec = &vc.rec;
        let p = rec.peering.as_ref();
        VrfVcView {
            id: rec.id,
            kind: "vrf",
            name: &rec.name,
            description: rec.description.as_deref().unwrap_or_default(),
            nni_vlan: rec.nni_vlan,
            peer_asn: p.map(|p| p.peer_asn),
            subnet: p.map(|p| p.subnet.as_str()),
            metal_ip: p.map(|p| p.metal_ip.as_str()),
            customer_ip: p.map(|p| p.customer_ip.as_str()),
            subnet_ipv6: p.and_then(|p| p.subnet_ipv6.as_deref()),
            metal_ipv6: p.and_then(|p| p.metal_ipv6.as_deref()),
            customer_ipv6: p.and_then(|p| p.customer_ipv6.as_deref()),
            md5: p.and_then(|p| p.md5.as_deref()),
            port: PortHref {
                href: port_href(rec.interconnection, rec.port),
            },
            project: self.project_field(rec.project, expand.includes("project")),
            speed: rec.speed,
            status: rec.status,
            tags: &rec.tags,
            // Whole when included, by the include walk (`model/expand.rs`):
            // a GET of its href, as the VRF's own reply shows it.
            vrf: Stub::new(vrf::COLLECTION, rec.vrf.unwrap_or_default()),
            created_at: Stamp(self.clock.wall(vc.meta.created)),
            updated_at: Stamp(self.clock.wall(vc.meta.updated)),
        }
    }

    /// The circuits of VRF `vrf`, oldest first, as its view lists them
    /// (each naming the VRF by a stub).
    pub(crate) fn vrf_circuit_views(&self, vrf: Uuid) -> Vec<VrfVcView<'_>> {
        let mut of: Vec<&Kept> = self
            .virtual_circuits
            .values()
            .filter(|vc| vc.rec.vrf == Some(vrf))
            .collect();
        of.sort_by_key(|vc| vc.meta.seq);
        of.into_iter()
            .map(|vc| self.vrf_vc_view(vc, &Expand::default()))
            .collect()
    }
}
