//! The catalog as the API shows it: plans (with specs, price and where
//! they are available, each place whole with `include`), metros,
//! facilities and operating systems, in their lists and where a device,
//! reservation or IP block names them.

use serde::{Serialize, Serializer};
use uuid::Uuid;

use super::record::{Catalog, Counted, Drive, OperatingSystem, Plan, Price};
use crate::model::render::Href;
use crate::model::World;

/// The collection of facilities' hrefs.
const FACILITIES: &str = "facilities";
/// The collection of metros' hrefs (under `locations`, as the API has
/// them).
const METROS: &str = "locations/metros";

/// A plan in a reply.
#[derive(Serialize)]
pub(crate) struct PlanView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Uuid>,
    slug: &'a str,
    name: &'a str,
    description: &'a str,
    class: &'a str,
    line: &'a str,
    #[serde(rename = "type")]
    type_: &'a str,
    legacy: bool,
    categories: &'a [String],
    deployment_types: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    specs: Option<SpecsView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pricing: Option<Price>,
    available_in: Available<'a>,
    available_in_metros: Available<'a>,
}

/// A plan's specs in a reply.
#[derive(Serialize)]
struct SpecsView<'a> {
    cpus: &'a [Counted],
    memory: Memory<'a>,
    drives: &'a [Drive],
    nics: &'a [Counted],
    features: Features,
}

#[derive(Serialize)]
struct Memory<'a> {
    total: &'a str,
}

/// What a server of the plan supports: RAID with two drives or more, TXT
/// and UEFI on every current plan.
#[derive(Serialize)]
struct Features {
    raid: bool,
    txt: bool,
    uefi: bool,
}

/// Where a plan is available now: the metros, or the facilities, where
/// its machines can be had (the capacity's one table, see
/// `model/compute/capacity`), in the catalog's order, each with the price
/// there; whole (the metro or facility, with its price) when `full`.
struct Available<'a> {
    world: &'a World,
    plan: Option<&'a Plan>,
    facilities: bool,
    full: bool,
}

/// One place a plan is available in.
#[derive(Serialize)]
struct Place<'a> {
    href: Href,
    price: Price,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Uuid>,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    country: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    features: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metro: Option<MetroView<'a>>,
}

impl Serialize for Available<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Some(plan) = self.plan else {
            return s.collect_seq(std::iter::empty::<()>());
        };
        let c = &self.world.catalog;
        let free = self.world.free_machines(&plan.slug);
        let default = plan.pricing.unwrap_or_default();
        let price = |metro: &str| {
            plan.metros
                .iter()
                .flatten()
                .find(|pm| pm.code == metro)
                .and_then(|pm| pm.price)
                .unwrap_or(default)
        };
        if !self.facilities {
            let metros = c
                .metros
                .iter()
                .filter(|m| free.metros.get(m.code.as_str()).is_some_and(|n| *n > 0));
            return s.collect_seq(metros.map(|m| {
                let id = m.id.unwrap_or_default();
                Place {
                    href: Href::new(METROS, id),
                    price: price(&m.code),
                    id: self.full.then_some(id),
                    code: self.full.then_some(m.code.as_str()),
                    name: self.full.then(|| m.name.as_deref().unwrap_or_default()),
                    country: self.full.then(|| m.country.as_deref().unwrap_or_default()),
                    features: None,
                    metro: None,
                }
            }));
        }
        let facilities = c
            .facilities
            .iter()
            .filter(|f| free.facilities.get(f.code.as_str()).is_some_and(|n| *n > 0));
        s.collect_seq(facilities.map(|f| {
            let id = f.id.unwrap_or_default();
            Place {
                href: Href::new(FACILITIES, id),
                price: price(&f.metro),
                id: self.full.then_some(id),
                code: self.full.then_some(f.code.as_str()),
                name: self.full.then(|| f.name.as_deref().unwrap_or_default()),
                country: None,
                features: self.full.then(|| f.features.as_deref().unwrap_or_default()),
                metro: self.full.then(|| c.metro_of_code(&f.metro)),
            }
        }))
    }
}

/// A facility in a reply.
#[derive(Serialize)]
pub(crate) struct FacilityView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Uuid>,
    code: &'a str,
    name: &'a str,
    features: &'a [String],
    metro: MetroView<'a>,
    /// The public ranges its addresses come from: the fake's pools, the
    /// same in every facility ([`IP_RANGES`]).
    ip_ranges: &'static [&'static str],
    /// `null`: no source of the catalog gives the data centres' street
    /// addresses (a recorded 2019 reply had `null` too).
    address: (),
}

/// The public ranges every facility's addresses come from: the fake's
/// made-up pools (devices' own public IPv4 blocks in `147.75.0.0` to
/// `147.213.255.255`, reserved public IPv4 blocks in `139.178.64.0/18`,
/// devices' own IPv6 blocks in `2604:1380::/32`).
pub(crate) const IP_RANGES: &[&str] = &[
    "147.64.0.0/10",
    "147.128.0.0/9",
    "139.178.64.0/18",
    "2604:1380::/32",
];

/// A metro in a reply.
#[derive(Serialize)]
pub(crate) struct MetroView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Uuid>,
    code: &'a str,
    name: &'a str,
    country: &'a str,
}

/// An operating system in a reply.
#[derive(Serialize)]
pub(crate) struct OperatingSystemView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Uuid>,
    slug: &'a str,
    name: &'a str,
    distro: &'a str,
    distro_label: Capitalized<'a>,
    version: &'a str,
    provisionable_on: &'a [String],
    preinstallable: bool,
    licensed: bool,
    default_operating_system: bool,
    pricing: &'a serde_json::Map<String, serde_json::Value>,
    #[serde(flatten)]
    lifecycle: Lifecycle,
}

/// Metal's image lifecycle, every field `null`: no public source gives it.
#[derive(Serialize, Default)]
struct Lifecycle {
    build_date: (),
    deprecation_date: (),
    end_of_life_date: (),
    end_of_service_date: (),
    lifecycle_state: (),
    release_date: (),
    release_notes: (),
}

/// `{}`: the price of an operating system the catalog lacks.
static NO_PRICE: std::sync::LazyLock<serde_json::Map<String, serde_json::Value>> =
    std::sync::LazyLock::new(serde_json::Map::new);

/// Text with its first letter upper-cased (a distribution's label).
struct Capitalized<'a>(&'a str);

impl Serialize for Capitalized<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut chars = self.0.chars();
        match chars.next() {
            Some(first) => {
                s.collect_str(&format_args!("{}{}", first.to_uppercase(), chars.as_str()))
            }
            None => s.serialize_str(""),
        }
    }
}

impl World {
    /// A plan as the API shows it, where it is available as href stubs
    /// with prices.
    pub(crate) fn plan_view<'a>(&'a self, slug: &'a str) -> PlanView<'a> {
        self.plan_view_with(slug, false)
    }

    /// A plan as the API shows it; where it is available whole when
    /// `full` (`include=available_in,available_in_metros`).
    pub(crate) fn plan_view_with<'a>(&'a self, slug: &'a str, full: bool) -> PlanView<'a> {
        let plan = self.catalog.plan(slug);
        let name = plan.and_then(|p| p.name.as_deref()).unwrap_or(slug);
        let available = |facilities| Available {
            world: self,
            plan,
            facilities,
            full,
        };
        PlanView {
            id: plan.and_then(|p| p.id),
            slug,
            name,
            description: plan.and_then(|p| p.description.as_deref()).unwrap_or(name),
            class: plan.and_then(|p| p.class.as_deref()).unwrap_or(slug),
            line: plan.and_then(|p| p.line.as_deref()).unwrap_or("baremetal"),
            type_: plan
                .and_then(|p| p.plan_type.as_deref())
                .unwrap_or("standard"),
            legacy: plan.and_then(|p| p.legacy).unwrap_or(false),
            categories: plan
                .and_then(|p| p.categories.as_deref())
                .unwrap_or_default(),
            deployment_types: plan
                .and_then(|p| p.deployment_types.as_deref())
                .unwrap_or_default(),
            specs: plan.and_then(|p| p.specs.as_ref()).map(|s| SpecsView {
                cpus: &s.cpus,
                memory: Memory { total: &s.memory },
                drives: &s.drives,
                nics: &s.nics,
                features: Features {
                    raid: s.drives.iter().map(|d| d.count).sum::<u32>() > 1,
                    txt: true,
                    uefi: true,
                },
            }),
            pricing: plan.and_then(|p| p.pricing),
            available_in: available(true),
            available_in_metros: available(false),
        }
    }
}

impl Catalog {
    /// A facility as the API shows it.
    pub(crate) fn facility_view<'a>(&'a self, code: &'a str) -> FacilityView<'a> {
        let facility = self.facility(code);
        FacilityView {
            id: facility.and_then(|f| f.id),
            code,
            name: facility.and_then(|f| f.name.as_deref()).unwrap_or(code),
            features: facility
                .and_then(|f| f.features.as_deref())
                .unwrap_or_default(),
            metro: self.metro_view(code),
            ip_ranges: IP_RANGES,
            address: (),
        }
    }

    /// The metro of the facility with this code, as the API shows it.
    pub(crate) fn metro_view<'a>(&'a self, facility: &'a str) -> MetroView<'a> {
        let code = self.facility(facility).map_or("", |f| f.metro.as_str());
        self.metro_of_code(code)
    }

    /// The metro with this code, as the API shows it.
    pub(crate) fn metro_of_code<'a>(&'a self, code: &'a str) -> MetroView<'a> {
        let metro = self.metro(code);
        MetroView {
            id: metro.and_then(|m| m.id),
            code,
            name: metro.and_then(|m| m.name.as_deref()).unwrap_or(code),
            country: metro.and_then(|m| m.country.as_deref()).unwrap_or_default(),
        }
    }

    /// The operating system with this slug as the API shows it (by its
    /// slug alone when the catalog lacks it: a device seeded with an
    /// operating system the world does not list).
    pub(crate) fn operating_system_view<'a>(&'a self, slug: &'a str) -> OperatingSystemView<'a> {
        match self.operating_system(slug) {
            Some(os) => os_view(os),
            None => {
                let (distro, _) = slug.split_once('_').unwrap_or((slug, ""));
                OperatingSystemView {
                    id: None,
                    slug,
                    name: slug,
                    distro,
                    distro_label: Capitalized(distro),
                    version: "",
                    provisionable_on: &[],
                    preinstallable: false,
                    licensed: false,
                    default_operating_system: false,
                    pricing: &NO_PRICE,
                    lifecycle: Lifecycle::default(),
                }
            }
        }
    }
}

/// `os` as the API shows it.
pub(crate) fn os_view(os: &OperatingSystem) -> OperatingSystemView<'_> {
    let distro = os.distro.as_deref().unwrap_or_default();
    OperatingSystemView {
        id: os.id,
        slug: &os.slug,
        name: os.name.as_deref().unwrap_or(&os.slug),
        distro,
        distro_label: Capitalized(distro),
        version: os.version.as_deref().unwrap_or_default(),
        provisionable_on: os.provisionable_on.as_deref().unwrap_or_default(),
        preinstallable: false,
        licensed: os.licensed.unwrap_or_default(),
        default_operating_system: false,
        pricing: os.pricing.as_ref().unwrap_or(&NO_PRICE),
        lifecycle: Lifecycle::default(),
    }
}
