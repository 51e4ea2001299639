//! The rules of spot market requests: what a create may ask, the bid and
//! the capacity it is checked against, the devices it makes through the
//! device create path, their end at `end_at` on the fake's clock, and the
//! delete.

use metal_api::types;
use serde_json::{json, Map, Value};
use tokio::time::Instant;
use uuid::Uuid;

use super::record::{Kept, SpotMarketRequest};
use crate::call::{decode, ApiError};
use crate::model::bounds::room_for;
use crate::model::compute::spot_market::price::decimal;
use crate::model::journal::Due;
use crate::model::relations::Kind;
use crate::model::World;

/// The most devices one request makes.
pub(crate) const MAX_SPOT_DEVICES: u32 = 100;

/// A create request as the fake reads it: the spec's body, and the
/// facilities by code or ID (packngo sends codes in `facilities`, which
/// the spec types as UUIDs).
pub(crate) struct CreateRequest {
    pub(crate) body: types::SpotMarketRequestCreateInput,
    pub(crate) facilities: Vec<String>,
}

impl CreateRequest {
    /// Reads a `createSpotMarketRequest` body.
    pub(crate) fn read(mut body: Value) -> Result<Self, ApiError> {
        let mut facilities = Vec::new();
        if let Value::Object(fields) = &mut body {
            match fields.remove("facilities") {
                Some(Value::Array(items)) => {
                    for item in items {
                        match item {
                            Value::String(s) => facilities.push(s),
                            other => {
                                return Err(ApiError::unprocessable(format!(
                                    "facilities: {other} is not a facility code or ID"
                                )))
                            }
                        }
                    }
                }
                Some(Value::String(s)) => facilities.push(s),
                Some(Value::Null) | None => {}
                Some(other) => {
                    return Err(ApiError::unprocessable(format!(
                        "facilities: {other} is not a list of facilities"
                    )))
                }
            }
        }
        Ok(Self {
            body: decode(body)?,
            facilities,
        })
    }
}

impl World {
    /// The devices `r` made that the world still has.
    pub(crate) fn request_devices<'a>(&'a self, r: &'a Kept) -> impl Iterator<Item = Uuid> + 'a {
        r.rec
            .devices
            .iter()
            .copied()
            .filter(|d| self.devices.contains_key(d))
    }

    /// `createSpotMarketRequest`: checks the request (its instance
    /// parameters, `devices_min`/`devices_max`, the bid against the
    /// market price and the plan's on-demand price, the machines free in
    /// its place), then makes as many spot devices as the place holds, up
    /// to `devices_max`, through the device create path; fewer free than
    /// `devices_min` is `422` with nothing made.
    pub(crate) fn create_spot_request(
        &mut self,
        project: Uuid,
        req: &CreateRequest,
        now: Instant,
    ) -> Result<Uuid, ApiError> {
        if !self.projects.contains_key(&project) {
            return Err(ApiError::not_found());
        }
        let b = &req.body;
        let params = b
            .instance_parameters
            .as_ref()
            .ok_or_else(|| ApiError::unprocessable("instance_parameters is required"))?;
        let mut missing = Vec::new();
        let plan_text = params.plan.as_deref().unwrap_or_default();
        if plan_text.trim().is_empty() {
            missing.push("instance_parameters.plan is required".to_string());
        }
        if params
            .operating_system
            .as_deref()
            .unwrap_or_default()
            .trim()
            .is_empty()
        {
            missing.push("instance_parameters.operating_system is required".to_string());
        }
        let metro = b.metro.as_deref().filter(|m| !m.trim().is_empty());
        if metro.is_none() && req.facilities.is_empty() {
            missing.push("metro or facilities is required".to_string());
        }
        let bid = b
            .max_bid_price
            .map(decimal)
            .filter(|p| p.is_finite() && *p > 0.0);
        if bid.is_none() {
            missing.push("max_bid_price must be a number above 0".to_string());
        }
        if !missing.is_empty() {
            return Err(ApiError {
                status: 422,
                messages: missing,
            });
        }
        let min = b.devices_min.unwrap_or(1);
        let max = b.devices_max.unwrap_or(min);
        if min < 1 || max < min || max > i64::from(MAX_SPOT_DEVICES) {
            return Err(ApiError::unprocessable(format!(
                "devices_min and devices_max must be 1 <= devices_min <= devices_max <= {MAX_SPOT_DEVICES}"
            )));
        }
        let (min, max) = (min as u32, max as u32);
        let bid = bid.unwrap_or_default();
        let plan = self
            .plan_slug(plan_text)
            .ok_or_else(|| ApiError::unprocessable(format!("{plan_text} is not a valid plan")))?
            .to_string();
        let place = self.spot_place(metro, &req.facilities)?;
        // The bid against the market where the devices would go: the
        // metro's price, or the lowest of the facilities asked for.
        let price = place
            .facilities
            .iter()
            .filter_map(|f| self.spot_price_in_facility(&plan, f))
            .reduce(f64::min)
            .ok_or_else(|| {
                ApiError::unprocessable(format!(
                    "Plan {plan} is not on the spot market in {}",
                    place.shown
                ))
            })?;
        // A bid below the market is taken and waits: the request runs no
        // device while the price stays above it, and the fake's price
        // does not move (packngo's TestAccSpotMarketRequestBasic bids half
        // the price, and the real API made the request).
        let outbid = bid < price;
        let free = if outbid {
            0
        } else {
            (1..=max)
                .rev()
                .find(|n| match metro {
                    Some(m) => self.metro_has(m, &plan, u64::from(*n)),
                    None => req
                        .facilities
                        .iter()
                        .any(|f| self.facility_has(f, &plan, u64::from(*n))),
                })
                .unwrap_or(0)
        };
        if !outbid && free < min {
            // The real API's refusal (rancherlabs/terraform-harvester-equinix PR 54).
            return Err(ApiError::unprocessable(format!(
                "No available servers with plan {plan} in {}",
                place.shown
            )));
        }
        room_for("Spot market requests", self.spot_requests.len())?;
        let body = device_body(params, metro, &req.facilities, bid)?;
        let mut devices = Vec::with_capacity(free as usize);
        for _ in 0..free {
            match self.create_device(project, &body, now) {
                Ok(d) => devices.push(d),
                Err(e) if (devices.len() as u32) < min => {
                    // Not enough made: those made go again, and the
                    // request is refused as the device create was.
                    for d in &devices {
                        self.remove_record(Kind::Device, *d, now);
                    }
                    return Err(e);
                }
                Err(_) => break,
            }
        }
        let id = Uuid::new_v4();
        let rec = SpotMarketRequest {
            id,
            project,
            plan,
            metro: metro
                .and_then(|m| self.spot_metro_code(m))
                .map(String::from),
            facilities: if metro.is_some() {
                Vec::new()
            } else {
                place.facilities
            },
            devices_min: min,
            devices_max: max,
            max_bid_price: bid,
            end_at: b.end_at,
            devices,
        };
        let end_at = rec.end_at;
        self.spot_requests
            .rows()
            .insert(&mut self.journal, id, now, |meta| Kept { rec, meta });
        self.queue_spot_end(id, end_at, now);
        Ok(id)
    }

    /// Queues the end of request `id` at `end_at` on the fake's clock (at
    /// `now` for a time already past; nothing without one).
    pub(crate) fn queue_spot_end(
        &mut self,
        id: Uuid,
        end_at: Option<chrono::DateTime<chrono::Utc>>,
        now: Instant,
    ) {
        let Some(end_at) = end_at else { return };
        let at = self.clock.instant(end_at).max(now);
        self.due.push(at, Due::SpotRequestEnd { id });
    }

    /// The request's `end_at` has come: each of its spot instances still
    /// there ends as `deleteDevice` ends it (one still provisioning gone
    /// at once), locked or not; the request stays, naming none.
    pub(crate) fn end_spot_request(&mut self, id: Uuid, at: Instant) {
        let Some(r) = self.spot_requests.get(&id) else {
            return;
        };
        let devices: Vec<Uuid> = self.request_devices(r).collect();
        for d in devices {
            if self.delete_device(d, at).is_err() {
                self.remove_record(Kind::Device, d, at);
            }
        }
    }

    /// `deleteSpotMarketRequest`: the request goes; with
    /// `force_termination` its devices still there are deleted too (as
    /// `deleteDevice` deletes them), else they stay.
    pub(crate) fn delete_spot_request(
        &mut self,
        id: Uuid,
        force_termination: bool,
        now: Instant,
    ) -> Result<(), ApiError> {
        let r = self
            .spot_requests
            .get(&id)
            .ok_or_else(ApiError::not_found)?;
        let devices: Vec<Uuid> = self.request_devices(r).collect();
        if force_termination {
            // Checked first, so that a refusal changes nothing.
            for d in &devices {
                self.check_device_access(*d)?;
                if self.devices.get(d).is_some_and(|k| k.rec.locked) {
                    return Err(ApiError::unprocessable(
                        "Cannot terminate a locked device: unlock it first",
                    ));
                }
            }
            for d in devices {
                // A device still provisioning is terminated too: gone at
                // once, its machine back in its pool.
                if self.delete_device(d, now).is_err() {
                    self.remove_record(Kind::Device, d, now);
                }
            }
        }
        self.delete_record(Kind::SpotMarketRequest, id, now)
    }

    /// Removes one request (for a delete or a cascade), journaled.
    pub(crate) fn remove_spot_request(&mut self, id: Uuid, at: Instant) {
        self.spot_requests.rows().remove(&mut self.journal, id, at);
    }

    /// The code of the metro `text` names (a code, ASCII case ignored, or
    /// an ID).
    fn spot_metro_code(&self, text: &str) -> Option<&str> {
        self.catalog
            .metros
            .iter()
            .find(|m| {
                m.code.eq_ignore_ascii_case(text) || m.id.is_some_and(|id| id.to_string() == text)
            })
            .map(|m| m.code.as_str())
    }

    /// Where a request's devices may go: the facilities (codes) of its
    /// metro, or those it names; an unknown one is `422`.
    fn spot_place(&self, metro: Option<&str>, facilities: &[String]) -> Result<Place, ApiError> {
        if let Some(m) = metro {
            let code = self
                .spot_metro_code(m)
                .ok_or_else(|| ApiError::unprocessable(format!("{m} is not a valid metro")))?;
            return Ok(Place {
                facilities: self
                    .catalog
                    .facilities
                    .iter()
                    .filter(|f| f.metro == code)
                    .map(|f| f.code.clone())
                    .collect(),
                shown: format!("metro {code}"),
            });
        }
        let mut codes = Vec::with_capacity(facilities.len());
        for text in facilities {
            let f = self
                .catalog
                .facilities
                .iter()
                .find(|f| {
                    f.code.eq_ignore_ascii_case(text)
                        || f.id.is_some_and(|id| id.to_string() == *text)
                })
                .ok_or_else(|| {
                    ApiError::unprocessable(format!("{text} is not a valid facility"))
                })?;
            codes.push(f.code.clone());
        }
        let shown = format!("facility {}", codes.join(", "));
        Ok(Place {
            facilities: codes,
            shown,
        })
    }
}

/// Where a request's devices may go.
struct Place {
    /// Facility codes.
    facilities: Vec<String>,
    /// As the refusals name it (`metro sv`, `facility sv15`).
    shown: String,
}

/// The `createDevice` body of each of a request's devices: its instance
/// parameters, its place, and `spot_instance` with its bid.
fn device_body(
    p: &types::SpotMarketRequestCreateInputInstanceParameters,
    metro: Option<&str>,
    facilities: &[String],
    bid: f64,
) -> Result<types::CreateDeviceRequest, ApiError> {
    let mut body = Map::new();
    let mut put = |key: &str, value: Value| {
        if !value.is_null() {
            body.insert(key.to_string(), value);
        }
    };
    put("plan", json!(p.plan));
    put("operating_system", json!(p.operating_system));
    put(
        "hostname",
        json!(p.hostname.as_ref().or(p.hostnames.first())),
    );
    put("description", json!(p.description));
    put("billing_cycle", json!(p.billing_cycle));
    put("tags", json!(p.tags));
    put("locked", json!(p.locked));
    put("always_pxe", json!(p.always_pxe));
    put("userdata", json!(p.userdata));
    put("customdata", Value::Object(p.customdata.clone()));
    put("features", json!(p.features));
    put("project_ssh_keys", json!(p.project_ssh_keys));
    put("user_ssh_keys", json!(p.user_ssh_keys));
    put("no_ssh_keys", json!(p.no_ssh_keys));
    put("spot_instance", json!(true));
    put("spot_price_max", json!(bid));
    let body = match metro {
        Some(m) => {
            put("metro", json!(m));
            decode::<types::DeviceCreateInMetroInput>(Value::Object(body))?.into()
        }
        None => {
            put("facility", json!(facilities));
            decode::<types::DeviceCreateInFacilityInput>(Value::Object(body))?.into()
        }
    };
    Ok(body)
}
