//! The port operations the fake models, and who owns a port (its
//! device's project). Each change answers the port as it is after it.

use metal_api::operation as op;
use metal_api::types;
use tokio::time::Instant;
use uuid::Uuid;

use super::record;
use super::rules::requested;
use super::view::COLLECTION;
use crate::call::{ApiError, Call, Reply};
use crate::model::access::Owner;
use crate::model::list::flag_in_query_or_body;
use crate::model::render::{reply, Expand};
use crate::model::resource::{acts, expand, Modelled, Prepared, Resource};
use crate::model::World;

/// Devices' network ports.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_PORT_BY_ID, find_port_by_id).names("id", &RESOURCE),
        Modelled::new(&op::ASSIGN_PORT, assign_port).names("id", &RESOURCE),
        Modelled::new(&op::UNASSIGN_PORT, unassign_port).names("id", &RESOURCE),
        Modelled::new(&op::ASSIGN_NATIVE_VLAN, assign_native_vlan).names("id", &RESOURCE),
        Modelled::new(&op::DELETE_NATIVE_VLAN, delete_native_vlan).names("id", &RESOURCE),
        Modelled::new(&op::BOND_PORT, bond_port).names("id", &RESOURCE),
        Modelled::new(&op::DISBOND_PORT, disbond_port).names("id", &RESOURCE),
        Modelled::new(&op::CONVERT_LAYER2, convert_layer2).names("id", &RESOURCE),
        Modelled::new(&op::CONVERT_LAYER3, convert_layer3).names("id", &RESOURCE),
    ],
    owner,
    load: record::load,
    save: record::save,
};

fn owner(w: &World, id: Uuid) -> Option<Owner> {
    let (d, _) = w.find_port(id).ok()?;
    Some(Owner::Project(d.rec.project))
}

/// Port `id` as the reply.
fn port_reply(
    w: &World,
    id: Uuid,
    expand: &Expand,
    now: tokio::time::Instant,
) -> Result<Reply, ApiError> {
    let (d, slot) = w.find_port(id)?;
    reply(&w.port_view(d, slot, expand, now))
}

/// A port change: what `change` does to port `id`, answered with the port.
fn change(
    call: &Call,
    change: impl FnOnce(&mut World, Uuid, Instant) -> Result<(), ApiError> + Send + 'static,
) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| {
        change(w, id, now)?;
        port_reply(w, id, &expand, now)
    })
}

/// The `vnid` of a body (`PortAssignInput`).
fn vnid(call: &Call) -> Result<Option<String>, ApiError> {
    let body: types::PortAssignInput = call.json()?;
    Ok(body.vnid)
}

fn find_port_by_id(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let expand = expand(call);
    acts(move |w, _, now| port_reply(w, id, &expand, now))
}

fn assign_port(call: &Call) -> Result<Prepared, ApiError> {
    let vnid = vnid(call)?;
    change(call, move |w, id, now| {
        w.assign_port(id, vnid.as_deref(), now)
    })
}

fn unassign_port(call: &Call) -> Result<Prepared, ApiError> {
    let vnid = vnid(call)?;
    change(call, move |w, id, now| {
        w.unassign_port(id, vnid.as_deref(), now)
    })
}

fn assign_native_vlan(call: &Call) -> Result<Prepared, ApiError> {
    // The spec's `vnid` is a query parameter (metalv1 sends it so);
    // packngo's `AssignNative` sends it in a `PortAssignInput` body, which
    // the real API took too.
    let vnid = match call.text("vnid") {
        Some(vnid) => Some(vnid),
        None if call.body().iter().any(|b| !b.is_ascii_whitespace()) => vnid(call)?,
        None => None,
    };
    change(call, move |w, id, now| {
        w.set_native_vlan(id, vnid.as_deref(), now)
    })
}

fn delete_native_vlan(call: &Call) -> Result<Prepared, ApiError> {
    change(call, |w, id, now| w.remove_native_vlan(id, now))
}

/// A bond or disbond's `name` flag: the spec's query parameter, or the
/// body's field of that name, as packngo sends it (`{"id": ...,
/// "bulk_enable": true}`).
fn bulk(call: &Call, name: &str) -> Result<bool, ApiError> {
    Ok(flag_in_query_or_body(call, name)?.unwrap_or(false))
}

fn bond_port(call: &Call) -> Result<Prepared, ApiError> {
    let bulk = bulk(call, "bulk_enable")?;
    change(call, move |w, id, now| w.bond_port(id, bulk, now))
}

fn disbond_port(call: &Call) -> Result<Prepared, ApiError> {
    let bulk = bulk(call, "bulk_disable")?;
    change(call, move |w, id, now| w.disbond_port(id, bulk, now))
}

fn convert_layer2(call: &Call) -> Result<Prepared, ApiError> {
    change(call, |w, id, now| w.convert_layer2(id, now))
}

fn convert_layer3(call: &Call) -> Result<Prepared, ApiError> {
    // `request_ips`: the addresses the device gets back.
    let body: types::PortConvertLayer3Input = if call.body().iter().all(u8::is_ascii_whitespace) {
        types::PortConvertLayer3Input::default()
    } else {
        call.json()?
    };
    let request = body
        .request_ips
        .iter()
        .map(|r| requested(r.address_family, r.public))
        .collect::<Result<Vec<_>, _>>()?;
    change(call, move |w, id, now| w.convert_layer3(id, &request, now))
}
