//! The rules of spot prices: the price of a plan in a metro or facility,
//! a bid checked against it, and the points of its history.

use chrono::{DateTime, Utc};

use crate::call::ApiError;
use crate::model::World;

/// The share of a plan's on-demand hourly price its spot price is where
/// the world document sets none. **Thin**: the real market moved; spot
/// prices were a fraction of on-demand ones.
pub(crate) const SPOT_SHARE: f64 = 0.3;

/// The fake's refusal of a bid below the market price.
pub(crate) const BID_TOO_LOW: &str = "max_bid_price is below the current spot market price";

/// The fake's refusal of a bid above the most the market allows (the
/// plan's on-demand price there).
pub(crate) const BID_TOO_HIGH: &str = "max_bid_price is above the maximum allowed bid price";

/// The spacing of a price history's points, in seconds.
pub(crate) const HISTORY_STEP: i64 = 3600;

/// The most points one history reply holds.
pub(crate) const MAX_HISTORY_POINTS: i64 = 1000;

/// A price the spec types as a 32-bit float, as the decimal the client
/// sent (`0.15`, not `0.15000000596046448`).
pub(crate) fn decimal(price: f32) -> f64 {
    price.to_string().parse().unwrap_or(f64::from(price))
}

/// A price rounded to a thousandth of a dollar.
fn cents(price: f64) -> f64 {
    (price * 1000.0).round() / 1000.0
}

impl World {
    /// The on-demand hourly price of `plan` (a slug) in `metro` (a code):
    /// the metro's own, else the plan's; `None` where the plan is not
    /// offered or has no price.
    pub(crate) fn on_demand_price(&self, plan: &str, metro: &str) -> Option<f64> {
        let p = self.catalog.plan(plan)?;
        let pm = p.metros.iter().flatten().find(|m| m.code == metro)?;
        pm.price.or(p.pricing).map(|price| price.hour)
    }

    /// The spot price of `plan` (a slug) in `metro` (a code): the world
    /// document's, else the catalog's, else [`SPOT_SHARE`] of the
    /// on-demand price; `None`
    /// where the plan is not on the spot market there (its
    /// `deployment_types` lack `spot_market`, or it is not offered).
    pub(crate) fn spot_price(&self, plan: &str, metro: &str) -> Option<f64> {
        let p = self.catalog.plan(plan)?;
        let on_spot = p
            .deployment_types
            .iter()
            .flatten()
            .any(|t| t == "spot_market");
        if !on_spot {
            return None;
        }
        let set = self
            .spot_prices
            .iter()
            .chain(&self.catalog.spot_prices)
            .find(|s| s.plan == plan && s.metro == metro)
            .map(|s| s.price);
        let offered = self.on_demand_price(plan, metro);
        set.or_else(|| offered.map(|o| cents(o * SPOT_SHARE)))
    }

    /// The spot price of `plan` in the facility with code `facility` (its
    /// metro's).
    pub(crate) fn spot_price_in_facility(&self, plan: &str, facility: &str) -> Option<f64> {
        let metro = &self.catalog.facility(facility)?.metro;
        self.spot_price(plan, metro)
    }

    /// Whether `bid` may buy a spot instance of `plan` in `facility`: at
    /// least the market price there (a bid of the price itself is taken,
    /// as the Terraform provider's acceptance test bids), at most the
    /// plan's on-demand price there; a plan not on the spot market there
    /// is `422`, and so is a spot instance without a bid.
    pub(crate) fn check_spot_bid(
        &self,
        plan: &str,
        facility: &str,
        bid: Option<f64>,
    ) -> Result<(), ApiError> {
        let Some(bid) = bid.filter(|b| b.is_finite()) else {
            return Err(ApiError::unprocessable(
                "spot_price_max is required for a spot instance",
            ));
        };
        let price = self.spot_price_in_facility(plan, facility).ok_or_else(|| {
            ApiError::unprocessable(format!(
                "Plan {plan} is not on the spot market in facility {facility}"
            ))
        })?;
        if bid < price {
            return Err(ApiError::unprocessable(BID_TOO_LOW));
        }
        let ceiling = self
            .catalog
            .facility(facility)
            .and_then(|f| self.on_demand_price(plan, &f.metro));
        if ceiling.is_some_and(|c| bid > c && c >= price) {
            return Err(ApiError::unprocessable(BID_TOO_HIGH));
        }
        Ok(())
    }

    /// The history of a price between `from` and `until` (Unix seconds):
    /// one `[time, price]` point an hour, on the hour, up to the fake's
    /// clock now (none is in the future). `until` before `from`, or more
    /// than [`MAX_HISTORY_POINTS`] points asked, is `422`.
    pub(crate) fn price_history(
        &self,
        price: f64,
        from: i64,
        until: i64,
        now: DateTime<Utc>,
    ) -> Result<Vec<[f64; 2]>, ApiError> {
        if until < from {
            return Err(ApiError::unprocessable("until must not be before from"));
        }
        if (until - from) / HISTORY_STEP >= MAX_HISTORY_POINTS {
            return Err(ApiError::unprocessable(format!(
                "The history is too long (at most {MAX_HISTORY_POINTS} hours)"
            )));
        }
        let last = until.min(now.timestamp());
        let first = from.div_euclid(HISTORY_STEP) * HISTORY_STEP;
        let first = if first < from {
            first + HISTORY_STEP
        } else {
            first
        };
        let mut points = Vec::new();
        let mut t = first;
        while t <= last {
            // Unix seconds as a JSON number: exact below 2^53.
            points.push([t as f64, price]);
            t += HISTORY_STEP;
        }
        Ok(points)
    }
}
