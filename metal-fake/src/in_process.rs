//! The fake called in-process: its router (the one the HTTP server serves)
//! called as a [`tower::Service`], without sockets, as the
//! [`metal_api::Exchange`] of [`Fake`].
//!
//! A `reqwest::Request` becomes an `http::Request` (method, path and
//! query, headers, body), the router answers it, and its response becomes
//! a `reqwest::Response` whose body streams from the router's, so a body
//! cut short fails when read, as over HTTP. A handler that drops its
//! connection fires the request's kill signal; the exchange then fails as
//! a connection would: [`ExchangeError::NotSent`] for the
//! [`crate::FaultKind::NotSent`] fault (in-process can say "never sent"),
//! [`ExchangeError::NoReply`] after acting. A hung reply pends until the
//! caller gives up. Nothing here sleeps in real time, so tokio's paused
//! clock works.

use axum::body::Body;
use metal_api::exchange::{fail, BoxFuture, Exchange, ExchangeError};
use metal_api::operation::Operation;
use tower::ServiceExt;

use crate::fake::Fake;
use crate::router::{ConnKill, Kill};

impl Exchange for Fake {
    fn exchange<'a>(
        &'a self,
        _operation: &'static Operation,
        request: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
        let router = self.router().clone();
        Box::pin(async move {
            let kill = ConnKill::default();
            let request = match to_http(request, kill.clone()) {
                Ok(request) => request,
                Err(e) => return fail(ExchangeError::NotSent(e)).await,
            };
            tokio::select! {
                response = router.oneshot(request) => match response {
                    Ok(response) => Ok(to_reqwest(response)),
                    Err(never) => match never {},
                },
                why = kill.fired() => fail(match why {
                    Kill::NotSent => ExchangeError::NotSent(
                        "metal-fake: connection refused".to_string(),
                    ),
                    Kill::NoReply => ExchangeError::NoReply(
                        "metal-fake: connection closed before the reply".to_string(),
                    ),
                })
                .await,
            }
        })
    }
}

/// The request as the router takes it: the path and query only (the
/// router serves one host), with `kill` in its extensions.
fn to_http(request: reqwest::Request, kill: ConnKill) -> Result<axum::http::Request<Body>, String> {
    let url = request.url();
    let target = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    };
    let uri: axum::http::Uri = target
        .parse()
        .map_err(|e| format!("metal-fake: bad request target {target:?}: {e}"))?;
    let request = axum::http::Request::<reqwest::Body>::try_from(request)
        .map_err(|e| format!("metal-fake: {e}"))?;
    let (mut parts, body) = request.into_parts();
    parts.uri = uri;
    parts.extensions.insert(kill);
    Ok(axum::http::Request::from_parts(parts, Body::new(body)))
}

/// The router's response as reqwest's, its body streamed as the router
/// produces it.
fn to_reqwest(response: axum::http::Response<Body>) -> reqwest::Response {
    let (parts, body) = response.into_parts();
    let body = reqwest::Body::wrap_stream(body.into_data_stream());
    reqwest::Response::from(axum::http::Response::from_parts(parts, body))
}
