//! The device operations the fake models, and who owns a device.

use metal_api::operation as op;
use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::create::{contested, read_create};
use super::filter::DeviceFilter;
use super::view::COLLECTION;
use super::{diagnostics, firmware, keys, metadata, record, telemetry, usage};
use crate::call::{ApiError, Call, Reply};
use crate::model::access::Owner;
use crate::model::list::{flag_in_query_or_body, Listing};
use crate::model::render::{reply, Expand};
use crate::model::resource::{acts, expand, Modelled, Prepared, Race, Resource};
use crate::model::World;
use crate::model::{organization, project};

/// Devices.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_DEVICE_BY_ID, find_device_by_id).names("id", &RESOURCE),
        Modelled::new(&op::FIND_PROJECT_DEVICES, find_project_devices)
            .names("id", &project::RESOURCE),
        Modelled::new(&op::CREATE_DEVICE, create_device).names("id", &project::RESOURCE),
        // packngo's `Devices.Lock` and `Unlock` send PATCH.
        Modelled::new(&op::UPDATE_DEVICE, update_device)
            .also_patch()
            .names("id", &RESOURCE),
        Modelled::new(&op::DELETE_DEVICE, delete_device).names("id", &RESOURCE),
        Modelled::new(&op::PERFORM_ACTION, perform_action).names("id", &RESOURCE),
        // What a device knows of itself, and what it used.
        Modelled::new(
            &op::FIND_DEVICE_METADATA_BY_ID,
            metadata::find_device_metadata,
        )
        .names("id", &RESOURCE),
        Modelled::new(
            &op::FIND_DEVICE_CUSTOMDATA,
            metadata::find_device_customdata,
        )
        .names("id", &RESOURCE),
        Modelled::new(
            &op::FIND_DEVICE_USERDATA_BY_ID,
            metadata::find_device_userdata,
        )
        .names("id", &RESOURCE),
        Modelled::new(&op::VALIDATE_USERDATA, metadata::validate_userdata),
        Modelled::new(&op::FIND_DEVICE_SSH_KEYS, keys::find_device_ssh_keys).names("id", &RESOURCE),
        Modelled::new(&op::FIND_DEVICE_USAGES, usage::find_device_usages).names("id", &RESOURCE),
        Modelled::new(&op::FIND_PROJECT_USAGE, usage::find_project_usage)
            .names("id", &project::RESOURCE),
        Modelled::new(
            &op::FIND_INSTANCE_BANDWIDTH,
            telemetry::find_instance_bandwidth,
        )
        .names("id", &RESOURCE),
        Modelled::new(&op::FIND_TRAFFIC, telemetry::find_traffic).names("id", &RESOURCE),
        Modelled::new(
            &op::GET_DEVICE_HEALTH_ROLLUP,
            diagnostics::get_device_health_rollup,
        )
        .names("id", &RESOURCE),
        Modelled::new(&op::CAPTURE_SCREENSHOT, diagnostics::capture_screenshot)
            .names("id", &RESOURCE),
        Modelled::new(
            &op::GET_DEVICE_FIRMWARE_SETS,
            firmware::get_device_firmware_sets,
        )
        .names("id", &RESOURCE),
        Modelled::new(
            &op::GET_ORGANIZATION_FIRMWARE_SETS,
            firmware::get_organization_firmware_sets,
        )
        .names("id", &organization::RESOURCE),
        Modelled::new(
            &op::GET_PROJECT_FIRMWARE_SETS,
            firmware::get_project_firmware_sets,
        )
        .names("id", &project::RESOURCE),
    ],
    owner,
    load: record::load,
    save: record::save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    w.devices.get(&id).map(|d| Owner::Project(d.rec.project))
}

/// One device as the API sends it.
fn device_reply(w: &World, id: Uuid, expand: &Expand, now: Instant) -> Result<Reply, ApiError> {
    let d = w.devices.get(&id).ok_or_else(ApiError::not_found)?;
    reply(&w.device_view(d, expand, now))
}

fn find_device_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.check_device_access(id)?;
        device_reply(w, id, &expand, now)
    })
}

fn find_project_devices(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let listing = Listing::of(call, DeviceFilter::PARAMS)?;
    let filter = DeviceFilter::of(call)?;
    acts(move |w, _, now| reply(&w.device_page(project, &filter, &listing, now)?))
}

fn create_device(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let body = read_create(call)?;
    // A competitor takes the reservation the create names, if free.
    let race = contested(&body).map(|r| -> Race {
        Box::new(move |w: &mut World, now| {
            w.take_reservation(r, now);
        })
    });
    let expand = expand(call);
    Ok(Prepared {
        act: Box::new(move |w, _, now| {
            let id = w.create_device(project, &body, now)?;
            device_reply(w, id, &expand, now)
        }),
        race,
    })
}

fn update_device(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: types::DeviceUpdateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, _, now| {
        w.check_device_access(id)?;
        w.update_device(id, &body, now)?;
        device_reply(w, id, &expand, now)
    })
}

fn delete_device(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    // `force_delete` (the spec's and metalv1's query, or packngo's body:
    // `DeviceDeleteRequest{Force}`) detaches storage volumes, which the
    // fake has none of: read, checked, and nothing more.
    flag_in_query_or_body(call, "force_delete")?;
    acts(move |w, _, now| {
        w.check_device_access(id)?;
        w.delete_device(id, now)?;
        Ok(Reply::Empty)
    })
}

fn perform_action(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let input: types::DeviceActionInput = call.json()?;
    acts(move |w, _, now| {
        w.check_device_access(id)?;
        w.act(id, &input, now)?;
        Ok(Reply::Empty)
    })
}
