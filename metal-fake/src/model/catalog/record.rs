//! The catalog's records (each also its entry in the world document), and
//! how they load, filling in what the document leaves out, and save.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::data::data;
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
const DEFAULT_OPERATING_SYSTEMS: [&str; 6] = [
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

impl Catalog {
    /// The catalog of a world document: the real catalog's entries with
    /// the document's over them (or the document's alone, with
    /// `"catalog": "none"`), every ID filled in (random where the
    /// document has none) and every default (see [`Plan`], [`Metro`],
    /// [`Facility`], [`OperatingSystem`]); codes and slugs unique, each
    /// facility in one of the metros, each plan's metros and each
    /// operating system's plans the world's.
    pub(crate) fn load(
        doc: &crate::document::WorldDoc,
    ) -> Result<Self, crate::document::WorldError> {
        use crate::model::load::{unique, unknown};
        use std::collections::HashSet;
        let base = data();
        let inherit = doc.catalog.is_metal();
        let metros = merged(&base.metros, &doc.metros, inherit);
        let facilities = merged(&base.facilities, &doc.facilities, inherit);
        let plans = merged(&base.plans, &doc.plans, inherit);
        let named = if doc.operating_systems.is_empty() && !inherit {
            DEFAULT_OPERATING_SYSTEMS
                .iter()
                .map(|slug| OperatingSystem {
                    slug: (*slug).to_string(),
                    ..OperatingSystem::default()
                })
                .collect()
        } else {
            doc.operating_systems.clone()
        };
        let named = merged(&base.operating_systems, &named, inherit);
        let mut seen = HashSet::new();
        let metros = metros
            .into_iter()
            .map(|m| {
                unique(&mut seen, m.code.clone(), "metro", &m.code)?;
                Ok(Metro {
                    id: Some(m.id.unwrap_or_else(Uuid::new_v4)),
                    name: Some(m.name.unwrap_or_else(|| m.code.to_uppercase())),
                    country: Some(m.country.unwrap_or_else(|| "US".to_string())),
                    code: m.code,
                })
            })
            .collect::<Result<Vec<_>, crate::document::WorldError>>()?;
        let mut seen = HashSet::new();
        let facilities = facilities
            .into_iter()
            .map(|f| {
                unique(&mut seen, f.code.clone(), "facility", &f.code)?;
                let Some(metro) = metros.iter().find(|m| m.code == f.metro) else {
                    return Err(unknown(format!("facility {}", f.code), "metro", &f.metro));
                };
                let features = match &f.features {
                    Some(given) => {
                        one_each(given, FEATURES, &format!("facility {}", f.code), "feature")?;
                        given.clone()
                    }
                    None => DEFAULT_FEATURES.iter().map(|s| (*s).to_string()).collect(),
                };
                Ok(Facility {
                    id: Some(f.id.unwrap_or_else(Uuid::new_v4)),
                    name: Some(f.name.clone().unwrap_or_else(|| {
                        format!(
                            "{} {}",
                            metro.name.as_deref().unwrap_or_default(),
                            f.code.to_uppercase()
                        )
                    })),
                    features: Some(features),
                    code: f.code,
                    metro: f.metro,
                })
            })
            .collect::<Result<Vec<_>, crate::document::WorldError>>()?;
        let mut seen = HashSet::new();
        let metro_codes: Vec<&str> = metros.iter().map(|m| m.code.as_str()).collect();
        let plans = plans
            .into_iter()
            .map(|p| {
                unique(&mut seen, p.slug.clone(), "plan", &p.slug)?;
                let from = format!("plan {}", p.slug);
                let deployment_types = match &p.deployment_types {
                    Some(given) => {
                        one_each(given, DEPLOYMENT_TYPES, &from, "deployment type")?;
                        given.clone()
                    }
                    None => DEPLOYMENT_TYPES.iter().map(|s| (*s).to_string()).collect(),
                };
                let categories = match &p.categories {
                    Some(given) => {
                        one_each(given, CATEGORIES, &from, "category")?;
                        given.clone()
                    }
                    None => DEFAULT_CATEGORIES
                        .iter()
                        .map(|s| (*s).to_string())
                        .collect(),
                };
                let plan_type = p
                    .plan_type
                    .clone()
                    .unwrap_or_else(|| PLAN_TYPES[0].to_string());
                one_each(
                    std::slice::from_ref(&plan_type),
                    PLAN_TYPES,
                    &from,
                    "plan type",
                )?;
                let in_metros = match &p.metros {
                    Some(given) => {
                        let codes: Vec<String> = given.iter().map(|m| m.code.clone()).collect();
                        one_each(&codes, &metro_codes, &from, "metro")?;
                        given.clone()
                    }
                    None => metros
                        .iter()
                        .map(|m| PlanMetro {
                            code: m.code.clone(),
                            price: None,
                        })
                        .collect(),
                };
                if let Some(specs) = &p.specs {
                    check_specs(specs, &from)?;
                }
                let name = p.name.clone().unwrap_or_else(|| p.slug.clone());
                Ok(Plan {
                    id: Some(p.id.unwrap_or_else(Uuid::new_v4)),
                    description: Some(p.description.clone().unwrap_or_else(|| name.clone())),
                    name: Some(name),
                    class: Some(p.class.clone().unwrap_or_else(|| p.slug.clone())),
                    line: Some(p.line.clone().unwrap_or_else(|| "baremetal".to_string())),
                    plan_type: Some(plan_type),
                    categories: Some(categories),
                    legacy: Some(p.legacy.unwrap_or(false)),
                    specs: p.specs,
                    pricing: p.pricing,
                    deployment_types: Some(deployment_types),
                    metros: Some(in_metros),
                    slug: p.slug,
                })
            })
            .collect::<Result<Vec<_>, crate::document::WorldError>>()?;
        let mut seen = HashSet::new();
        let plan_slugs: Vec<&str> = plans.iter().map(|p| p.slug.as_str()).collect();
        let operating_systems = named
            .into_iter()
            .map(|os| {
                unique(&mut seen, os.slug.clone(), "operating system", &os.slug)?;
                let from = format!("operating system {}", os.slug);
                let (distro, version) = os.slug.split_once('_').unwrap_or((&os.slug, ""));
                let provisionable_on = match &os.provisionable_on {
                    Some(given) => {
                        one_each(given, &plan_slugs, &from, "plan")?;
                        given.clone()
                    }
                    None => plan_slugs.iter().map(|s| (*s).to_string()).collect(),
                };
                Ok(OperatingSystem {
                    id: Some(os.id.unwrap_or_else(Uuid::new_v4)),
                    distro: Some(os.distro.clone().unwrap_or_else(|| distro.to_string())),
                    version: Some(
                        os.version
                            .clone()
                            .unwrap_or_else(|| version.replace('_', ".")),
                    ),
                    name: Some(os.name.clone().unwrap_or_else(|| os.slug.clone())),
                    provisionable_on: Some(provisionable_on),
                    licensed: Some(os.licensed.unwrap_or(false)),
                    pricing: Some(os.pricing.clone().unwrap_or_default()),
                    slug: os.slug,
                })
            })
            .collect::<Result<Vec<_>, crate::document::WorldError>>()?;
        let mut catalog = Self {
            operating_systems,
            plans,
            metros,
            facilities,
            capacity: Vec::new(),
            spot_prices: Vec::new(),
        };
        if inherit {
            catalog.capacity = catalog.inherited_capacity(doc, &base.capacity);
            catalog.spot_prices = base
                .spot_prices
                .iter()
                .filter(|s| catalog.plan(&s.plan).is_some() && catalog.metro(&s.metro).is_some())
                .cloned()
                .collect();
        }
        catalog.check_names()?;
        Ok(catalog)
    }

    /// The catalog's pools a document inherits: each of a plan and a
    /// place the world has, but those of a plan whose document entry
    /// names its own metros, and those of a (place, plan) the document
    /// gives a pool of its own.
    fn inherited_capacity(
        &self,
        doc: &crate::document::WorldDoc,
        pools: &[Capacity],
    ) -> Vec<Capacity> {
        let own_metros = |plan: &str| {
            doc.plans
                .iter()
                .any(|p| p.slug == plan && p.metros.is_some())
        };
        let same = |a: &Capacity, b: &Capacity| {
            a.plan == b.plan && a.metro == b.metro && a.facility == b.facility
        };
        pools
            .iter()
            .filter(|c| {
                self.plan(&c.plan).is_some()
                    && !own_metros(&c.plan)
                    && c.metro.as_deref().is_none_or(|m| self.metro(m).is_some())
                    && c.facility
                        .as_deref()
                        .is_none_or(|f| self.facility(f).is_some())
                    && !doc.capacity.iter().any(|d| same(c, d))
            })
            .cloned()
            .collect()
    }

    /// Refuses a name, country or part of a plan's specs longer than
    /// [`MAX_NAME`](crate::document::MAX_NAME) bytes: each is in every
    /// reply that shows it.
    fn check_names(&self) -> Result<(), crate::document::WorldError> {
        use crate::document::{WorldError, MAX_NAME};
        let metros = self
            .metros
            .iter()
            .flat_map(|m| [m.name.as_deref(), m.country.as_deref()]);
        let facilities = self.facilities.iter().flat_map(|f| {
            std::iter::once(f.name.as_deref())
                .chain(f.features.iter().flatten().map(|s| Some(s.as_str())))
        });
        let plans = self.plans.iter().flat_map(|p| {
            let specs = p.specs.iter().flat_map(|s| {
                std::iter::once(s.memory.as_str())
                    .chain(s.cpus.iter().chain(&s.nics).map(|c| c.kind.as_str()))
                    .chain(
                        s.drives
                            .iter()
                            .flat_map(|d| [d.size.as_str(), d.kind.as_str(), d.category.as_str()]),
                    )
            });
            [p.name.as_deref(), p.class.as_deref()]
                .into_iter()
                .chain(specs.map(Some))
        });
        let systems = self.operating_systems.iter().flat_map(|o| {
            [
                Some(o.slug.as_str()),
                o.name.as_deref(),
                o.distro.as_deref(),
                o.version.as_deref(),
            ]
        });
        match metros
            .chain(facilities)
            .chain(plans)
            .chain(systems)
            .flatten()
            .find(|s| s.len() > MAX_NAME)
        {
            Some(long) => Err(WorldError::Inconsistent(format!(
                "a catalog name starting {:?} is longer than {MAX_NAME} bytes",
                long.chars().take(20).collect::<String>()
            ))),
            None => Ok(()),
        }
    }

    /// Saves the catalog into `doc`.
    pub(crate) fn save(&self, doc: &mut crate::document::WorldDoc) {
        doc.operating_systems.clone_from(&self.operating_systems);
        doc.plans.clone_from(&self.plans);
        doc.metros.clone_from(&self.metros);
        doc.facilities.clone_from(&self.facilities);
        doc.catalog = CatalogChoice::None;
    }

    /// Checks that a record's plan and facility are the world's.
    pub(crate) fn check_placement(
        &self,
        from: &dyn Fn() -> String,
        plan: &str,
        facility: &str,
    ) -> Result<(), crate::document::WorldError> {
        use crate::model::load::unknown;
        if self.plan(plan).is_none() {
            return Err(unknown(from(), "plan", plan));
        }
        if self.facility(facility).is_none() {
            return Err(unknown(from(), "facility", facility));
        }
        Ok(())
    }
}

/// The features a facility may have (the spec's known values).
const FEATURES: &[&str] = &[
    "baremetal",
    "backend_transfer",
    "layer_2",
    "global_ipv4",
    "ibx",
];

/// The features of a facility whose entry names none.
const DEFAULT_FEATURES: &[&str] = &["baremetal", "backend_transfer", "layer_2", "global_ipv4"];

/// The ways a plan may be deployed (the spec's known values).
const DEPLOYMENT_TYPES: &[&str] = &["on_demand", "spot_market"];

/// A plan's categories (the spec's known values of `findPlans`'
/// `categories[]`).
const CATEGORIES: &[&str] = &["compute", "storage", "vmce", "legacy_gen", "current_gen"];

/// The categories of a plan whose entry names none.
const DEFAULT_CATEGORIES: &[&str] = &["compute", "current_gen"];

/// A plan's types (the spec's known values); the first is the default.
const PLAN_TYPES: &[&str] = &["standard", "workload_optimized", "custom"];

/// The most entries of one list of a plan's specs.
const MAX_SPEC_ENTRIES: usize = 16;

/// Refuses a list that names something twice or names what is not one of
/// `allowed`: each is then at most `allowed` long.
fn one_each(
    given: &[String],
    allowed: &[&str],
    from: &str,
    kind: &'static str,
) -> Result<(), crate::document::WorldError> {
    use crate::model::load::{unique, unknown};
    let mut seen = std::collections::HashSet::new();
    for g in given {
        if !allowed.contains(&g.as_str()) {
            return Err(unknown(from.to_string(), kind, g));
        }
        unique(&mut seen, g.as_str(), kind, g)?;
    }
    Ok(())
}

/// Refuses specs with more than [`MAX_SPEC_ENTRIES`] entries in a list.
fn check_specs(specs: &PlanSpecs, from: &str) -> Result<(), crate::document::WorldError> {
    let longest = specs
        .cpus
        .len()
        .max(specs.nics.len())
        .max(specs.drives.len());
    if longest > MAX_SPEC_ENTRIES {
        return Err(crate::document::WorldError::Inconsistent(format!(
            "{from}: a list of its specs has {longest} entries, more than {MAX_SPEC_ENTRIES}"
        )));
    }
    Ok(())
}

/// An entry of the catalog, by its code or slug, that a document's entry
/// of the same key fills in from.
trait Entry: Clone {
    fn key(&self) -> &str;
    /// Takes `from`'s fields where `self` has none (`whole`: every field;
    /// else all but where the thing is, which is the world's own).
    fn fill(&mut self, from: &Self, whole: bool);
}

/// `doc`'s entries over `base`'s (`inherit`: `base`'s first, each
/// replaced by the document's entry of its key, filled from it, then the
/// document's others; else the document's alone, each filled from
/// `base`'s entry of its key). A key twice in `doc` stays twice, for the
/// load to refuse.
fn merged<T: Entry>(base: &[T], doc: &[T], inherit: bool) -> Vec<T> {
    let find = |key: &str| base.iter().position(|b| b.key() == key);
    if !inherit {
        return doc
            .iter()
            .map(|d| {
                let mut e = d.clone();
                if let Some(i) = find(d.key()) {
                    e.fill(&base[i], false);
                }
                e
            })
            .collect();
    }
    let mut out = base.to_vec();
    let mut taken = vec![false; base.len()];
    for d in doc {
        let mut e = d.clone();
        match find(d.key()) {
            Some(i) if !taken[i] => {
                e.fill(&base[i], true);
                out[i] = e;
                taken[i] = true;
            }
            _ => out.push(e),
        }
    }
    out
}

/// `theirs` where `mine` is absent.
fn or<T: Clone>(mine: &mut Option<T>, theirs: &Option<T>) {
    if mine.is_none() {
        mine.clone_from(theirs);
    }
}

impl Entry for Metro {
    fn key(&self) -> &str {
        &self.code
    }
    fn fill(&mut self, from: &Self, _: bool) {
        self.id = self.id.or(from.id);
        or(&mut self.name, &from.name);
        or(&mut self.country, &from.country);
    }
}

impl Entry for Facility {
    fn key(&self) -> &str {
        &self.code
    }
    fn fill(&mut self, from: &Self, _: bool) {
        self.id = self.id.or(from.id);
        or(&mut self.name, &from.name);
        or(&mut self.features, &from.features);
    }
}

impl Entry for Plan {
    fn key(&self) -> &str {
        &self.slug
    }
    fn fill(&mut self, from: &Self, whole: bool) {
        self.id = self.id.or(from.id);
        or(&mut self.name, &from.name);
        or(&mut self.class, &from.class);
        or(&mut self.description, &from.description);
        or(&mut self.line, &from.line);
        or(&mut self.plan_type, &from.plan_type);
        or(&mut self.categories, &from.categories);
        or(&mut self.legacy, &from.legacy);
        or(&mut self.specs, &from.specs);
        or(&mut self.pricing, &from.pricing);
        or(&mut self.deployment_types, &from.deployment_types);
        if whole {
            or(&mut self.metros, &from.metros);
        }
    }
}

impl Entry for OperatingSystem {
    fn key(&self) -> &str {
        &self.slug
    }
    fn fill(&mut self, from: &Self, _: bool) {
        self.id = self.id.or(from.id);
        or(&mut self.distro, &from.distro);
        or(&mut self.version, &from.version);
        or(&mut self.name, &from.name);
        or(&mut self.provisionable_on, &from.provisionable_on);
        or(&mut self.licensed, &from.licensed);
        or(&mut self.pricing, &from.pricing);
    }
}
