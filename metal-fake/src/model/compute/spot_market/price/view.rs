//! The spot price reports as the API sends them: by facility or by metro
//! code, then by plan slug, each `{"price": ...}`; and a price's history.

use std::collections::BTreeMap;

use serde::Serialize;

/// One plan's price somewhere.
#[derive(Serialize)]
pub(crate) struct PriceView {
    pub(crate) price: f64,
}

/// The prices of each place (facility or metro code), of each plan slug.
pub(crate) type Report<'a> = BTreeMap<&'a str, BTreeMap<&'a str, PriceView>>;

/// `findSpotMarketPrices`' and `findMetroSpotMarketPrices`' reply.
#[derive(Serialize)]
pub(crate) struct PricesList<'a> {
    pub(crate) spot_market_prices: Report<'a>,
}

/// `findSpotMarketPricesHistory`'s reply.
#[derive(Serialize)]
pub(crate) struct HistoryReport {
    pub(crate) prices_history: Datapoints,
}

/// A history's points, each `[unix seconds, price]`.
#[derive(Serialize)]
pub(crate) struct Datapoints {
    pub(crate) datapoints: Vec<[f64; 2]>,
}
