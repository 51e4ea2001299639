//! A hardware reservation as the API sends it, written straight to bytes
//! from the record, with `include`/`exclude` applied. Its device, when
//! included, is rendered by the caller (a reservation with its device
//! whole is the device's view's `World::reservation_view`, which names
//! both).

use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use super::COLLECTION;
use crate::model::catalog::{FacilityView, PlanView};
use crate::model::device;
use crate::model::project::ProjectField;
use crate::model::render::{Expand, Href, ShortId, Stamp, Stub, Whole};
use crate::model::World;

/// A reservation in a reply, its device (when included) a `D`.
#[derive(Serialize)]
pub(crate) struct ReservationView<'a, D> {
    id: Uuid,
    href: Href,
    short_id: ShortId,
    created_at: Stamp,
    pub(crate) provisionable: bool,
    spare: bool,
    need_of_service: bool,
    /// The switch its server is cabled to, as its device shows it.
    switch_uuid: ShortId,
    #[serde(skip_serializing_if = "Option::is_none")]
    plan: Option<PlanView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    facility: Option<FacilityView<'a>>,
    project: ProjectField<'a>,
    pub(crate) device: Option<Whole<D>>,
    /// `null`: the fake models no contract's own rate.
    custom_rate: (),
    /// `null`: the fake models no reservation's end.
    termination_time: (),
}

impl World {
    /// `r` as the API shows it at `now`, with `expand` applied: its
    /// device whole when included, as `render_device` renders it with the
    /// names under `device`, else a stub.
    pub(crate) fn reservation_view_with<'a, D>(
        &'a self,
        r: &'a Kept,
        expand: &Expand,
        _now: Instant,
        render_device: impl FnOnce(&'a device::Kept, &Expand) -> D,
    ) -> ReservationView<'a, D> {
        let rec = &r.rec;
        let device = r.live.device.map(|id| match self.devices.get(&id) {
            Some(d) if expand.includes("device") => {
                Whole::Full(Box::new(render_device(d, &expand.nested("device"))))
            }
            _ => Whole::Stub(Stub::new(device::COLLECTION, id)),
        });
        ReservationView {
            id: rec.id,
            href: Href::new(COLLECTION, rec.id),
            short_id: ShortId(rec.id),
            created_at: Stamp(self.clock.wall(r.meta.created)),
            provisionable: r.provisionable(),
            spare: false,
            need_of_service: false,
            switch_uuid: ShortId(rec.id),
            plan: Some(self.plan_view(&rec.plan)),
            facility: Some(self.catalog.facility_view(&rec.facility)),
            project: self.project_field(rec.project, expand.includes("project")),
            device,
            custom_rate: (),
            termination_time: (),
        }
    }
}
