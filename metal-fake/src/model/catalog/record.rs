//! The catalog's records (each also its entry in the world document), and
//! how they load, filling in what the document leaves out, and save.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::model::capacity::Capacity;

/// Which catalog a world document starts from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CatalogChoice {
    /// The real API's catalog (`metal-fake/catalog/`: its metros,
    /// facilities, plans, operating systems and capacity), with the
    /// document's entries over it: an entry of a code or slug the catalog
    /// has overrides what it says and keeps the rest; another is added.
    #[default]
    Metal,
    /// Only the document's entries; one of a code or slug the catalog has
    /// still takes the catalog's facts for what it leaves out (but a
    /// plan's metros, which are every metro of the world unless it names
    /// its own).
    None,
}

impl CatalogChoice {
    /// Whether it is the default, [`CatalogChoice::Metal`].
    pub(crate) fn is_metal(&self) -> bool {
        *self == Self::Metal
    }
}

/// A plan. Of a slug the catalog has (`metal-fake/catalog/plans.json`:
/// the real API's plans of 2024 and the legacy plans of 2014 to 2023),
/// what the document leaves out is the catalog's; of another slug, its
/// specs and price are absent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Its ID (random if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Its slug (`c3.small.x86`).
    pub slug: String,
    /// Its name (the slug if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its class (the slug if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Its description (its name if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its product line (`baremetal` if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// Its type: `standard`, `workload_optimized` or `custom` (`standard`
    /// if absent).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub plan_type: Option<String>,
    /// Its categories, of `compute`, `storage`, `vmce`, `legacy_gen`,
    /// `current_gen` (`compute` and `current_gen` if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub categories: Option<Vec<String>>,
    /// Whether the API marks it legacy (false if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legacy: Option<bool>,
    /// Its hardware (none if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specs: Option<PlanSpecs>,
    /// Its on-demand price (none if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pricing: Option<Price>,
    /// How it may be deployed: `on_demand`, `spot_market` (both if
    /// absent; none: on hardware reservations only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployment_types: Option<Vec<String>>,
    /// The metros it is sold in, each with its price there (every metro
    /// of the world, at the plan's price, if absent). A plan sold on
    /// demand or on the spot market has machines in each of them (see
    /// `capacity`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metros: Option<Vec<PlanMetro>>,
}

/// A plan's hardware, as the API's `specs` shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanSpecs {
    /// Processors (`{"count": 1, "type": "Intel Xeon E-2278G ..."}`).
    pub cpus: Vec<Counted>,
    /// Memory in total (`32GB`).
    pub memory: String,
    /// Drives.
    pub drives: Vec<Drive>,
    /// Network interfaces (`{"count": 2, "type": "10Gbps"}`).
    pub nics: Vec<Counted>,
}

/// Some number of one kind of part.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Counted {
    /// How many.
    pub count: u32,
    /// What kind.
    #[serde(rename = "type")]
    pub kind: String,
}

/// Some number of one kind of drive.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Drive {
    /// How many.
    pub count: u32,
    /// Each one's size (`480GB`).
    pub size: String,
    /// What kind (`SSD`, `NVMe`, `HDD`).
    #[serde(rename = "type")]
    pub kind: String,
    /// What it is for (`boot`, `storage`, `cache`).
    pub category: String,
}

/// A price, US dollars an hour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Price {
    /// Dollars an hour.
    pub hour: f64,
}

/// A metro a plan is available in.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlanMetro {
    /// The metro's code, one of `metros`.
    pub code: String,
    /// The price there (the plan's if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<Price>,
}

/// A metro. Of a code the catalog has (the real API's metros of 2024),
/// the name and country left out are the real metro's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Metro {
    /// Its ID (random if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Its code (`da`).
    pub code: String,
    /// Its name (`Dallas`; the upper-cased code for a code the fake does
    /// not know).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its country, ISO 3166 alpha-2 (`US`; `US` for a code the fake does
    /// not know).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
}

/// A facility. Of a code the catalog has, the name and features left out
/// are the real facility's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Facility {
    /// Its ID (random if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Its code (`da11`).
    pub code: String,
    /// The code of its metro, one of `metros`.
    pub metro: String,
    /// Its name (the metro's name and the upper-cased code, `Dallas DA11`,
    /// if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Its features, of `baremetal`, `backend_transfer`, `layer_2`,
    /// `global_ipv4`, `ibx` (all but `ibx` if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub features: Option<Vec<String>>,
}

/// An operating system devices may be installed with. Of a slug the
/// catalog has, what the document leaves out is the real one's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OperatingSystem {
    /// Its ID (random if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Its slug (`ubuntu_24_04`).
    pub slug: String,
    /// Its distribution (`ubuntu`; the slug's first word if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distro: Option<String>,
    /// Its version (`24.04`; the rest of the slug if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Its name (`Ubuntu 24.04 LTS`; the slug for one the fake does not
    /// know).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The plans it installs on, slugs of `plans` (every plan if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provisionable_on: Option<Vec<String>>,
    /// Whether it needs a license (false if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub licensed: Option<bool>,
    /// Its license's price, as the API's `pricing` shows it (`{}` if
    /// absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pricing: Option<serde_json::Map<String, serde_json::Value>>,
}

/// The operating systems of a world whose document names none.
pub(super) const DEFAULT_OPERATING_SYSTEMS: [&str; 6] = [
    "ubuntu_22_04",
    "ubuntu_24_04",
    "debian_12",
    "rocky_9",
    "flatcar_stable",
    "custom_ipxe",
];

/// The plans, metros, facilities and operating systems of a world, every
/// ID and every default filled in.
#[derive(Clone, Debug, Default)]
pub(crate) struct Catalog {
    pub(crate) operating_systems: Vec<OperatingSystem>,
    pub(crate) plans: Vec<Plan>,
    pub(crate) metros: Vec<Metro>,
    pub(crate) facilities: Vec<Facility>,
    /// The catalog's own capacity the world inherits (see
    /// [`CatalogChoice::Metal`]), beside the document's.
    pub(crate) capacity: Vec<Capacity>,
    /// The catalog's spot prices the world inherits, under the
    /// document's.
    pub(crate) spot_prices: Vec<crate::model::SpotPrice>,
}

impl Catalog {
    /// The plan with this slug.
    pub(crate) fn plan(&self, slug: &str) -> Option<&Plan> {
        self.plans.iter().find(|p| p.slug == slug)
    }

    /// The facility with this code.
    pub(crate) fn facility(&self, code: &str) -> Option<&Facility> {
        self.facilities.iter().find(|f| f.code == code)
    }

    /// The metro with this code.
    pub(crate) fn metro(&self, code: &str) -> Option<&Metro> {
        self.metros.iter().find(|m| m.code == code)
    }

    /// The operating system with this slug.
    pub(crate) fn operating_system(&self, slug: &str) -> Option<&OperatingSystem> {
        self.operating_systems.iter().find(|o| o.slug == slug)
    }

    /// The ID of the metro of the facility with this code (nil when the
    /// world has no such facility, which loading refuses).
    pub(crate) fn metro_id_of(&self, facility: &Facility) -> Uuid {
        self.metro(&facility.metro)
            .and_then(|m| m.id)
            .unwrap_or_default()
    }
}
