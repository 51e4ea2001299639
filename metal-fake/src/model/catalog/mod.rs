//! The catalog family: what a world offers to provision on: plans (by slug), operating
//! systems (by slug), metros (by code) and facilities (by code, each in a
//! metro).
//!
//! - `operations`: the lists of plans, operating systems, metros and
//!   facilities, and how the catalog loads (filling in defaults) and
//!   saves.
//!
//! - `record`: [`Plan`], [`Metro`], [`Facility`], [`OperatingSystem`]
//!   (each also its entry in the world document), and the [`Catalog`] a
//!   world keeps.
//!
//! - `rules`: a document's entries over the real catalog's, filled in
//!   from it, and the checks of what a document names.
//!
//! - `data`: the real API's catalog as data (`metal-fake/catalog/`, one
//!   file a table), which a world inherits and whose entries fill in what
//!   a document's entry of the same code or slug leaves out.
//!
//! - `view`: how the API shows each, in its list and where a device,
//!   reservation or IP block names it.

mod data;
mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::{
    find_facilities, find_operating_systems, find_plans, FACILITIES, METROS, OPERATING_SYSTEMS,
    PLANS,
};
pub(crate) use record::Catalog;
pub use record::{
    CatalogChoice, Counted, Drive, Facility, Metro, OperatingSystem, Plan, PlanMetro, PlanSpecs,
    Price,
};
pub(crate) use view::{FacilityView, MetroView, OperatingSystemView, PlanView};

use super::Resource;

/// The catalog family's resources, in load order.
pub(crate) static RESOURCES: &[&Resource] = &[&PLANS, &OPERATING_SYSTEMS, &METROS, &FACILITIES];
