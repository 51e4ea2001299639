//! The control API: what a test in any language uses to arrange a
//! scenario and read what happened, over HTTP beside `/metal/v1`. It needs
//! no API token; [`crate::ServerConfig::control_token`] guards it with its
//! own (`X-Fake-Control-Token`). Every call gets a JSON reply; bad input
//! gets `400` (the body or query does not decode) or `422` (it decodes but
//! is refused), with `{"errors": [...]}`.
//!
//! | endpoint | does |
//! |---|---|
//! | `POST /_fake/reset` | back to the seeded world and faults, empty call log |
//! | `GET /_fake/world` | the world now ([`crate::document::WorldDoc`]) |
//! | `POST /_fake/world` | replaces the world with the document sent |
//! | `POST /_fake/faults` | adds scripted and random faults |
//! | `DELETE /_fake/faults` | clears every fault |
//! | `GET /_fake/faults` | the faults armed |
//! | `GET /_fake/calls?operation=&limit=&since=` | the recorded calls |
//! | `GET /_fake/calls/{seq}` | one call, with its bodies (bounded, redacted) |
//! | `GET /_fake/devices` | every device as the API renders it |
//! | `GET`, `POST /_fake/clock` | reads, or advances, the fake's clock |
//! | `GET /_fake/state` | counters and the world's contents |
//! | `GET /_fake/console` | the console: an HTML page over the endpoints above |
//!
//! The console is the one endpoint a browser opens by hand, and a
//! browser sends no custom header with a page it is asked for: so
//! `/_fake/console` and its files (`console.css`, `console.js`, its icon) also
//! take the control token as the query parameter `token`
//! (`/_fake/console?token=T`), and the page's script sends it on as the
//! header with every call it makes. Every other endpoint reads the header
//! alone. `/favicon.ico`, which a browser asks for beside any page, is
//! answered here too (the console's icon, under the same rules), so it is
//! never a call in the log.
//!
//! - `wire`: the JSON of faults, calls, the clock and world summaries,
//!   and its JSON Schema ([`schema`]).
//! - `console`: the console's page, its style and its script (embedded
//!   files under `console/`), served with a Content-Security-Policy of
//!   `default-src 'self'`.

mod console;
mod wire;

pub(crate) use wire::schema;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Query, Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{any, get, post};
use axum::Router;
use serde::Serialize;

use crate::document::{seconds, WorldDoc, WorldError};
use crate::log::LOG_CAPACITY;
use crate::store::Store;
use wire::{
    ArmedFaults, CallDetail, CallJson, Calls, Cleared, ClockJson, ClockRequest, Errors,
    FaultsAdded, FaultsRequest, Summary, TokenRefused, CALLS_QUERY,
};

/// The largest world document `POST /_fake/world` reads (64 MiB: a world
/// of [`crate::document::MAX_RECORDS`] reservations fits).
pub(crate) const WORLD_BODY_LIMIT: usize = 64 * 1024 * 1024;

/// The largest body of the other control requests (faults, the clock):
/// 1 MiB holds thousands of faults.
pub(crate) const CONTROL_BODY_LIMIT: usize = 1024 * 1024;

/// How long a control request's body may take to arrive.
const CONTROL_BODY_TIMEOUT: Duration = Duration::from_secs(30);

/// How many calls `GET /_fake/calls` lists unless `limit` says otherwise.
const DEFAULT_CALLS: usize = 1000;

/// The header that carries the control token.
pub(crate) const CONTROL_TOKEN_HEADER: &str = "x-fake-control-token";

/// The control API's router over `shared`, guarded by `token` when given.
pub(crate) fn router(shared: Arc<Store>, token: Option<String>) -> Router {
    Router::new()
        .route("/_fake/state", get(state))
        .route("/_fake/reset", post(reset))
        .route("/_fake/world", get(get_world).post(post_world))
        .route(
            "/_fake/faults",
            get(get_faults).post(post_faults).delete(delete_faults),
        )
        .route("/_fake/calls", get(calls))
        .route("/_fake/calls/{seq}", get(call))
        .route("/_fake/devices", get(devices))
        .route("/_fake/clock", get(get_clock).post(post_clock))
        .route(console::PAGE, get(console::page))
        .route(console::STYLE, get(console::style))
        .route(console::SCRIPT, get(console::script))
        .route(console::ICON, get(console::icon))
        .route(console::FAVICON, get(console::icon))
        .route("/_fake/{*rest}", any(unknown))
        .method_not_allowed_fallback(not_allowed)
        .layer(middleware::from_fn_with_state(Arc::new(token), guard))
        .with_state(shared)
}

/// A JSON reply.
fn json<T: Serialize>(status: u16, value: &T) -> Response {
    let body = serde_json::to_vec(value).unwrap_or_default();
    let mut resp = Response::new(Body::from(body));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    resp.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    resp
}

/// A refusal, `{"errors": [message]}`.
fn refuse(status: u16, message: impl Into<String>) -> Response {
    json(
        status,
        &Errors {
            errors: vec![message.into()],
        },
    )
}

/// Refuses requests without the control token, when there is one: in
/// the header, or, for the console's page and files alone, in the query
/// parameter `token`.
async fn guard(State(token): State<Arc<Option<String>>>, request: Request, next: Next) -> Response {
    if let Some(expected) = token.as_deref() {
        let header = request
            .headers()
            .get(CONTROL_TOKEN_HEADER)
            .and_then(|v| v.to_str().ok());
        let given = match header {
            Some(h) => Some(h.to_string()),
            None if console::serves(request.uri().path()) => console::query_token(request.uri()),
            None => None,
        };
        if given.as_deref() != Some(expected) {
            let refused = TokenRefused {
                error: "Invalid control token".to_string(),
            };
            return json(401, &refused);
        }
    }
    next.run(request).await
}

/// The whole body, bounded in size (`limit`, else `413`) and time
/// (`408`).
async fn read(body: Body, limit: usize) -> Result<Bytes, Response> {
    match tokio::time::timeout(CONTROL_BODY_TIMEOUT, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(e)) => Err(refuse(
            413,
            format!("Request body unreadable or larger than {limit} bytes: {e}"),
        )),
        Err(_) => Err(refuse(408, "Request body not received in time")),
    }
}

/// The body decoded as `T` (`400` when it does not decode).
async fn decode<T: serde::de::DeserializeOwned>(body: Body) -> Result<T, Response> {
    let bytes = read(body, CONTROL_BODY_LIMIT).await?;
    serde_json::from_slice(&bytes).map_err(|e| refuse(400, format!("Invalid JSON body: {e}")))
}

/// The first query parameter that is not one of `known`.
fn unknown_parameter<'a>(query: &'a HashMap<String, String>, known: &[&str]) -> Option<&'a str> {
    query
        .keys()
        .map(String::as_str)
        .find(|k| !known.contains(k))
}

fn summary(shared: &Store) -> Response {
    json(200, &Summary::of(&shared.world_doc()))
}

fn world_refused(e: WorldError) -> Response {
    match e {
        WorldError::Decode(e) => refuse(400, format!("Invalid world document: {e}")),
        e => refuse(422, e.to_string()),
    }
}

/// `GET /_fake/state`: the counters and the world's contents.
async fn state(State(shared): State<Arc<Store>>) -> Response {
    json(200, &shared.snapshot())
}

/// `POST /_fake/reset`.
async fn reset(State(shared): State<Arc<Store>>) -> Response {
    match shared.reset() {
        Ok(()) => summary(&shared),
        Err(e) => refuse(500, format!("the seeded world no longer loads: {e}")),
    }
}

/// `GET /_fake/world`.
async fn get_world(State(shared): State<Arc<Store>>) -> Response {
    json(200, &shared.world_doc())
}

/// `POST /_fake/world`.
async fn post_world(State(shared): State<Arc<Store>>, body: Body) -> Response {
    let bytes = match read(body, WORLD_BODY_LIMIT).await {
        Ok(b) => b,
        Err(resp) => return resp,
    };
    let loaded = WorldDoc::from_json(&bytes).and_then(|doc| shared.load(&doc));
    match loaded {
        Ok(()) => summary(&shared),
        Err(e) => world_refused(e),
    }
}

/// `POST /_fake/faults`: every fault is checked before any is added.
async fn post_faults(State(shared): State<Arc<Store>>, body: Body) -> Response {
    let request: FaultsRequest = match decode(body).await {
        Ok(r) => r,
        Err(resp) => return resp,
    };
    let faults = request
        .faults
        .iter()
        .enumerate()
        .map(|(i, f)| f.to_fault().map_err(|e| format!("faults[{i}]: {e}")))
        .collect::<Result<Vec<_>, _>>();
    let random = request
        .random
        .as_ref()
        .map(|r| r.to_random().map_err(|e| format!("random: {e}")))
        .transpose();
    let (faults, random) = match (faults, random) {
        (Ok(f), Ok(r)) => (f, r),
        (Err(e), _) | (_, Err(e)) => return refuse(422, e),
    };
    let added = faults.len();
    let random_on = random.is_some();
    {
        let mut inner = shared.lock();
        if let Err(refused) = inner.faults.extend(faults) {
            return refuse(422, refused.to_string());
        }
        if let Some(r) = random {
            inner.faults.set_random(Some(r));
        }
    }
    json(
        200,
        &FaultsAdded {
            added,
            random: random_on,
        },
    )
}

/// `DELETE /_fake/faults`.
async fn delete_faults(State(shared): State<Arc<Store>>) -> Response {
    shared.lock().faults.clear();
    json(200, &Cleared { cleared: true })
}

/// `GET /_fake/faults`: the scripted faults pending and the random ones.
async fn get_faults(State(shared): State<Arc<Store>>) -> Response {
    let armed = {
        let inner = shared.lock();
        ArmedFaults::of(inner.faults.scripted(), inner.faults.random())
    };
    json(200, &armed)
}

/// `GET /_fake/calls?operation=&limit=&since=`: the last `limit` calls
/// (default 1000) numbered after `since` (default 0) of `operation` (or
/// of all), oldest first, and how many matched.
async fn calls(
    State(shared): State<Arc<Store>>,
    query: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(query)) = query else {
        return refuse(400, "the query does not decode");
    };
    if let Some(k) = unknown_parameter(&query, &CALLS_QUERY) {
        return refuse(400, format!("unknown query parameter {k:?}"));
    }
    let operation = query.get("operation").map(String::as_str);
    if let Some(op) = operation
        && op != "unknown"
        && metal_api::operation::find(op).is_none()
    {
        return refuse(400, format!("{op:?} is not an operationId of the spec"));
    }
    let limit = match query.get("limit").map(|l| l.parse::<usize>()) {
        None => DEFAULT_CALLS,
        Some(Ok(n)) if (1..=LOG_CAPACITY).contains(&n) => n,
        Some(_) => return refuse(400, format!("limit must be from 1 to {LOG_CAPACITY}")),
    };
    let since = match query.get("since").map(|s| s.parse::<u64>()) {
        None => 0,
        Some(Ok(n)) => n,
        Some(Err(_)) => return refuse(400, "since must be a call's seq (0 or more)"),
    };
    let (total, listed, last_seq, resets) = {
        let inner = shared.lock();
        let (total, listed) = inner.log.select(
            since,
            |c| operation.is_none_or(|op| c.operation == op),
            limit,
        );
        (total, listed, inner.log.last_seq(), inner.log.resets())
    };
    let clock = shared.clock();
    let calls: Vec<CallJson> = listed
        .into_iter()
        .map(|c| {
            let at = clock.wall().wall(c.at).to_rfc3339();
            CallJson::of(c, at)
        })
        .collect();
    json(
        200,
        &Calls {
            total,
            calls,
            last_seq,
            resets,
        },
    )
}

/// `GET /_fake/calls/{seq}`: one call with its bodies; `404` for a `seq`
/// the log does not hold (never logged, or dropped as the log filled).
async fn call(State(shared): State<Arc<Store>>, seq: Result<Path<u64>, PathRejection>) -> Response {
    let Ok(Path(seq)) = seq else {
        return refuse(400, "a call's seq is a whole number");
    };
    let Some((call, bodies)) = shared.lock().log.call(seq) else {
        return refuse(404, format!("no call numbered {seq} in the log"));
    };
    let at = shared.clock().wall().wall(call.at).to_rfc3339();
    let bodies_kept = bodies.is_some();
    let bodies = bodies.unwrap_or_default();
    json(
        200,
        &CallDetail {
            call: CallJson::of(call, at),
            request_body: bodies.request,
            reply_body: bodies.reply,
            bodies_kept,
        },
    )
}

/// `GET /_fake/devices`: every device as the API renders it.
async fn devices(State(shared): State<Arc<Store>>) -> Response {
    let now = shared.now();
    let body = shared.lock().world.all_devices(now);
    let mut resp = Response::new(Body::from(body));
    resp.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json"),
    );
    resp
}

fn clock_json(shared: &Store) -> ClockJson {
    let clock = shared.clock();
    ClockJson {
        now: clock.wall().wall(clock.now()).to_rfc3339(),
        advanced_seconds: clock.advanced().as_secs_f64(),
        time_scale: clock.scale(),
    }
}

/// `GET /_fake/clock`.
async fn get_clock(State(shared): State<Arc<Store>>) -> Response {
    json(200, &clock_json(&shared))
}

/// `POST /_fake/clock`: `{"advance_seconds": N}`, at most a week a call.
async fn post_clock(State(shared): State<Arc<Store>>, body: Body) -> Response {
    let request: ClockRequest = match decode(body).await {
        Ok(r) => r,
        Err(resp) => return resp,
    };
    let by = match seconds("advance_seconds", "the clock", request.advance_seconds) {
        Ok(d) => d,
        Err(e) => return refuse(422, e.to_string()),
    };
    if let Err(e) = shared.clock().advance(by) {
        return refuse(422, e.to_string());
    }
    json(200, &clock_json(&shared))
}

/// A path under `/_fake/` that is not an endpoint.
async fn unknown() -> Response {
    refuse(404, "no such control endpoint")
}

/// A method the endpoint does not serve.
async fn not_allowed() -> Response {
    refuse(405, "Method not allowed")
}
