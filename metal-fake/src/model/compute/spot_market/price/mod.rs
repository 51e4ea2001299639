//! Spot market prices: per plan in each metro (and each facility of it),
//! from the catalog's hourly prices or as the world document sets them,
//! and their history on the fake's clock.
//!
//! - `record`: [`SpotPrice`], a price the world document sets.
//! - `rules`: the price of a plan somewhere, a bid checked against it,
//!   the history's points.
//! - `view`: the price reports as the API sends them.
//! - `operations`: the operations modelled, and how prices load and save.

mod operations;
mod record;
mod rules;
mod view;

pub(crate) use operations::RESOURCE;
pub use record::SpotPrice;
pub(crate) use rules::decimal;
