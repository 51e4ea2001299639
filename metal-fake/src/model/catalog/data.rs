//! The real API's catalog as data: the files of `metal-fake/catalog/`
//! (one a table: metros, facilities, plans, operating systems, capacity,
//! spot prices where a client shows one),
//! each a list of the world document's own entries, built into the crate
//! and parsed once. Facts only, from public sources (see
//! [`crate::fidelity`]); a world document inherits them unless it says
//! `"catalog": "none"`, and may say otherwise for any entry. The capacity
//! file says where (and at what level) a plan's machines are; each of its
//! pools holds the world's default number of machines
//! ([`crate::FakeBuilder::on_demand`], 10).

use std::sync::LazyLock;

use super::record::{Facility, Metro, OperatingSystem, Plan};
use crate::model::capacity::Capacity;
use crate::model::SpotPrice;

/// The catalog's tables, as the files have them.
#[derive(Debug, Default)]
pub(crate) struct Data {
    pub(crate) metros: Vec<Metro>,
    pub(crate) facilities: Vec<Facility>,
    pub(crate) plans: Vec<Plan>,
    pub(crate) operating_systems: Vec<OperatingSystem>,
    pub(crate) capacity: Vec<Capacity>,
    pub(crate) spot_prices: Vec<SpotPrice>,
}

/// The files, as built into the crate.
const METROS: &str = include_str!("../../../catalog/metros.json");
const FACILITIES: &str = include_str!("../../../catalog/facilities.json");
const PLANS: &str = include_str!("../../../catalog/plans.json");
const OPERATING_SYSTEMS: &str = include_str!("../../../catalog/operating_systems.json");
const CAPACITY: &str = include_str!("../../../catalog/capacity.json");
const SPOT_PRICES: &str = include_str!("../../../catalog/spot_prices.json");

/// The files parsed, or why one does not parse.
fn parse() -> Result<Data, (&'static str, serde_json::Error)> {
    fn one<T: serde::de::DeserializeOwned>(
        name: &'static str,
        text: &str,
    ) -> Result<T, (&'static str, serde_json::Error)> {
        serde_json::from_str(text).map_err(|e| (name, e))
    }
    Ok(Data {
        metros: one("metros.json", METROS)?,
        facilities: one("facilities.json", FACILITIES)?,
        plans: one("plans.json", PLANS)?,
        operating_systems: one("operating_systems.json", OPERATING_SYSTEMS)?,
        capacity: one("capacity.json", CAPACITY)?,
        spot_prices: one("spot_prices.json", SPOT_PRICES)?,
    })
}

static DATA: LazyLock<Data> = LazyLock::new(|| {
    parse().unwrap_or_else(|(file, e)| {
        // The files are the crate's own and parse (the test below), so
        // this is unreachable in a build that passed its tests; an empty
        // catalog is the least harm.
        tracing::error!("metal-fake: catalog/{file} does not parse: {e}");
        Data::default()
    })
});

/// The real API's catalog, parsed once.
pub(crate) fn data() -> &'static Data {
    &DATA
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_files_parse_and_name_each_thing_once() {
        let d = parse().unwrap_or_else(|(file, e)| panic!("{file}: {e}"));
        let once = |what: &str, keys: Vec<&str>| {
            let mut seen = std::collections::HashSet::new();
            for k in keys {
                assert!(seen.insert(k), "{what} {k} appears twice");
            }
        };
        once("metro", d.metros.iter().map(|m| m.code.as_str()).collect());
        once(
            "facility",
            d.facilities.iter().map(|f| f.code.as_str()).collect(),
        );
        once("plan", d.plans.iter().map(|p| p.slug.as_str()).collect());
        once(
            "operating system",
            d.operating_systems
                .iter()
                .map(|o| o.slug.as_str())
                .collect(),
        );
        for f in &d.facilities {
            assert!(
                d.metros.iter().any(|m| m.code == f.metro),
                "facility {} names metro {}",
                f.code,
                f.metro
            );
        }
    }
}
