//! A device's traffic over a window: `GET /devices/{id}/bandwidth` (as
//! packngo's `GetBandwidth` reads it: an inbound and an outbound series of
//! `[rate, unix time]` points) and `GET /devices/{id}/traffic`. The fake
//! moves no packets, so every point is zero: a series over the window
//! asked, one point a step.

use serde::Serialize;

use crate::call::{ApiError, Call};
use crate::model::render::reply;
use crate::model::resource::{acts, Prepared};

/// The step between points: five minutes, or longer so that a window has
/// at most [`MAX_POINTS`].
const STEP_SECONDS: i64 = 300;

/// The most points a series has.
const MAX_POINTS: i64 = 2016;

/// The points of `[from, until]` (unix seconds): one every step, from
/// `from`.
fn points(from: i64, until: i64) -> Vec<(f64, i64)> {
    if until < from {
        return Vec::new();
    }
    let span = until - from;
    let step = STEP_SECONDS.max(span / MAX_POINTS + 1);
    (0..=span / step).map(|i| (0.0, from + i * step)).collect()
}

/// A unix time in seconds, or an RFC 3339 time.
fn unix(call: &Call, name: &str) -> Result<Option<i64>, ApiError> {
    let Some(text) = call.query(name) else {
        return Ok(None);
    };
    let text = text.trim();
    if let Ok(n) = text.parse::<i64>() {
        return Ok(Some(n));
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|t| Some(t.timestamp()))
        .map_err(|_| ApiError::unprocessable(format!("{name} must be a time")))
}

/// `{"bandwidth": [inbound, outbound]}`.
#[derive(Serialize)]
struct Bandwidth {
    bandwidth: [Series; 2],
}

#[derive(Serialize)]
struct Series {
    target: &'static str,
    tags: Tags,
    datapoints: Vec<(f64, i64)>,
}

#[derive(Serialize)]
struct Tags {
    #[serde(rename = "aggregatedBy")]
    aggregated_by: &'static str,
    name: &'static str,
}

/// `findInstanceBandwidth`: `from` and `until` are required.
pub(super) fn find_instance_bandwidth(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let required = |name: &str| {
        unix(call, name)?.ok_or_else(|| ApiError::unprocessable(format!("{name} is required")))
    };
    let (from, until) = (required("from")?, required("until")?);
    acts(move |w, _, _| {
        w.device_for_read(id)?;
        let series = |target| Series {
            target,
            tags: Tags {
                aggregated_by: "sum",
                name: target,
            },
            datapoints: points(from, until),
        };
        reply(&Bandwidth {
            bandwidth: [series("inbound"), series("outbound")],
        })
    })
}

/// `{"direction", "interval", "bucket", "timeframe", "traffic": [...]}`.
#[derive(Serialize)]
struct Traffic {
    direction: String,
    interval: String,
    bucket: String,
    timeframe: Timeframe,
    traffic: Vec<(f64, i64)>,
}

#[derive(Serialize)]
struct Timeframe {
    started_at: i64,
    ended_at: i64,
}

/// The spec's values of `interval`.
const INTERVALS: &[&str] = &[
    "minute",
    "hour",
    "day",
    "week",
    "month",
    "year",
    "hour_of_day",
    "day_of_week",
    "day_of_month",
    "month_of_year",
];

/// The query's `name`, one of `values` (`default` when absent).
fn one_of(call: &Call, name: &str, values: &[&str], default: &str) -> Result<String, ApiError> {
    let value = call.text(name).unwrap_or_else(|| default.to_string());
    if !values.contains(&value.as_str()) {
        return Err(ApiError::unprocessable(format!(
            "{name} must be one of {}",
            values.join(", ")
        )));
    }
    Ok(value)
}

/// `findTraffic`: `direction` (`inbound` or `outbound`) is required; the
/// window is `timeframe[started_at]` to `timeframe[ended_at]` (default:
/// the last day).
pub(super) fn find_traffic(call: &Call) -> Result<Prepared, ApiError> {
    let id = call.id("id")?;
    let direction = call
        .text("direction")
        .ok_or_else(|| ApiError::unprocessable("direction is required"))?;
    if !matches!(direction.as_str(), "inbound" | "outbound") {
        return Err(ApiError::unprocessable(
            "direction must be inbound or outbound",
        ));
    }
    let interval = one_of(call, "interval", INTERVALS, "day")?;
    let bucket = one_of(call, "bucket", &["internal", "external"], "internal")?;
    let started = unix(call, "timeframe[started_at]")?;
    let ended = unix(call, "timeframe[ended_at]")?;
    acts(move |w, _, now| {
        w.device_for_read(id)?;
        let now = w.clock.wall(now).timestamp();
        let ended_at = ended.unwrap_or(now);
        let started_at = started.unwrap_or(ended_at - 86_400);
        reply(&Traffic {
            direction,
            interval,
            bucket,
            timeframe: Timeframe {
                started_at,
                ended_at,
            },
            traffic: points(started_at, ended_at),
        })
    })
}
