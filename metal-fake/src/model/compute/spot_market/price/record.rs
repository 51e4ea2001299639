//! The spot prices a world document sets, over the default the catalog
//! gives (see `rules`).

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::document::{WorldDoc, WorldError};
use crate::model::load::{unique, unknown};
use crate::model::World;

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

/// Loads the document's spot prices: each of a plan and a metro of the
/// catalog, a finite price at least 0, no (plan, metro) twice.
pub(crate) fn load(w: &mut World, doc: &WorldDoc, _: Instant) -> Result<(), WorldError> {
    let mut seen = HashSet::new();
    for p in &doc.spot_prices {
        let from = || format!("spot price of plan {} in metro {}", p.plan, p.metro);
        if w.catalog.plan(&p.plan).is_none() {
            return Err(unknown(from(), "plan", &p.plan));
        }
        if w.catalog.metro(&p.metro).is_none() {
            return Err(unknown(from(), "metro", &p.metro));
        }
        if !(p.price.is_finite() && p.price >= 0.0) {
            return Err(WorldError::Inconsistent(format!(
                "{}: price must be a finite number at least 0",
                from()
            )));
        }
        let key = format!("{} {}", p.plan, p.metro);
        unique(&mut seen, key.clone(), "spot price", key)?;
    }
    w.spot_prices = doc.spot_prices.clone();
    Ok(())
}

/// Saves the spot prices into `doc`, as the document gave them.
pub(crate) fn save(w: &World, doc: &mut WorldDoc, _: Instant) {
    doc.spot_prices = w.spot_prices.clone();
}
