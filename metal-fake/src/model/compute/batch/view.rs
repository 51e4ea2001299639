//! A device batch as the API sends it, written straight to bytes: its
//! devices as hrefs or, with `include=devices`, whole.

use serde::Serialize;
use uuid::Uuid;

use super::record::Kept;
use crate::model::device::{self, DeviceField};
use crate::model::project::ProjectField;
use crate::model::render::{Expand, Stamp, Stub};
use crate::model::World;

/// A batch in a reply (the spec's `Batch` has no `href`).
#[derive(Serialize)]
pub(crate) struct BatchView<'a> {
    id: Uuid,
    created_at: Stamp,
    updated_at: Stamp,
    quantity: u32,
    state: &'static str,
    error_messages: &'a [String],
    project: ProjectField<'a>,
    devices: Vec<DeviceField<'a>>,
}

/// A list of batches.
#[derive(Serialize)]
pub(crate) struct BatchList<'a> {
    pub(crate) batches: Vec<BatchView<'a>>,
}

impl World {
    /// `b` as the API shows it at `now`, with `expand` applied.
    pub(crate) fn device_batch_view<'a>(
        &'a self,
        b: &'a Kept,
        expand: &Expand,
        now: tokio::time::Instant,
    ) -> BatchView<'a> {
        let rec = &b.rec;
        let whole = expand.includes("devices");
        let devices = rec
            .devices
            .iter()
            .filter_map(|id| self.devices.get(id))
            .map(|d| {
                if whole {
                    let view = self.device_view(d, &expand.nested("devices"), now);
                    DeviceField::Full(Box::new(view))
                } else {
                    DeviceField::Stub(Stub::new(device::COLLECTION, d.rec.id))
                }
            })
            .collect();
        BatchView {
            id: rec.id,
            created_at: Stamp(self.clock.wall(b.meta.created)),
            updated_at: Stamp(self.clock.wall(b.meta.updated)),
            quantity: rec.quantity,
            state: rec.state.as_str(),
            error_messages: &rec.error_messages,
            project: self.project_field(rec.project, expand.includes("project")),
            devices,
        }
    }
}
