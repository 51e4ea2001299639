//! What a device has cost: the hours it has run on the fake's clock (from
//! its create to now, cut to `created[after]`/`created[before]`) at its
//! plan's hourly price in its metro. A device's usage and its project's
//! (one row a device of the project still there).

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio::time::Instant;
use uuid::Uuid;

use super::record::Kept;
use crate::call::{ApiError, Call};
use crate::model::render::reply;
use crate::model::resource::{acts, Prepared};
use crate::model::World;

/// The window a usage read asks for (`created[after]`,
/// `created[before]`, RFC 3339).
#[derive(Clone, Copy, Debug, Default)]
struct Window {
    after: Option<DateTime<Utc>>,
    before: Option<DateTime<Utc>>,
}

impl Window {
    fn of(call: &Call) -> Result<Self, ApiError> {
        let at = |name: &str| -> Result<Option<DateTime<Utc>>, ApiError> {
            call.query(name)
                .map(|t| {
                    DateTime::parse_from_rfc3339(t.trim())
                        .map(|t| t.with_timezone(&Utc))
                        .map_err(|_| {
                            ApiError::unprocessable(format!("{name} must be an RFC 3339 time"))
                        })
                })
                .transpose()
        };
        Ok(Self {
            after: at("created[after]")?,
            before: at("created[before]")?,
        })
    }
}

/// `{"usages": [...]}` of a device.
#[derive(Serialize)]
struct DeviceUsages {
    usages: Vec<DeviceUsage>,
}

#[derive(Serialize)]
struct DeviceUsage {
    quantity: String,
    total: String,
    unit: &'static str,
}

/// `{"usages": [...]}` of a project.
#[derive(Serialize)]
struct ProjectUsages<'a> {
    usages: Vec<ProjectUsage<'a>>,
}

#[derive(Serialize)]
struct ProjectUsage<'a> {
    facility: &'a str,
    name: &'a str,
    plan: &'a str,
    plan_version: &'a str,
    price: String,
    quantity: String,
    total: String,
    #[serde(rename = "type")]
    type_: &'static str,
    unit: &'static str,
}

/// What one device used: hours and its hourly price.
struct Used {
    hours: f64,
    price: f64,
}

impl Used {
    fn quantity(&self) -> String {
        format!("{:.2}", self.hours)
    }

    fn total(&self) -> String {
        format!("{:.2}", self.hours * self.price)
    }
}

impl World {
    /// The plan's hourly price where `d` runs: its metro's price, else
    /// the plan's, else nothing (a plan the catalog prices not).
    fn hourly_price(&self, d: &Kept) -> f64 {
        let Some(plan) = self.catalog.plan(&d.rec.plan) else {
            return 0.0;
        };
        let default = plan.pricing.unwrap_or_default();
        let metro = self.catalog.facility(&d.rec.facility).map(|f| &f.metro);
        plan.metros
            .iter()
            .flatten()
            .find(|pm| Some(&pm.code) == metro)
            .and_then(|pm| pm.price)
            .unwrap_or(default)
            .hour
    }

    /// What `d` used from its create to `now`, within `window`.
    fn used(&self, d: &Kept, window: Window, now: Instant) -> Used {
        let mut from = self.clock.wall(d.meta.created);
        let mut until = self.clock.wall(now);
        if let Some(a) = window.after {
            from = from.max(a);
        }
        if let Some(b) = window.before {
            until = until.min(b);
        }
        let seconds = (until - from).num_milliseconds().max(0) as f64 / 1000.0;
        Used {
            hours: seconds / 3600.0,
            price: self.hourly_price(d),
        }
    }
}

/// `findDeviceUsages`: one row, the device's hours and their cost.
pub(super) fn find_device_usages(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let window = Window::of(call)?;
    acts(move |w, _, now| {
        let d = w.device_for_read(id)?;
        let used = w.used(d, window, now);
        reply(&DeviceUsages {
            usages: vec![DeviceUsage {
                quantity: used.quantity(),
                total: used.total(),
                unit: "hour",
            }],
        })
    })
}

/// `findProjectUsage`: a row a device of the project, oldest first.
pub(super) fn find_project_usage(call: &Call) -> Result<Prepared, ApiError> {
    let project: Uuid = call.id("id")?;
    let window = Window::of(call)?;
    acts(move |w, _, now| {
        w.projects.get(&project).ok_or_else(ApiError::not_found)?;
        let mut devices: Vec<&Kept> = w
            .devices
            .values()
            .filter(|d| d.rec.project == project)
            .collect();
        devices.sort_by_key(|d| d.meta.seq);
        let usages = devices
            .into_iter()
            .map(|d| {
                let used = w.used(d, window, now);
                ProjectUsage {
                    facility: &d.rec.facility,
                    name: &d.rec.hostname,
                    plan: &d.rec.plan,
                    plan_version: &d.rec.plan,
                    price: format!("{:.2}", used.price),
                    quantity: used.quantity(),
                    total: used.total(),
                    type_: "Instance",
                    unit: "hour",
                }
            })
            .collect();
        reply(&ProjectUsages { usages })
    })
}
