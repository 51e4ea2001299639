//! The catalog's lists: plans, operating systems, metros and facilities, from the
//! world. Each is a [`Resource`] of its own collection, with no records of
//! its own to load (the world loads the catalog) and none owned.

use metal_api::operation as op;
use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{FacilityView, MetroView, OperatingSystem, PlanView};
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::World;

/// Plans.
pub(crate) static PLANS: Resource = Resource {
    collection: "plans",
    operations: &[Modelled::new(&op::FIND_PLANS, find_plans)],
    owner: nobody,
    load: nothing,
    save: unchanged,
};

/// Operating systems.
pub(crate) static OPERATING_SYSTEMS: Resource = Resource {
    collection: "operating-systems",
    operations: &[Modelled::new(
        &op::FIND_OPERATING_SYSTEMS,
        find_operating_systems,
    )],
    owner: nobody,
    load: nothing,
    save: unchanged,
};

/// Metros.
pub(crate) static METROS: Resource = Resource {
    collection: "metros",
    operations: &[Modelled::new(&op::FIND_METROS, find_metros)],
    owner: nobody,
    load: nothing,
    save: unchanged,
};

/// Facilities.
pub(crate) static FACILITIES: Resource = Resource {
    collection: "facilities",
    operations: &[Modelled::new(&op::FIND_FACILITIES, find_facilities)],
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

/// An operating system in a reply.
#[derive(Serialize)]
struct OperatingSystemView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Uuid>,
    slug: &'a str,
    name: &'a str,
    distro: &'a str,
    version: &'a str,
    provisionable_on: Vec<&'a str>,
}

/// `{"operating_systems": [...]}`.
#[derive(Serialize)]
struct OperatingSystemList<'a> {
    operating_systems: Vec<OperatingSystemView<'a>>,
}

/// The world's plans; `slug` matches exactly.
pub(crate) fn find_plans(call: &Call) -> Result<Prepared, ApiError> {
    let slug = call.text("slug");
    acts(move |w, _, _| {
        let c = &w.catalog;
        let plans = c
            .plans
            .iter()
            .filter(|p| slug.as_deref().is_none_or(|s| p.slug == s))
            .map(|p| c.plan_view(&p.slug))
            .collect();
        reply(&PlanList { plans })
    })
}

/// The world's operating systems, each provisionable on every plan.
pub(crate) fn find_operating_systems(_call: &Call) -> Result<Prepared, ApiError> {
    acts(move |w, _, _| {
        let c = &w.catalog;
        let plans: Vec<&str> = c.plans.iter().map(|p| p.slug.as_str()).collect();
        reply(&OperatingSystemList {
            operating_systems: c
                .operating_systems
                .iter()
                .map(|os| os_view(os, &plans))
                .collect(),
        })
    })
}

/// `os` as the API shows it, provisionable on `plans`.
fn os_view<'a>(os: &'a OperatingSystem, plans: &[&'a str]) -> OperatingSystemView<'a> {
    OperatingSystemView {
        id: os.id,
        slug: &os.slug,
        name: &os.slug,
        distro: os.distro.as_deref().unwrap_or_default(),
        version: os.version.as_deref().unwrap_or_default(),
        provisionable_on: plans.to_vec(),
    }
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
