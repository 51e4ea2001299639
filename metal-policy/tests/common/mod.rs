//! A scripted [`Exchange`] for the policy's tests: it stands where reqwest
//! (or the fake's router) stands below the generated client, answers each
//! request with real HTTP (or a failure to send, no reply, a hang) from a
//! function of (operation, request, index), and logs what it saw and when
//! on tokio's clock.
//!
//! Each test binary uses part of it.
#![allow(dead_code)]

pub mod loopback;
pub mod trace;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use metal_api::exchange::{fail, BoxFuture, Exchange, ExchangeError};
use metal_api::Operation;
use metal_policy::{Backoff, BackoffFactory, Client, ClientBuilder};
use reqwest::header::HeaderMap;
use serde_json::Value;
use tokio::time::Instant;
use uuid::Uuid;

/// The base URL of every scripted client (never resolved: nothing leaves
/// the process).
pub const BASE_URL: &str = "http://scripted.invalid/metal/v1";
const BASE_PATH: &str = "/metal/v1";

/// What the script answers to one request.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A real HTTP reply.
    Http {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// The request never left (connection refused).
    NotSent,
    /// Sent, and no reply came back (the connection dropped).
    Dropped,
    /// Never answers.
    Hang,
}

impl Reply {
    /// `status` with `body` as JSON.
    pub fn json(status: u16, body: impl serde::Serialize) -> Self {
        Self::Http {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: serde_json::to_string(&body).expect("serializable"),
        }
    }

    /// The operation's success status with `body` as JSON.
    pub fn ok(op: &Operation, body: impl serde::Serialize) -> Self {
        Self::json(op.success, body)
    }

    /// The operation's success status with no body (a 202 or 204).
    pub fn done(op: &Operation) -> Self {
        Self::text(op.success, "")
    }

    /// `status` with a plain body.
    pub fn text(status: u16, body: &str) -> Self {
        Self::Http {
            status,
            headers: vec![],
            body: body.into(),
        }
    }

    /// `status` with the API's error shape.
    pub fn errors(status: u16, messages: &[&str]) -> Self {
        Self::json(status, serde_json::json!({ "errors": messages }))
    }

    /// A refusal whose message names its status: `server says 404`.
    pub fn rejected(status: u16) -> Self {
        Self::errors(status, &[&format!("server says {status}")])
    }

    /// A 502 from a proxy: the server may have acted.
    pub fn bad_gateway() -> Self {
        Self::errors(502, &["bad gateway"])
    }

    /// A 429 asking to come back in `seconds`.
    pub fn throttled(seconds: u64) -> Self {
        Self::errors(429, &["Too many requests"]).header("retry-after", &seconds.to_string())
    }

    /// The same reply with one more header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        if let Self::Http { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }

    fn into_response(self) -> Option<reqwest::Response> {
        let Self::Http {
            status,
            headers,
            body,
        } = self
        else {
            return None;
        };
        let mut builder = http::Response::builder().status(status);
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        let reply = builder
            .body(reqwest::Body::from(body))
            .expect("a valid scripted reply");
        Some(reqwest::Response::from(reply))
    }
}

/// One request as the script saw it.
#[derive(Clone, Debug)]
pub struct Seen {
    /// When it reached the exchange (after its slot and turn).
    pub at: Instant,
    /// Its operationId.
    pub op: &'static str,
    /// Its method.
    pub method: String,
    /// Its path below the base URL, with the query.
    pub path: String,
    /// Its JSON body, if it had one.
    pub body: Option<Value>,
}

impl Seen {
    /// The first UUID in the path (the `{id}` of the operation).
    pub fn id(&self) -> Uuid {
        id_in(&self.path)
    }

    /// A query parameter's value.
    pub fn query(&self, name: &str) -> Option<String> {
        let (_, query) = self.path.split_once('?')?;
        query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            (k == name).then(|| v.replace("%2C", ","))
        })
    }

    /// The body's `tags`.
    pub fn tags(&self) -> Vec<String> {
        self.body
            .as_ref()
            .and_then(|b| b["tags"].as_array().cloned())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect()
    }
}

/// The first UUID among a path's segments.
pub fn id_in(path: &str) -> Uuid {
    path.split(['/', '?'])
        .find_map(|s| Uuid::parse_str(s).ok())
        .unwrap_or_else(|| panic!("no id in {path}"))
}

/// How the script saw `request`.
pub fn seen(op: &'static Operation, request: &reqwest::Request) -> Seen {
    let url = request.url();
    let path = url.path().strip_prefix(BASE_PATH).unwrap_or(url.path());
    let path = match url.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.to_string(),
    };
    Seen {
        at: Instant::now(),
        op: op.id,
        method: request.method().to_string(),
        path,
        body: request
            .body()
            .and_then(|b| b.as_bytes())
            .filter(|b| !b.is_empty())
            .map(|b| serde_json::from_slice(b).expect("a JSON request body")),
    }
}

type Handler = dyn Fn(&'static Operation, &Seen, usize) -> Reply + Send + Sync;

/// An exchange that answers with a function of (operation, request, index
/// of this request), optionally takes time, and logs what it saw and when.
pub struct Script {
    handler: Box<Handler>,
    latency: Duration,
    log: Mutex<Vec<Seen>>,
    pub in_flight: AtomicUsize,
    pub max_in_flight: AtomicUsize,
}

impl Script {
    /// Answers with `handler` after `latency`.
    pub fn new(
        latency: Duration,
        handler: impl Fn(&'static Operation, &Seen, usize) -> Reply + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(Self {
            handler: Box::new(handler),
            latency,
            log: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
        })
    }

    /// Every request seen, in order.
    pub fn requests(&self) -> Vec<Seen> {
        self.log.lock().unwrap().clone()
    }

    /// When each request arrived.
    pub fn times(&self) -> Vec<Instant> {
        self.requests().iter().map(|s| s.at).collect()
    }

    /// The operationIds seen, in order.
    pub fn ops(&self) -> Vec<&'static str> {
        self.requests().iter().map(|s| s.op).collect()
    }

    /// How many requests of `op` were seen.
    pub fn count(&self, op: &str) -> usize {
        self.requests().iter().filter(|s| s.op == op).count()
    }

    /// The generated client over this script.
    pub fn api(self: &Arc<Self>) -> metal_api::Client {
        metal_api::Client::over(BASE_URL, HeaderMap::new(), self.clone()).unwrap()
    }
}

struct InFlight<'a>(&'a AtomicUsize);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Exchange for Script {
    fn exchange<'a>(
        &'a self,
        operation: &'static Operation,
        request: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
        Box::pin(async move {
            let seen = seen(operation, &request);
            let n = {
                let mut log = self.log.lock().unwrap();
                log.push(seen.clone());
                log.len() - 1
            };
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            let _guard = InFlight(&self.in_flight);
            self.max_in_flight.fetch_max(now, Ordering::SeqCst);
            if !self.latency.is_zero() {
                tokio::time::sleep(self.latency).await;
            }
            let reply = (self.handler)(operation, &seen, n);
            match reply {
                Reply::NotSent => fail(ExchangeError::NotSent("connection refused".into())).await,
                Reply::Dropped => fail(ExchangeError::NoReply("connection reset".into())).await,
                Reply::Hang => std::future::pending().await,
                http => Ok(http.into_response().expect("an HTTP reply")),
            }
        })
    }
}

/// The script's replies, with bodies bounded by `max` bytes as the default
/// exchange bounds them.
pub struct Bounded(pub Arc<Script>, pub u64);

impl Exchange for Bounded {
    fn exchange<'a>(
        &'a self,
        operation: &'static Operation,
        request: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
        Box::pin(async move {
            let reply = self.0.exchange(operation, request).await?;
            metal_api::exchange::limit_body(reply, self.1).await
        })
    }
}

/// A fixed delay, forever (`None`) or for `limit` retries.
pub struct Fixed(pub Duration, pub Option<usize>);

impl BackoffFactory for Fixed {
    fn start(&self) -> Box<dyn Backoff> {
        struct S(Duration, Option<usize>);
        impl Backoff for S {
            fn next_delay(&mut self) -> Option<Duration> {
                match &mut self.1 {
                    Some(0) => None,
                    Some(n) => {
                        *n -= 1;
                        Some(self.0)
                    }
                    None => Some(self.0),
                }
            }
        }
        Box::new(S(self.0, self.1))
    }
}

/// A policy client over `script`: no client-side rate limit, a fixed 1 s
/// backoff forever.
pub fn client(script: Arc<Script>) -> ClientBuilder {
    Client::builder()
        .api(script.api())
        .api_rate(Duration::ZERO)
        .backoff(Arc::new(Fixed(Duration::from_secs(1), None)))
}

/// A device with this id and tags, as JSON.
pub fn device(id: Uuid, tags: &[&str]) -> metal_api::types::Device {
    metal_api::types::Device {
        id: Some(id),
        tags: tags.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    }
}

/// A device in `state`.
pub fn device_with_state(id: Uuid, state: &str) -> metal_api::types::Device {
    metal_api::types::Device {
        id: Some(id),
        state: Some(state.into()),
        ..Default::default()
    }
}

/// A gauge's value (NaN when absent).
pub fn gauge(registry: &prometheus::Registry, name: &str) -> f64 {
    registry
        .gather()
        .into_iter()
        .find(|f| f.name() == name)
        .map(|f| f.get_metric()[0].get_gauge().get_value())
        .unwrap_or(f64::NAN)
}

/// The registry's metrics in the text format.
pub fn metrics_text(registry: &prometheus::Registry) -> String {
    prometheus::TextEncoder::new()
        .encode_to_string(&registry.gather())
        .unwrap()
}

/// Asserts each line appears in `text`.
pub fn assert_lines(text: &str, lines: &[&str]) {
    for line in lines {
        assert!(text.contains(line), "missing {line}\n{text}");
    }
}
