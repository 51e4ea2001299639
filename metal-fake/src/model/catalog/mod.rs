//! The catalog family: what a world offers to provision on: plans (by slug), operating
//! systems (by slug), metros (by code) and facilities (by code, each in a
//! metro).
//!
//! - `operations`: the lists of plans, operating systems, metros and
//!   facilities.
//!
//! - `record`: [`Plan`], [`Metro`], [`Facility`] (each also its entry in
//!   the world document), the [`Catalog`] a world keeps, how it loads and
//!   saves, and how a device or reservation shows each.

mod operations;
mod record;

pub(crate) use operations::{
    find_facilities, find_operating_systems, find_plans, FACILITIES, METROS, OPERATING_SYSTEMS,
    PLANS,
};
pub(crate) use record::{Catalog, FacilityView, MetroView, PlanView};
pub use record::{Facility, Metro, OperatingSystem, Plan};

use super::Resource;

/// The catalog family's resources, in load order.
pub(crate) static RESOURCES: &[&Resource] = &[&PLANS, &OPERATING_SYSTEMS, &METROS, &FACILITIES];
