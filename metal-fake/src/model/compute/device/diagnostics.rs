//! A device's diagnostics: its health rollup, from the state it reports,
//! and a screenshot of its console (a fixed, small JPEG: the fake has no
//! screen to show).

use serde::Serialize;

use super::record::DeviceState;
use crate::call::{ApiError, Call, Reply};
use crate::model::render::{reply, Stamp};
use crate::model::resource::{acts, Prepared};

/// `{"health_rollup": ..., "updated_at": ...}`.
#[derive(Serialize)]
struct HealthRollup {
    health_rollup: &'static str,
    updated_at: Stamp,
}

/// The rollup of a device in `state`: `critical` once its provisioning
/// failed, `warning` while it is powered off or on its way there or
/// being deleted, `ok` otherwise.
fn rollup(state: DeviceState) -> &'static str {
    match state {
        DeviceState::Failed => "critical",
        DeviceState::Inactive | DeviceState::PoweringOff | DeviceState::Deprovisioning => "warning",
        _ => "ok",
    }
}

/// `getDeviceHealthRollup`; `updated_at` is the device's last change.
pub(super) fn get_device_health_rollup(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        let d = w.device_for_read(id)?;
        reply(&HealthRollup {
            health_rollup: rollup(d.state()),
            updated_at: Stamp(w.clock.wall(d.meta.updated)),
        })
    })
}

/// The `Content-Type` of a screenshot, as the spec gives it.
pub(crate) const SCREENSHOT_TYPE: &str = "application/jpeg";

/// A 1x1 grey baseline JPEG: what every screenshot shows.
pub(crate) const SCREENSHOT: &[u8] = &[
    0xff, 0xd8, 0xff, 0xdb, 0x00, 0x43, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01,
    0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x01, 0x00, 0x01,
    0x01, 0x01, 0x11, 0x00, 0xff, 0xc4, 0x00, 0x14, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xc4, 0x00, 0x14, 0x10, 0x01,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00, 0x3f, 0xff, 0xd9,
];

/// `captureScreenshot`: the fixed image of a device that is on (active,
/// or rebooting into it); `422` for one that is off, not yet provisioned,
/// failed or being deleted.
pub(super) fn capture_screenshot(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        let d = w.device_for_read(id)?;
        if !matches!(
            d.state(),
            DeviceState::Active | DeviceState::PoweringOn | DeviceState::Reinstalling
        ) {
            return Err(ApiError::unprocessable(format!(
                "The device is {}: no console to capture",
                d.state().as_str()
            )));
        }
        Ok(Reply::Bytes {
            content_type: SCREENSHOT_TYPE,
            body: axum::body::Bytes::from_static(SCREENSHOT),
        })
    })
}
