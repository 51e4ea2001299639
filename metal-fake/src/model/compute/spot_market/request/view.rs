//! A spot market request as the API sends it, written straight to bytes:
//! its plan, metro and facilities whole (the Terraform provider reads
//! their `slug` and `code`), its devices as `{id, href}` or, with
//! `include=devices`, whole.

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use super::COLLECTION;
use crate::model::catalog::{FacilityView, MetroView, PlanView};
use crate::model::device;
use crate::model::project::ProjectField;
use crate::model::render::{Expand, Href, Stamp};
use crate::model::World;

/// A request in a reply.
#[derive(Serialize)]
pub(crate) struct RequestView<'a> {
    id: Uuid,
    href: Href,
    created_at: Stamp,
    devices_min: u32,
    devices_max: u32,
    max_bid_price: f64,
    /// `null` when unset (see "Replies whole" in `metal_fake::fidelity`).
    end_at: Option<Stamp>,
    plan: PlanView<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metro: Option<MetroView<'a>>,
    facilities: Vec<FacilityView<'a>>,
    project: ProjectField<'a>,
    devices: Vec<DeviceEntry<'a>>,
    /// `null`: packngo lists `devices`; no public source gives its value.
    instances: (),
}

/// One device of a request: its ID and href, or whole.
#[derive(Serialize)]
#[serde(untagged)]
enum DeviceEntry<'a> {
    Whole(device::DeviceField<'a>),
    Named { id: Uuid, href: Href },
}

/// A list of requests.
#[derive(Serialize)]
pub(crate) struct RequestList<'a> {
    pub(crate) spot_market_requests: Vec<RequestView<'a>>,
}

impl World {
    /// `r` as the API shows it at `now`, with `expand` applied.
    pub(crate) fn spot_request_view<'a>(
        &'a self,
        r: &'a Kept,
        expand: &Expand,
        now: tokio::time::Instant,
    ) -> RequestView<'a> {
        let rec = &r.rec;
        let facilities: Vec<&str> = match &rec.metro {
            Some(m) => self
                .catalog
                .facilities
                .iter()
                .filter(|f| f.metro == *m)
                .map(|f| f.code.as_str())
                .collect(),
            None => rec.facilities.iter().map(String::as_str).collect(),
        };
        let whole = expand.includes("devices");
        let devices = rec
            .devices
            .iter()
            .filter_map(|id| self.devices.get(id))
            .map(|d| {
                if whole {
                    let view = self.device_view(d, &expand.nested("devices"), now);
                    DeviceEntry::Whole(device::DeviceField::Full(Box::new(view)))
                } else {
                    DeviceEntry::Named {
                        id: d.rec.id,
                        href: Href::new(device::COLLECTION, d.rec.id),
                    }
                }
            })
            .collect();
        RequestView {
            id: rec.id,
            href: Href::new(COLLECTION, rec.id),
            created_at: Stamp(self.clock.wall(r.meta.created)),
            devices_min: rec.devices_min,
            devices_max: rec.devices_max,
            max_bid_price: rec.max_bid_price,
            end_at: rec.end_at.map(Stamp),
            plan: self.plan_view(&rec.plan),
            metro: rec.metro.as_deref().map(|m| self.catalog.metro_of_code(m)),
            facilities: facilities
                .into_iter()
                .map(|f| self.catalog.facility_view(f))
                .collect(),
            project: self.project_field(rec.project, expand.includes("project")),
            devices,
            instances: (),
        }
    }
}
