//! The one pipeline every API request runs, whether it came over HTTP or
//! in-process, whatever it is routed to (an operation, a method its path
//! does not serve, no route):
//!
//! 1. `auth`: the `X-Auth-Token`, read from the head only (`401`): the
//!    server's token sees everything, a token of the world what it says.
//! 2. `rate`: the server-side rate limit (`429` with `Retry-After`);
//!    requests without a valid token spend nothing.
//! 3. `access`: ownership of the thing the path names (`403`), said by its
//!    resource.
//! 4. `body`: the body, read only now, within size and time (`413`,
//!    `408`).
//! 5. `act` (prepare): the call read by its operation's handler (`404`,
//!    `422`, or `501` for an operation nobody serves), before any fault.
//! 6. `fault`: the call's fault drawn (scripted or random), latency
//!    waited; a fault "before" stops here, and nothing changes.
//! 7. `act`: the model (or a test's handler) acts, with what the caller
//!    sees passed in.
//! 8. `record`: the call log and counters, written here alone, for every
//!    outcome; then the outcome goes on the wire (`wire`) with the headers
//!    every reply carries.
//!
//! Each step takes the request's [`Context`] and returns it, or stops
//! with the [`Outcome`] to send. The operation is the one the router
//! matched, or the one the in-process exchange was handed; nothing looks
//! it up again. This file holds what the steps share (the context, the
//! outcome, the pipeline) and runs them; each step's file implements it
//! on [`Pipeline`], using what is here and never the other way round.
//! Below the steps, what they are made of:
//!
//! - `config`: how the fake serves ([`ServerConfig`], [`RecordedReply`]).
//! - `guard`: what the access step checks again under the act's lock.
//! - `bucket`: the rate limit's token bucket and its headers.
//! - `reply`: replies as the API sends them.
//! - `kill`: the per-connection kill signal (the dropped-connection
//!   faults).

mod access;
mod act;
mod auth;
mod body;
mod bucket;
mod config;
mod fault;
mod guard;
mod kill;
mod rate;
mod record;
mod reply;
mod wire;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use axum::response::Response;
use metal_api::operation::Operation;
use tokio::time::Instant;
use uuid::Uuid;

use crate::call::{ApiError, Params, Reply};
use crate::faults::FaultKind;
use crate::model::Access;
use crate::store::Store;
use bucket::{Bucket, RateHeaders};
use guard::Guard;

pub use config::{
    RecordedReply, ServerConfig, DEFAULT_BODY_LIMIT, DEFAULT_BODY_TIMEOUT, DEFAULT_HEADER_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS, DEFAULT_WRITE_TIMEOUT,
};
pub(crate) use kill::{ConnKill, Kill};

/// Where recorded replies go (see [`ServerConfig::record_replies`]).
pub(crate) type Recorded = Arc<Mutex<Vec<RecordedReply>>>;

/// What a request was routed to.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Route {
    /// An operation of the spec.
    Operation(&'static Operation),
    /// A path of the spec, with a method it does not serve (`405`).
    NotAllowed,
    /// A path the spec does not have (`404`).
    NotFound,
}

/// One request as it passes the steps.
#[derive(Debug)]
pub(crate) struct Context {
    pub(crate) route: Route,
    /// Its method, path and query, for the call log.
    pub(crate) request: RequestLine,
    /// When it arrived, on the fake's clock.
    pub(crate) arrived: Instant,
    /// What its token sees (set by `auth`).
    pub(crate) caller: Access,
    /// The rate limit's headers for its reply (set by `auth` and `rate`).
    pub(crate) rate: Option<RateHeaders>,
    /// The ID its path names, which a targeted fault matches.
    pub(crate) target: Option<Uuid>,
    /// What the access step checked, for the act step to check again
    /// under its lock.
    pub(crate) guard: Option<Guard>,
    /// Its fault (set by `fault`).
    pub(crate) fault: Option<FaultKind>,
}

/// What the call log keeps of a request: never its headers (the token
/// travels there); its body bounded and redacted (set by `body`).
#[derive(Debug)]
pub(crate) struct RequestLine {
    pub(crate) method: axum::http::Method,
    pub(crate) path: String,
    pub(crate) query: Option<String>,
    /// What the log keeps of the body ([`crate::log::kept_body`]), once
    /// read.
    pub(crate) body: Option<String>,
}

impl Context {
    /// The operationId, or `"unknown"` for a request routed to none.
    pub(crate) fn operation_id(&self) -> &'static str {
        match self.route {
            Route::Operation(op) => op.id,
            Route::NotAllowed | Route::NotFound => "unknown",
        }
    }

    /// Stops the pipeline here with `outcome`.
    pub(crate) fn stop(self, outcome: Outcome) -> Box<Stopped> {
        Box::new(Stopped { cx: self, outcome })
    }
}

/// A request the pipeline stopped, and why.
#[derive(Debug)]
pub(crate) struct Stopped {
    cx: Context,
    outcome: Outcome,
}

/// A step's result: the context goes on, or the request stops.
pub(crate) type Step<T = Context> = Result<T, Box<Stopped>>;

/// What one request came to, before it is put on the wire.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// A normal reply (an API refusal is a normal reply too).
    Reply(Result<Reply, ApiError>),
    /// A bad or missing token: the real API's `401` body.
    Unauthorized,
    /// A refusal that closes the connection (the body too large or too
    /// slow).
    Closing(ApiError),
    /// Never reached the server; nothing changed.
    NotSent,
    /// An injected error status (before or after acting).
    Failed { status: u16 },
    /// 429 with `Retry-After`; nothing changed.
    Throttled { retry_after: Duration },
    /// A proxy's HTML 502; nothing changed.
    BadGateway,
    /// Applied; the connection dropped before the reply.
    Dropped,
    /// Applied; the reply never comes.
    Hang,
    /// Applied; the reply is cut short.
    Truncated(Result<Reply, ApiError>),
}

/// What every request of one router runs through: the fake's state, how
/// the router serves, the rate limit's bucket, and the recorded replies.
#[derive(Clone)]
pub(crate) struct Pipeline {
    store: Arc<Store>,
    config: Arc<ServerConfig>,
    bucket: Arc<Mutex<Bucket>>,
    recorded: Recorded,
}

impl Pipeline {
    pub(crate) fn new(store: Arc<Store>, config: ServerConfig) -> Self {
        let bucket = Bucket::full(config.rate_limit.unwrap_or(0), Instant::now());
        Self {
            store,
            config: Arc::new(config),
            bucket: Arc::new(Mutex::new(bucket)),
            recorded: Recorded::default(),
        }
    }

    /// Where replies are recorded.
    pub(crate) fn recorded(&self) -> &Recorded {
        &self.recorded
    }

    /// The control API's token, if it has one.
    pub(crate) fn control_token(&self) -> Option<String> {
        self.config.control_token.clone()
    }

    /// The fake's state.
    pub(crate) fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Serves one request routed to `route`, whose path parameters are
    /// `params` (`None` when they do not decode: that path names
    /// nothing); `kill` drops its connection.
    pub(crate) async fn serve(
        &self,
        route: Route,
        params: Option<Params>,
        kill: Option<ConnKill>,
        request: Request<Body>,
    ) -> Response {
        let cx = Context {
            route,
            request: RequestLine {
                method: request.method().clone(),
                path: request.uri().path().to_string(),
                query: request.uri().query().map(str::to_string),
                body: None,
            },
            arrived: self.store.now(),
            caller: Access::All,
            rate: None,
            target: None,
            guard: None,
            fault: None,
        };
        let (cx, outcome) = match self.run(cx, params, request).await {
            Ok(done) => done,
            Err(stopped) => (stopped.cx, stopped.outcome),
        };
        self.record(&cx, &outcome);
        self.send(&cx, outcome, kill).await
    }

    /// The steps, in order.
    async fn run(
        &self,
        cx: Context,
        params: Option<Params>,
        request: Request<Body>,
    ) -> Step<(Context, Outcome)> {
        let (parts, body) = request.into_parts();
        let cx = self.auth(cx, &parts.headers)?;
        let cx = self.rate_limit(cx)?;
        let operation = match cx.route {
            Route::Operation(op) => op,
            Route::NotAllowed => {
                return Err(cx.stop(Outcome::Reply(Err(ApiError::new(
                    405,
                    "Method not allowed",
                )))))
            }
            Route::NotFound => return Err(cx.stop(Outcome::Reply(Err(ApiError::not_found())))),
        };
        let Some(params) = params else {
            return Err(cx.stop(Outcome::Reply(Err(ApiError::not_found()))));
        };
        let cx = self.access(cx, operation, &params)?;
        let (mut cx, body) = self.body(cx, body).await?;
        cx.request.body = crate::log::kept_body(&body);
        // Every pair, repeated keys too (Call::new reads lists from them).
        let query = axum::extract::Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
            .map(|q| q.0)
            .unwrap_or_default();
        let (cx, action) = self.prepare(cx, operation, params, query, body)?;
        let cx = self.fault(cx).await?;
        Ok(self.act(cx, action).await)
    }
}
