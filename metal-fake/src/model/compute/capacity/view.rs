//! Capacity as the API sends it: `{"capacity": {place: {plan: {"level":
//! ...}}}}` for the lists, `{"servers": [...]}` for a check.

use std::collections::BTreeMap;

use serde::Serialize;

use super::record::CapacityLevel;
use crate::model::World;

/// `{"capacity": {...}}`, places and plans by code and slug.
#[derive(Serialize)]
pub(crate) struct CapacityList<'a> {
    capacity: BTreeMap<&'a str, BTreeMap<&'a str, Level>>,
}

/// `{"level": "normal"}`.
#[derive(Serialize)]
struct Level {
    level: &'static str,
}

impl From<CapacityLevel> for Level {
    fn from(l: CapacityLevel) -> Self {
        Self { level: l.as_str() }
    }
}

/// One line of a check's reply: the place and plan asked, the quantity as
/// it was sent (a number or a string), and whether it can be had.
#[derive(Serialize)]
pub(crate) struct Checked {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) metro: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) facility: Option<String>,
    pub(crate) plan: String,
    pub(crate) quantity: serde_json::Value,
    pub(crate) available: bool,
}

/// `{"servers": [...]}`.
#[derive(Serialize)]
pub(crate) struct CheckList {
    pub(crate) servers: Vec<Checked>,
}

impl World {
    /// Every facility of a metro with pools (a metro's facilities share
    /// its capacity), each plan with the facility's level for it: the best
    /// of its metro's pools'.
    pub(crate) fn facility_capacity(&self) -> CapacityList<'_> {
        let mut levels: BTreeMap<&str, BTreeMap<&str, CapacityLevel>> = BTreeMap::new();
        for c in &self.capacity.pools {
            let metro = self.pool_metro(c);
            let facilities = self
                .catalog
                .facilities
                .iter()
                .filter(|f| metro == Some(f.metro.as_str()))
                .map(|f| f.code.as_str());
            for facility in facilities {
                let level = levels.entry(facility).or_default().entry(c.plan.as_str());
                let best = level.or_insert(CapacityLevel::Unavailable);
                *best = (*best).max(c.level_now());
            }
        }
        list(levels)
    }

    /// Every metro with pools (its own or its facilities'), each plan with
    /// the metro's level for it: the best of its pools'.
    pub(crate) fn metro_capacity(&self) -> CapacityList<'_> {
        let mut levels: BTreeMap<&str, BTreeMap<&str, CapacityLevel>> = BTreeMap::new();
        for c in &self.capacity.pools {
            let metro = match (&c.metro, &c.facility) {
                (Some(m), _) => Some(m.as_str()),
                (None, Some(f)) => self.catalog.facility(f).map(|f| f.metro.as_str()),
                (None, None) => None,
            };
            let Some(metro) = metro else { continue };
            let level = levels.entry(metro).or_default().entry(c.plan.as_str());
            let best = level.or_insert(CapacityLevel::Unavailable);
            *best = (*best).max(c.level_now());
        }
        list(levels)
    }
}

/// The levels as the API shows them.
fn list<'a>(levels: BTreeMap<&'a str, BTreeMap<&'a str, CapacityLevel>>) -> CapacityList<'a> {
    let capacity = levels
        .into_iter()
        .map(|(m, plans)| (m, plans.into_iter().map(|(p, l)| (p, l.into())).collect()))
        .collect();
    CapacityList { capacity }
}
