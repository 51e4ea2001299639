//! The operations the model serves, keyed by the spec's operation (its
//! operationId, method, path and success status come from
//! [`metal_api::operation`], never from here).
//!
//! Each modelled operation is one function that reads its [`Call`] (path
//! IDs, query, body) and returns what it will do to the [`World`]. Reading
//! comes first so a malformed request is refused (404, 422) before any
//! fault is drawn or anything changes, as before; the change itself runs
//! later, inside the one exchange that picks the call's fault.

use metal_api::operation::{self as op, Operation};
use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::reads::{DeviceFilter, KeySearch, Listing, ReservationFilter};
use super::records::KeyOwner;
use super::view::{device_json, fill_device, fill_reservation, reservation_json, to_value};
use super::world::World;
use crate::call::{ApiError, Call, Reply};
use crate::render::Expand;

/// What one call does to the world at an instant, and its reply.
pub(crate) type Act = Box<dyn FnOnce(&mut World, Instant) -> Result<Reply, ApiError> + Send>;

/// A call of a modelled operation, read and ready to act.
pub(crate) struct Prepared {
    /// The change and the reply.
    pub(crate) act: Act,
    /// The hardware reservation the request asks for, which a
    /// [`crate::FaultKind::Competitor`] fault takes just before it acts.
    pub(crate) contested: Option<Uuid>,
}

/// Reads one call of a modelled operation.
pub(crate) type Prepare = fn(&Call) -> Result<Prepared, ApiError>;

/// Every operation the model serves. An operation of the spec that is not
/// here answers `501` (see [`ApiError::not_modelled`]).
pub(crate) static MODELLED: &[(&Operation, Prepare)] = &[
    (&op::FIND_PROJECT_BY_ID, find_project_by_id),
    (&op::FIND_DEVICE_BY_ID, find_device_by_id),
    (&op::FIND_PROJECT_DEVICES, find_project_devices),
    (&op::CREATE_DEVICE, create_device),
    (&op::UPDATE_DEVICE, update_device),
    (&op::DELETE_DEVICE, delete_device),
    (&op::PERFORM_ACTION, perform_action),
    (
        &op::FIND_PROJECT_HARDWARE_RESERVATIONS,
        find_project_hardware_reservations,
    ),
    (
        &op::FIND_HARDWARE_RESERVATION_BY_ID,
        find_hardware_reservation_by_id,
    ),
    (&op::MOVE_HARDWARE_RESERVATION, move_hardware_reservation),
    (&op::FIND_SSH_KEYS, find_ssh_keys),
    (&op::FIND_PROJECT_SSH_KEYS, find_project_ssh_keys),
    (&op::CREATE_SSH_KEY, create_ssh_key),
    (&op::CREATE_PROJECT_SSH_KEY, create_project_ssh_key),
    (&op::FIND_SSH_KEY_BY_ID, find_ssh_key_by_id),
    (&op::UPDATE_SSH_KEY, update_ssh_key),
    (&op::DELETE_SSH_KEY, delete_ssh_key),
];

/// The operations also served for `PATCH` on their path, because a client
/// sends it there though the spec says `PUT`: packngo's `Devices.Lock` and
/// `Unlock` (`PATCH /devices/{id}` with `{"locked": ...}`) and
/// `SSHKeys.Update` (`PATCH /ssh-keys/{id}`). The spec has no `PATCH` on
/// either path, so equinix-sdk-go's generated client sends `PUT`.
pub(crate) static ALSO_PATCH: &[&Operation] = &[&op::UPDATE_DEVICE, &op::UPDATE_SSH_KEY];

/// A change that contests no reservation.
fn acts(
    act: impl FnOnce(&mut World, Instant) -> Result<Reply, ApiError> + Send + 'static,
) -> Result<Prepared, ApiError> {
    Ok(Prepared {
        act: Box::new(act),
        contested: None,
    })
}

/// `include` and `exclude` of the query.
fn expand(call: &Call) -> Expand {
    Expand::parse(
        call.text("include").as_deref(),
        call.text("exclude").as_deref(),
    )
}

fn find_project_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, now| Reply::json(&w.project(id, now)?))
}

/// One device as the API sends it.
fn device_reply(w: &World, id: Uuid, expand: &Expand, now: Instant) -> Result<Reply, ApiError> {
    Reply::json(&device_json(&w.device_by_id(id, expand, now)?)?)
}

fn find_device_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, now| {
        w.check_device_access(id)?;
        device_reply(w, id, &expand, now)
    })
}

fn find_project_devices(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let listing = Listing::of(call, DeviceFilter::PARAMS)?;
    let filter = DeviceFilter::of(call)?;
    acts(move |w, now| {
        let mut list = to_value(&w.device_page(project, &filter, &listing, now)?)?;
        if let Some(devices) = list.get_mut("devices").and_then(|d| d.as_array_mut()) {
            devices.iter_mut().for_each(fill_device);
        }
        Reply::json(&list)
    })
}

fn create_device(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let body: types::CreateDeviceRequest = call.json()?;
    let reservation = match &body {
        types::CreateDeviceRequest::MetroInput(b) => &b.hardware_reservation_id,
        types::CreateDeviceRequest::FacilityInput(b) => &b.hardware_reservation_id,
    };
    let contested = Uuid::parse_str(reservation).ok();
    let expand = expand(call);
    Ok(Prepared {
        act: Box::new(move |w, now| {
            let id = w.create_device(project, &body, now)?;
            device_reply(w, id, &expand, now)
        }),
        contested,
    })
}

fn update_device(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: types::DeviceUpdateInput = call.json()?;
    let expand = expand(call);
    acts(move |w, now| {
        w.check_device_access(id)?;
        w.update_device(id, &body, now)?;
        device_reply(w, id, &expand, now)
    })
}

fn delete_device(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    // `force_delete` changes nothing the fake models.
    acts(move |w, now| {
        w.check_device_access(id)?;
        w.delete_device(id, now)?;
        Ok(Reply::Empty)
    })
}

fn perform_action(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let input: types::DeviceActionInput = call.json()?;
    acts(move |w, now| {
        w.check_device_access(id)?;
        w.act(id, input.type_, now)?;
        Ok(Reply::Empty)
    })
}

fn find_project_hardware_reservations(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let listing = Listing::of(call, ReservationFilter::PARAMS)?;
    let filter = ReservationFilter::of(call)?;
    acts(move |w, now| {
        let mut list = to_value(&w.reservation_page(project, &filter, &listing, now)?)?;
        if let Some(all) = list
            .get_mut("hardware_reservations")
            .and_then(|r| r.as_array_mut())
        {
            all.iter_mut().for_each(fill_reservation);
        }
        Reply::json(&list)
    })
}

fn find_hardware_reservation_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, now| Reply::json(&reservation_json(&w.reservation_by_id(id, &expand, now)?)?))
}

fn move_hardware_reservation(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let input: types::MoveHardwareReservationRequest = call.json()?;
    let project = input
        .project_id
        .ok_or_else(|| ApiError::unprocessable("project_id is required"))?;
    let expand = expand(call);
    acts(move |w, now| {
        w.move_reservation(id, project)?;
        Reply::json(&reservation_json(&w.reservation_by_id(id, &expand, now)?)?)
    })
}

fn find_ssh_keys(call: &Call) -> Result<Prepared, ApiError> {
    let search = KeySearch::of(call, "search");
    acts(move |w, _| Reply::json(&w.ssh_keys_of(KeyOwner::User, &search)?))
}

fn find_project_ssh_keys(call: &Call) -> Result<Prepared, ApiError> {
    let owner = KeyOwner::Project(call.id("id")?);
    // The spec names this list's search `query`, not `search`.
    let search = KeySearch::of(call, "query");
    acts(move |w, _| Reply::json(&w.ssh_keys_of(owner, &search)?))
}

fn create_ssh_key(call: &Call) -> Result<Prepared, ApiError> {
    new_ssh_key(call, KeyOwner::User)
}

fn create_project_ssh_key(call: &Call) -> Result<Prepared, ApiError> {
    new_ssh_key(call, KeyOwner::Project(call.id("id")?))
}

fn new_ssh_key(call: &Call, owner: KeyOwner) -> Result<Prepared, ApiError> {
    let body: types::SshKeyCreateInput = call.json()?;
    acts(move |w, now| {
        let id = w.create_ssh_key(owner, &body, now)?;
        Reply::json(&w.ssh_key_by_id(id)?)
    })
}

fn find_ssh_key_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _| Reply::json(&w.ssh_key_by_id(id)?))
}

fn update_ssh_key(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let body: types::SshKeyInput = call.json()?;
    acts(move |w, now| {
        w.update_ssh_key(id, &body, now)?;
        Reply::json(&w.ssh_key_by_id(id)?)
    })
}

fn delete_ssh_key(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _| {
        w.delete_ssh_key(id)?;
        Ok(Reply::Empty)
    })
}
