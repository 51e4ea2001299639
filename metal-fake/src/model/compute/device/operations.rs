//! The device operations the fake models, and who owns a device.

use metal_api::operation as op;
use metal_api::types;
use std::time::Duration;
use tokio::time::Instant;
use uuid::Uuid;

use super::create::{contested, read_create};
use super::filter::DeviceFilter;
use super::record::{entry, Kept, Live};
use super::rules::Fields;
use super::DeviceState;
use super::COLLECTION;
use super::{diagnostics, firmware, keys, metadata, telemetry, usage};
use crate::call::{ApiError, Call, Reply};
use crate::document::{seconds, WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::list::{flag_in_query_or_body, Listing};
use crate::model::load::unknown;
use crate::model::render::{reply, Expand};
use crate::model::resource::{acts, expand, Modelled, Prepared, Race, Resource};
use crate::model::world::oldest_first;
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
    load,
    save,
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

/// `now` less `d`, refused when the clock cannot go back that far.
fn before(now: Instant, d: Duration, id: Uuid) -> Result<Instant, WorldError> {
    now.checked_sub(d).ok_or_else(|| {
        WorldError::Inconsistent(format!(
            "device {id}: the clock cannot go {} s back",
            d.as_secs_f64()
        ))
    })
}

/// Loads the document's devices: each in a project the world has, on a
/// plan and in a facility of its catalog, on a reservation of the same
/// project, plan and facility that holds no other device, in the phase
/// that reports its seeded state.
fn load(w: &mut World, doc: &WorldDoc, now: Instant) -> Result<(), WorldError> {
    for d in &doc.devices {
        let from = || format!("device {}", d.id);
        if w.devices.contains_key(&d.id) {
            return Err(WorldError::Duplicate {
                kind: "device",
                id: d.id.to_string(),
            });
        }
        if !w.projects.contains_key(&d.project) {
            return Err(unknown(from(), "project", d.project));
        }
        w.catalog.check_placement(&from, &d.plan, &d.facility)?;
        let fields = Fields {
            hostname: Some(&d.hostname),
            description: d.description.as_deref(),
            tags: Some(&d.tags),
            userdata: d.userdata.as_deref(),
            ipxe_script_url: d.ipxe_script_url.as_deref(),
            customdata: Some(&d.customdata),
        };
        if let Some(problem) = fields.problem() {
            return Err(WorldError::Inconsistent(format!(
                "device {}: {problem}",
                d.id
            )));
        }
        if !d.own_cidrs.valid() {
            return Err(WorldError::Inconsistent(format!(
                "device {}: its own blocks are /28 to /31 (IPv4) and /124 to /127 (IPv6)",
                d.id
            )));
        }
        if let Some(r) = d.reservation {
            let kept = w
                .reservations
                .get(&r)
                .ok_or_else(|| unknown(from(), "reservation", r))?;
            let problem = if kept.rec.project != d.project {
                Some("is in another project")
            } else if kept.live.device.is_some() {
                Some("already holds another device")
            } else if (kept.rec.plan.as_str(), kept.rec.facility.as_str())
                != (d.plan.as_str(), d.facility.as_str())
            {
                Some("has another plan or facility")
            } else {
                None
            };
            if let Some(problem) = problem {
                return Err(WorldError::Inconsistent(format!(
                    "device {}: its reservation {r} {problem}",
                    d.id
                )));
            }
        }
        let elapsed = match d.state_elapsed_seconds {
            Some(s) => Some(seconds("state_elapsed_seconds", d.id, s)?),
            None => None,
        };
        let (phase, elapsed) = Kept::phase_of(d.state, elapsed, &w.timings);
        let since = before(now, elapsed, d.id)?;
        let mut live = Live::provisioning(since, d.state == DeviceState::Failed, Vec::new());
        // The keys the API attached at create are not part of the
        // document.
        live.phase = phase;
        live.state = phase.first_state();
        w.devices
            .rows
            .insert(&mut w.journal, d.id, now, |meta| Kept {
                rec: d.clone(),
                meta,
                live,
            });
        if let Some(r) = d.reservation {
            w.hold(r, d.id, now);
        }
        // Its steps already due (a seeded `active` device's provisioning)
        // are made when the load drains the queue.
        w.queue_phase(d.id);
        w.queue_termination(d.id);
    }
    Ok(())
}

/// Saves the devices into `doc`, oldest first, each with the state it
/// reports at `now` and the time since its phase began.
fn save(w: &World, doc: &mut WorldDoc, now: Instant) {
    doc.devices = oldest_first(w.devices.iter(), |d| d.meta.seq)
        .into_iter()
        .map(|d| entry(d, now))
        .collect();
}
