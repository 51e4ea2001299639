//! The catalog's lists: plans, operating systems, metros and facilities, from the
//! world. Each is a [`Resource`] of its own collection, with no records of
//! its own to load (the world loads the catalog) and none owned.

use metal_api::operation as op;
use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::view::{os_view, FacilityView, MetroView, OperatingSystemView, PlanView};
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::render::{reply, Expand};
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::{project, World};

/// Plans.
pub(crate) static PLANS: Resource = Resource {
    collection: "plans",
    operations: &[
        Modelled::new(&op::FIND_PLANS, find_plans),
        // A project sees the world's plans.
        Modelled::new(&op::FIND_PLANS_BY_PROJECT, find_plans_by_project)
            .names("id", &project::RESOURCE),
    ],
    owner: nobody,
    load: nothing,
    save: unchanged,
};

/// Operating systems.
pub(crate) static OPERATING_SYSTEMS: Resource = Resource {
    collection: "operating-systems",
    operations: &[
        Modelled::new(&op::FIND_OPERATING_SYSTEMS, find_operating_systems),
        // Every version of every operating system: the list itself.
        Modelled::new(&op::FIND_OPERATING_SYSTEM_VERSION, find_operating_systems),
    ],
    owner: nobody,
    load: nothing,
    save: unchanged,
};

/// Metros.
pub(crate) static METROS: Resource = Resource {
    collection: "metros",
    operations: &[
        Modelled::new(&op::FIND_METROS, find_metros),
        Modelled::new(&op::GET_METRO, get_metro).names("id", &METROS),
    ],
    owner: nobody,
    load: nothing,
    save: unchanged,
};

/// Facilities.
pub(crate) static FACILITIES: Resource = Resource {
    collection: "facilities",
    operations: &[
        Modelled::new(&op::FIND_FACILITIES, find_facilities),
        // A project sees the world's facilities.
        Modelled::new(&op::FIND_FACILITIES_BY_PROJECT, find_facilities_by_project)
            .names("id", &project::RESOURCE),
    ],
    owner: nobody,
    load: nothing,
    save: unchanged,
};

/// The catalog's lists name no one thing by `{id}`.
fn nobody(_: &World, _: Uuid) -> Option<Owner> {
    None
}

/// The world loads the catalog itself ([`super::Catalog::load`]).
fn nothing(_: &mut World, _: &WorldDoc, _: Instant) -> Result<(), WorldError> {
    Ok(())
}

/// The world saves the catalog itself ([`super::Catalog::save`]).
fn unchanged(_: &World, _: &mut WorldDoc, _: Instant) {}

/// `{"plans": [...]}`.
#[derive(Serialize)]
struct PlanList<'a> {
    plans: Vec<PlanView<'a>>,
}

/// `{"facilities": [...]}`.
#[derive(Serialize)]
struct FacilityList<'a> {
    facilities: Vec<FacilityView<'a>>,
}

/// `{"metros": [...]}`.
#[derive(Serialize)]
struct MetroList<'a> {
    metros: Vec<MetroView<'a>>,
}

/// `{"operating_systems": [...]}`.
#[derive(Serialize)]
struct OperatingSystemList<'a> {
    operating_systems: Vec<OperatingSystemView<'a>>,
}

/// The spec's values of `findPlans`' `type`.
const PLAN_TYPES: &[&str] = &["standard", "workload_optimized", "custom"];

/// The spec's values of `findPlans`' `categories[]`.
const PLAN_CATEGORIES: &[&str] = &["compute", "storage", "vmce", "legacy_gen", "current_gen"];

/// The world's plans, filtered: `slug` and `type` exact, `categories[]`
/// (any of those asked), `deployment_type` (one of the plan's, as packngo's
/// `Filter("deployment_type", ...)` sends it); a `type` or category
/// outside the spec's values is `422`. With
/// `include=available_in,available_in_metros` (either), each place a plan
/// is available in is whole, with its price there.
pub(crate) fn find_plans(call: &Call) -> Result<Prepared, ApiError> {
    let slug = call.text("slug");
    let plan_type = call.text("type");
    if let Some(t) = plan_type.as_deref().filter(|t| !PLAN_TYPES.contains(t)) {
        return Err(ApiError::unprocessable(format!(
            "{t} is not a valid plan type"
        )));
    }
    let categories: Vec<String> = call
        .list("categories[]")
        .into_iter()
        .chain(call.list("categories"))
        .map(str::to_string)
        .collect();
    if let Some(c) = categories
        .iter()
        .find(|c| !PLAN_CATEGORIES.contains(&c.as_str()))
    {
        return Err(ApiError::unprocessable(format!(
            "{c} is not a valid category"
        )));
    }
    let deployment = call.text("deployment_type");
    let include = call.text("include");
    let expand = Expand::parse(include.as_deref(), None);
    let full = expand.includes("available_in") || expand.includes("available_in_metros");
    acts(move |w, _, _| {
        let has = |list: &Option<Vec<String>>, v: &str| list.iter().flatten().any(|x| x == v);
        let plans = w
            .catalog
            .plans
            .iter()
            .filter(|p| slug.as_deref().is_none_or(|s| p.slug == s))
            .filter(|p| {
                plan_type
                    .as_deref()
                    .is_none_or(|t| p.plan_type.as_deref() == Some(t))
            })
            .filter(|p| categories.is_empty() || categories.iter().any(|c| has(&p.categories, c)))
            .filter(|p| {
                deployment
                    .as_deref()
                    .is_none_or(|d| has(&p.deployment_types, d))
            })
            .map(|p| w.plan_view_with(&p.slug, full))
            .collect();
        reply(&PlanList { plans })
    })
}

/// The world's operating systems.
pub(crate) fn find_operating_systems(_call: &Call) -> Result<Prepared, ApiError> {
    acts(move |w, _, _| {
        reply(&OperatingSystemList {
            operating_systems: w.catalog.operating_systems.iter().map(os_view).collect(),
        })
    })
}

/// The world's facilities.
pub(crate) fn find_facilities(_call: &Call) -> Result<Prepared, ApiError> {
    acts(move |w, _, _| {
        let c = &w.catalog;
        reply(&FacilityList {
            facilities: c
                .facilities
                .iter()
                .map(|f| c.facility_view(&f.code))
                .collect(),
        })
    })
}

/// The world's metros.
fn find_metros(_call: &Call) -> Result<Prepared, ApiError> {
    acts(move |w, _, _| {
        let c = &w.catalog;
        reply(&MetroList {
            metros: c.metros.iter().map(|m| c.metro_of_code(&m.code)).collect(),
        })
    })
}

/// The project's plans: the world's, once the project is there.
fn find_plans_by_project(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let listed = find_plans(call)?;
    Ok(Prepared {
        act: Box::new(move |w, scope, now| {
            w.projects.get(&project).ok_or_else(ApiError::not_found)?;
            (listed.act)(w, scope, now)
        }),
        race: None,
    })
}

/// The project's facilities: the world's, once the project is there.
fn find_facilities_by_project(call: &Call) -> Result<Prepared, ApiError> {
    let project = call.id("id")?;
    let listed = find_facilities(call)?;
    Ok(Prepared {
        act: Box::new(move |w, scope, now| {
            w.projects.get(&project).ok_or_else(ApiError::not_found)?;
            (listed.act)(w, scope, now)
        }),
        race: None,
    })
}

/// One metro, by its ID.
fn get_metro(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    acts(move |w, _, _| {
        let c = &w.catalog;
        let metro = c
            .metros
            .iter()
            .find(|m| m.id == Some(id))
            .ok_or_else(ApiError::not_found)?;
        reply(&c.metro_of_code(&metro.code))
    })
}
