//! The catalog's records (each also its entry in the world document), and
//! how they load, filling in what the document leaves out, and save.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::known;

/// A plan. Of a slug the fake knows (the real API's current plans of
/// 2024: `c3.small.x86`, `c3.medium.x86`, `m3.small.x86`, `m3.large.x86`,
/// `s3.xlarge.x86`, `n3.xlarge.x86`), what the document leaves out is the
/// real plan's; of another slug, its specs and price are absent.
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
    /// Its hardware (the known plan's if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub specs: Option<PlanSpecs>,
    /// Its on-demand price (the known plan's if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pricing: Option<Price>,
    /// How it may be deployed: `on_demand`, `spot_market` (both if
    /// absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployment_types: Option<Vec<String>>,
    /// The metros it is available in, each with its price there (every
    /// metro of the world, at the plan's price, if absent).
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

/// A metro. Of a code the fake knows (the real API's metros of 2024),
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

/// A facility.
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

/// An operating system devices may be installed with. Of a slug the fake
/// knows, the name left out is the real one's.
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
    /// Whether it needs a license (the known one's, else false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub licensed: Option<bool>,
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
    /// The catalog of a world document, every ID filled in (random where
    /// the document has none) and every default (see [`Plan`], [`Metro`],
    /// [`Facility`], [`OperatingSystem`]); codes and slugs unique, each
    /// facility in one of the metros, each plan's metros and each
    /// operating system's plans the world's.
    pub(crate) fn load(
        doc: &crate::document::WorldDoc,
    ) -> Result<Self, crate::document::WorldError> {
        use crate::model::load::{unique, unknown};
        use std::collections::HashSet;
        let mut seen = HashSet::new();
        let metros =
            doc.metros
                .iter()
                .map(|m| {
                    unique(&mut seen, m.code.as_str(), "metro", &m.code)?;
                    let known = known::metro(&m.code);
                    Ok(Metro {
                        id: Some(m.id.unwrap_or_else(Uuid::new_v4)),
                        code: m.code.clone(),
                        name: Some(m.name.clone().unwrap_or_else(|| match known {
                            Some((name, _)) => name.to_string(),
                            None => m.code.to_uppercase(),
                        })),
                        country: Some(m.country.clone().unwrap_or_else(|| {
                            known.map_or("US", |(_, country)| country).to_string()
                        })),
                    })
                })
                .collect::<Result<Vec<_>, crate::document::WorldError>>()?;
        let mut seen = HashSet::new();
        let facilities = doc
            .facilities
            .iter()
            .map(|f| {
                unique(&mut seen, f.code.as_str(), "facility", &f.code)?;
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
                    code: f.code.clone(),
                    metro: f.metro.clone(),
                    name: Some(f.name.clone().unwrap_or_else(|| {
                        format!(
                            "{} {}",
                            metro.name.as_deref().unwrap_or_default(),
                            f.code.to_uppercase()
                        )
                    })),
                    features: Some(features),
                })
            })
            .collect::<Result<Vec<_>, crate::document::WorldError>>()?;
        let mut seen = HashSet::new();
        let metro_codes: Vec<&str> = metros.iter().map(|m| m.code.as_str()).collect();
        let plans = doc
            .plans
            .iter()
            .map(|p| {
                unique(&mut seen, p.slug.as_str(), "plan", &p.slug)?;
                let from = format!("plan {}", p.slug);
                let known = known::plan(&p.slug);
                let deployment_types = match &p.deployment_types {
                    Some(given) => {
                        one_each(given, DEPLOYMENT_TYPES, &from, "deployment type")?;
                        given.clone()
                    }
                    None => DEPLOYMENT_TYPES.iter().map(|s| (*s).to_string()).collect(),
                };
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
                let specs = p.specs.clone().or_else(|| known.map(known_specs));
                if let Some(specs) = &specs {
                    check_specs(specs, &from)?;
                }
                Ok(Plan {
                    id: Some(p.id.unwrap_or_else(Uuid::new_v4)),
                    slug: p.slug.clone(),
                    name: Some(p.name.clone().unwrap_or_else(|| p.slug.clone())),
                    class: Some(p.class.clone().unwrap_or_else(|| p.slug.clone())),
                    specs,
                    pricing: p.pricing.or_else(|| known.map(|k| Price { hour: k.hour })),
                    deployment_types: Some(deployment_types),
                    metros: Some(in_metros),
                })
            })
            .collect::<Result<Vec<_>, crate::document::WorldError>>()?;
        let mut seen = HashSet::new();
        let named: Vec<OperatingSystem> = if doc.operating_systems.is_empty() {
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
        let plan_slugs: Vec<&str> = plans.iter().map(|p| p.slug.as_str()).collect();
        let operating_systems = named
            .into_iter()
            .map(|os| {
                unique(&mut seen, os.slug.clone(), "operating system", &os.slug)?;
                let from = format!("operating system {}", os.slug);
                let (distro, version) = os.slug.split_once('_').unwrap_or((&os.slug, ""));
                let known = known::operating_system(&os.slug);
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
                    name: Some(os.name.clone().unwrap_or_else(|| {
                        known.map_or_else(|| os.slug.clone(), |(name, _)| name.to_string())
                    })),
                    provisionable_on: Some(provisionable_on),
                    licensed: Some(
                        os.licensed
                            .unwrap_or_else(|| known.is_some_and(|(_, licensed)| licensed)),
                    ),
                    slug: os.slug,
                })
            })
            .collect::<Result<Vec<_>, crate::document::WorldError>>()?;
        let catalog = Self {
            operating_systems,
            plans,
            metros,
            facilities,
        };
        catalog.check_names()?;
        Ok(catalog)
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

/// The specs of a known plan.
fn known_specs(k: &known::KnownPlan) -> PlanSpecs {
    let counted = |list: &[(u32, &str)]| {
        list.iter()
            .map(|(count, kind)| Counted {
                count: *count,
                kind: (*kind).to_string(),
            })
            .collect()
    };
    PlanSpecs {
        cpus: counted(k.cpus),
        memory: k.memory.to_string(),
        drives: k
            .drives
            .iter()
            .map(|(count, size, kind, category)| Drive {
                count: *count,
                size: (*size).to_string(),
                kind: (*kind).to_string(),
                category: (*category).to_string(),
            })
            .collect(),
        nics: counted(k.nics),
    }
}
