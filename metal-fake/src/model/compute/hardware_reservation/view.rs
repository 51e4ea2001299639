//! A hardware reservation as the API sends it, written straight to bytes
//! from the record, with `include`/`exclude` applied.

use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use crate::model::catalog::{FacilityView, PlanView};
use crate::model::device::{self, DeviceField};
use crate::model::project::ProjectField;
use crate::model::render::{Expand, Href, ShortId, Stamp, Stub};
use crate::model::World;

/// The collection of reservations' paths and hrefs.
pub(crate) const COLLECTION: &str = "hardware-reservations";

/// A reservation in a reply.
#[derive(Serialize)]
pub(crate) struct ReservationView<'a> {
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) device: Option<DeviceField<'a>>,
}

impl World {
    /// `r` as the API shows it at `now`, with `expand` applied.
    pub(crate) fn reservation_view<'a>(
        &'a self,
        r: &'a Kept,
        expand: &Expand,
        now: Instant,
    ) -> ReservationView<'a> {
        let rec = &r.rec;
        let device = r.live.device.map(|id| match self.devices.get(&id) {
            Some(d) if expand.includes("device") => {
                let mut view = self.device_view(d, &expand.nested("device"), now);
                view.set_reservation_stub(rec.id);
                DeviceField::Full(Box::new(view))
            }
            _ => DeviceField::Stub(Stub::new(device::COLLECTION, id)),
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
        }
    }
}
