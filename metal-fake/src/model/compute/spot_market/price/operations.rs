//! The spot price operations the fake models. Prices are the world's,
//! owned by no project.

use chrono::DateTime;
use metal_api::operation as op;
use std::collections::HashSet;
use tokio::time::Instant;
use uuid::Uuid;

use super::view::{Datapoints, HistoryReport, PriceView, PricesList, Report};
use crate::call::{ApiError, Call};
use crate::document::{WorldDoc, WorldError};
use crate::model::access::Owner;
use crate::model::load::{unique, unknown};
use crate::model::render::reply;
use crate::model::resource::{acts, Modelled, Prepared, Resource};
use crate::model::World;

/// Spot market prices (`/market/spot/prices...`).
pub(crate) static RESOURCE: Resource = Resource {
    collection: "market",
    operations: &[
        Modelled::new(&op::FIND_SPOT_MARKET_PRICES, find_spot_market_prices),
        Modelled::new(
            &op::FIND_METRO_SPOT_MARKET_PRICES,
            find_metro_spot_market_prices,
        ),
        Modelled::new(
            &op::FIND_SPOT_MARKET_PRICES_HISTORY,
            find_spot_market_prices_history,
        ),
    ],
    owner,
    load,
    save,
};

/// Prices have no IDs: nothing is named by one.
fn owner(_: &World, _: Uuid) -> Option<Owner> {
    None
}

impl World {
    /// The slug of the plan `text` names (a slug or an ID), or `422`.
    fn spot_plan(&self, text: &str) -> Result<&str, ApiError> {
        self.catalog
            .plans
            .iter()
            .find(|p| p.slug == text || p.id.is_some_and(|id| id.to_string() == text))
            .map(|p| p.slug.as_str())
            .ok_or_else(|| ApiError::unprocessable(format!("{text} is not a valid plan")))
    }

    /// The code of the facility `text` names (a code, ASCII case ignored,
    /// or an ID), or `422`.
    fn spot_facility(&self, text: &str) -> Result<&str, ApiError> {
        self.catalog
            .facilities
            .iter()
            .find(|f| {
                f.code.eq_ignore_ascii_case(text) || f.id.is_some_and(|id| id.to_string() == text)
            })
            .map(|f| f.code.as_str())
            .ok_or_else(|| ApiError::unprocessable(format!("{text} is not a valid facility")))
    }

    /// The code of the metro `text` names (a code, ASCII case ignored, or
    /// an ID), or `422`.
    fn spot_metro(&self, text: &str) -> Result<&str, ApiError> {
        self.catalog
            .metros
            .iter()
            .find(|m| {
                m.code.eq_ignore_ascii_case(text) || m.id.is_some_and(|id| id.to_string() == text)
            })
            .map(|m| m.code.as_str())
            .ok_or_else(|| ApiError::unprocessable(format!("{text} is not a valid metro")))
    }

    /// The report of `places` (codes), each with the plans (`plan`: that
    /// one alone) on the spot market there, priced by `price`; a place
    /// with none is left out.
    fn price_report<'a>(
        &'a self,
        places: Vec<&'a str>,
        plan: Option<&'a str>,
        price: impl Fn(&str, &str) -> Option<f64>,
    ) -> Report<'a> {
        let mut report = Report::new();
        for place in places {
            let plans: std::collections::BTreeMap<&str, PriceView> = self
                .catalog
                .plans
                .iter()
                .map(|p| p.slug.as_str())
                .filter(|slug| plan.is_none_or(|only| only == *slug))
                .filter_map(|slug| {
                    Some((
                        slug,
                        PriceView {
                            price: price(slug, place)?,
                        },
                    ))
                })
                .collect();
            if !plans.is_empty() {
                report.insert(place, plans);
            }
        }
        report
    }
}

fn find_spot_market_prices(call: &Call) -> Result<Prepared, ApiError> {
    let (facility, plan) = (call.text("facility"), call.text("plan"));
    acts(move |w, _, _| {
        let plan = plan.as_deref().map(|p| w.spot_plan(p)).transpose()?;
        let places = match &facility {
            Some(f) => vec![w.spot_facility(f)?],
            None => w
                .catalog
                .facilities
                .iter()
                .map(|f| f.code.as_str())
                .collect(),
        };
        reply(&PricesList {
            spot_market_prices: w.price_report(places, plan, |p, f| w.spot_price_in_facility(p, f)),
        })
    })
}

fn find_metro_spot_market_prices(call: &Call) -> Result<Prepared, ApiError> {
    let (metro, plan) = (call.text("metro"), call.text("plan"));
    acts(move |w, _, _| {
        let plan = plan.as_deref().map(|p| w.spot_plan(p)).transpose()?;
        let places = match &metro {
            Some(m) => vec![w.spot_metro(m)?],
            None => w.catalog.metros.iter().map(|m| m.code.as_str()).collect(),
        };
        reply(&PricesList {
            spot_market_prices: w.price_report(places, plan, |p, m| w.spot_price(p, m)),
        })
    })
}

/// A time of the history's query: Unix seconds, or RFC 3339.
fn instant(call: &Call, name: &str) -> Result<i64, ApiError> {
    let text = call
        .text(name)
        .ok_or_else(|| ApiError::unprocessable(format!("{name} is required")))?;
    text.trim()
        .parse::<i64>()
        .ok()
        .or_else(|| {
            DateTime::parse_from_rfc3339(text.trim())
                .ok()
                .map(|t| t.timestamp())
        })
        .ok_or_else(|| {
            ApiError::unprocessable(format!(
                "{name} must be a time (Unix seconds or RFC 3339): {text:?}"
            ))
        })
}

fn find_spot_market_prices_history(call: &Call) -> Result<Prepared, ApiError> {
    let required = |name: &str| {
        call.text(name)
            .ok_or_else(|| ApiError::unprocessable(format!("{name} is required")))
    };
    let (facility, plan) = (required("facility")?, required("plan")?);
    let metro = call.text("metro");
    let (from, until) = (instant(call, "from")?, instant(call, "until")?);
    acts(move |w, _, now| {
        let plan = w.spot_plan(&plan)?;
        let price = match &metro {
            Some(m) => w.spot_price(plan, w.spot_metro(m)?),
            None => w.spot_price_in_facility(plan, w.spot_facility(&facility)?),
        }
        .ok_or_else(|| {
            ApiError::unprocessable(format!("Plan {plan} is not on the spot market there"))
        })?;
        let datapoints = w.price_history(price, from, until, w.clock.wall(now))?;
        reply(&HistoryReport {
            prices_history: Datapoints { datapoints },
        })
    })
}

/// Loads the document's spot prices: each of a plan and a metro of the
/// catalog, a finite price at least 0, no (plan, metro) twice.
fn load(w: &mut World, doc: &WorldDoc, _: Instant) -> Result<(), WorldError> {
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
fn save(w: &World, doc: &mut WorldDoc, _: Instant) {
    doc.spot_prices = w.spot_prices.clone();
}
