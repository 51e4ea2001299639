//! Firmware sets: the fake models none (a device's `firmware_set_id` is
//! never set), so an organisation's and a project's lists are empty pages,
//! and a device's set is `404`, as for a device the real API gave none.

use serde::Serialize;
use uuid::Uuid;

use crate::call::{ApiError, Call};
use crate::model::render::{reply, DEFAULT_PER_PAGE, MAX_PER_PAGE};
use crate::model::resource::{acts, Prepared};
use crate::model::World;

/// An empty `FirmwareSetListResponse`.
#[derive(Serialize)]
struct FirmwareSetList {
    page: u32,
    page_count: u32,
    page_size: u32,
    records: [(); 0],
    total_pages: u32,
    total_record_count: u32,
}

/// The page and page size a list asks for (`page` from 1, `per_page`
/// clamped to the fake's largest).
fn paging(call: &Call) -> Result<(u32, u32), ApiError> {
    let page = call.number("page", 1)?.max(1);
    let per_page = call
        .number("per_page", DEFAULT_PER_PAGE)?
        .clamp(1, MAX_PER_PAGE);
    Ok((page, per_page))
}

fn empty_page(page: u32, page_size: u32) -> FirmwareSetList {
    FirmwareSetList {
        page,
        page_count: 0,
        page_size,
        records: [],
        total_pages: 0,
        total_record_count: 0,
    }
}

/// `getDeviceFirmwareSets`: `404`, the device has none.
pub(super) fn get_device_firmware_sets(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        w.device_for_read(id)?;
        Err(ApiError::new(404, "The device has no firmware set"))
    })
}

/// `getOrganizationFirmwareSets`: an empty page of the organisation's.
pub(super) fn get_organization_firmware_sets(call: &Call) -> Result<Prepared, ApiError> {
    let id: Uuid = call.id("id")?;
    let (page, per_page) = paging(call)?;
    acts(move |w: &mut World, _, _| {
        w.organizations.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&empty_page(page, per_page))
    })
}

/// `getProjectFirmwareSets`: an empty page of the project's.
pub(super) fn get_project_firmware_sets(call: &Call) -> Result<Prepared, ApiError> {
    let id: Uuid = call.id("id")?;
    let (page, per_page) = paging(call)?;
    acts(move |w: &mut World, _, _| {
        w.projects.get(&id).ok_or_else(ApiError::not_found)?;
        reply(&empty_page(page, per_page))
    })
}
