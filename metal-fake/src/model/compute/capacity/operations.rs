//! The capacity operations the fake models: the lists and checks, per
//! facility and per metro, and the organization's lists (the same world,
//! as the fake has one catalog for every organization).

use metal_api::operation as op;
use serde_json::Value;
use uuid::Uuid;

use super::record;
use super::view::{CheckList, Checked, COLLECTION};
use crate::call::{ApiError, Call};
use crate::model::access::Owner;
use crate::model::organization;
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::World;

/// The most lines one capacity check asks about.
pub(crate) const MAX_CHECKED: usize = 1000;

/// Capacity.
pub(crate) static RESOURCE: Resource = Resource {
    collection: COLLECTION,
    operations: &[
        Modelled::new(&op::FIND_CAPACITY_FOR_FACILITY, find_for_facility),
        Modelled::new(&op::FIND_CAPACITY_FOR_METRO, find_for_metro),
        Modelled::new(&op::CHECK_CAPACITY_FOR_FACILITY, check_for_facility),
        Modelled::new(&op::CHECK_CAPACITY_FOR_METRO, check_for_metro),
        Modelled::new(
            &op::FIND_ORGANIZATION_CAPACITY_PER_FACILITY,
            organization_per_facility,
        )
        .names("id", &organization::RESOURCE),
        Modelled::new(
            &op::FIND_ORGANIZATION_CAPACITY_PER_METRO,
            organization_per_metro,
        )
        .names("id", &organization::RESOURCE),
    ],
    owner,
    load: record::load,
    save: record::save,
};

/// No path names a pool by `{id}`.
fn owner(_: &World, _: Uuid) -> Option<Owner> {
    None
}

fn find_for_facility(_: &Call) -> Result<Prepared, ApiError> {
    acts(|w, _, _| reply(&w.facility_capacity()))
}

fn find_for_metro(_: &Call) -> Result<Prepared, ApiError> {
    acts(|w, _, _| reply(&w.metro_capacity()))
}

/// The organization the path names is there (access has checked the
/// caller sees it).
fn organization_of(w: &World, id: Uuid) -> Result<(), ApiError> {
    w.organizations
        .contains_key(&id)
        .then_some(())
        .ok_or_else(ApiError::not_found)
}

fn organization_per_facility(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        organization_of(w, id)?;
        reply(&w.facility_capacity())
    })
}

fn organization_per_metro(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        organization_of(w, id)?;
        reply(&w.metro_capacity())
    })
}

/// One line of a check as sent: the place (`metro` or `facility`), the
/// plan, and the quantity as sent and as a number.
struct Asked {
    place: String,
    plan: String,
    quantity: Value,
    count: u64,
}

/// Reads a check's `servers`, each naming its place by `key`. The spec
/// types `quantity` as a string (equinix-sdk-go sends one); packngo and
/// metal-cli send a number; either is read, and the reply echoes it as
/// sent. Absent, it is 1, echoed as the spec types it (`"1"`: the walk
/// found the number `1` there, which the spec's schema refuses).
fn read_check(call: &Call, key: &str) -> Result<Vec<Asked>, ApiError> {
    let body = call.json_value()?;
    let servers = match body.get("servers") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(s)) => s,
        Some(_) => return Err(ApiError::unprocessable("servers must be a list")),
    };
    if servers.len() > MAX_CHECKED {
        return Err(ApiError::unprocessable(format!(
            "servers are too many (maximum is {MAX_CHECKED})"
        )));
    }
    let text = |s: &Value, field: &str| match s.get(field) {
        Some(Value::String(t)) if !t.trim().is_empty() => Ok(t.clone()),
        _ => Err(ApiError::unprocessable(format!("{field} is required"))),
    };
    servers
        .iter()
        .map(|s| {
            let quantity = s.get("quantity").cloned().unwrap_or(Value::Null);
            let count = match &quantity {
                Value::Null => Some(1),
                Value::Number(n) => n.as_u64(),
                Value::String(t) => t.trim().parse().ok(),
                _ => None,
            }
            .ok_or_else(|| ApiError::unprocessable("quantity must be a whole number of servers"))?;
            Ok(Asked {
                place: text(s, key)?,
                plan: text(s, "plan")?,
                quantity: if quantity.is_null() {
                    Value::from("1")
                } else {
                    quantity
                },
                count,
            })
        })
        .collect()
}

fn check_for_facility(call: &Call) -> Result<Prepared, ApiError> {
    let asked = read_check(call, "facility")?;
    acts(move |w, _, _| {
        let servers = asked
            .into_iter()
            .map(|a| Checked {
                available: w.facility_has(&a.place, &a.plan, a.count),
                metro: None,
                facility: Some(a.place),
                plan: a.plan,
                quantity: a.quantity,
            })
            .collect();
        reply(&CheckList { servers })
    })
}

fn check_for_metro(call: &Call) -> Result<Prepared, ApiError> {
    let asked = read_check(call, "metro")?;
    acts(move |w, _, _| {
        let servers = asked
            .into_iter()
            .map(|a| Checked {
                available: w.metro_has(&a.place, &a.plan, a.count),
                metro: Some(a.place),
                facility: None,
                plan: a.plan,
                quantity: a.quantity,
            })
            .collect();
        reply(&CheckList { servers })
    })
}
