//! What the fake keeps of capacity: pools of machines of one plan in one
//! metro or facility (also their entries in the world document), and which
//! pool each on-demand device took its machine from.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

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

/// The machines of each plan in each facility of a world built from the
/// builder's shortcuts ([`crate::FakeBuilder`], the binary's `--project`),
/// so that on-demand creates work there without a world document.
pub(crate) const DEFAULT_ON_DEMAND: u32 = 10;
