//! The fake called in-process, without sockets, as the
//! [`metal_api::Exchange`] of [`Fake`].
//!
//! The generated client hands each request with its operation. A request
//! whose method and path are that operation's goes straight into the
//! pipeline with it (the operation is used, not looked up again); any
//! other request (a test's raw request to a path of its choosing) is
//! served by the router, as over HTTP. The response becomes a
//! `reqwest::Response` whose body streams from the pipeline's, so a body
//! cut short fails when read, as over HTTP. A request whose connection is
//! dropped fails as a connection would: [`ExchangeError::NotSent`] for the
//! [`crate::FaultKind::NotSent`] fault (in-process can say "never sent"),
//! [`ExchangeError::NoReply`] after acting. A hung reply pends until the
//! caller gives up. Nothing here sleeps in real time, so tokio's paused
//! clock works.

use axum::body::Body;
use metal_api::exchange::{fail, BoxFuture, Exchange, ExchangeError};
use metal_api::operation::Operation;
use tower::ServiceExt;

use crate::call::Params;
use crate::fake::Fake;
use crate::model::render::API_PREFIX;
use crate::pipeline::{ConnKill, Kill, Route};

impl Exchange for Fake {
    fn exchange<'a>(
        &'a self,
        operation: &'static Operation,
        request: reqwest::Request,
    ) -> BoxFuture<'a, reqwest::Result<reqwest::Response>> {
        Box::pin(async move {
            let kill = ConnKill::default();
            let request = match to_http(request, kill.clone()) {
                Ok(request) => request,
                Err(e) => return fail(ExchangeError::NotSent(e)).await,
            };
            let served = async {
                match params_of(operation, &request) {
                    Some(params) => {
                        self.pipeline()
                            .serve(
                                Route::Operation(operation),
                                params,
                                Some(kill.clone()),
                                request,
                            )
                            .await
                    }
                    None => self
                        .router()
                        .clone()
                        .oneshot(request)
                        .await
                        .unwrap_or_else(|never| match never {}),
                }
            };
            tokio::select! {
                response = served => Ok(to_reqwest(response)),
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

/// The path parameters of `request` when its method and path are
/// `operation`'s (`Some(None)`: its path, with parameters that do not
/// decode); `None` when the request is not of `operation`.
#[allow(clippy::option_option)]
fn params_of(operation: &Operation, request: &axum::http::Request<Body>) -> Option<Option<Params>> {
    if request.method().as_str() != operation.method.as_str() {
        return None;
    }
    let path = request.uri().path().strip_prefix(API_PREFIX)?;
    let mut pattern = operation.path.split('/');
    let mut given = path.split('/');
    let mut params = Params::new();
    let mut decodes = true;
    loop {
        match (pattern.next(), given.next()) {
            (None, None) => break,
            (Some(p), Some(g)) => match p.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                Some(name) if !g.is_empty() => match percent_decode(g) {
                    Some(value) => {
                        params.push((name.to_string(), value));
                    }
                    None => decodes = false,
                },
                Some(_) => return None,
                None if p == g => {}
                None => return None,
            },
            _ => return None,
        }
    }
    Some(decodes.then_some(params))
}

/// `text` percent-decoded as UTF-8 (`None` when it is not).
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
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

/// The pipeline's response as reqwest's, its body streamed as it is
/// produced.
fn to_reqwest(response: axum::http::Response<Body>) -> reqwest::Response {
    let (parts, body) = response.into_parts();
    let body = reqwest::Body::wrap_stream(body.into_data_stream());
    reqwest::Response::from(axum::http::Response::from_parts(parts, body))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(method: &str, path: &str) -> axum::http::Request<Body> {
        axum::http::Request::builder()
            .method(method)
            .uri(path)
            .body(Body::empty())
            .unwrap()
    }

    #[test]
    fn a_request_of_its_operation_has_its_parameters_decoded() {
        let op = &metal_api::operation::PERFORM_ACTION;
        let got = params_of(op, &request("POST", "/metal/v1/devices/a%20b/actions"));
        assert_eq!(got, Some(Some(vec![("id".to_string(), "a b".to_string())])));
        assert_eq!(
            params_of(op, &request("POST", "/metal/v1/devices/%ff/actions")),
            Some(None),
            "not UTF-8"
        );
    }

    #[test]
    fn a_request_of_another_path_or_method_is_not_its_operation() {
        let op = &metal_api::operation::FIND_DEVICE_BY_ID;
        assert_eq!(
            params_of(op, &request("GET", "/metal/v1/devices/x/actions")),
            None
        );
        assert_eq!(
            params_of(op, &request("DELETE", "/metal/v1/devices/x")),
            None
        );
        assert_eq!(params_of(op, &request("GET", "/metal/v1/devices/")), None);
        assert_eq!(params_of(op, &request("GET", "/elsewhere/devices/x")), None);
    }
}
