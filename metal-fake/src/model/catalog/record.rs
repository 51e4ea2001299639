//! The catalog's records, their views, and how they load and save.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize, Serializer};
use uuid::Uuid;

/// A plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Its ID (random if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Its slug (`c3.small.x86`).
    pub slug: String,
}

/// A metro.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Metro {
    /// Its ID (random if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Its code (`da`).
    pub code: String,
}

/// A facility.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Facility {
    /// Its ID (random if absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// Its code (`da11`).
    pub code: String,
    /// The code of its metro, one of `metros`.
    pub metro: String,
}

/// An operating system devices may be installed with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
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
/// ID filled in.
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

    /// The ID of the metro of the facility with this code (nil when the
    /// world has no such facility, which loading refuses).
    pub(crate) fn metro_id_of(&self, facility: &Facility) -> Uuid {
        self.metro(&facility.metro)
            .and_then(|m| m.id)
            .unwrap_or_default()
    }

    /// A plan as the API shows it.
    pub(crate) fn plan_view<'a>(&'a self, slug: &'a str) -> PlanView<'a> {
        PlanView {
            id: self.plan(slug).and_then(|p| p.id),
            slug,
            name: slug,
            class: slug,
            line: "baremetal",
            type_: "standard",
        }
    }

    /// A facility as the API shows it.
    pub(crate) fn facility_view<'a>(&'a self, code: &'a str) -> FacilityView<'a> {
        let facility = self.facility(code);
        FacilityView {
            id: facility.and_then(|f| f.id),
            code,
            name: FacilityName(code),
            features: ["baremetal"],
            metro: self.metro_view(code),
        }
    }

    /// The metro of the facility with this code, as the API shows it.
    pub(crate) fn metro_view<'a>(&'a self, facility: &'a str) -> MetroView<'a> {
        let code = self.facility(facility).map_or("", |f| f.metro.as_str());
        self.metro_of_code(code)
    }

    /// The metro with this code, as the API shows it.
    pub(crate) fn metro_of_code<'a>(&'a self, code: &'a str) -> MetroView<'a> {
        MetroView {
            id: self.metro(code).and_then(|m| m.id),
            code,
            name: Upper(code),
            country: "US",
        }
    }
}

/// A plan in a reply.
#[derive(Serialize)]
pub(crate) struct PlanView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Uuid>,
    slug: &'a str,
    name: &'a str,
    class: &'a str,
    line: &'static str,
    #[serde(rename = "type")]
    type_: &'static str,
}

/// A facility in a reply.
#[derive(Serialize)]
pub(crate) struct FacilityView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Uuid>,
    code: &'a str,
    name: FacilityName<'a>,
    features: [&'static str; 1],
    metro: MetroView<'a>,
}

/// A metro in a reply.
#[derive(Serialize)]
pub(crate) struct MetroView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Uuid>,
    code: &'a str,
    name: Upper<'a>,
    country: &'static str,
}

/// `Facility <code>`.
struct FacilityName<'a>(&'a str);

impl Serialize for FacilityName<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("Facility {}", self.0))
    }
}

/// Text in upper case, written without allocating.
struct Upper<'a>(&'a str);

impl fmt::Display for Upper<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use fmt::Write as _;
        self.0
            .chars()
            .flat_map(char::to_uppercase)
            .try_for_each(|c| f.write_char(c))
    }
}

impl Serialize for Upper<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Catalog {
    /// The catalog of a world document, every ID filled in (random where
    /// the document has none); codes and slugs unique, each facility in one
    /// of the metros.
    pub(crate) fn load(
        doc: &crate::document::WorldDoc,
    ) -> Result<Self, crate::document::WorldError> {
        use crate::model::load::{unique, unknown};
        use std::collections::HashSet;
        let mut seen = HashSet::new();
        let metros = doc
            .metros
            .iter()
            .map(|m| {
                unique(&mut seen, m.code.as_str(), "metro", &m.code)?;
                Ok(Metro {
                    id: Some(m.id.unwrap_or_else(Uuid::new_v4)),
                    code: m.code.clone(),
                })
            })
            .collect::<Result<Vec<_>, crate::document::WorldError>>()?;
        let mut seen = HashSet::new();
        let facilities = doc
            .facilities
            .iter()
            .map(|f| {
                unique(&mut seen, f.code.as_str(), "facility", &f.code)?;
                if !metros.iter().any(|m| m.code == f.metro) {
                    return Err(unknown(format!("facility {}", f.code), "metro", &f.metro));
                }
                Ok(Facility {
                    id: Some(f.id.unwrap_or_else(Uuid::new_v4)),
                    code: f.code.clone(),
                    metro: f.metro.clone(),
                })
            })
            .collect::<Result<Vec<_>, crate::document::WorldError>>()?;
        let mut seen = HashSet::new();
        let plans = doc
            .plans
            .iter()
            .map(|p| {
                unique(&mut seen, p.slug.as_str(), "plan", &p.slug)?;
                Ok(Plan {
                    id: Some(p.id.unwrap_or_else(Uuid::new_v4)),
                    slug: p.slug.clone(),
                })
            })
            .collect::<Result<Vec<_>, crate::document::WorldError>>()?;
        let mut seen = HashSet::new();
        let named: Vec<OperatingSystem> = if doc.operating_systems.is_empty() {
            DEFAULT_OPERATING_SYSTEMS
                .iter()
                .map(|slug| OperatingSystem {
                    id: None,
                    slug: (*slug).to_string(),
                    distro: None,
                    version: None,
                })
                .collect()
        } else {
            doc.operating_systems.clone()
        };
        let operating_systems = named
            .into_iter()
            .map(|os| {
                unique(&mut seen, os.slug.clone(), "operating system", &os.slug)?;
                let (distro, version) = os.slug.split_once('_').unwrap_or((&os.slug, ""));
                Ok(OperatingSystem {
                    id: Some(os.id.unwrap_or_else(Uuid::new_v4)),
                    distro: Some(os.distro.clone().unwrap_or_else(|| distro.to_string())),
                    version: Some(
                        os.version
                            .clone()
                            .unwrap_or_else(|| version.replace('_', ".")),
                    ),
                    slug: os.slug,
                })
            })
            .collect::<Result<Vec<_>, crate::document::WorldError>>()?;
        Ok(Self {
            operating_systems,
            plans,
            metros,
            facilities,
        })
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
