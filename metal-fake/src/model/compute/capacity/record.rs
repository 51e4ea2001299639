//! What the fake keeps of capacity: pools of machines of one plan in one
//! metro or facility (also their entries in the world document), and which
//! pool each on-demand device took its machine from.

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;
use uuid::Uuid;

use crate::document::{WorldDoc, WorldError, MAX_RECORDS};
use crate::model::load::{unique, unknown};
use crate::model::World;

/// One pool of machines for on-demand devices: a plan in a metro, or in a
/// facility. An on-demand create takes a machine from a pool, and the
/// device gives it back when it is gone.
///
/// A pool names exactly one of `metro` and `facility`. A metro's machines
/// are placed in the metro's first facility (in the document's order).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Capacity {
    /// The metro's code, one of `metros`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metro: Option<String>,
    /// The facility's code, one of `facilities`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facility: Option<String>,
    /// The plan's slug, one of `plans`.
    pub plan: String,
    /// How many machines are free now (a saved world shows what is left).
    pub available: u32,
    /// The level the API reports while machines are free (default
    /// `normal`); with none free it reports `unavailable`. A pool seeded
    /// `unavailable` refuses creates whatever it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<CapacityLevel>,
}

/// How the API reports a plan's capacity in a metro or facility.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum CapacityLevel {
    /// None can be had.
    Unavailable,
    /// A few can be had.
    Limited,
    /// Plenty can be had.
    Normal,
}

impl CapacityLevel {
    /// The level's name in the API.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Unavailable => "unavailable",
            Self::Limited => "limited",
            Self::Normal => "normal",
        }
    }
}

impl Capacity {
    /// The level the pool reports now.
    pub(crate) fn level_now(&self) -> CapacityLevel {
        if self.available == 0 {
            CapacityLevel::Unavailable
        } else {
            self.level.unwrap_or(CapacityLevel::Normal)
        }
    }

    /// Whether a create may take `n` machines from it.
    pub(crate) fn has(&self, n: u64) -> bool {
        self.level_now() != CapacityLevel::Unavailable && u64::from(self.available) >= n
    }
}

/// The world's pools, in the document's order, and which pool each
/// on-demand device created since the world loaded took its machine from.
#[derive(Clone, Debug, Default)]
pub(crate) struct Table {
    pub(super) pools: Vec<Capacity>,
    /// Device → its pool's index in `pools`.
    pub(super) taken: HashMap<Uuid, usize>,
}

impl Table {
    /// The pool at `index` of the world's capacity (pools are fixed when
    /// the world loads, so an index names one pool for the world's life).
    pub(crate) fn pool(&self, index: usize) -> Option<&Capacity> {
        self.pools.get(index)
    }

    /// Every pool, in the world document's order.
    pub(crate) fn pools(&self) -> &[Capacity] {
        &self.pools
    }
}

/// Loads the document's pools and those it inherits from the catalog:
/// each naming one metro or one facility and a plan of the catalog, no
/// (place, plan) twice, each metro with a facility to place its machines
/// in; then, for each plan sold on demand or on the spot market and each
/// metro it is sold in where it has no pool (of the metro or of one of its
/// facilities), a pool of the world's default size in the metro's first
/// facility. At most
/// [`MAX_RECORDS`] machines in all (each machine can become a device).
pub(crate) fn load(w: &mut World, doc: &WorldDoc, _: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    let mut total: u64 = 0;
    // The catalog's pools are where and how it sells a plan; each holds
    // the world's default number of machines.
    let mut pools: Vec<Capacity> = w
        .catalog
        .capacity
        .iter()
        .map(|c| Capacity {
            available: w.implicit_machines,
            ..c.clone()
        })
        .collect();
    pools.extend(doc.capacity.iter().cloned());
    for c in &pools {
        let from = || format!("capacity of plan {}", c.plan);
        let place = match (&c.metro, &c.facility) {
            (Some(m), None) => {
                if w.catalog.metro(m).is_none() {
                    return Err(unknown(from(), "metro", m));
                }
                if !w.catalog.facilities.iter().any(|f| f.metro == *m) {
                    return Err(WorldError::Inconsistent(format!(
                        "{}: metro {m} has no facility to place devices in",
                        from()
                    )));
                }
                format!("metro {m}")
            }
            (None, Some(f)) => {
                if w.catalog.facility(f).is_none() {
                    return Err(unknown(from(), "facility", f));
                }
                format!("facility {f}")
            }
            _ => {
                return Err(WorldError::Inconsistent(format!(
                    "{}: names exactly one of metro and facility",
                    from()
                )))
            }
        };
        if w.catalog.plan(&c.plan).is_none() {
            return Err(unknown(from(), "plan", &c.plan));
        }
        let shown = format!("{place} plan {}", c.plan);
        unique(&mut seen, shown.clone(), "capacity", shown)?;
        total += u64::from(c.available);
    }
    let implicit = implicit_pools(w, &pools);
    total += implicit.len() as u64 * u64::from(w.implicit_machines);
    pools.extend(implicit);
    if total > MAX_RECORDS as u64 {
        return Err(WorldError::Inconsistent(format!(
            "capacity: {total} machines in all, more than the fake holds ({MAX_RECORDS})"
        )));
    }
    w.capacity = Table {
        pools,
        taken: HashMap::new(),
    };
    Ok(())
}

/// The pools a world gets without saying so: one of the world's default
/// size for each (plan sold on demand or on the spot market, metro it is
/// sold in) that no pool of `given` covers, in the metro's first facility
/// (where its devices go, and which `/plans` then lists in `available_in`).
fn implicit_pools(w: &World, given: &[Capacity]) -> Vec<Capacity> {
    let c = &w.catalog;
    let metro_of = |f: &str| c.facility(f).map(|f| f.metro.as_str());
    let covered = |plan: &str, metro: &str| {
        given.iter().any(|p| {
            p.plan == plan
                && (p.metro.as_deref() == Some(metro)
                    || p.facility.as_deref().and_then(metro_of) == Some(metro))
        })
    };
    let mut out = Vec::new();
    for plan in &c.plans {
        let sold = plan.deployment_types.iter().flatten().next().is_some();
        if !sold {
            continue;
        }
        for pm in plan.metros.iter().flatten() {
            let Some(first) = w.placement(&pm.code) else {
                continue;
            };
            if !covered(&plan.slug, &pm.code) {
                out.push(Capacity {
                    metro: None,
                    facility: Some(first.to_string()),
                    plan: plan.slug.clone(),
                    available: w.implicit_machines,
                    level: None,
                });
            }
        }
    }
    out
}

/// Saves the pools into `doc`, as many machines free as now.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _: Instant) {
    doc.capacity = w.capacity.pools.clone();
}
