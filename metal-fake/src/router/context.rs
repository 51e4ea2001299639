//! What every handler of the router shares: the fake's state, the
//! configuration, the rate limit's bucket, the recorded replies, and which
//! operation each route serves.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::http::{header, HeaderValue, Method};
use axum::response::Response;
use metal_api::operation::Operation;
use tokio::time::Instant;

use super::config::{RecordedReply, ServerConfig};
use super::limit::{Bucket, RateHeaders};
use super::reply;
use crate::shared::Shared;

/// The operation of each route pattern (`/metal/v1/devices/{id}`) and
/// method.
pub(super) type Routes = HashMap<String, HashMap<Method, &'static Operation>>;

/// The router's state.
#[derive(Clone)]
pub(super) struct Context {
    pub(super) shared: Arc<Shared>,
    config: Arc<ServerConfig>,
    bucket: Arc<Mutex<Bucket>>,
    recorded: Arc<Mutex<Vec<RecordedReply>>>,
    /// The operation of each route pattern (as matched) and method.
    routes: Arc<Routes>,
}

impl Context {
    pub(super) fn new(
        shared: Arc<Shared>,
        config: ServerConfig,
        recorded: Arc<Mutex<Vec<RecordedReply>>>,
        routes: Routes,
    ) -> Self {
        let bucket = Bucket::full(config.rate_limit.unwrap_or(0), Instant::now());
        Self {
            shared,
            config: Arc::new(config),
            bucket: Arc::new(Mutex::new(bucket)),
            recorded,
            routes: Arc::new(routes),
        }
    }

    /// The operationId a request was routed to, or `"unknown"` (no route,
    /// or a method the route does not serve).
    pub(super) fn operation_at(&self, method: &Method, matched: Option<&str>) -> &'static str {
        let methods = matched.and_then(|path| self.routes.get(path));
        // axum serves HEAD with the GET handler.
        let op = methods.and_then(|m| {
            m.get(method).or_else(|| {
                (method == Method::HEAD)
                    .then(|| m.get(&Method::GET))
                    .flatten()
            })
        });
        op.map_or("unknown", |op| op.id)
    }

    /// How the router serves.
    pub(super) fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The rate-limit headers of a reply that spends no token (`None`
    /// without a rate limit).
    pub(super) fn peek(&self) -> Option<RateHeaders> {
        let limit = self.config.rate_limit?;
        let mut b = self.bucket.lock().unwrap_or_else(|e| e.into_inner());
        Some(b.peek(limit, Instant::now()))
    }

    /// Takes one token for a request: `Err` when the bucket is empty.
    pub(super) fn admit(&self) -> Result<Option<RateHeaders>, RateHeaders> {
        let Some(limit) = self.config.rate_limit else {
            return Ok(None);
        };
        let mut b = self.bucket.lock().unwrap_or_else(|e| e.into_inner());
        b.take(limit, Instant::now()).map(Some)
    }

    /// Adds the headers every reply carries (`X-Request-Id`, unique per
    /// reply; the rate-limit headers when the router has a limit) and
    /// records the reply (when asked to).
    pub(super) fn finish(
        &self,
        operation: &str,
        rate: Option<&RateHeaders>,
        mut resp: Response,
    ) -> Response {
        let id = uuid::Uuid::new_v4().to_string();
        if let Ok(id) = HeaderValue::from_str(&id) {
            resp.headers_mut().insert("x-request-id", id);
        }
        if let Some(r) = rate {
            let h = resp.headers_mut();
            h.insert("x-ratelimit-limit", HeaderValue::from(r.limit));
            h.insert("x-ratelimit-remaining", HeaderValue::from(r.remaining));
            // A Unix time, as the real API sends it (and packngo reads it).
            let reset = r.reset_at(std::time::SystemTime::now());
            h.insert("x-ratelimit-reset", HeaderValue::from(reset));
        }
        if self.config.record_replies {
            if let Some(body) = reply::kept_body(&resp) {
                let reply = RecordedReply {
                    operation: operation.to_string(),
                    status: resp.status().as_u16(),
                    content_type: resp
                        .headers()
                        .get(header::CONTENT_TYPE)
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_string),
                    body,
                };
                self.recorded
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(reply);
            }
        }
        resp
    }
}
