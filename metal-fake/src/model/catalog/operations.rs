//! The catalog's lists: plans, operating systems, metros and facilities, from the
//! world. Each is a [`Resource`] of its own collection, with no records of
//! its own to load (the world loads the catalog) and none owned.

use metal_api::operation as op;
use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::data::data;
use super::record::{
    Catalog, CatalogChoice, Facility, Metro, OperatingSystem, Plan, PlanMetro,
    DEFAULT_OPERATING_SYSTEMS,
};
use super::rules::{
    check_specs, merged, one_each, CATEGORIES, DEFAULT_CATEGORIES, DEFAULT_FEATURES,
    DEPLOYMENT_TYPES, FEATURES, PLAN_TYPES,
};
use super::view::{os_view, FacilityView, MetroView, OperatingSystemView, PlanView};
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::capacity::Capacity;
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
        .find(|c| !CATEGORIES.contains(&c.as_str()))
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
}
