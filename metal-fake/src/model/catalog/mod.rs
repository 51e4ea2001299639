//! The catalog family: what a world offers to provision on: plans (by slug), operating
//! systems (by slug), metros (by code) and facilities (by code, each in a
//! metro).
//!
//! - `operations`: the lists of plans, operating systems, metros and
//!   facilities.
//!
//! - `record`: [`Plan`], [`Metro`], [`Facility`], [`OperatingSystem`]
//!   (each also its entry in the world document), the [`Catalog`] a world
//!   keeps, and how it loads (filling in defaults) and saves.
//!
//! - `known`: the real API's well-known metros, plans and operating
//!   systems (2024), whose names, countries, specs and prices an entry
//!   naming only a code or slug takes.
//!
//! - `view`: how the API shows each, in its list and where a device,
//!   reservation or IP block names it.

mod known;
mod operations;
mod record;
mod view;

pub(crate) use operations::{
    find_facilities, find_operating_systems, find_plans, FACILITIES, METROS, OPERATING_SYSTEMS,
    PLANS,
};
pub(crate) use record::Catalog;
pub use record::{
    Counted, Drive, Facility, Metro, OperatingSystem, Plan, PlanMetro, PlanSpecs, Price,
};
pub(crate) use view::{FacilityView, MetroView, OperatingSystemView, PlanView};

use super::Resource;

/// The catalog family's resources, in load order.
pub(crate) static RESOURCES: &[&Resource] = &[&PLANS, &OPERATING_SYSTEMS, &METROS, &FACILITIES];
