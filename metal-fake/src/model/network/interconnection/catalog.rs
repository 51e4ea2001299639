//! Where interconnections can be had, and what they cost: the metros of
//! the catalog with interconnections (the world document's
//! `interconnection_metros`; absent, every metro), each with one
//! provider, and fixed prices of the shared speeds.

use serde::Serialize;

use super::speed::SHARED_SPEEDS;
use crate::call::ApiError;
use crate::document::{WorldDoc, WorldError};
use crate::model::catalog::MetroView;
use crate::model::World;

/// A metro with interconnections (`InterconnectionMetroList_metros_inner`).
#[derive(Serialize)]
pub(crate) struct InterconnectionMetroView<'a> {
    #[serde(flatten)]
    metro: MetroView<'a>,
    providers: [Provider<'a>; 1],
}

/// The one provider a metro lists.
#[derive(Serialize)]
struct Provider<'a> {
    name: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    /// Mbps.
    bandwidths: Vec<u64>,
    features: [&'static str; 2],
    /// The metro's facilities' codes.
    locations: Vec<&'a str>,
}

/// The prices (`InterconnectionPricingList`).
#[derive(Serialize)]
pub(crate) struct PricingList {
    provider_pricing: [ProviderPricing; 1],
}

#[derive(Serialize)]
struct ProviderPricing {
    provider: &'static str,
    tiers: Vec<Tier>,
}

#[derive(Serialize)]
struct Tier {
    /// Mbps.
    bandwidth: u64,
    billing_cycle: &'static str,
    price: f64,
}

/// The provider the fake lists.
const PROVIDER: &str = "Equinix Fabric";

/// The fake's fixed monthly price of each shared speed, in US dollars
/// (realistic figures, not the real price list).
const MONTHLY: &[f64] = &[50.0, 100.0, 150.0, 250.0, 400.0, 750.0, 1250.0];

impl World {
    /// The catalog metro `code` names (ASCII case ignored), if it has
    /// interconnections: its code as the catalog spells it; `422`
    /// otherwise.
    pub(crate) fn interconnection_metro(&self, code: &str) -> Result<String, ApiError> {
        let metro = self
            .catalog
            .metros
            .iter()
            .find(|m| m.code.eq_ignore_ascii_case(code))
            .ok_or_else(|| ApiError::unprocessable(format!("Metro {code} was not found")))?;
        let supported = self
            .interconnection_metros
            .as_ref()
            .is_none_or(|list| list.iter().any(|m| m.eq_ignore_ascii_case(&metro.code)));
        if !supported {
            return Err(ApiError::unprocessable(format!(
                "Metro {} does not support interconnections",
                metro.code
            )));
        }
        Ok(metro.code.clone())
    }

    /// The metros with interconnections, in catalog order.
    pub(crate) fn interconnection_metros_view(&self) -> Vec<InterconnectionMetroView<'_>> {
        self.catalog
            .metros
            .iter()
            .filter(|m| self.interconnection_metro(&m.code).is_ok())
            .map(|m| InterconnectionMetroView {
                metro: self.catalog.metro_of_code(&m.code),
                providers: [Provider {
                    name: PROVIDER,
                    kind: "fabric",
                    bandwidths: SHARED_SPEEDS.iter().map(|s| s / 1_000_000).collect(),
                    features: ["dedicated", "shared"],
                    locations: self
                        .catalog
                        .facilities
                        .iter()
                        .filter(|f| f.metro == m.code)
                        .map(|f| f.code.as_str())
                        .collect(),
                }],
            })
            .collect()
    }

    /// The fixed prices of the shared speeds.
    pub(crate) fn interconnection_pricing(&self) -> PricingList {
        PricingList {
            provider_pricing: [ProviderPricing {
                provider: PROVIDER,
                tiers: SHARED_SPEEDS
                    .iter()
                    .zip(MONTHLY)
                    .map(|(s, price)| Tier {
                        bandwidth: s / 1_000_000,
                        billing_cycle: "monthly",
                        price: *price,
                    })
                    .collect(),
            }],
        }
    }
}

/// Loads the document's `interconnection_metros`: each a metro of the
/// catalog.
pub(crate) fn load_metros(w: &mut World, doc: &WorldDoc) -> Result<(), WorldError> {
    if let Some(list) = &doc.interconnection_metros {
        for code in list {
            if w.catalog.metro(code).is_none() {
                return Err(crate::model::load::unknown(
                    "interconnection_metros",
                    "metro",
                    code,
                ));
            }
        }
    }
    w.interconnection_metros
        .clone_from(&doc.interconnection_metros);
    Ok(())
}

/// Saves `interconnection_metros` into `doc`.
pub(crate) fn save_metros(w: &World, doc: &mut WorldDoc) {
    doc.interconnection_metros
        .clone_from(&w.interconnection_metros);
}
