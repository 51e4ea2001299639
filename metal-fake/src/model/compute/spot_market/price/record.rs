//! The spot prices a world document sets, over the default the catalog
//! gives (see `rules`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The spot market price of a plan in a metro (and every facility of it),
/// in US dollars an hour.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpotPrice {
    /// The plan's slug, one of `plans`.
    pub plan: String,
    /// The metro's code, one of `metros`.
    pub metro: String,
    /// The price an hour (a finite number, at least 0).
    pub price: f64,
}
