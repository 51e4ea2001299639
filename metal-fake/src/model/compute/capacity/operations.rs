//! The capacity operations the fake models: the lists and checks, per
//! facility and per metro, and the organization's lists (the same world,
//! as the fake has one catalog for every organization).

use metal_api::operation as op;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Capacity, Table};
use super::view::{CheckList, Checked};
use super::COLLECTION;
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError, MAX_RECORDS};
use crate::model::access::Owner;
use crate::model::load::{unique, unknown};
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
    load,
    save,
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

/// Loads the document's pools and those it inherits from the catalog:
/// each naming one metro or one facility and a plan of the catalog, no
/// (place, plan) twice, each metro with a facility to place its machines
/// in; then, for each plan sold on demand or on the spot market and each
/// metro it is sold in where it has no pool (of the metro or of one of its
/// facilities), a pool of the world's default size in the metro's first
/// facility. At most
/// [`MAX_RECORDS`] machines in all (each machine can become a device).
fn load(w: &mut World, doc: &WorldDoc, _: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    let mut total: u64 = 0;
    // The catalog's pools are where and how it sells a plan; each holds
    // the world's default number of machines.
    let mut pools: Vec<Capacity> = w
        .catalog
        .capacity
        .iter()
        .map(|c| Capacity {
            available: w.implicit_machines,
            ..c.clone()
        })
        .collect();
    pools.extend(doc.capacity.iter().cloned());
    for c in &pools {
        let from = || format!("capacity of plan {}", c.plan);
        let place = match (&c.metro, &c.facility) {
            (Some(m), None) => {
                if w.catalog.metro(m).is_none() {
                    return Err(unknown(from(), "metro", m));
                }
                if !w.catalog.facilities.iter().any(|f| f.metro == *m) {
                    return Err(WorldError::Inconsistent(format!(
                        "{}: metro {m} has no facility to place devices in",
                        from()
                    )));
                }
                format!("metro {m}")
            }
            (None, Some(f)) => {
                if w.catalog.facility(f).is_none() {
                    return Err(unknown(from(), "facility", f));
                }
                format!("facility {f}")
            }
            _ => {
                return Err(WorldError::Inconsistent(format!(
                    "{}: names exactly one of metro and facility",
                    from()
                )))
            }
        };
        if w.catalog.plan(&c.plan).is_none() {
            return Err(unknown(from(), "plan", &c.plan));
        }
        let shown = format!("{place} plan {}", c.plan);
        unique(&mut seen, shown.clone(), "capacity", shown)?;
        total += u64::from(c.available);
    }
    let implicit = implicit_pools(w, &pools);
    total += implicit.len() as u64 * u64::from(w.implicit_machines);
    pools.extend(implicit);
    if total > MAX_RECORDS as u64 {
        return Err(WorldError::Inconsistent(format!(
            "capacity: {total} machines in all, more than the fake holds ({MAX_RECORDS})"
        )));
    }
    w.capacity = Table {
        pools,
        taken: HashMap::new(),
    };
    Ok(())
}

/// The pools a world gets without saying so: one of the world's default
/// size for each (plan sold on demand or on the spot market, metro it is
/// sold in) that no pool of `given` covers, in the metro's first facility
/// (where its devices go, and which `/plans` then lists in `available_in`).
fn implicit_pools(w: &World, given: &[Capacity]) -> Vec<Capacity> {
    let c = &w.catalog;
    let metro_of = |f: &str| c.facility(f).map(|f| f.metro.as_str());
    let covered = |plan: &str, metro: &str| {
        given.iter().any(|p| {
            p.plan == plan
                && (p.metro.as_deref() == Some(metro)
                    || p.facility.as_deref().and_then(metro_of) == Some(metro))
        })
    };
    let mut out = Vec::new();
    for plan in &c.plans {
        let sold = plan.deployment_types.iter().flatten().next().is_some();
        if !sold {
            continue;
        }
        for pm in plan.metros.iter().flatten() {
            let Some(first) = w.placement(&pm.code) else {
                continue;
            };
            if !covered(&plan.slug, &pm.code) {
                out.push(Capacity {
                    metro: None,
                    facility: Some(first.to_string()),
                    plan: plan.slug.clone(),
                    available: w.implicit_machines,
                    level: None,
                });
            }
        }
    }
    out
}

/// Saves the pools into `doc`, as many machines free as now.
fn save(w: &World, doc: &mut WorldDoc, _: Instant) {
    doc.capacity = w.capacity.pools.clone();
}
