//! The fake served over HTTP: an axum 0.8 app at `/metal/v1/...` with the
//! wire format of `openapi/metal.json` (bodies are `metal-api`'s generated
//! types), `X-Auth-Token` checked, server-side rate limiting with
//! `X-RateLimit-*` headers, and wire-level faults (a dropped connection, a
//! reply that never comes, an HTML 502, a body cut short).
//!
//! `GET /_fake/state` (outside the API prefix, no token) returns the
//! [`crate::Snapshot`] as JSON.
//!
//! Connections are served with hyper directly rather than `axum::serve`, so
//! a handler can drop its own connection (the "dropped connection" faults).

use std::collections::HashMap;
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Extension, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::Response as HttpResponse;
use axum::routing::get;
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use metal_api::types;
use metal_policy::{KeyOwner, Request, Response};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::{oneshot, Notify};
use tokio::task::{JoinHandle, JoinSet};
use tokio::time::Instant;
use uuid::Uuid;

use crate::fake::{success_status, Exchange, Fake};
use crate::model::ApiError;
use crate::render::{API_PREFIX, DEFAULT_PER_PAGE};
use crate::transport::whole_seconds;

/// How the server runs: the token it accepts and its rate limit.
#[derive(Clone)]
pub struct ServerConfig {
    token: String,
    rate_limit: Option<u32>,
    record_replies: bool,
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerConfig")
            .field("token", &"<redacted>")
            .field("rate_limit", &self.rate_limit)
            .field("record_replies", &self.record_replies)
            .finish()
    }
}

impl ServerConfig {
    /// Accepts requests whose `X-Auth-Token` is `token`; no rate limit.
    pub fn new(token: impl Into<String>) -> Self {
        Self {
            token: token.into(),
            rate_limit: None,
            record_replies: false,
        }
    }

    /// At most `per_second` API requests per second, with bursts of up to one
    /// second's worth (a token bucket; `None` or 0:
    /// no limit and no `X-RateLimit-*` headers). Over the limit, 429 with
    /// `Retry-After`.
    pub fn rate_limit(mut self, per_second: Option<u32>) -> Self {
        self.rate_limit = per_second.filter(|n| *n > 0);
        self
    }

    /// Keeps a copy of every complete reply (see
    /// [`ServerHandle::recorded_replies`]), for tests that check bodies
    /// against the spec.
    pub fn record_replies(mut self, on: bool) -> Self {
        self.record_replies = on;
        self
    }
}

/// One complete reply the server sent (recorded when
/// [`ServerConfig::record_replies`] is on).
#[derive(Clone, Debug, PartialEq)]
pub struct RecordedReply {
    /// The operationId, or `"unknown"`.
    pub operation: String,
    /// The status.
    pub status: u16,
    /// The `Content-Type`, if any.
    pub content_type: Option<String>,
    /// The body.
    pub body: Bytes,
}

/// A running server. Dropping it stops the server.
#[derive(Debug)]
pub struct ServerHandle {
    addr: SocketAddr,
    base_url: String,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
    recorded: Arc<Mutex<Vec<RecordedReply>>>,
}

impl ServerHandle {
    /// The API's base URL, `http://HOST:PORT/metal/v1`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The replies recorded so far.
    pub fn recorded_replies(&self) -> Vec<RecordedReply> {
        self.recorded
            .lock()
            .map(|r| r.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }

    /// Stops accepting, closes every connection and waits for the server
    /// task to end.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = (&mut self.task).await;
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Binds `addr` (port 0 picks a free port) and serves `fake` on it.
pub async fn bind(
    fake: Fake,
    addr: impl ToSocketAddrs,
    config: ServerConfig,
) -> std::io::Result<ServerHandle> {
    serve(fake, TcpListener::bind(addr).await?, config)
}

/// Serves `fake` on `listener`, in a background task.
pub fn serve(
    fake: Fake,
    listener: TcpListener,
    config: ServerConfig,
) -> std::io::Result<ServerHandle> {
    let addr = listener.local_addr()?;
    let recorded = Arc::new(Mutex::new(Vec::new()));
    let bucket = Bucket::full(config.rate_limit.unwrap_or(0), Instant::now());
    let app = AppState {
        fake,
        config: Arc::new(config),
        bucket: Arc::new(Mutex::new(bucket)),
        recorded: recorded.clone(),
    };
    let router = Router::new()
        .route("/_fake/state", get(fake_state))
        .fallback(api)
        .with_state(app);
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(accept_loop(listener, router, rx));
    Ok(ServerHandle {
        addr,
        base_url: format!("http://{addr}{API_PREFIX}"),
        shutdown: Some(tx),
        task,
        recorded,
    })
}

/// A handle a handler uses to close its own connection.
#[derive(Clone)]
struct ConnKill(Arc<Notify>);

async fn accept_loop(listener: TcpListener, router: Router, mut shutdown: oneshot::Receiver<()>) {
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        tracing::warn!("metal-fake: accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                let kill = Arc::new(Notify::new());
                let svc = TowerToHyperService::new(
                    router.clone().layer(Extension(ConnKill(kill.clone()))),
                );
                conns.spawn(async move {
                    let conn = hyper::server::conn::http1::Builder::new()
                        .timer(TokioTimer::new())
                        .serve_connection(TokioIo::new(stream), svc);
                    tokio::select! {
                        _ = conn => {}
                        _ = kill.notified() => {}
                    }
                });
                while conns.try_join_next().is_some() {}
            }
        }
    }
    conns.shutdown().await;
}

#[derive(Clone)]
struct AppState {
    fake: Fake,
    config: Arc<ServerConfig>,
    bucket: Arc<Mutex<Bucket>>,
    recorded: Arc<Mutex<Vec<RecordedReply>>>,
}

/// The server-side rate limit: a token bucket holding one second's worth of
/// requests, refilled continuously at the limit. A client spacing its
/// requests at the limit never meets a 429, whatever their phase; a client
/// that bursts meets 429s once the bucket is empty.
struct Bucket {
    tokens: f64,
    last: Instant,
}

impl Bucket {
    fn full(limit: u32, now: Instant) -> Self {
        Self {
            tokens: f64::from(limit),
            last: now,
        }
    }

    /// Refills for the time since the last request, then takes a token.
    fn take(&mut self, limit: u32, now: Instant) -> Result<RateHeaders, RateHeaders> {
        let per_second = f64::from(limit);
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.tokens = (self.tokens + elapsed * per_second).min(per_second);
        self.last = now;
        if self.tokens < 1.0 {
            // Whole seconds until one token is back, at least 1 (the
            // granularity of `Retry-After`).
            let wait = Duration::from_secs_f64((1.0 - self.tokens) / per_second);
            return Err(RateHeaders {
                limit,
                remaining: 0,
                reset: whole_seconds(wait).max(1),
            });
        }
        self.tokens -= 1.0;
        // Whole seconds until the bucket is full again.
        let refill = Duration::from_secs_f64((per_second - self.tokens) / per_second);
        Ok(RateHeaders {
            limit,
            remaining: self.tokens.floor() as u32,
            reset: whole_seconds(refill),
        })
    }
}

/// The `X-RateLimit-*` values of one request.
struct RateHeaders {
    limit: u32,
    remaining: u32,
    reset: u64,
}

impl AppState {
    /// Takes one token for a request: `Err` when the bucket is empty.
    fn admit(&self) -> Result<Option<RateHeaders>, RateHeaders> {
        let Some(limit) = self.config.rate_limit else {
            return Ok(None);
        };
        let mut b = self.bucket.lock().unwrap_or_else(|e| e.into_inner());
        b.take(limit, Instant::now()).map(Some)
    }

    fn finish(
        &self,
        operation: &str,
        rate: Option<&RateHeaders>,
        mut resp: HttpResponse,
    ) -> HttpResponse {
        if let Some(r) = rate {
            let h = resp.headers_mut();
            h.insert("x-ratelimit-limit", HeaderValue::from(r.limit));
            h.insert("x-ratelimit-remaining", HeaderValue::from(r.remaining));
            h.insert("x-ratelimit-reset", HeaderValue::from(r.reset));
        }
        if self.config.record_replies {
            if let Some(body) = full_body(&resp) {
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

/// The body of a response built here from bytes (never a stream), for
/// recording. Bodies are kept as an extension when built.
fn full_body(resp: &HttpResponse) -> Option<Bytes> {
    resp.extensions().get::<KeptBody>().map(|k| k.0.clone())
}

#[derive(Clone)]
struct KeptBody(Bytes);

fn with_body(status: u16, content_type: Option<&'static str>, body: Bytes) -> HttpResponse {
    let mut resp = HttpResponse::new(Body::from(body.clone()));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if let Some(ct) = content_type {
        resp.headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(ct));
    }
    resp.extensions_mut().insert(KeptBody(body));
    resp
}

fn json_reply(status: u16, body: Vec<u8>) -> HttpResponse {
    with_body(status, Some("application/json"), Bytes::from(body))
}

fn error_reply(status: u16, messages: Vec<String>) -> HttpResponse {
    let body = types::Error {
        error: None,
        errors: messages,
    };
    json_reply(status, serde_json::to_vec(&body).unwrap_or_default())
}

fn empty_reply(status: u16) -> HttpResponse {
    with_body(status, None, Bytes::new())
}

/// The JSON body of a successful response; `None` for no body.
fn response_body(response: &Response) -> Option<serde_json::Result<Vec<u8>>> {
    Some(match response {
        Response::Project(p) => serde_json::to_vec(p),
        Response::Device(d) => serde_json::to_vec(d),
        Response::Devices(l) => serde_json::to_vec(l),
        Response::Reservation(r) => serde_json::to_vec(r),
        Response::Reservations(l) => serde_json::to_vec(l),
        Response::SshKey(k) => serde_json::to_vec(k),
        Response::SshKeys(l) => serde_json::to_vec(l),
        _ => return None,
    })
}

fn reply_of(operation: &str, result: Result<Response, ApiError>) -> HttpResponse {
    match result {
        Ok(response) => {
            let status = success_status(operation);
            match response_body(&response) {
                None => empty_reply(status),
                Some(Ok(body)) => json_reply(status, body),
                Some(Err(e)) => error_reply(500, vec![format!("fake: encoding the reply: {e}")]),
            }
        }
        Err(e) => error_reply(e.status, e.messages),
    }
}

const BAD_GATEWAY_PAGE: &str = "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n";

async fn fake_state(State(app): State<AppState>) -> HttpResponse {
    match serde_json::to_vec(&app.fake.snapshot()) {
        Ok(body) => json_reply(200, body),
        Err(e) => error_reply(500, vec![e.to_string()]),
    }
}

/// Every `/metal/v1/...` request.
async fn api(
    State(app): State<AppState>,
    Extension(kill): Extension<ConnKill>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> HttpResponse {
    let route = route(&method, uri.path());
    let operation = route.as_ref().map_or("unknown", |r| r.operation);
    let token_ok = headers
        .get("x-auth-token")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t == app.config.token);
    let rate = match app.admit() {
        Ok(rate) => rate,
        Err(rate) => {
            app.fake.shared.record(operation, Some(429));
            let mut resp = error_reply(429, vec!["Rate limit exceeded".to_string()]);
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(rate.reset));
            return app.finish(operation, Some(&rate), resp);
        }
    };
    if !token_ok {
        app.fake.shared.record(operation, Some(401));
        let resp = error_reply(401, vec!["Invalid authentication token".to_string()]);
        return app.finish(operation, rate.as_ref(), resp);
    }
    let Some(route) = route else {
        app.fake.shared.record(operation, Some(404));
        return app.finish(
            operation,
            rate.as_ref(),
            error_reply(404, vec!["Not found".into()]),
        );
    };
    let query: HashMap<String, String> = Query::try_from_uri(&uri)
        .map(|Query(q)| q)
        .unwrap_or_default();
    let request = match route.request(&query, &body) {
        Ok(r) => r,
        Err(e) => {
            app.fake.shared.record(operation, Some(e.status));
            return app.finish(operation, rate.as_ref(), error_reply(e.status, e.messages));
        }
    };
    let resp = match app.fake.shared.exchange(&request).await {
        Exchange::Reply(result) => reply_of(operation, result),
        Exchange::Failed { status } => {
            error_reply(status, vec!["fake: injected server error".to_string()])
        }
        Exchange::Throttled { retry_after } => {
            let mut resp = error_reply(429, vec!["Rate limit exceeded".to_string()]);
            resp.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(whole_seconds(retry_after)),
            );
            resp
        }
        Exchange::BadGateway => with_body(
            502,
            Some("text/html"),
            Bytes::from_static(BAD_GATEWAY_PAGE.as_bytes()),
        ),
        Exchange::NotSent | Exchange::Dropped => return drop_connection(&kill).await,
        Exchange::Hang => return std::future::pending().await,
        Exchange::Truncated(result) => {
            let full = reply_of(operation, result);
            return match full_body(&full) {
                Some(body) if body.len() > 1 => {
                    app.finish(operation, rate.as_ref(), truncate(full, body))
                }
                _ => drop_connection(&kill).await,
            };
        }
    };
    app.finish(operation, rate.as_ref(), resp)
}

/// Closes this request's connection without a reply.
async fn drop_connection(kill: &ConnKill) -> HttpResponse {
    kill.0.notify_one();
    std::future::pending().await
}

/// The same head with a `Content-Length` of the whole body, and a body that
/// stops halfway with an error, which makes hyper abort the connection.
fn truncate(full: HttpResponse, body: Bytes) -> HttpResponse {
    let (mut parts, _) = full.into_parts();
    parts.extensions.remove::<KeptBody>();
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
    let half = body.slice(..body.len() / 2);
    let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
        Ok(half),
        Err(std::io::Error::other("fake: reply body cut short")),
    ];
    HttpResponse::from_parts(parts, Body::from_stream(futures::stream::iter(chunks)))
}

/// A matched API route: its operation and path parameters.
struct Route {
    operation: &'static str,
    kind: RouteKind,
    id: Option<Uuid>,
    bad_id: bool,
}

#[derive(Clone, Copy)]
enum RouteKind {
    GetProject,
    ListDevices,
    CreateDevice,
    GetDevice,
    UpdateDevice,
    DeleteDevice,
    DeviceAction,
    ListReservations,
    GetReservation,
    MoveReservation,
    ListSshKeys(bool),
    CreateSshKey(bool),
    GetSshKey,
    UpdateSshKey,
    DeleteSshKey,
}

fn route(method: &Method, path: &str) -> Option<Route> {
    let rest = path.strip_prefix(API_PREFIX)?;
    let segs: Vec<&str> = rest.trim_matches('/').split('/').collect();
    let m = method.as_str();
    use RouteKind as K;
    let (operation, kind, id) = match (m, segs.as_slice()) {
        ("GET", ["projects", id]) => ("findProjectById", K::GetProject, Some(*id)),
        ("GET", ["projects", id, "devices"]) => ("findProjectDevices", K::ListDevices, Some(*id)),
        ("POST", ["projects", id, "devices"]) => ("createDevice", K::CreateDevice, Some(*id)),
        ("GET", ["projects", id, "hardware-reservations"]) => (
            "findProjectHardwareReservations",
            K::ListReservations,
            Some(*id),
        ),
        ("GET", ["projects", id, "ssh-keys"]) => {
            ("findProjectSSHKeys", K::ListSshKeys(true), Some(*id))
        }
        ("POST", ["projects", id, "ssh-keys"]) => {
            ("createProjectSSHKey", K::CreateSshKey(true), Some(*id))
        }
        ("GET", ["devices", id]) => ("findDeviceById", K::GetDevice, Some(*id)),
        ("PUT", ["devices", id]) => ("updateDevice", K::UpdateDevice, Some(*id)),
        ("DELETE", ["devices", id]) => ("deleteDevice", K::DeleteDevice, Some(*id)),
        ("POST", ["devices", id, "actions"]) => ("performAction", K::DeviceAction, Some(*id)),
        ("GET", ["hardware-reservations", id]) => {
            ("findHardwareReservationById", K::GetReservation, Some(*id))
        }
        ("POST", ["hardware-reservations", id, "move"]) => {
            ("moveHardwareReservation", K::MoveReservation, Some(*id))
        }
        ("GET", ["ssh-keys"]) => ("findSSHKeys", K::ListSshKeys(false), None),
        ("POST", ["ssh-keys"]) => ("createSSHKey", K::CreateSshKey(false), None),
        ("GET", ["ssh-keys", id]) => ("findSSHKeyById", K::GetSshKey, Some(*id)),
        ("PUT", ["ssh-keys", id]) => ("updateSSHKey", K::UpdateSshKey, Some(*id)),
        ("DELETE", ["ssh-keys", id]) => ("deleteSSHKey", K::DeleteSshKey, Some(*id)),
        _ => return None,
    };
    let parsed = id.map(Uuid::parse_str).transpose();
    Some(Route {
        operation,
        kind,
        bad_id: parsed.is_err(),
        id: parsed.ok().flatten(),
    })
}

fn body_of<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body)
        .map_err(|e| ApiError::unprocessable(format!("Invalid request body: {e}")))
}

impl Route {
    /// The request this route and its query and body describe.
    fn request(&self, q: &HashMap<String, String>, body: &[u8]) -> Result<Request, ApiError> {
        if self.bad_id {
            return Err(ApiError::not_found());
        }
        let id = self.id.unwrap_or_default();
        let text = |k: &str| q.get(k).filter(|v| !v.is_empty()).cloned();
        let number = |k: &str, default: u32| -> Result<u32, ApiError> {
            match q.get(k) {
                None => Ok(default),
                Some(v) => v.parse().map_err(|_| {
                    ApiError::unprocessable(format!("{k} must be a positive integer"))
                }),
            }
        };
        use RouteKind as K;
        Ok(match self.kind {
            K::GetProject => Request::GetProject { id },
            K::ListDevices => Request::ListDevices {
                project: id,
                page: number("page", 1)?,
                per_page: number("per_page", DEFAULT_PER_PAGE)?,
                include: text("include"),
            },
            K::CreateDevice => Request::CreateDevice {
                project: id,
                body: body_of(body)?,
            },
            K::GetDevice => Request::GetDevice {
                id,
                include: text("include"),
                exclude: text("exclude"),
            },
            K::UpdateDevice => Request::UpdateDevice {
                id,
                body: body_of(body)?,
            },
            K::DeleteDevice => Request::DeleteDevice {
                id,
                force: q.get("force_delete").is_some_and(|v| v == "true"),
            },
            K::DeviceAction => {
                let input: types::DeviceActionInput = body_of(body)?;
                Request::DeviceAction {
                    id,
                    action: input.type_,
                }
            }
            K::ListReservations => Request::ListReservations {
                project: id,
                page: number("page", 1)?,
                per_page: number("per_page", DEFAULT_PER_PAGE)?,
                include: text("include"),
            },
            K::GetReservation => Request::GetReservation {
                id,
                include: text("include"),
            },
            K::MoveReservation => {
                let input: types::MoveHardwareReservationRequest = body_of(body)?;
                Request::MoveReservation {
                    id,
                    project: input
                        .project_id
                        .ok_or_else(|| ApiError::unprocessable("project_id is required"))?,
                }
            }
            K::ListSshKeys(project) => Request::ListSshKeys {
                owner: owner(project, id),
            },
            K::CreateSshKey(project) => Request::CreateSshKey {
                owner: owner(project, id),
                body: body_of(body)?,
            },
            K::GetSshKey => Request::GetSshKey { id },
            K::UpdateSshKey => Request::UpdateSshKey {
                id,
                body: body_of(body)?,
            },
            K::DeleteSshKey => Request::DeleteSshKey { id },
        })
    }
}

fn owner(project: bool, id: Uuid) -> KeyOwner {
    if project {
        KeyOwner::Project(id)
    } else {
        KeyOwner::User
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_spaced_at_the_limit_are_never_refused() {
        let start = Instant::now();
        let mut bucket = Bucket::full(10, start);
        // Drain the initial burst, then go on at exactly 10 per second.
        for _ in 0..10 {
            assert!(bucket.take(10, start).is_ok());
        }
        for i in 1..=100u64 {
            let at = start + Duration::from_millis(100 * i);
            assert!(bucket.take(10, at).is_ok(), "request {i}");
        }
    }

    #[test]
    fn a_burst_beyond_the_bucket_is_refused_with_a_retry_time() {
        let start = Instant::now();
        let mut bucket = Bucket::full(3, start);
        let remaining: Vec<u32> = (0..3)
            .map(|_| bucket.take(3, start).map(|h| h.remaining).unwrap_or(99))
            .collect();
        assert_eq!(remaining, vec![2, 1, 0]);
        let refused = bucket.take(3, start).err().map(|h| (h.remaining, h.reset));
        assert_eq!(refused, Some((0, 1)));
        // A third of a second later one token is back.
        assert!(bucket.take(3, start + Duration::from_millis(334)).is_ok());
    }
}
