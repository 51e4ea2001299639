//! A Metal Gateway as the API sends it: the project, VLAN and block stubs
//! unless included (Terraform reads it with
//! `include=project,ip_reservation,virtual_network,vrf`). The short form
//! a VLAN's `metal_gateways` and a block's `metal_gateway` show is
//! `lite`.

use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::lite::state;
use super::record::Kept;
use super::COLLECTION;
use crate::model::ip_reservation::AnyReservationView;
use crate::model::project::ProjectField;
use crate::model::render::{Expand, Href, Stamp, Stub};
use crate::model::vlan::VlanField;
use crate::model::vrf::VrfField;
use crate::model::World;

/// A gateway in a reply.
#[derive(Serialize)]
pub(crate) struct GatewayView<'a> {
    id: Uuid,
    href: Href,
    state: &'static str,
    project: ProjectField<'a>,
    virtual_network: VlanField<'a>,
    ip_reservation: BlockField<'a>,
    /// A VRF gateway's VRF (its block's).
    #[serde(skip_serializing_if = "Option::is_none")]
    vrf: Option<VrfField<'a>>,
    created_at: Stamp,
    updated_at: Stamp,
    /// The world's own user, who makes what the fake makes.
    created_by: Stub,
}

/// A gateway's block: included, or a stub.
#[derive(Serialize)]
#[serde(untagged)]
enum BlockField<'a> {
    Full(Box<AnyReservationView<'a>>),
    Stub(Stub),
}

impl World {
    /// `g` as the API shows it at `now`, with `expand` applied.
    pub(crate) fn gateway_view<'a>(
        &'a self,
        g: &'a Kept,
        expand: &Expand,
        now: Instant,
    ) -> GatewayView<'a> {
        let rec = &g.rec;
        let made = Stamp(self.clock.wall(g.meta.created));
        let block = self.ips.reservations().get(&rec.ip_reservation);
        let vrf = block
            .and_then(|r| r.rec.vrf)
            .map(|v| self.vrf_field(v, expand.includes("vrf"), &expand.nested("vrf")));
        let ip_reservation = match block {
            Some(r) if expand.includes("ip_reservation") => BlockField::Full(Box::new(
                self.any_reservation_view(r, &expand.nested("ip_reservation")),
            )),
            _ => BlockField::Stub(Stub::new(
                crate::model::ip_reservation::COLLECTION,
                rec.ip_reservation,
            )),
        };
        GatewayView {
            id: rec.id,
            href: Href::new(COLLECTION, rec.id),
            state: state(g),
            project: self.project_field(rec.project, expand.includes("project")),
            virtual_network: self.vlan_field(
                rec.virtual_network,
                expand.includes("virtual_network"),
                &expand.nested("virtual_network"),
                now,
            ),
            ip_reservation,
            vrf,
            created_at: made,
            updated_at: made,
            created_by: Stub::new(crate::model::user::COLLECTION, self.user),
        }
    }
}
